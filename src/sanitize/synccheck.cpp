// synccheck: barriers and warp-synchronous instructions used in ways whose
// result the hardware leaves undefined (docs/sanitizers.md, "synccheck").
//  - Divergent thread(s) in warp: a CTA barrier that waits for the whole
//    warp (bar.*, barrier.*.aligned) executed by part of the warp's live
//    lanes, or a warp-synchronous instruction whose membermask names live
//    lanes that do not execute it. A lane that is missing there and whose
//    next instruction ends it (exit, ret of the kernel) counts as exited, as
//    on the GPU where a branch to the kernel's return becomes an exit; so the
//    verdict waits for the missing lanes' next instruction.
//  - Divergent thread(s) in block: a barrier for the whole CTA released
//    while its warps waited at different barrier instructions.
//  - Invalid arguments: a lane not in its own membermask; a barrier thread
//    count that is not a multiple of 32 or exceeds the block, or differs
//    from the count other warps arrived with at the same barrier.
// Lanes that exited (or do not exist, in a partial last warp) may be named
// in a membermask, and a barrier completes without threads that exited, as
// the CUDA programming guide allows on sm_70+.
#include <bit>
#include <vector>

#include <fmt/format.h>

#include "sanitize/sanitizer.h"

namespace softgpu::sanitize {
namespace {

using exec::StepOutcome;
using exec::WarpStep;

constexpr std::string_view kWarpDiv = "Barrier error detected. Divergent thread(s) in warp.";
constexpr std::string_view kBlockDiv = "Barrier error detected. Divergent thread(s) in block.";
constexpr std::string_view kInvalid = "Barrier error detected. Invalid arguments.";

// A divergence waiting for the verdict: lanes `missing` were live but not at
// the instruction `executed` lanes ran.
struct Suspect {
  const program::Function* fn = nullptr;
  uint32_t pc = 0;
  uint32_t executed = 0, missing = 0, live = 0;
  bool warp_sync = false;  // a warp-synchronous instruction (else a CTA barrier)
};

struct WarpInfo {
  uint32_t valid = 0, exited = 0;
  std::vector<Suspect> pending;
};

// A warp's arrival at a CTA barrier, until the barrier releases it.
struct Arrival {
  bool present = false;
  const program::Function* fn = nullptr;
  uint32_t pc = 0, count = 0, lanes = 0;
};

struct CtaState {
  std::vector<WarpInfo> warps;
  std::vector<Arrival> arrivals;  // [barrier id * warps + warp]
  uint32_t nthreads = 0, linear = 0;
};

class Synccheck final : public Sanitizer {
 public:
  Synccheck(const Options& o, exec::DeviceMemory* m) : Sanitizer(o, m) {}

  void* cta_begin(uint32_t cta_linear, Dim3, uint32_t warps) override {
    auto* c = new CtaState;
    c->linear = cta_linear;
    c->nthreads = uint32_t(uint64_t(block_.x ? block_.x : 1) * (block_.y ? block_.y : 1) * (block_.z ? block_.z : 1));
    c->warps.resize(warps);
    for (uint32_t w = 0; w < warps; ++w) {
      const uint32_t n = std::min<uint32_t>(32, c->nthreads - w * 32);
      c->warps[w].valid = n >= 32 ? ~0u : (1u << n) - 1;
    }
    c->arrivals.resize(size_t(16) * warps);
    return c;
  }

  void cta_end(uint32_t, void* ctx) override {
    auto* c = static_cast<CtaState*>(ctx);
    if (!c) return;
    // Missing lanes that never ran again (the launch stopped): not exited.
    for (uint32_t w = 0; w < c->warps.size(); ++w)
      for (const Suspect& s : c->warps[w].pending) report_lanes(kWarpDiv, s, {c->linear, w}, s.executed);
    delete c;
  }

  void step(const WarpStep& st) override {
    auto* c = static_cast<CtaState*>(st.cta_context);
    if (!c || st.warp.warp_in_cta >= c->warps.size() || !st.inst) return;
    WarpInfo& w = c->warps[st.warp.warp_in_cta];
    const program::Inst& in = *st.inst;
    const bool ends = in.op == isa::Opcode::Exit || (in.op == isa::Opcode::Ret && st.fn && st.fn->is_entry);
    const uint32_t synced = w.pending.empty() ? 0 : resolve(w, st, ends);
    if (ends) w.exited |= st.executed;
    if (st.outcome == StepOutcome::Exited) w.exited = w.valid;
    const uint32_t live = w.valid & ~w.exited;
    if (st.member_masks && st.executed) check_warp_sync(w, st, live & ~synced);
    else if (st.outcome == StepOutcome::AtBarrier) check_barrier(*c, w, st, live);
  }

  void barrier_released(void* ctx, uint32_t id, uint32_t warps) override {
    auto* c = static_cast<CtaState*>(ctx);
    if (!c || id >= 16) return;
    const size_t n = c->warps.size();
    const Arrival* ref = nullptr;
    for (uint32_t w = 0; w < n && w < 32; ++w) {
      if (!(warps >> w & 1)) continue;
      Arrival& a = c->arrivals[id * n + w];
      if (!a.present) continue;
      a.present = false;
      if (!ref) {
        ref = &a;
        continue;
      }
      Suspect s{a.fn, a.pc, a.lanes};
      if (a.count != ref->count)
        report_lanes(kInvalid, s, {c->linear, w}, a.lanes,
                     fmt::format("Barrier {} expects {} threads here, {} where warp {} arrived", id, a.count,
                                 ref->count, ref - &c->arrivals[id * n]));
      else if (a.count == 0 && (a.fn != ref->fn || a.pc != ref->pc))
        report_lanes(kBlockDiv, s, {c->linear, w}, a.lanes,
                     fmt::format("Warp {} waited at barrier {} at PTX line {}", ref - &c->arrivals[id * n], id,
                                 ref->fn ? ref->fn->code[ref->pc].line : 0));
    }
  }

 private:
  // The missing lanes of pending suspects that run again: exited if their
  // instruction ends them; for a warp-synchronous instruction, in time if
  // theirs is one too and names the lanes that went first (the executor ran
  // the warp's groups one after the other; sm_70+ synchronizes
  // `if (c) __syncwarp(); else __syncwarp();`); else the divergence is
  // reported. Branches decide nothing.
  // Returns the lanes this instruction synchronized with that way.
  uint32_t resolve(WarpInfo& w, const WarpStep& st, bool ends) {
    uint32_t synced = 0;
    for (size_t i = 0; i < w.pending.size();) {
      Suspect& s = w.pending[i];
      const uint32_t here = s.missing & st.active;
      if (!here) { ++i; continue; }
      if (isa::has_flag(st.inst->op, isa::kBranch)) { ++i; continue; }  // not conclusive
      uint32_t excused = ends ? here & st.executed : 0;
      if (s.warp_sync && st.member_masks) {
        const uint32_t met = here & st.executed & names(st, s.executed);
        if (met) synced |= s.executed;
        excused |= met;
      }
      s.missing &= ~here;
      if (here & ~excused) {
        const Suspect done = s;
        w.pending.erase(w.pending.begin() + std::ptrdiff_t(i));
        report_lanes(kWarpDiv, done, st.warp, done.executed);
        continue;
      }
      if (!s.missing) {
        w.pending.erase(w.pending.begin() + std::ptrdiff_t(i));
        continue;
      }
      ++i;
    }
    return synced;
  }

  // Lanes of st.executed whose membermask includes all of `lanes`.
  static uint32_t names(const WarpStep& st, uint32_t lanes) {
    uint32_t r = 0;
    for (uint32_t l = 0; l < 32; ++l)
      if ((st.executed >> l & 1) && (st.member_masks[l] & lanes) == lanes) r |= 1u << l;
    return r;
  }

  void check_warp_sync(WarpInfo& w, const WarpStep& st, uint32_t live) {
    uint32_t bad = 0, named = 0;
    for (uint32_t l = 0; l < 32; ++l) {
      if (!(st.executed >> l & 1)) continue;
      const uint32_t m = st.member_masks[l];
      named |= m;
      if (!(m >> l & 1)) bad |= 1u << l;
    }
    Suspect s{st.fn, st.pc, st.executed, 0, live, true};
    if (bad) {
      // As compute-sanitizer: every thread of the invalid synchronization.
      const uint32_t first = uint32_t(std::countr_zero(bad));
      report_lanes(kInvalid, s, st.warp, st.executed,
                   fmt::format("Membermask 0x{:08x} of lane {} does not include the lane", st.member_masks[first],
                               first));
      return;
    }
    s.missing = named & live & ~st.executed;
    if (s.missing) w.pending.push_back(s);
  }

  void check_barrier(CtaState& c, WarpInfo& w, const WarpStep& st, uint32_t live) {
    const program::Inst& in = *st.inst;
    const uint32_t count = st.barrier_count, warp = st.warp.warp_in_cta;
    Suspect s{st.fn, st.pc, st.executed, 0, live, false};
    if (count && (count % 32 || count > round_up(c.nthreads))) {
      report_lanes(kInvalid, s, st.warp, st.executed,
                   count % 32 ? fmt::format("Barrier thread count {} is not a multiple of the warp size", count)
                              : fmt::format("Barrier thread count {} exceeds the block's {} threads", count,
                                            c.nthreads));
    }
    const bool aligned = in.op == isa::Opcode::Bar || in.m.aligned;
    s.missing = live & ~st.executed;
    if (aligned && s.missing) w.pending.push_back(s);
    if (st.barrier_id < 16 && warp < 32)
      c.arrivals[st.barrier_id * c.warps.size() + warp] = {true, st.fn, st.pc, count, st.executed};
  }

  static uint32_t round_up(uint32_t n) { return (n + 31) / 32 * 32; }

  // One error per lane of `lanes` (as compute-sanitizer: per thread), with
  // softgpu's detail line.
  void report_lanes(std::string_view what, const Suspect& s, exec::WarpRef warp, uint32_t lanes,
                    std::string extra = {}) {
    const char* kind = what == kWarpDiv    ? "sync_warp_divergence"
                       : what == kBlockDiv ? "sync_block_divergence"
                                           : "sync_invalid_arguments";
    if (extra.empty() && what == kWarpDiv)
      extra = fmt::format("Lanes 0x{:08x} of the warp's live lanes 0x{:08x} executed it", s.executed, s.live);
    for (uint32_t l = 0; l < 32; ++l) {
      if (!(lanes >> l & 1)) continue;
      auto d = where(s.fn, s.pc, warp, l);
      if (!extra.empty()) d.push_back(extra);
      add_frames(d, s.fn, s.pc);
      reporter_.error(site_identity(kind, s.fn, s.pc), what, d);
    }
    fail_launch();
  }
};

}  // namespace

std::unique_ptr<Sanitizer> make_synccheck(const Options& o, exec::DeviceMemory* memory) {
  return std::make_unique<Synccheck>(o, memory);
}

}  // namespace softgpu::sanitize
