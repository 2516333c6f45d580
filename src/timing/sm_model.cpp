#include "timing/sm_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "timing/scoreboard.h"

namespace softgpu::timing {
namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

struct Warp {
  const CtaTrace* cta = nullptr;
  const WarpTrace* tr = nullptr;
  uint32_t slot = 0, sp = 0, index = 0;
  size_t next = 0;
  Scoreboard sb{0, 0};
  uint64_t launch_at = 0;   // the CTA's first cycle
  uint64_t free_at = 0;     // released from a barrier at
  uint64_t async_done = 0;  // cp.async copies complete at
  uint64_t last = 0;        // cycle of its last result
  bool at_barrier = false, done = false;
  uint8_t bar_id = 0;
};

struct Slot {
  std::vector<uint32_t> warps;
  uint32_t alive = 0;
};

uint64_t ceil_cycle(double d) { return d <= 0 ? 0 : uint64_t(std::ceil(d - 1e-9)); }

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
      uint64_t next_event = kNever;
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
      if (!issued && next_event == kNever) { stats_.deadlock = true; break; }  // barriers that never complete
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

  std::span<const uint32_t> reads(const Warp& w, const TraceOp& op) const {
    return {w.cta->slots.data() + op.slots + op.n_writes, op.n_reads};
  }
  std::span<const uint32_t> writes(const Warp& w, const TraceOp& op) const {
    return {w.cta->slots.data() + op.slots, op.n_writes};
  }

  State eval(uint32_t wi, uint64_t t) const {
    const Warp& w = warps_[wi];
    if (w.launch_at > t) return {wi, w.launch_at, WarpStall::Barrier, false};
    if (w.at_barrier) return {wi, kNever, WarpStall::Barrier, true};
    if (w.free_at > t) return {wi, w.free_at, WarpStall::Barrier, true};
    const TraceOp& op = w.tr->ops[w.next];
    bool mem = false;
    uint64_t rt = w.sb.ready(reads(w, op), writes(w, op), mem);
    WarpStall why = mem ? WarpStall::LongScoreboard : WarpStall::Wait;
    if (op.kind == OpKind::AsyncWait && w.async_done > rt) { rt = w.async_done; why = WarpStall::LongScoreboard; }
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

  // A tensor-core product occupies the tensor pipe in proportion to its
  // work at its type's rate: the configured interval is that of one
  // m16n8k16 f16 -> f32 product (4096 FLOP), so a product of F FLOP at a
  // rate r times that type's takes interval x F / 4096 / r cycles (rounded
  // up to whole cycles, at least one). A type the GPU's tensor cores lack
  // runs 16x slower (emulated). Cycles, not whole intervals: a type faster
  // than the reference (RTX 4090's f16 accumulate, 2x; its int8, 4x) needs
  // less than one interval per product.
  uint64_t tensor_cycles(const TraceOp& op, uint32_t interval) const {
    const TensorRates& r = p_.tensor;
    double rate = 0;
    switch (program::TensorKind(op.tensor)) {
      case program::TensorKind::Fp16F32: rate = r.fp16_f32; break;
      case program::TensorKind::Fp16F16: rate = r.fp16_f16; break;
      case program::TensorKind::Bf16F32: rate = r.bf16_f32; break;
      case program::TensorKind::Tf32: rate = r.tf32; break;
      case program::TensorKind::Fp64: rate = r.fp64; break;
      case program::TensorKind::Int8: rate = r.int8; break;
      case program::TensorKind::Fp8F32: rate = r.fp8_f32; break;
      case program::TensorKind::Fp8F16: rate = r.fp8_f16; break;
      case program::TensorKind::None: break;
    }
    const double ref = r.fp16_f32 > 0 ? r.fp16_f32 : 1;
    const double speed = rate > 0 ? rate / ref : 1.0 / 16;
    return std::max<uint64_t>(1, ceil_cycle(double(interval) * double(op.tensor_flops) / 4096.0 / speed));
  }

  void issue(uint32_t wi, uint64_t t) {
    Warp& w = warps_[wi];
    const TraceOp& op = w.tr->ops[w.next];
    const PipeTiming& pt = p_.pipes[size_t(op.pipe)];
    // A sequence issues `slots` instructions on its pipe and its result
    // waits for `depth` dependent ones.
    uint32_t n = 1, steps = 1;
    if (op.sequence != program::Sequence::None) {
      const SequenceCost& c = p_.sequence_cost(op.sequence);
      n = std::max<uint32_t>(c.slots, 1);
      steps = std::max<uint32_t>(c.depth, 1);
    }
    // Cycles the pipe is busy with this instruction.
    const uint64_t busy = op.tensor_flops ? tensor_cycles(op, pt.interval) : uint64_t(pt.interval) * n;
    pipe_free_[w.sp][size_t(op.pipe)] = t + busy;
    stats_.pipe_busy[size_t(op.pipe)] += std::max<uint64_t>(busy, n);
    last_issued_[w.sp] = int(wi);
    const LineAccess* lines = w.cta->lines.data() + op.lines;
    // A sequence pays its latency per dependent step; a tensor product taking
    // longer than one interval only its extra issue time.
    double done = op.tensor_flops ? double(t + pt.latency + (busy > pt.interval ? busy - pt.interval : 0))
                                  : double(t + uint64_t(pt.latency) * steps);
    bool from_mem = true;
    switch (op.kind) {
      case OpKind::Global: done = op.store ? mem_.store(double(t), lines, op.n_lines) : mem_.load(double(t), lines, op.n_lines); break;
      case OpKind::Shared: done = mem_.shared(double(t), op.wavefronts); break;
      case OpKind::Constant: done = mem_.constant(double(t), op.wavefronts); break;
      case OpKind::Atomic: done = mem_.atomic(double(t), lines, op.n_lines, op.wavefronts); break;
      case OpKind::AsyncCopy:
        w.async_done = std::max(w.async_done, ceil_cycle(mem_.load(double(t), lines, op.n_lines)));
        from_mem = false;
        break;
      default: from_mem = false; break;
    }
    const uint64_t dc = std::max(ceil_cycle(done), t + 1);
    w.sb.write(writes(w, op), dc, from_mem);
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
