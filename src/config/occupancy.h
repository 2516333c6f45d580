// How many CTAs of a kernel fit on one SM at once: the limits of threads,
// warps, CTA slots, registers and shared memory, computed as NVIDIA's
// occupancy calculator does (the toolkit's include/cuda_occupancy.h):
// registers are allocated per warp in units of 256 and per sub-partition
// (4 on compute capability 7.0 and later), shared memory in units of 128
// bytes (compute capability 8.0 and later; 256 before) with the per-block
// reserved shared memory added. cudaOccupancy*, cooperative-launch limits
// and the timing model all use this one function.
#pragma once
#include <cstdint>
#include <string_view>

#include "config/gpu_config.h"

namespace softgpu::config {

struct KernelFootprint {
  uint64_t threads_per_block = 0;
  uint32_t registers_per_thread = 0;  // 0 = unknown: registers do not limit
  uint64_t shared_bytes = 0;          // static + dynamic, per block
};

struct Occupancy {
  uint32_t blocks_per_sm = 0;
  uint32_t warps_per_block = 0;
  // The limit each resource alone would give (UINT32_MAX = none).
  uint32_t by_blocks = 0, by_threads = 0, by_warps = 0, by_registers = 0, by_shared = 0;
  std::string_view limiter;  // "blocks", "threads", "warps", "registers", "shared memory", or "block size"
  double fraction() const;   // resident warps / max warps per SM
  uint32_t max_warps_per_sm = 0;
};

Occupancy occupancy(const GpuConfig& g, const KernelFootprint& k);

}  // namespace softgpu::config
