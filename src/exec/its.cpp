// Independent thread scheduling (sm_70+): a diverged warp lets other groups
// of its lanes run when the group on top of the SIMT stack spins, so a lane
// waiting on another lane of its warp (a spin lock, a flag) makes progress.
//
// Reconvergence at immediate post-dominators stays the default. Two events
// change the order of the stack's entries, each of which runs until its pc
// reaches its reconvergence point:
//  - spin: a backward branch taken with the warp's state unchanged over one
//    loop iteration (sampled: first after 1024 backward branches, then at
//    intervals doubling up to 65536, 32 once the warp spun), or, while
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

constexpr uint32_t kSpinSample = 32;           // after a spin was seen
constexpr uint32_t kSpinSampleMax = 1u << 16;
constexpr uint32_t kDivergedBudget = 1u << 16;

// bar.sync / barrier.sync / bar.red: waits for the CTA (not bar.arrive,
// bar.warp.sync or barrier.cluster).
bool is_cta_barrier(const Inst& in) {
  if (in.op != isa::Opcode::Bar && in.op != isa::Opcode::Barrier) return false;
  return !in.m.warp() && !in.m.cluster() && !in.m.arrive;
}

}  // namespace

bool is_warp_sync(const Inst& in) {
  if (isa::has_flag(in.op, isa::kWarpAligned)) return true;  // the whole warp
  switch (in.op) {
    case isa::Opcode::Shfl: case isa::Opcode::Vote: case isa::Opcode::Match: case isa::Opcode::Redux:
    case isa::Opcode::Elect:
      return true;
    case isa::Opcode::Bar: case isa::Opcode::Barrier:
      return in.m.warp();
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
  // Two consecutive backward branches the interpreter takes are compared
  // every spin_interval_ backward branches: rarely in long loops that
  // compute, often once the warp was seen spinning. (Compiled code takes up
  // to 256 of a loop's backward branches between two the interpreter sees;
  // they count too, and a loop whose state did not change over them spins.)
  const uint64_t n = ++back_branches_;
  if (n < spin_next_) return;
  const uint64_t h = state_hash();
  if (!spin_armed_) {
    spin_armed_ = true;
    spin_pc_ = pc;
    spin_depth_ = depth;
    spin_hash_ = h;
    return;
  }
  spin_armed_ = false;
  const bool spin = pc == spin_pc_ && depth == spin_depth_ && h == spin_hash_;
  spin_interval_ = spin ? kSpinSample : std::min(spin_interval_ * 2, kSpinSampleMax);
  spin_next_ = n + spin_interval_;
  if (spin && !its_yield()) spinning_ = true;
}

// Lanes a warp-synchronous instruction executed by `mask` waits for: the
// union of their membermasks (bar.warp.sync, shfl/vote/match/redux/elect .sync).
uint32_t Warp::sync_members(const Inst& in, uint32_t mask, uint32_t* per_lane) {
  if (isa::has_flag(in.op, isa::kWarpAligned)) {  // .sync.aligned: every lane of the warp that has not exited
    const uint32_t all = valid_ & ~exited_;
    if (per_lane) for_lanes(mask, [&](uint32_t l) { per_lane[l] = all; });
    return all;
  }
  size_t idx = 0;
  switch (in.op) {
    case isa::Opcode::Shfl: idx = 4; break;
    case isa::Opcode::Elect: idx = 1; break;
    case isa::Opcode::Bar: case isa::Opcode::Barrier: idx = 0; break;
    default: idx = 2; break;
  }
  if (idx >= in.nops || !mask) {
    if (per_lane) for_lanes(mask, [&](uint32_t l) { per_lane[l] = mask; });
    return mask;
  }
  uint64_t scratch[kWarpSize];
  const uint64_t* m = src(in.o[idx], scratch);
  uint32_t members = 0;
  for_lanes(mask, [&](uint32_t l) {
    members |= uint32_t(m[l]);
    if (per_lane) per_lane[l] = uint32_t(m[l]);
  });
  return members;
}

// A pending group that cannot run now: at a CTA barrier (it arrives with the
// warp), or at a warp-synchronous instruction waiting for lanes outside it.
bool Warp::its_blocked(const SimtEntry& e, uint32_t live_lanes) {
  const Inst& at = fn_->code[e.pc];
  if (is_cta_barrier(at)) return true;
  return is_warp_sync(at) && (sync_members(at, live_lanes) & valid_ & ~exited_ & ~live_lanes) != 0;
}

bool Warp::its_yield() {
  const size_t base = frame_->simt_base;
  if (simt_.size() - base < 2) return false;
  const uint32_t live = ~exited_;
  spun_ |= simt_.back().mask & live;
  // Pass 0 runs lanes that did not spin yet; pass 1 any group that can run,
  // round-robin: every group of the frame spun, so the warp waits on
  // something outside it (reported as spinning).
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
      if ((pass == 0 && (m & ~spun_) == 0) || its_blocked(e, m)) continue;
      simt_.erase(simt_.begin() + std::ptrdiff_t(i));
      simt_.push_back(e);
      if (pass == 1) {
        spun_ = 0;
        spinning_ = true;
      }
      return true;
    }
  }
  return false;
}

// Before a CTA barrier or a warp-synchronous instruction executed by a
// diverged warp. A warp-synchronous instruction whose members are all in the
// top group runs at once. Otherwise pending groups at the same instruction
// with the same reconvergence point join the top one (the warp reconverges
// there), or else another pending group that can run goes first. Returns
// true when the stack changed (the instruction is executed later). When no
// other group can run, the instruction executes with the lanes present (a
// deadlock on hardware); for a CTA barrier the pending groups waiting at
// other barrier instructions arrive with this one.
bool Warp::its_sync_point(const Inst& in) {
  const bool cta_barrier = is_cta_barrier(in);
  if (!cta_barrier && !is_warp_sync(in)) return false;
  const size_t base = frame_->simt_base;
  const uint32_t live = ~exited_;
  const uint32_t pc = simt_.back().pc, reconv = simt_.back().reconv;
  const uint32_t here = simt_.back().mask & live;
  if (!cta_barrier && (sync_members(in, here) & valid_ & live & ~here) == 0) return false;
  uint32_t above = here;
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
    if (cand == SIZE_MAX && !its_blocked(e, m)) cand = i;
  }
  if (merged) return true;
  if (cand != SIZE_MAX) {
    const SimtEntry e = simt_[cand];
    simt_.erase(simt_.begin() + std::ptrdiff_t(cand));
    simt_.push_back(e);
    return true;
  }
  if (!cta_barrier) return false;
  above = here;
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
