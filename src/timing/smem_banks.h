// Shared-memory bank conflicts: how many wavefronts (passes through the 32
// four-byte banks) one warp's shared access takes.
#pragma once
#include <cstdint>

namespace softgpu::timing {

inline constexpr uint32_t kBanks = 32;
inline constexpr uint32_t kBankBytes = 4;

// Accesses of up to 4 bytes go in one phase over the whole warp; 8-byte
// accesses in two phases (lanes 0-15, 16-31) and 16-byte accesses in four
// (8 lanes each), so a conflict-free warp needs size/4 wavefronts at 8 and
// 16 bytes. Within a phase the wavefront count is the largest number of
// distinct 4-byte words any one bank holds; lanes reading the same word
// share it (broadcast). Returns 0 for an empty mask.
uint32_t shared_wavefronts(const uint64_t* lane_addr, uint32_t mask, uint32_t bytes);

}  // namespace softgpu::timing
