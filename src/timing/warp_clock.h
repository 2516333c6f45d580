// The time a warp reads from %clock, %clock64 and %globaltimer under the
// timing model. The SM model times a CTA only once its trace is complete,
// too late for a value the program goes on computing with, so these clocks
// are kept while the functional executor runs: each warp has its own issue
// timeline, timed as the SM model would time the warp alone on its
// sub-partition (in order, at most one instruction a cycle, each waiting as
// timing/warp_rules.h says and for its pipe's issue interval; results after
// the pipe's latency or when the memory system has them). The warps of a
// CTA share one L1 and L2 content (so one warp's loads warm the caches for
// the others) but each has its own
// bandwidth queues, and they meet at barriers. What other warps and CTAs do
// to a warp's issue slots and to the bandwidths is not seen: a dependent
// chain (a pointer chase, an FMA chain) reads as on the GPU, a loop sharing
// its SM with other busy warps reads faster than there.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "timing/memory_system.h"
#include "timing/params.h"
#include "timing/trace.h"
#include "timing/warp_rules.h"

namespace softgpu::timing {

class CtaClock {
 public:
  // `l2_share`: the part of the L2 and its bandwidths the CTA's SM gets
  // (as the kernel model gives each SM of the launch); `warm`: what earlier
  // launches left in the L2 (MemorySystem::set_warm), or null.
  CtaClock(const TimingParams& p, double l2_share, uint32_t warps, const SectorCache* warm = nullptr);
  // Warp `w` executed `op` (its register slots and lines in `t`).
  void step(uint32_t w, const CtaTrace& t, const TraceOp& op);
  // A CTA barrier released these warps (bit i = warp i): they go on after
  // the last one's arrival and the barrier latency.
  void released(uint32_t warps);
  // The cycle, from the CTA's start, at which warp w's next instruction
  // issues (what a %clock read there returns, less the CTA's start).
  uint64_t now(uint32_t w) const;

 private:
  struct Warp {
    explicit Warp(MemorySystem m) : mem(std::move(m)) {}
    MemorySystem mem;
    WarpRules rules;
    std::array<uint64_t, size_t(program::Pipe::Count_)> pipe_free{};
    uint64_t next_issue = 0, arrived = 0;
  };
  Warp& warp(uint32_t w);
  const TimingParams& p_;
  double share_;
  Caches caches_;
  const SectorCache* warm_ = nullptr;
  std::vector<Warp> warps_;
  PhaseClock phases_;  // grows with the trace's phases
};

}  // namespace softgpu::timing
