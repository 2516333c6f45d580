#include "timing/recorder.h"

#include <algorithm>
#include <bit>

#include "program/facts.h"
#include "timing/schedule.h"
#include "timing/smem_banks.h"
#include "timing/warp_clock.h"

namespace softgpu::timing {
namespace {

using exec::AccessKind;
using ptx::Space;

// The distinct addresses of the active lanes, and the most lanes on one
// (same-address atomics serialize; constant-cache reads cost per address).
struct AddressCounts {
  uint16_t distinct = 0, worst = 0;
};
AddressCounts count_addresses(const exec::MemoryAccess& a) {
  uint64_t seen[32];
  uint16_t count[32] = {};
  AddressCounts c;
  for (uint32_t m = a.lanes; m; m &= m - 1) {
    const uint64_t x = a.lane_addr[std::countr_zero(m)];
    uint32_t i = 0;
    while (i < c.distinct && seen[i] != x) ++i;
    if (i == c.distinct) seen[c.distinct++] = x;
    c.worst = std::max<uint16_t>(c.worst, ++count[i]);
  }
  return c;
}

void add_lines(CtaTrace& t, TraceOp& op, const exec::MemoryAccess& a) {
  const Coalesced c = coalesce(a.lane_addr, a.lanes, a.bytes_per_lane);
  op.lines = uint32_t(t.lines.size());
  op.n_lines = c.n_lines;
  t.lines.insert(t.lines.end(), c.lines.begin(), c.lines.begin() + c.n_lines);
}

}  // namespace

void TraceRecorder::append(CtaTrace& t, const exec::WarpStep& s) {
  if (t.warps.size() <= s.warp.warp_in_cta) t.warps.resize(s.warp.warp_in_cta + 1);
  TraceOp op;
  const program::InstFacts& f = s.fn->facts[s.pc];
  op.pipe = program::Pipe(f.pipe);
  op.sequence = program::Sequence(f.sequence);
  op.tensor = f.tensor;
  op.tensor_flops = f.tensor_flops;
  if (f.flags & program::kFactAsyncWait) op.kind = OpKind::AsyncWait;
  // A lane-less (guarded-off) instruction still issues, reads its guard and writes nothing.
  auto w = program::writes(*s.fn, s.pc), r = program::reads(*s.fn, s.pc);
  op.slots = uint32_t(t.slots.size());
  op.n_writes = s.executed ? uint8_t(w.size()) : 0;
  op.n_reads = uint8_t(r.size());
  if (op.n_writes) t.slots.insert(t.slots.end(), w.begin(), w.end());
  t.slots.insert(t.slots.end(), r.begin(), r.end());
  for (const auto& a : s.mem) {
    if (!a.lanes) continue;
    if (a.space == Space::Shared) {
      if (op.kind == OpKind::AsyncCopy) continue;  // the shared half of cp.async
      op.kind = OpKind::Shared;
      op.wavefronts = uint16_t(shared_wavefronts(a.lane_addr, a.lanes, a.bytes_per_lane));
      // Atomics on one shared word serialize (a load broadcasts instead):
      // one wavefront per lane on the most-used address.
      if (a.kind == AccessKind::Atomic || a.kind == AccessKind::Reduce)
        op.wavefronts = std::max(op.wavefronts, count_addresses(a).worst);
    } else if (a.space == Space::Const || a.space == Space::Param) {
      op.kind = OpKind::Constant;
      op.wavefronts = count_addresses(a).distinct;
    } else if (a.kind == AccessKind::Atomic || a.kind == AccessKind::Reduce) {
      op.kind = OpKind::Atomic;
      op.wavefronts = count_addresses(a).worst;
      add_lines(t, op, a);
    } else if (a.kind == AccessKind::AsyncCopy) {
      op.kind = OpKind::AsyncCopy;
      add_lines(t, op, a);
    } else {
      op.kind = OpKind::Global;
      op.store = a.kind == AccessKind::Store;
      add_lines(t, op, a);
    }
  }
  if (s.outcome == exec::StepOutcome::AtBarrier || s.outcome == exec::StepOutcome::AtClusterBarrier) {
    op.kind = OpKind::Barrier;
    op.barrier_id = uint8_t(s.barrier_id);
  } else if (s.outcome == exec::StepOutcome::Exited) {
    op.kind = OpKind::Exit;
  }
  t.warps[s.warp.warp_in_cta].ops.push_back(op);
}

// A CTA's context: its trace (when sampled), its clocks (when the kernel
// reads them), and a one-op trace for the clocks of a CTA not sampled.
struct RecorderCta {
  std::unique_ptr<CtaTrace> trace;
  std::unique_ptr<CtaClock> clock;
  CtaTrace scratch;
};

void TraceRecorder::launch_begin(const exec::LaunchInfo& info) {
  clocks_ = false;
  if (clock_ && clock_->params && info.program)
    for (const auto& f : info.program->functions) clocks_ |= f.reads_clock;
}

void* TraceRecorder::cta_begin(uint32_t cta_linear, Dim3, uint32_t warps) {
  const bool wanted = !wanted_ || wanted_(cta_linear);
  if (!wanted && !clocks_) return nullptr;
  auto* c = new RecorderCta;
  if (wanted) {
    c->trace = std::make_unique<CtaTrace>();
    c->trace->cta_linear = cta_linear;
    c->trace->warps.resize(warps);
  }
  if (clocks_) c->clock = std::make_unique<CtaClock>(*clock_->params, clock_->l2_share, warps, clock_->warm);
  return c;
}

void TraceRecorder::step(const exec::WarpStep& s) {
  auto* c = static_cast<RecorderCta*>(s.cta_context);
  if (!c) return;
  CtaTrace& t = c->trace ? *c->trace : c->scratch;
  append(t, s);
  if (c->clock) c->clock->step(s.warp.warp_in_cta, t, t.warps[s.warp.warp_in_cta].ops.back());
  if (!c->trace) {
    t.warps[s.warp.warp_in_cta].ops.clear();
    t.slots.clear();
    t.lines.clear();
  }
}

void TraceRecorder::barrier_released(void* ctx, uint32_t, uint32_t warps) {
  if (auto* c = static_cast<RecorderCta*>(ctx); c && c->clock) c->clock->released(warps);
}

bool TraceRecorder::read_clock(const exec::WarpRef& w, void* ctx, exec::ClockReading& out) {
  auto* c = static_cast<RecorderCta*>(ctx);
  if (!c || !c->clock) return false;
  const TimingParams& p = *clock_->params;
  const double cycles = clock_->start_cycle + double(c->clock->now(w.warp_in_cta));
  out.cycles = uint64_t(cycles);
  out.ns = uint64_t(cycles * 1000.0 / std::max(p.clock_mhz, 1e-9));
  return true;
}

void TraceRecorder::cta_end(uint32_t, void* ctx) {
  std::unique_ptr<RecorderCta> c(static_cast<RecorderCta*>(ctx));
  if (c && c->trace) {
    hoist_loads(*c->trace);  // the SM model issues in the compiler's order (timing/schedule.h)
    sink_(std::move(c->trace));
  }
}

}  // namespace softgpu::timing
