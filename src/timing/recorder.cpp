#include "timing/recorder.h"

#include <algorithm>
#include <bit>
#include <unordered_set>

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

// The op's lines: those of every group of its accesses (a TMA copy reads a
// box as one group per row), each line once. A lane's access of more than
// 32 bytes (cp.async.bulk: one lane, up to kilobytes) is coalesced in pieces
// that touch at most the 64 lines a Coalesced holds.
void add_lines(CtaTrace& t, TraceOp& op, const exec::MemoryAccess& a) {
  if (op.n_lines == 0) op.lines = uint32_t(t.lines.size());
  auto merge = [&](const Coalesced& c) {
    for (uint32_t i = 0; i < c.n_lines; ++i) {
      auto* first = t.lines.data() + op.lines;
      auto* hit = std::find_if(first, first + op.n_lines, [&](const LineAccess& x) { return x.line == c.lines[i].line; });
      if (hit != first + op.n_lines) hit->sectors |= c.lines[i].sectors;
      else {
        t.lines.push_back(c.lines[i]);
        ++op.n_lines;
      }
    }
  };
  if (a.bytes_per_lane <= kSectorBytes) return merge(coalesce(a.lane_addr, a.lanes, a.bytes_per_lane));
  constexpr uint32_t kPiece = 63 * kLineBytes;  // 64 lines at most, however it is aligned
  for (uint32_t m = a.lanes; m; m &= m - 1)
    for (uint32_t off = 0; off < a.bytes_per_lane; off += kPiece) {
      const uint64_t at = a.lane_addr[std::countr_zero(m)] + off;
      merge(coalesce(&at, 1u, std::min(kPiece, a.bytes_per_lane - off)));
    }
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
  if (f.flags & program::kFactTensorCommit) op.kind = OpKind::TensorCommit;
  if (f.flags & program::kFactTensorWait) {
    op.kind = OpKind::TensorWait;
    const auto& n = s.inst->o[0];
    op.group_n = uint8_t(std::min<int64_t>(n.kind == program::Operand::Kind::Imm ? n.imm : 0, 255));
  }
  op.async_tensor = (f.flags & program::kFactTensorAsync) != 0;
  // A lane-less (guarded-off) instruction still issues, reads its guard and writes nothing.
  auto w = program::writes(*s.fn, s.pc), r = program::reads(*s.fn, s.pc);
  op.slots = uint32_t(t.slots.size());
  op.n_writes = s.executed ? uint8_t(w.size()) : 0;
  op.n_reads = uint8_t(r.size());
  if (op.n_writes) t.slots.insert(t.slots.end(), w.begin(), w.end());
  t.slots.insert(t.slots.end(), r.begin(), r.end());
  uint64_t tensor_shared_bytes = 0;
  std::unordered_set<uint64_t> operand_addrs;
  for (const auto& a : s.mem) {
    if (!a.lanes) continue;
    if (op.tensor_flops && a.space == Space::Shared) {
      // wgmma's shared-memory operands (the warp that completes the
      // warpgroup's operation reads them all, B once per warp): the
      // distinct bytes go through the banks.
      for (uint32_t m = a.lanes; m; m &= m - 1)
        if (operand_addrs.insert(a.lane_addr[std::countr_zero(m)]).second) tensor_shared_bytes += a.bytes_per_lane;
      continue;
    }
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
      // A load reads the L1's data banks as shared memory does: one
      // wavefront per distinct word in its worst bank (MemorySystem::load).
      if (!op.store) op.wavefronts = uint16_t(shared_wavefronts(a.lane_addr, a.lanes, a.bytes_per_lane));
      add_lines(t, op, a);
    }
  }
  // A load or copy with the fact reads the L2 without the L1 (stores never allocate there anyway).
  op.skips_l1 = (op.kind == OpKind::AsyncCopy || (op.kind == OpKind::Global && !op.store)) &&
                (f.flags & program::kFactSkipsL1) != 0;
  if (tensor_shared_bytes)
    op.wavefronts = uint16_t(std::min<uint64_t>((tensor_shared_bytes + 127) / 128, UINT16_MAX));
  if (s.outcome == exec::StepOutcome::AtBarrier || s.outcome == exec::StepOutcome::AtClusterBarrier) {
    op.kind = OpKind::Barrier;
    op.barrier_id = uint8_t(s.barrier_id);
  } else if (s.outcome == exec::StepOutcome::Exited) {
    op.kind = OpKind::Exit;
  }
  t.warps[s.warp.warp_in_cta].ops.push_back(op);
}

uint32_t PhaseLinker::phase_of(CtaTrace& t, uint64_t object, uint32_t number) {
  auto [it, fresh] = phases_.try_emplace({object, number}, 0);
  if (fresh) {
    t.phases.push_back(0);
    it->second = uint32_t(t.phases.size());
  }
  return it->second;
}

uint32_t PhaseLinker::link(CtaTrace& t, const exec::WarpStep& s) {
  const uint32_t wi = s.warp.warp_in_cta;
  if (spins_.size() <= wi) spins_.resize(wi + 1);
  Spin& spin = spins_[wi];
  auto& ops = t.warps[wi].ops;
  TraceOp& op = ops.back();
  bool waited = false, pending = false;
  uint64_t wait_object = 0;
  std::unique_lock<std::mutex> lock(counts_.m, std::defer_lock);
  if (!s.sync.empty()) lock.lock();
  for (const exec::SyncEvent& e : s.sync) {
    uint32_t& done = counts_.completed[e.object];
    switch (e.kind) {
      case exec::SyncEvent::Kind::Arrive:
      case exec::SyncEvent::Kind::Tx:
        if (op.role == PhaseRole::None) {
          op.phase = phase_of(t, e.object, done);
          ++t.phases[op.phase - 1];
          op.role = e.kind == exec::SyncEvent::Kind::Tx               ? PhaseRole::Tx
                    : s.inst && s.inst->op == isa::Opcode::Cp ? PhaseRole::AsyncArrive
                                                                      : PhaseRole::Arrive;
        }
        if (e.completed) ++done;
        break;
      case exec::SyncEvent::Kind::WaitDone:
        if (!waited && done > 0) op.phase = phase_of(t, e.object, done - 1);  // the latest completed phase
        waited = true;
        wait_object = e.object;
        break;
      case exec::SyncEvent::Kind::WaitPending:
        pending = true;
        wait_object = e.object;
        break;
    }
  }
  auto hold = [&] {
    spin.held.push_back(op);
    ops.pop_back();
    ++held_ops_;
    return 0u;
  };
  // Ends the spin: the held ops go back into the trace before the current
  // one (`keep`), or are dropped (an iteration of the spin loop).
  auto release = [&](bool keep) {
    const uint32_t n = uint32_t(spin.held.size());
    if (keep) ops.insert(ops.end() - 1, spin.held.begin(), spin.held.end());
    else
      for (const TraceOp& h : spin.held)
        if (h.role != PhaseRole::None) --t.phases[h.phase - 1];  // a contribution that no longer comes
    held_ops_ -= n;
    spin.held.clear();
    spin.object = 0;
    return keep ? n + 1 : 1u;
  };
  if (pending) {  // a failed wait: what the warp did since its last failed wait on the object was a spin iteration
    const uint32_t fresh = spin.object == 0 ? 0 : release(spin.object != wait_object) - 1;
    spin.object = wait_object;
    hold();
    return fresh;
  }
  if (waited) {
    if (op.phase) op.kind = OpKind::MbarWait;
    return spin.object == 0 ? 1 : release(spin.object != wait_object);
  }
  if (spin.object != 0) {
    if (spin.held.size() < kMaxHeld && op.kind != OpKind::Barrier && op.kind != OpKind::Exit) return hold();
    return release(true);
  }
  return 1;
}

// A CTA's context: its trace (when sampled), its clocks (when the kernel
// reads them), its mbarrier links, and a trace for the clocks of a CTA not
// sampled (emptied whenever no warp holds ops back).
struct RecorderCta {
  std::unique_ptr<CtaTrace> trace;
  std::unique_ptr<CtaClock> clock;
  CtaTrace scratch;
  PhaseLinker phases;
  explicit RecorderCta(PhaseCounts& counts) : phases(counts) {}
};

void TraceRecorder::launch_begin(const exec::LaunchInfo& info) {
  clocks_ = false;
  if (clock_ && clock_->params && info.program)
    for (const auto& f : info.program->functions) clocks_ |= f.reads_clock;
}

void* TraceRecorder::cta_begin(uint32_t cta_linear, Dim3, uint32_t warps) {
  const bool wanted = !wanted_ || wanted_(cta_linear);
  if (!wanted && !clocks_) return nullptr;
  auto* c = new RecorderCta(phase_counts_);
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
  // A mul fused into its uses: no instruction on the GPU (program/contract.cpp).
  if (s.fn->facts[s.pc].flags & program::kFactFolded) return;
  CtaTrace& t = c->trace ? *c->trace : c->scratch;
  append(t, s);
  const uint32_t fresh = c->phases.link(t, s);
  if (c->clock) {
    const auto& ops = t.warps[s.warp.warp_in_cta].ops;
    for (size_t i = ops.size() - fresh; i < ops.size(); ++i) c->clock->step(s.warp.warp_in_cta, t, ops[i]);
  }
  if (!c->trace && !c->phases.holding()) {
    for (auto& w : t.warps) w.ops.clear();
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
