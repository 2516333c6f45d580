#include "timing/sm_model.h"

#include <algorithm>
#include <cmath>
#include <span>

#include "timing/op_cost.h"
#include "timing/warp_rules.h"

namespace softgpu::timing {
namespace {

struct Warp {
  const CtaTrace* cta = nullptr;
  const WarpTrace* tr = nullptr;
  uint32_t slot = 0, sp = 0, index = 0;
  size_t next = 0;
  WarpRules rules;
  uint64_t launch_at = 0;   // the CTA's first cycle
  uint64_t free_at = 0;     // released from a barrier at
  uint64_t last = 0;        // cycle of its last result
  bool at_barrier = false, done = false;
  uint8_t bar_id = 0;
};

struct Slot {
  std::vector<uint32_t> warps;
  uint32_t alive = 0;
  PhaseClock phases;  // the CTA's mbarrier phases
};

class Run {
 public:
  Run(const TimingParams& p, MemorySystem& mem, const std::vector<const CtaTrace*>& ctas, uint32_t resident)
      : p_(p), mem_(mem), ctas_(ctas), sps_(std::max<uint32_t>(p.sub_partitions, 1)), slots_(std::max<uint32_t>(resident, 1)),
        sp_warps_(sps_), last_issued_(sps_, -1), pipe_free_(sps_) {}

  SmStats go() {
    for (uint32_t s = 0; s < slots_.size() && next_cta_ < ctas_.size(); ++s) dispatch(s, 0);
    uint64_t t = 0;
    std::vector<State> state;
    while (alive_ > 0) {
      uint64_t next_event = kNeverCycle;
      tally_.clear();
      picks_.assign(sps_, -1);
      for (uint32_t sp = 0; sp < sps_; ++sp) {
        state.clear();
        int pick = -1;
        for (uint32_t wi : sp_warps_[sp]) {
          State st = eval(wi, t);
          state.push_back(st);
          if (st.ready <= t) { if (choose(sp, wi, pick)) pick = int(wi); }
          else next_event = std::min(next_event, st.ready);
        }
        picks_[sp] = pick;
        for (State st : state) {
          if (!st.launched) continue;
          tally_.push_back(int(st.warp) == pick ? WarpStall::Selected : st.why);
        }
      }
      bool issued = false;
      for (int pk : picks_) issued |= pk >= 0;
      if (!issued && next_event == kNeverCycle) { stats_.deadlock = true; break; }  // barriers that never complete
      const uint64_t dt = issued ? 1 : next_event - t;
      stats_.resident_warp_cycles += dt * tally_.size();
      for (WarpStall why : tally_) stats_.stalls[size_t(why)] += dt;
      for (int pk : picks_)
        if (pk >= 0) issue(uint32_t(pk), t);
      t += dt;
    }
    uint64_t end = 0;
    for (const auto& w : warps_) end = std::max(end, w.last);
    stats_.cycles = std::max(end, t);
    stats_.warp_done.reserve(warps_.size());
    for (const auto& w : warps_) stats_.warp_done.push_back(w.last);
    return stats_;
  }

 private:
  struct State {
    uint32_t warp;
    uint64_t ready;
    WarpStall why;
    bool launched;
  };

  State eval(uint32_t wi, uint64_t t) const {
    const Warp& w = warps_[wi];
    if (w.launch_at > t) return {wi, w.launch_at, WarpStall::Barrier, false};
    if (w.at_barrier) return {wi, kNeverCycle, WarpStall::Barrier, true};
    if (w.free_at > t) return {wi, w.free_at, WarpStall::Barrier, true};
    const TraceOp& op = w.tr->ops[w.next];
    auto [rt, why] = w.rules.ready(*w.cta, op, slots_[w.slot].phases, false);
    if (rt == kNeverCycle) return {wi, kNeverCycle, why, true};  // an mbarrier phase another warp has yet to complete
    const uint64_t pf = pipe_free_[w.sp][size_t(op.pipe)];
    if (pf > rt) { rt = pf; why = WarpStall::MathPipeThrottle; }
    return {wi, std::max(rt, t), rt <= t ? WarpStall::NotSelected : why, true};
  }

  // Whether `wi` (ready) beats the current pick under the policy.
  bool choose(uint32_t sp, uint32_t wi, int pick) const {
    if (pick < 0) return true;
    const int last = last_issued_[sp];
    if (p_.policy == SchedulerPolicy::Gto) {
      if (int(wi) == last) return true;   // greedy: stay on the last warp
      if (pick == last) return false;
      return warps_[wi].index < warps_[uint32_t(pick)].index;  // then the oldest
    }
    // Loose round-robin: the first ready warp after the last one issued.
    auto after = [&](uint32_t x) { return int(x) > last ? int(x) - last : int(x) - last + (1 << 30); };
    return after(wi) < after(uint32_t(pick));
  }

  void dispatch(uint32_t s, uint64_t t) {
    const CtaTrace* c = ctas_[next_cta_++];
    Slot& slot = slots_[s];
    slot.warps.clear();
    slot.alive = 0;
    slot.phases = PhaseClock(*c);
    for (const auto& wt : c->warps) {
      if (wt.ops.empty()) continue;
      Warp w;
      w.cta = c;
      w.tr = &wt;
      w.slot = s;
      w.index = uint32_t(warps_.size());
      w.sp = next_sp_++ % sps_;
      w.launch_at = t + (t ? p_.cta_launch_cycles : 0);
      slot.warps.push_back(w.index);
      sp_warps_[w.sp].push_back(w.index);
      warps_.push_back(std::move(w));
      ++slot.alive;
      ++alive_;
    }
    ++stats_.ctas;
    if (slot.alive == 0 && next_cta_ < ctas_.size()) dispatch(s, t);
  }

  void issue(uint32_t wi, uint64_t t) {
    Warp& w = warps_[wi];
    const TraceOp& op = w.tr->ops[w.next];
    const IssueCost c = issue_cost(p_, op);
    pipe_free_[w.sp][size_t(op.pipe)] = t + c.busy;
    stats_.pipe_busy[size_t(op.pipe)] += std::max<uint64_t>(c.busy, c.slots);
    last_issued_[w.sp] = int(wi);
    const uint64_t dc = w.rules.issue(p_, mem_, *w.cta, op, t, c, slots_[w.slot].phases);
    w.last = std::max(w.last, dc);
    ++stats_.warp_instructions;
    ++w.next;
    if (op.kind == OpKind::Barrier) {
      w.at_barrier = true;
      w.bar_id = op.barrier_id;
    }
    if (op.kind == OpKind::Exit || w.next == w.tr->ops.size()) finish(wi, t);
    else if (op.kind == OpKind::Barrier) try_release(w.slot, w.bar_id, t);
  }

  void finish(uint32_t wi, uint64_t t) {
    Warp& w = warps_[wi];
    w.done = true;
    w.at_barrier = false;
    auto& list = sp_warps_[w.sp];
    list.erase(std::find(list.begin(), list.end(), wi));
    --alive_;
    Slot& slot = slots_[w.slot];
    if (--slot.alive > 0) {
      // Barriers count live warps: an exit may complete one.
      for (uint32_t x : slot.warps)
        if (!warps_[x].done && warps_[x].at_barrier) { try_release(w.slot, warps_[x].bar_id, t); break; }
      return;
    }
    uint64_t end = t + 1;
    for (uint32_t x : slot.warps) end = std::max(end, warps_[x].last);
    if (next_cta_ < ctas_.size()) dispatch(w.slot, end);
  }

  void try_release(uint32_t s, uint8_t id, uint64_t t) {
    const Slot& slot = slots_[s];
    for (uint32_t x : slot.warps) {
      const Warp& o = warps_[x];
      if (!o.done && !(o.at_barrier && o.bar_id == id)) return;
    }
    for (uint32_t x : slot.warps) {
      Warp& o = warps_[x];
      if (o.done) continue;
      o.at_barrier = false;
      o.free_at = t + std::max<uint32_t>(p_.barrier_latency, 1);
    }
  }

  const TimingParams& p_;
  MemorySystem& mem_;
  const std::vector<const CtaTrace*>& ctas_;
  uint32_t sps_;
  std::vector<Slot> slots_;
  std::vector<Warp> warps_;
  std::vector<std::vector<uint32_t>> sp_warps_;
  std::vector<int> last_issued_;
  std::vector<std::array<uint64_t, size_t(program::Pipe::Count_)>> pipe_free_;
  std::vector<int> picks_;
  std::vector<WarpStall> tally_;
  size_t next_cta_ = 0;
  uint32_t next_sp_ = 0;
  uint32_t alive_ = 0;
  SmStats stats_;
};

}  // namespace

SmStats SmModel::run(const std::vector<const CtaTrace*>& ctas, uint32_t resident_ctas) {
  if (ctas.empty()) return {};
  return Run(p_, mem_, ctas, resident_ctas).go();
}

}  // namespace softgpu::timing
