#include "config/occupancy.h"

#include <algorithm>
#include <limits>

namespace softgpu::config {
namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
uint64_t round_up(uint64_t v, uint64_t g) { return g ? (v + g - 1) / g * g : v; }

// cuda_occupancy.h: cudaOccRegAllocationGranularity (256 for CC 3-12),
// cudaOccSubPartitionsPerMultiprocessor (4 for CC 7-12; 2 for 6.0 and 6.x
// parts with two), cudaOccSMemAllocationGranularity (128 from CC 8.0, 256 before).
constexpr uint32_t kRegisterUnit = 256;
uint32_t sub_partitions(const GpuConfig& g) { return g.cc_major >= 7 ? 4 : 2; }
uint32_t shared_unit(const GpuConfig& g) { return g.cc_major >= 8 ? 128 : 256; }

}  // namespace

double Occupancy::fraction() const {
  return max_warps_per_sm ? double(blocks_per_sm) * warps_per_block / double(max_warps_per_sm) : 0;
}

Occupancy occupancy(const GpuConfig& g, const KernelFootprint& k) {
  Occupancy o;
  o.max_warps_per_sm = g.max_warps_per_sm;
  const uint32_t warp = std::max(1u, g.warp_size);
  if (k.threads_per_block == 0 || k.threads_per_block > g.max_threads_per_block) {
    o.limiter = "block size";
    return o;
  }
  const uint32_t warps = uint32_t((k.threads_per_block + warp - 1) / warp);
  o.warps_per_block = warps;
  o.by_blocks = g.max_blocks_per_sm;
  o.by_threads = g.max_threads_per_sm / (warps * warp);
  o.by_warps = g.max_warps_per_sm / warps;
  o.by_registers = kNone;
  if (k.registers_per_thread > 0) {
    const uint64_t per_warp = round_up(uint64_t(k.registers_per_thread) * warp, kRegisterUnit);
    const uint32_t sps = sub_partitions(g);
    // The hardware checks the block against the per-block limit as if its
    // warps were spread over all sub-partitions.
    if (k.registers_per_thread > g.max_registers_per_thread ||
        per_warp * round_up(warps, sps) > g.registers_per_block || per_warp * warps > g.registers_per_block) {
      o.by_registers = 0;
    } else {
      const uint64_t warps_per_sp = (g.registers_per_sm / sps) / per_warp;
      o.by_registers = uint32_t(warps_per_sp * sps / warps);
    }
  }
  const uint64_t smem = round_up(k.shared_bytes + g.reserved_shared_memory_per_block, shared_unit(g));
  const uint64_t smem_limit = std::max(g.shared_memory_per_block_optin, g.shared_memory_per_block) +
                              g.reserved_shared_memory_per_block;
  if (g.shared_memory_per_sm == 0) o.by_shared = kNone;
  else if (smem > smem_limit) o.by_shared = 0;
  else o.by_shared = uint32_t(g.shared_memory_per_sm / smem);
  struct L { uint32_t v; std::string_view name; } limits[] = {
      {o.by_blocks, "blocks"}, {o.by_threads, "threads"}, {o.by_warps, "warps"},
      {o.by_registers, "registers"}, {o.by_shared, "shared memory"}};
  const L* best = &limits[0];
  for (const L& l : limits)
    if (l.v < best->v) best = &l;
  o.blocks_per_sm = best->v;
  o.limiter = best->name;
  return o;
}

}  // namespace softgpu::config
