#include "timing/warp_rules.h"

#include <algorithm>
#include <span>

namespace softgpu::timing {

void PhaseClock::contribute(uint32_t phase, uint64_t at) {
  if (phase == 0 || phase > at_.size()) return;
  at_[phase - 1] = std::max(at_[phase - 1], at);
  if (left_[phase - 1] > 0) --left_[phase - 1];
}

uint64_t PhaseClock::complete_at(uint32_t phase, bool partial) const {
  if (phase == 0 || phase > at_.size()) return 0;
  if (!partial && left_[phase - 1] > 0) return kNeverCycle;
  return at_[phase - 1];
}

Readiness WarpRules::ready(const CtaTrace& t, const TraceOp& op, const PhaseClock& phases, bool partial) const {
  const std::span<const uint32_t> writes{t.slots.data() + op.slots, op.n_writes};
  const std::span<const uint32_t> reads{t.slots.data() + op.slots + op.n_writes, op.n_reads};
  bool mem = false;
  Readiness r{sb_.ready(reads, writes, mem), mem ? WarpStall::LongScoreboard : WarpStall::Wait};
  auto later = [&](uint64_t at, WarpStall why) {
    if (at > r.at) r = {at, why};
  };
  switch (op.kind) {
    case OpKind::AsyncWait: later(async_done_, WarpStall::LongScoreboard); break;
    case OpKind::TensorWait:
      // wgmma.wait_group N: every group but the newest N has completed.
      for (size_t i = 0; i + op.group_n < groups_.size(); ++i) later(groups_[i], WarpStall::MathPipeThrottle);
      break;
    case OpKind::MbarWait: later(phases.complete_at(op.phase, partial), WarpStall::Barrier); break;
    default: break;
  }
  return r;
}

uint64_t WarpRules::issue(const TimingParams& p, MemorySystem& mem, const CtaTrace& t, const TraceOp& op, uint64_t at,
                          const IssueCost& c, PhaseClock& phases) {
  const Completion r = complete(p, mem, op, t.lines.data() + op.lines, at, c);
  if (r.async_done > 0) async_done_ = std::max(async_done_, ceil_cycle(r.async_done));
  const uint64_t done = std::max(ceil_cycle(r.done), at + 1);
  const std::span<const uint32_t> writes{t.slots.data() + op.slots, op.n_writes};
  if (op.async_tensor) {
    // wgmma.mma_async accumulates in the tensor pipe: the next product into
    // the same registers follows it through the pipe (whose issue interval
    // paces it), and the registers are the program's again only after a
    // wgmma.wait_group, which waits for the group.
    open_group_ = std::max(open_group_, done);
    sb_.write(writes, at + 1, false);
  } else {
    sb_.write(writes, done, r.from_memory);
  }
  if (op.kind == OpKind::TensorCommit) {
    groups_.push_back(std::max(open_group_, at));
    open_group_ = 0;
  } else if (op.kind == OpKind::TensorWait && groups_.size() > op.group_n) {
    groups_.erase(groups_.begin(), groups_.end() - op.group_n);
  }
  if (op.role != PhaseRole::None) {
    uint64_t landed = done;  // an arrival: when the op's update lands
    if (op.role == PhaseRole::Tx) landed = r.async_done > 0 ? ceil_cycle(r.async_done) : done;
    if (op.role == PhaseRole::AsyncArrive) landed = std::max(done, async_done_);
    phases.contribute(op.phase, landed);
  }
  return done;
}

std::string_view stall_name(WarpStall s) {
  switch (s) {
    case WarpStall::Selected: return "selected";
    case WarpStall::NotSelected: return "not_selected";
    case WarpStall::LongScoreboard: return "long_scoreboard";
    case WarpStall::Wait: return "wait";
    case WarpStall::MathPipeThrottle: return "math_pipe_throttle";
    case WarpStall::Barrier: return "barrier";
    case WarpStall::Count_: break;
  }
  return "unknown";
}

}  // namespace softgpu::timing
