// Independent thread scheduling (sm_70+): a diverged warp lets other groups
// of its lanes run when the group on top of the SIMT stack spins, so a lane
// waiting on another lane of its warp (a spin lock, a flag) makes progress.
//
// Reconvergence at immediate post-dominators stays the default. Two events
// change the order of the stack's entries, each of which runs until its pc
// reaches its reconvergence point:
//  - spin: a backward branch taken with the warp's state unchanged over one
//    loop iteration (sampled: first after 1024 backward branches, then at
//    intervals doubling up to 65536, 256 once the warp spun), or, while
//    diverged, kDivergedBudget backward branches at one stack depth. The
//    warp yields: the nearest pending group of other lanes moves to the top,
//    or the lanes waiting at the nearest join point are split off and run
//    past it (to the join point's own reconvergence point). If nothing can
//    run the warp reports spinning() and the scheduler moves on.
//  - a CTA barrier or a warp-synchronous instruction reached while another
//    group of the warp's lanes is pending: groups at the same instruction
//    merge (the warp reconverges), others run first (see its_sync_point).
//    When all pending groups wait at barriers, the warp arrives once for
//    all of them.
#include <algorithm>

#include "exec/warp.h"

namespace softgpu::exec {
namespace {

constexpr uint32_t kSpinSample = 256;          // after a spin was seen
constexpr uint32_t kSpinSampleMax = 1u << 16;
constexpr uint32_t kDivergedBudget = 1u << 16;

// bar.sync / barrier.sync / bar.red: waits for the CTA (not bar.arrive,
// bar.warp.sync or barrier.cluster).
bool is_cta_barrier(const Inst& in) {
  if (in.op != isa::Opcode::Bar && in.op != isa::Opcode::Barrier) return false;
  for (const auto& m : in.raw_mods)
    if (m == ".warp" || m == ".cluster") return false;
  return !in.m.arrive;
}

}  // namespace

bool is_warp_sync(const Inst& in) {
  switch (in.op) {
    case isa::Opcode::Shfl: case isa::Opcode::Vote: case isa::Opcode::Match: case isa::Opcode::Redux:
    case isa::Opcode::Elect:
      return true;
    case isa::Opcode::Bar: case isa::Opcode::Barrier:
      return !in.raw_mods.empty() && in.raw_mods[0] == ".warp";
    default:
      return false;
  }
}

uint64_t Warp::state_hash() const {
  const SimtEntry& t = simt_.back();
  const uint32_t m = t.mask & ~exited_;
  uint64_t h = 1469598103934665603ull ^ (uint64_t(t.pc) << 32 | m);
  auto mix = [&](uint64_t v) { h = (h ^ v) * 1099511628211ull; h ^= h >> 29; };
  for (uint32_t r = 0; r < fn_->num_regs; ++r) {
    const uint64_t* row = &regs_[size_t(frame_->reg_base + r) * kWarpSize];
    for_lanes(m, [&](uint32_t l) { mix(row[l]); });
  }
  for (uint32_t p = 0; p < fn_->num_preds; ++p) mix(preds_[frame_->pred_base + p] & m);
  return h;
}

void Warp::note_back_branch(uint32_t pc) {
  const size_t depth = simt_.size();
  if (depth - frame_->simt_base > 1) {
    if (depth != diverged_depth_) {
      diverged_depth_ = depth;
      diverged_back_ = 0;
    }
    if (++diverged_back_ >= kDivergedBudget) {
      diverged_back_ = 0;
      its_yield();
      return;
    }
  }
  // Two consecutive backward branches are compared every spin_interval_
  // backward branches: rarely in long loops that compute, often once the
  // warp was seen spinning.
  const uint64_t n = ++back_branches_;
  if (n < spin_next_) return;
  const uint64_t h = state_hash();
  if (n == spin_next_) {
    spin_pc_ = pc;
    spin_depth_ = depth;
    spin_hash_ = h;
    return;
  }
  const bool spin = pc == spin_pc_ && depth == spin_depth_ && h == spin_hash_;
  spin_interval_ = spin ? kSpinSample : std::min(spin_interval_ * 2, kSpinSampleMax);
  spin_next_ = n + spin_interval_;
  if (spin && !its_yield()) spinning_ = true;
}

bool Warp::its_yield() {
  const size_t base = frame_->simt_base;
  if (simt_.size() - base < 2) return false;
  const uint32_t live = ~exited_;
  // Groups waiting at a warp-synchronous instruction run only when nothing
  // else can (second pass): they would wait for the spinning lanes there.
  for (int pass = 0; pass < 2; ++pass) {
    uint32_t above = simt_.back().mask & live;  // lanes of the entries passed so far
    for (size_t i = simt_.size() - 1; i-- > base;) {
      const SimtEntry e = simt_[i];
      const uint32_t m = e.mask & live;
      if (!m || e.pc == e.reconv || e.pc >= fn_->code.size()) continue;  // about to pop
      if (m & above) {
        // A join point of the lanes above; its other lanes wait there: run
        // them past it, to its own reconvergence point.
        const uint32_t w = m & ~above;
        if (!w) continue;
        simt_[i].mask &= ~w;
        simt_.push_back({e.pc, e.reconv, w});
        return true;
      }
      above |= m;
      const Inst& at = fn_->code[e.pc];
      if (is_cta_barrier(at) || (pass == 0 && is_warp_sync(at))) continue;
      simt_.erase(simt_.begin() + std::ptrdiff_t(i));
      simt_.push_back(e);
      sync_force_ = pass == 1;  // it runs its warp-synchronous instruction now
      return true;
    }
  }
  return false;
}

// Before a CTA barrier or a warp-synchronous instruction (shfl/vote/match/
// redux/elect .sync, bar.warp.sync) executed by a diverged warp: pending
// groups at the same instruction with the same reconvergence point join the
// top one (the warp reconverges there); otherwise another pending group that
// is not itself waiting at such an instruction runs first. Returns true when
// the stack changed (the instruction is executed later). For a CTA barrier
// with nothing left to run, the pending groups waiting at other barrier
// instructions arrive with this one.
bool Warp::its_sync_point(const Inst& in) {
  const bool cta_barrier = is_cta_barrier(in);
  if (!cta_barrier && !is_warp_sync(in)) return false;
  const size_t base = frame_->simt_base;
  const uint32_t live = ~exited_;
  const uint32_t pc = simt_.back().pc, reconv = simt_.back().reconv;
  uint32_t above = simt_.back().mask & live;
  size_t cand = SIZE_MAX;
  bool merged = false;
  for (size_t i = simt_.size() - 1; i-- > base;) {
    const SimtEntry e = simt_[i];
    const uint32_t m = e.mask & live;
    if (!m || e.pc == e.reconv || e.pc >= fn_->code.size() || (m & above)) continue;
    above |= m;
    if (e.pc == pc && e.reconv == reconv) {
      simt_.erase(simt_.begin() + std::ptrdiff_t(i));
      simt_.back().mask |= m;
      merged = true;
      if (cand != SIZE_MAX) --cand;
      continue;
    }
    const Inst& at = fn_->code[e.pc];
    if (cand == SIZE_MAX && !is_cta_barrier(at) && !is_warp_sync(at)) cand = i;
  }
  if (merged) return true;
  if (cand != SIZE_MAX && !sync_force_) {
    const SimtEntry e = simt_[cand];
    simt_.erase(simt_.begin() + std::ptrdiff_t(cand));
    simt_.push_back(e);
    return true;
  }
  sync_force_ = false;
  if (!cta_barrier) return false;
  above = simt_.back().mask & live;
  for (size_t i = simt_.size() - 1; i-- > base;) {
    SimtEntry& e = simt_[i];
    const uint32_t m = e.mask & live;
    if (!m || e.pc == e.reconv || e.pc >= fn_->code.size() || (m & above)) continue;
    above |= m;
    if (is_cta_barrier(fn_->code[e.pc])) ++e.pc;
  }
  return false;
}

}  // namespace softgpu::exec
