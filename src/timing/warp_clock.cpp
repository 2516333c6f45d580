#include "timing/warp_clock.h"

#include <algorithm>
#include <bit>

#include "timing/op_cost.h"

namespace softgpu::timing {

CtaClock::CtaClock(const TimingParams& p, double l2_share, uint32_t warps, const SectorCache* warm)
    : p_(p), share_(l2_share), caches_(p, l2_share), warm_(warm) {
  warps_.reserve(std::max<uint32_t>(warps, 1));
  for (uint32_t i = 0; i < warps; ++i) warp(i);
}

CtaClock::Warp& CtaClock::warp(uint32_t w) {
  while (warps_.size() <= w) {
    warps_.emplace_back(MemorySystem(p_, share_, caches_));
    warps_.back().mem.set_warm(warm_);
  }
  return warps_[w];
}

void CtaClock::step(uint32_t wi, const CtaTrace& t, const TraceOp& op) {
  Warp& w = warp(wi);
  if (t.phases.size() > phases_.size()) phases_.grow(t.phases.size());  // phases the recorder linked since
  // The executor ran `op` only once every phase it waits for was complete,
  // so the contributions it has seen are all there are.
  const uint64_t ready = w.rules.ready(t, op, phases_, true).at;
  const uint64_t at = std::max({w.next_issue, ready, w.pipe_free[size_t(op.pipe)]});
  const IssueCost c = issue_cost(p_, op);
  w.pipe_free[size_t(op.pipe)] = at + c.busy;
  w.rules.issue(p_, w.mem, t, op, at, c, phases_);
  w.next_issue = at + 1;
  if (op.kind == OpKind::Barrier) w.arrived = at;
}

void CtaClock::released(uint32_t warps) {
  uint64_t last = 0;
  for (uint32_t m = warps; m; m &= m - 1) last = std::max(last, warp(uint32_t(std::countr_zero(m))).arrived);
  const uint64_t go = last + std::max<uint32_t>(p_.barrier_latency, 1);
  for (uint32_t m = warps; m; m &= m - 1) {
    Warp& w = warp(uint32_t(std::countr_zero(m)));
    w.next_issue = std::max(w.next_issue, go);
  }
}

uint64_t CtaClock::now(uint32_t w) const { return w < warps_.size() ? warps_[w].next_issue : 0; }

}  // namespace softgpu::timing
