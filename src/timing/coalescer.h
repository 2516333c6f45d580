// Coalescing of one warp's global/local memory access into 128-byte lines
// and 32-byte sectors, the units the L1, L2 and DRAM model count.
#pragma once
#include <array>
#include <cstdint>

namespace softgpu::timing {

inline constexpr uint32_t kSectorBytes = 32;
inline constexpr uint32_t kLineBytes = 128;
inline constexpr uint32_t kSectorsPerLine = kLineBytes / kSectorBytes;

struct LineAccess {
  uint64_t line = 0;    // line address (a multiple of kLineBytes)
  uint8_t sectors = 0;  // bit i: sector i of the line is touched
};

// The lines and sectors one warp instruction touches, in ascending line
// order. A warp of 32 lanes with accesses of at most 32 bytes touches at
// most 64 lines (each lane's access can straddle one line boundary).
struct Coalesced {
  uint32_t n_lines = 0;
  std::array<LineAccess, 64> lines{};
  uint32_t sectors() const;  // total sectors touched
};

// lane_addr[l] for each lane l in `mask`; each lane accesses `bytes` bytes.
Coalesced coalesce(const uint64_t* lane_addr, uint32_t mask, uint32_t bytes);

}  // namespace softgpu::timing
