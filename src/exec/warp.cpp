// Warp execution: the SIMT stack, calls, operand access, address translation.
#include "exec/warp.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace softgpu::exec {

using isa::Opcode;
using OK = Operand::Kind;
using program::Sreg;
using ptx::Space;

// offsetof on a class that is not standard-layout: conditionally supported,
// and supported by the compilers softgpu builds with (no virtual bases).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
size_t Warp::arena_view_offset() { return offsetof(Warp, arena_); }
#pragma GCC diagnostic pop

void LaunchState::report(Fault f) {
  std::lock_guard lock(mu);
  if (!fault) fault = std::move(f);
  abort.store(true, std::memory_order_relaxed);
}

Warp::Warp(LaunchState& L, Cta& cta, uint32_t warp_id, uint32_t nlanes)
    : L_(L), cta_(&cta), warp_id_(warp_id), arena_{L.arena_base, L.arena_size, L.arena_flags} {
  restart(cta, warp_id, nlanes);
}

void Warp::restart(Cta& cta, uint32_t warp_id, uint32_t nlanes) {
  cta_ = &cta;
  warp_id_ = warp_id;
  valid_ = nlanes >= 32 ? kFullMask : ((1u << nlanes) - 1);
  state = WarpState::Ready;
  carry = 0;
  bar_id = bar_expected = bar_threads = 0;
  bar_arrive_only = false;
  red_popc = 0;
  red_all = true;
  red_any = false;
  red_dst = Operand{};
  cl_phase = 0;
  exited_ = 0;
  faulted_ = stop_after_step_ = tracing_ = false;
  accesses_.clear();
  syncs_.clear();
  trace_pc_ = trace_sync_mask_ = 0;
  // trace_members_ is written before each traced warp-synchronous instruction that reads it.
  if (local_used_) {  // a warp that ended with exit still holds its lanes' memory
    for (auto& m : local_) m.clear();
    local_used_ = false;
  }
  local_top_ = 0;
  spinning_ = spin_armed_ = false;
  spun_ = 0;
  back_branches_ = 0;
  spin_next_ = spin_interval_ = 1024;
  spin_pc_ = 0;
  spin_depth_ = 0;
  spin_hash_ = 0;
  diverged_back_ = 0;
  diverged_depth_ = 0;
  fn_ = nullptr;
  frame_ = nullptr;
  fns_ = nullptr;
  code_ = nullptr;
  // compiled_ran_ goes on counting: the launch gets it once, from the destructor.
  reg_top_ = 0;  // registers: see push_frame
  preds_.clear();
  params_.clear();
  frames_.clear();
  simt_.clear();
  if (tid_warp_ != warp_id) {
    // Lane l is thread warp_id * 32 + l of the block, x fastest: the first
    // lane's coordinates by division, the others by counting on from it.
    tid_warp_ = warp_id;
    const uint32_t bx = L_.block.x, by = L_.block.y;
    const uint32_t t0 = warp_id * kWarpSize;
    uint32_t x = t0 % bx, y = (t0 / bx) % by, z = t0 / (bx * by);
    for (uint32_t l = 0; l < kWarpSize; ++l) {
      tid_[0][l] = x;
      tid_[1][l] = y;
      tid_[2][l] = z;
      if (++x == bx) {
        x = 0;
        if (++y == by) { y = 0; ++z; }
      }
    }
  }
  ids_[0] = L_.block.x, ids_[1] = L_.block.y, ids_[2] = L_.block.z;
  ids_[3] = cta.ctaid.x, ids_[4] = cta.ctaid.y, ids_[5] = cta.ctaid.z;
  ids_[6] = L_.grid.x, ids_[7] = L_.grid.y, ids_[8] = L_.grid.z;
  push_frame(L_.kernel_index, valid_, 0);
  if (frames_.empty()) state = WarpState::Done;  // the frame did not fit (fault reported)
}

void Warp::push_frame(uint32_t fn_index, uint32_t mask, uint32_t call_site) {
  const Function& f = L_.lp->prog.functions[fn_index];
  Frame fr;
  fr.fn = fn_index;
  fr.call_site = call_site;
  fr.call_mask = mask;
  if (frames_.empty()) {
    fr.reg_base = 0; fr.pred_base = 0; fr.local_base = 0; fr.param_base = 0;
  } else {
    const Frame& p = frames_.back();
    const Function& pf = L_.lp->prog.functions[p.fn];
    fr.reg_base = p.reg_base + pf.num_regs;
    fr.pred_base = p.pred_base + pf.num_preds;
    // Above the caller's frame and anything it allocated with alloca, and a
    // call's return state, so that even frames without .local use stack.
    fr.local_base = std::max<uint32_t>(p.local_base + pf.local_bytes, local_top_) + kCallFrameBytes;
    fr.param_base = p.param_base + pf.param_bytes * kWarpSize;
  }
  fr.simt_base = uint32_t(simt_.size());
  // The frame's registers start at zero. Rows the warp had before keep
  // what an earlier frame or warp left there, except those the function
  // may read before writing them (none in nvcc's code).
  reg_top_ = fr.reg_base + f.num_regs;
  if (regs_.size() < size_t(reg_top_) * kWarpSize) {
    const uint32_t had = uint32_t(regs_.size() / kWarpSize);
    regs_.resize(size_t(reg_top_) * kWarpSize);  // zero-filled
    if (had > fr.reg_base) clear_rows(f, fr.reg_base, had - fr.reg_base);
  } else {
    clear_rows(f, fr.reg_base, f.num_regs);
  }
  preds_.resize(fr.pred_base + f.num_preds);
  params_.resize(fr.param_base + size_t(f.param_bytes) * kWarpSize);
  const uint64_t top = uint64_t(fr.local_base) + f.local_bytes;
  if (top > L_.local_limit) {
    // A GPU reports a stack overflow as cudaErrorHardwareStackError.
    fault(Status::HardwareStackError, uint32_t(std::countr_zero(mask)), 0,
          fmt::format("call stack overflow in '{}': {} bytes of local memory per thread exceed the stack of {}",
                      f.name, top, L_.local_limit));
    return;
  }
  // Lanes' local memory grows when touched (translate), not here.
  local_top_ = uint32_t(top);
  frames_.push_back(fr);
  frame_ = &frames_.back();
  fn_ = &f;
  fns_ = &L_.lp->fns[fn_index];
  bind_frame_code(fn_index);
  simt_.push_back({0, uint32_t(f.code.size()), mask});
}

void Warp::clear_rows(const Function& f, uint32_t base, uint32_t count) {
  uint64_t* rows = regs_.data() + size_t(base) * kWarpSize;
  if (!f.regs_analysed) {
    std::fill_n(rows, size_t(count) * kWarpSize, 0);
    return;
  }
  for (uint32_t s : f.undefined_regs)
    if (s < count) std::fill_n(rows + size_t(s) * kWarpSize, kWarpSize, 0);
}

void Warp::pop_frame() {
  Frame done = frames_.back();
  frames_.pop_back();
  if (frames_.empty()) {
    state = WarpState::Done;
    frame_ = nullptr;
    if (local_used_) {  // done: give the host its memory back
      for (auto& m : local_) std::vector<std::byte>().swap(m);
      local_used_ = false;
    }
    return;
  }
  frame_ = &frames_.back();
  fn_ = &L_.lp->prog.functions[frame_->fn];
  fns_ = &L_.lp->fns[frame_->fn];
  bind_frame_code(frame_->fn);
  const Function& callee = L_.lp->prog.functions[done.fn];
  local_top_ = done.local_base;
  // Copy return values into the caller's call-site params, per lane.
  const program::CallSite& cs = fn_->calls[done.call_site];
  const uint32_t mask = done.call_mask & ~exited_;
  const size_t n = std::min(cs.rets.size(), callee.formal_returns.size());
  for (size_t i = 0; i < n; ++i) {
    const uint32_t src_off = callee.formal_returns[i].first, size = callee.formal_returns[i].second;
    uint32_t dst_off = cs.rets[i].first;
    for_lanes(mask, [&](uint32_t l) {
      std::memcpy(&params_[frame_->param_base + size_t(l) * fn_->param_bytes + dst_off],
                  &params_[done.param_base + size_t(l) * callee.param_bytes + src_off], size);
    });
  }
  reg_top_ = done.reg_base;
  preds_.resize(done.pred_base);
  params_.resize(done.param_base);
}

uint64_t Warp::run(uint64_t budget) {
  uint64_t n = 0;
  spinning_ = false;
  if (!code_ && L_.jit) bind_frame_code(frame_->fn);  // compiled meanwhile (tiered)
  while (state == WarpState::Ready && n < budget) {
    if (!step(n)) break;
  }
  return n;
}

bool Warp::step(uint64_t& n) {
  // Drop finished SIMT entries; return from frames whose stack emptied.
  for (;;) {
    if (simt_.size() == frame_->simt_base) {
      pop_frame();
      if (state == WarpState::Done) return false;
      continue;
    }
    SimtEntry& top = simt_.back();
    if ((top.mask & ~exited_) == 0 || top.pc == top.reconv || top.pc >= fn_->code.size()) {
      simt_.pop_back();
      continue;
    }
    break;
  }
  SimtEntry& top = simt_.back();
  const uint32_t pc = top.pc;
  const Inst& in = fn_->code[pc];
  const uint32_t active = top.mask & ~exited_;
  if (code_) {
    if (BlockFn block = code_->entry[pc]) {
      BlockCtx c = block_ctx(active);
      const uint32_t ran = block(&c);
      n += ran;
      compiled_ran_ += ran;
      back_branches_ += c.back;  // for spin sampling (note_back_branch)
      if (ran || faulted_) return !faulted_;
      // Nothing ran: compiled code leaves this instruction (a divergent
      // branch, or a loop's backward branch it hands back) to the
      // interpreter, below.
    }
  }
  ++n;
  uint32_t mask = active;
  if (in.has_guard) {
    uint32_t p = preds_[frame_->pred_base + in.guard];
    mask &= in.guard_neg ? ~p : p;
  }
  if (mask && simt_.size() - frame_->simt_base > 1) {
    // A diverged warp at a CTA barrier or a warp-synchronous instruction:
    // its pending groups join or run first (exec/its.cpp).
    const isa::UnitClass u = isa::info(in.op).unit;
    if ((u == isa::UnitClass::Warp || u == isa::UnitClass::Sync || isa::has_flag(in.op, isa::kWarpAligned)) &&
        its_sync_point(in))
      return true;
  }
  if (L_.opts->listener && cta_->listener_ctx) {
    const Function& f = *fn_;  // a call changes fn_
    tracing_ = true;
    accesses_.clear();
    syncs_.clear();
    trace_pc_ = pc;
    trace_sync_mask_ = is_warp_sync(in) ? sync_members(in, mask, trace_members_) : 0;
    const bool r = execute(in, top, pc, active, mask);
    tracing_ = false;
    report_step(f, pc, in, active, mask);
    if (stop_after_step_) {
      L_.abort.store(true, std::memory_order_relaxed);  // the launch ends here, without a fault
      return false;
    }
    return r;
  }
  return execute(in, top, pc, active, mask);
}

bool Warp::execute(const Inst& in, SimtEntry& top, uint32_t pc, uint32_t active, uint32_t mask) {
  switch (in.op) {
    case Opcode::Bra:
      exec_branch(in, active, mask);
      return !spinning_;
    case Opcode::Brx: {
      // Indirect branch: lanes may pick different targets; run each group in turn.
      uint64_t scratch[kWarpSize];
      const uint64_t* idx = src(in.o[0], scratch);
      const auto& table = fn_->branch_tables[in.aux];
      uint32_t first = uint32_t(std::countr_zero(mask ? mask : 1u));
      uint64_t i0 = idx[first];
      if (mask == 0) { top.pc = pc + 1; return true; }
      if (i0 >= table.size()) { fault(Status::IllegalInstruction, first, 0, "brx.idx index out of range"); return false; }
      uint32_t same = 0;
      for_lanes(mask, [&](uint32_t l) { if (idx[l] == i0) same |= 1u << l; });
      if (same == active) { top.pc = table[i0]; return true; }
      // Diverge: the group with the first lane's target goes first; the rest
      // re-executes the brx.
      top.pc = in.reconv;
      simt_.push_back({pc, in.reconv, active & ~same});
      simt_.push_back({table[i0], in.reconv, same});
      return true;
    }
    case Opcode::Call:
      top.pc = pc + 1;
      if (mask) exec_call(in, mask);
      return !faulted_;
    case Opcode::Ret:
      // Returning lanes go to the function's end (the virtual exit), where
      // they rejoin the others; reconvergence points account for it. A return
      // from the kernel itself ends those threads, as exit does, so barriers
      // stop waiting for them.
      if (frames_.size() == 1) exited_ |= mask;
      exec_branch(in, active, mask);
      if ((valid_ & ~exited_) == 0) { state = WarpState::Done; return false; }
      return true;
    case Opcode::Exit:
      exited_ |= mask;
      top.pc = pc + 1;
      if ((valid_ & ~exited_) == 0) { state = WarpState::Done; return false; }
      return true;
    case Opcode::Trap:
      if (mask) {
        fault(Status::LaunchFailure, uint32_t(std::countr_zero(mask)), 0, "trap instruction executed");
        return false;
      }
      top.pc = pc + 1;
      return true;
    case Opcode::Bar:
    case Opcode::Barrier:
      // bar.warp.sync (__syncwarp): the lanes executing together are
      // synchronized (a diverged warp's pending groups joined above).
      if (in.m.warp()) { top.pc = pc + 1; return true; }
      top.pc = pc + 1;
      if (mask) exec_barrier(in, mask);
      return state == WarpState::Ready;
    default:
      break;
  }
  top.pc = pc + 1;
  if (mask) {
    (*fns_)[pc](*this, in, mask);
    if (faulted_) return false;
  }
  return true;
}

BlockCtx Warp::block_ctx(uint32_t active) {
  SimtEntry& top = simt_.back();
  BlockCtx c;
  c.regs = regs_.data() + size_t(frame_->reg_base) * kWarpSize;
  c.preds = preds_.data() + frame_->pred_base;
  c.pc = &top.pc;
  c.warp = this;
  c.shared = cta_->shared.data();
  c.shared_size = cta_->shared.size();
  c.active = active;
  c.reconv = top.reconv;
  c.converged = simt_.size() - frame_->simt_base == 1;
  c.params = L_.params;
  c.tid = &tid_[0][0];
  c.ids = ids_;
  return c;
}

void Warp::exec_branch(const Inst& in, uint32_t active, uint32_t taken) {
  SimtEntry& top = simt_.back();
  const uint32_t pc = top.pc;
  const uint32_t target = in.op == Opcode::Ret ? uint32_t(fn_->code.size()) : in.target;
  const uint32_t not_taken = active & ~taken;
  if (not_taken == 0) {
    top.pc = target;
    if (target <= pc) note_back_branch(pc);
    return;
  }
  if (taken == 0) { top.pc = pc + 1; return; }
  const uint32_t reconv = in.reconv;
  top.pc = reconv;  // this entry becomes the join point
  simt_.push_back({pc + 1, reconv, not_taken});
  simt_.push_back({target, reconv, taken});
  if (target <= pc) note_back_branch(pc);
}

void Warp::exec_call(const Inst& in, uint32_t mask) {
  const program::CallSite& cs = fn_->calls[in.aux];
  uint32_t callee_index = in.target;
  if (cs.indirect) {
    const uint64_t* t = reg(cs.target_reg);
    uint32_t first = uint32_t(std::countr_zero(mask));
    uint64_t v = t[first];
    bool uniform = true;
    for_lanes(mask, [&](uint32_t l) { uniform &= t[l] == v; });
    if (!uniform) {
      // Lanes calling the first lane's target go now; the others re-execute
      // this call afterwards, and everyone rejoins after it.
      uint32_t same = 0;
      for_lanes(mask, [&](uint32_t l) { if (t[l] == v) same |= 1u << l; });
      const uint32_t call_pc = simt_.back().pc - 1;
      simt_.push_back({call_pc, call_pc + 1, mask & ~same});
      mask = same;
    }
    if (v < program::kFunctionAddressBase || v - program::kFunctionAddressBase >= L_.lp->prog.functions.size()) {
      fault(Status::InvalidPc, first, v, "indirect call through an address that is not a function");
      return;
    }
    callee_index = uint32_t(v - program::kFunctionAddressBase);
  }
  const Function& callee = L_.lp->prog.functions[callee_index];
  if (callee.builtin != Function::Builtin::None) { exec_builtin(callee, in, mask); return; }
  const Function& caller = *fn_;
  const uint32_t caller_param_base = frame_->param_base;
  push_frame(callee_index, mask, in.aux);
  if (faulted_) return;
  const size_t n = std::min(cs.args.size(), callee.formal_params.size());
  for (size_t i = 0; i < n; ++i) {
    const uint32_t dst_off = callee.formal_params[i].first, size = callee.formal_params[i].second;
    uint32_t src_off = cs.args[i].first;
    for_lanes(mask, [&](uint32_t l) {
      std::memcpy(&params_[frame_->param_base + size_t(l) * callee.param_bytes + dst_off],
                  &params_[caller_param_base + size_t(l) * caller.param_bytes + src_off], size);
    });
  }
}

void Warp::exec_builtin(const Function& callee, const Inst& in, uint32_t mask) {
  const program::CallSite& cs = fn_->calls[in.aux];
  auto arg = [&](size_t i, uint32_t l) -> uint64_t {
    uint64_t v = 0;
    if (i < cs.args.size())
      std::memcpy(&v, &params_[frame_->param_base + size_t(l) * fn_->param_bytes + cs.args[i].first], 8);
    return v;
  };
  auto set_ret = [&](uint32_t l, uint64_t v, uint32_t size) {
    if (!cs.rets.empty())
      std::memcpy(&params_[frame_->param_base + size_t(l) * fn_->param_bytes + cs.rets[0].first], &v, size);
  };
  switch (callee.builtin) {
    case Function::Builtin::Vprintf:
      for_lanes(mask, [&](uint32_t l) {
        if (faulted_) return;
        device_printf(arg(0, l), arg(1, l), l);
        set_ret(l, 0, 4);
      });
      break;
    case Function::Builtin::Malloc:
      // Returns NULL when the heap cannot hold the request, as CUDA does.
      for_lanes(mask, [&](uint32_t l) {
        uint64_t size = arg(0, l);
        const uint64_t p = L_.heap ? L_.heap->allocate(size) : 0;
        set_ret(l, p, 8);
        if (tracing_) {
          HeapEvent e;
          e.kind = HeapEvent::Kind::Malloc;
          e.addr = p;
          e.size = size;
          L_.opts->listener->heap_event(heap_site(e, l));
        }
      });
      break;
    case Function::Builtin::Free:
      for_lanes(mask, [&](uint32_t l) {
        if (faulted_) return;
        uint64_t p = arg(0, l);
        if (p == 0) return;  // free(NULL) does nothing
        const bool ok = L_.heap && L_.heap->release(p);
        if (tracing_) {
          HeapEvent e;
          e.kind = ok ? HeapEvent::Kind::Free : HeapEvent::Kind::InvalidFree;
          e.addr = p;
          if (L_.opts->listener->heap_event(heap_site(e, l)) && !ok) return;
        }
        if (!ok)
          fault(Status::IllegalAddress, l, p,
                fmt::format("free() of address 0x{:x}, which is not a live block from device malloc", p));
      });
      break;
    case Function::Builtin::Assertfail: {
      // __assertfail(message, file, line, function, charSize): every failing
      // lane prints its line, then the launch stops with cudaErrorAssert.
      std::string lines;
      for_lanes(mask, [&](uint32_t l) {
        if (!faulted_) lines += assert_line(arg(0, l), arg(1, l), uint32_t(arg(2, l)), arg(3, l), l);
      });
      if (!faulted_)
        fault(Status::AssertTriggered, uint32_t(std::countr_zero(mask)), 0, "device-side assert triggered", lines);
      break;
    }
    default:
      break;
  }
}

void Warp::exec_barrier(const Inst& in, uint32_t mask) {
  // barrier.cluster.arrive{.relaxed}{.aligned} / barrier.cluster.wait{.aligned}:
  // arrivals are counted per cluster phase; the scheduler (launch.cpp)
  // completes the phase and releases the waiting warps.
  if (in.op == Opcode::Barrier && in.m.cluster()) {
    Cluster* c = cta_->cluster;
    if (!c) { fault(Status::IllegalInstruction, uint32_t(std::countr_zero(mask)), 0, "barrier.cluster outside a cluster"); return; }
    if (in.m.arrive) {
      c->arrived += uint32_t(std::popcount(mask));
      cl_phase = c->phase;
      return;
    }
    state = WarpState::AtClusterBarrier;
    return;
  }
  // bar.sync a{, b} / barrier.sync / bar.arrive a, b / bar.red.op d, a{, b}, {!}c
  uint64_t s0[kWarpSize], s1[kWarpSize];
  const bool red = in.m.red;
  const size_t first = red ? 1 : 0;
  const uint32_t lane = uint32_t(std::countr_zero(mask));
  auto value = [&](const Operand& o, uint64_t* scratch) {  // the first lane's (an immediate without scratch)
    return o.kind == OK::Imm ? uint32_t(o.imm) : uint32_t(src(o, scratch)[lane]);
  };
  uint32_t id = in.nops > first ? value(in.o[first], s0) : 0;
  uint32_t count = 0;
  const size_t count_idx = first + 1;
  const size_t last = in.nops;
  if (in.nops > count_idx && !(red && count_idx == last - 1)) count = value(in.o[count_idx], s1);
  if (id >= 16) { fault(Status::IllegalInstruction, lane, 0, fmt::format("barrier id {} out of range (0..15)", id)); return; }
  bar_id = id;
  bar_expected = count;
  // A warp arrives for all its live threads, as barriers count warps on the
  // hardware: lanes that branched to a `ret` wait at the reconvergence point
  // before that ret and have not exited yet, but must not block the others.
  bar_threads = live_threads();
  bar_arrive_only = in.m.arrive;
  if (red) {
    red_dst = in.o[0];
    uint32_t p = pred_value(in.o[last - 1]) & mask;
    red_popc = uint32_t(std::popcount(p));
    red_all = (p == mask);
    red_any = p != 0;
  }
  state = WarpState::AtBarrier;
}

void Warp::finish_barrier(uint32_t popc_total, bool all, bool any) {
  state = WarpState::Ready;
  if (red_dst.kind == OK::None) return;
  const Inst& in = fn_->code[simt_.back().pc - 1];
  uint64_t v = 0;
  if (in.m.popc()) v = popc_total;
  else if (in.m.boolop == program::BoolOp::And) v = all;
  else v = any;
  const uint32_t m = valid_ & ~exited_;
  if (red_dst.kind == OK::Pred) set_pred(red_dst, v ? kFullMask : 0, m);
  else if (uint64_t* d = dst(red_dst)) for_lanes(m, [&](uint32_t l) { d[l] = v; });
  red_dst = Operand{};
}

uint32_t Warp::pred_value(const Operand& o) {
  if (o.kind == OK::Pred) {
    uint32_t v = preds_[frame_->pred_base + o.reg];
    return o.negate ? ~v : v;
  }
  if (o.kind == OK::Imm) return o.imm ? kFullMask : 0;
  return 0;
}

void Warp::set_pred(const Operand& o, uint32_t value, uint32_t mask) {
  if (o.kind != OK::Pred) return;
  uint32_t& p = preds_[frame_->pred_base + o.reg];
  p = (p & ~mask) | (value & mask);
}

const uint64_t* Warp::src(const Operand& o, uint64_t* scratch) {
  switch (o.kind) {
    case OK::Reg: return reg(o.reg);
    case OK::Imm: std::fill_n(scratch, kWarpSize, uint64_t(o.imm)); return scratch;
    case OK::Sreg:
      for (uint32_t l = 0; l < kWarpSize; ++l) scratch[l] = sreg(o.sreg, l);
      return scratch;
    case OK::Pred: {
      uint32_t p = pred_value(o);
      for (uint32_t l = 0; l < kWarpSize; ++l) scratch[l] = p >> l & 1;
      return scratch;
    }
    case OK::FrameAddr:
      std::fill_n(scratch, kWarpSize, uint64_t(frame_->local_base) + uint64_t(o.imm));
      return scratch;
    case OK::KParamAddr:
      std::fill_n(scratch, kWarpSize, L_.params_addr + uint64_t(o.imm));
      return scratch;
    default:
      std::fill_n(scratch, kWarpSize, 0);
      return scratch;
  }
}

uint64_t Warp::sreg(Sreg s, uint32_t lane) const {
  const auto& L = L_;
  switch (s) {
    case Sreg::TidX: return tid_[0][lane];
    case Sreg::TidY: return tid_[1][lane];
    case Sreg::TidZ: return tid_[2][lane];
    case Sreg::NtidX: return L.block.x;
    case Sreg::NtidY: return L.block.y;
    case Sreg::NtidZ: return L.block.z;
    case Sreg::CtaidX: return cta_->ctaid.x;
    case Sreg::CtaidY: return cta_->ctaid.y;
    case Sreg::CtaidZ: return cta_->ctaid.z;
    case Sreg::NctaidX: return L.grid.x;
    case Sreg::NctaidY: return L.grid.y;
    case Sreg::NctaidZ: return L.grid.z;
    case Sreg::Laneid: return lane;
    case Sreg::Warpid: return warp_id_;
    case Sreg::Nwarpid: return 64;
    case Sreg::Smid: return cta_->linear % std::max<uint32_t>(L.opts->sm_count, 1);
    case Sreg::Nsmid: return L.opts->sm_count;
    case Sreg::Gridid: return 1;
    case Sreg::WarpSz: return kWarpSize;
    case Sreg::Clock: case Sreg::Clock64: case Sreg::ClockHi:
    case Sreg::Globaltimer: case Sreg::GlobaltimerLo: case Sreg::GlobaltimerHi: {
      // A timing model's simulated time when one listens; else a
      // monotonically increasing count (host nanoseconds since the launch).
      ClockReading c;
      if (!(L.opts->listener && cta_->listener_ctx &&
            L.opts->listener->read_clock({cta_->linear, warp_id_}, cta_->listener_ctx, c))) {
        c.ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::steady_clock::now() - L.start).count());
        c.cycles = c.ns;
      }
      const bool timer = s == Sreg::Globaltimer || s == Sreg::GlobaltimerLo || s == Sreg::GlobaltimerHi;
      const uint64_t v = timer ? c.ns : c.cycles;
      if (s == Sreg::Clock || s == Sreg::GlobaltimerLo) return uint32_t(v);
      if (s == Sreg::ClockHi || s == Sreg::GlobaltimerHi) return uint32_t(v >> 32);
      return v;
    }
    case Sreg::LanemaskEq: return 1u << lane;
    case Sreg::LanemaskLt: return (1u << lane) - 1;
    case Sreg::LanemaskLe: return lane == 31 ? kFullMask : (2u << lane) - 1;
    case Sreg::LanemaskGt: return lane == 31 ? 0 : ~((2u << lane) - 1);
    case Sreg::LanemaskGe: return ~((1u << lane) - 1);
    case Sreg::DynamicSmemSize: return L.dynamic_shared;
    case Sreg::TotalSmemSize: return L.shared_bytes;
    case Sreg::ReservedSmemBegin: case Sreg::ReservedSmem0: return L.reserved_smem;
    case Sreg::ReservedSmem1: return L.reserved_smem + program::kReservedSmemBytes / 2;
    case Sreg::ReservedSmemEnd: return L.reserved_smem + program::kReservedSmemBytes;
    case Sreg::ReservedSmemCap: return program::kReservedSmemBytes;
    case Sreg::ClusterCtarank: return cta_->cluster_rank;
    case Sreg::ClusterNctarank: return L.cluster.count();
    case Sreg::ClusterNctaidX: return L.cluster.x;
    case Sreg::ClusterNctaidY: return L.cluster.y;
    case Sreg::ClusterNctaidZ: return L.cluster.z;
    case Sreg::ClusterCtaidX: return cta_->cluster_ctaid.x;
    case Sreg::ClusterCtaidY: return cta_->cluster_ctaid.y;
    case Sreg::ClusterCtaidZ: return cta_->cluster_ctaid.z;
    case Sreg::ClusterIdX: return cta_->ctaid.x / L.cluster.x;
    case Sreg::ClusterIdY: return cta_->ctaid.y / L.cluster.y;
    case Sreg::ClusterIdZ: return cta_->ctaid.z / L.cluster.z;
    case Sreg::NclusterIdX: return L.grid.x / L.cluster.x;
    case Sreg::NclusterIdY: return L.grid.y / L.cluster.y;
    case Sreg::NclusterIdZ: return L.grid.z / L.cluster.z;
    case Sreg::IsExplicitCluster: return L.explicit_cluster ? 1 : 0;
    default: break;
  }
  // The grid-sync workspace of a cooperative launch, split as the CUDA
  // driver ABI does (cooperative_groups/details/driver_abi.h): envreg1 holds
  // the high half, envreg2 the low; 0 outside cooperative launches and for
  // the other envregs.
  if (uint8_t(s) == uint8_t(Sreg::Envreg0) + 1) return uint32_t(L.grid_workspace >> 32);
  if (uint8_t(s) == uint8_t(Sreg::Envreg0) + 2) return uint32_t(L.grid_workspace);
  return 0;
}

uint64_t Warp::address(const Operand& o, uint32_t lane, const uint64_t* base_vals) const {
  uint64_t base = o.reg == program::kNoReg ? 0 : base_vals[lane];
  if (o.addr_kind == Operand::AddrKind::Frame) base += frame_->local_base;
  return base + uint64_t(o.imm);
}

// Fills in where a heap event happened.
HeapEvent& Warp::heap_site(HeapEvent& e, uint32_t lane) const {
  e.warp = {cta_->linear, warp_id_};
  e.cta_context = cta_->listener_ctx;
  e.fn = fn_;
  e.pc = trace_pc_;
  e.lane = lane;
  return e;
}

Space Warp::generic_space(uint64_t addr) const {
  if (addr - program::kSharedWindow < program::kWindowSize) return Space::Shared;
  if (addr - program::kLocalWindow < program::kWindowSize) return Space::Local;
  return Space::Global;
}

// Bits above a shared offset name a CTA of the cluster (distributed shared
// memory; 0 = this CTA): that CTA and the offset in it, or nullptr when the
// cluster has no such rank.
Cta* Warp::shared_target(uint64_t addr, uint64_t& offset) const {
  const uint64_t rank1 = addr >> kClusterRankShift;
  offset = rank1 ? addr & kClusterOffsetMask : addr;
  if (!rank1) return cta_;
  if (!cta_->cluster || rank1 > cta_->cluster->ctas.size()) return nullptr;
  return cta_->cluster->ctas[rank1 - 1];
}

bool Warp::global_mapped(uint64_t addr, uint32_t size) const {
  const uint64_t off = addr - arena_.base;
  if (off < arena_.size && size <= arena_.size - off) {
    for (uint64_t c = off >> Arena::kChunkShift; c <= (off + size - 1) >> Arena::kChunkShift; ++c)
      if (!(arena_.flags[c].load(std::memory_order_relaxed) & Arena::kMapped)) return false;
    return true;
  }
  return L_.external.find(addr, size) != nullptr;
}

// A listener that checks accesses (sanitizers) sees this one before it takes
// effect, with what the executor found wrong with it; nullptr = go on as
// usual, else the buffer a suppressed access uses.
std::byte* Warp::checked(Space space, bool generic, uint64_t addr, uint32_t size, uint32_t lane, bool write) {
  AccessCheck c;
  c.warp = {cta_->linear, warp_id_};
  c.cta_context = cta_->listener_ctx;
  c.fn = fn_;
  c.pc = trace_pc_;
  c.lane = lane;
  c.space = space;
  c.generic = generic;
  c.addr = addr;
  c.size = size;
  c.write = write;
  if (size > 1 && (addr & (std::min<uint32_t>(size, 16) - 1))) c.problem = AccessProblem::Misaligned;
  switch (space) {
    case Space::Shared: {
      uint64_t off = 0;
      const Cta* target = shared_target(addr, off);
      const bool no_rank = !target;
      if (!target) target = cta_;
      c.region_bytes = target->shared.size();
      if (no_rank || off + size > c.region_bytes || off + size < off)
        c.problem = AccessProblem::OutOfBounds;
      else if (target == cta_ && c.problem == AccessProblem::None)
        c.data = target->shared.data() + off;
      break;
    }
    case Space::Local:
      c.region_bytes = local_top_;
      if (addr + size > local_top_ || addr + size < addr) c.problem = AccessProblem::OutOfBounds;
      break;
    default:
      if (c.problem == AccessProblem::None && !global_mapped(addr, size)) c.problem = AccessProblem::OutOfBounds;
      break;
  }
  if (!L_.opts->listener->check_access(c)) return nullptr;
  stop_after_step_ |= L_.opts->listener->stop_launch();
  suppressed_.assign(size, std::byte{0});
  return suppressed_.data();
}

std::byte* Warp::translate(Space space, uint64_t addr, uint32_t size, uint32_t lane, bool write) {
  const bool generic = space == Space::Generic;
  if (generic) {
    space = generic_space(addr);
    if (space == Space::Shared) addr -= program::kSharedWindow;
    else if (space == Space::Local) addr -= program::kLocalWindow;
  }
  if (tracing_) {
    accesses_.push_back({addr, size, uint8_t(lane), space, write});
    if (L_.opts->listener->checks_accesses())
      if (std::byte* p = checked(space, generic, addr, size, lane, write)) return p;
  }
  const char* what = write ? "write" : "read";
  if (size > 1 && (addr & (std::min<uint32_t>(size, 16) - 1))) {
    fault(Status::MisalignedAddress, lane, addr,
          space == Space::Shared || space == Space::Local
              ? fmt::format("misaligned {}-byte {} of {} memory at offset {}", size, what,
                            space == Space::Shared ? "shared" : "local", addr)
              : fmt::format("misaligned {}-byte {} of global memory at address 0x{:x}", size, what, addr));
    return nullptr;
  }
  switch (space) {
    case Space::Shared: {
      uint64_t off = 0;
      Cta* target = shared_target(addr, off);
      if (!target) {
        fault(Status::IllegalAddress, lane, addr,
              fmt::format("{}-byte {} of distributed shared memory at 0x{:x}: no CTA of rank {} in the cluster "
                          "(it has {})",
                          size, what, addr, (addr >> kClusterRankShift) - 1,
                          cta_->cluster ? cta_->cluster->ctas.size() : 1));
        return nullptr;
      }
      addr = off;
      if (addr + size > target->shared.size() || addr + size < addr) {
        fault(Status::IllegalAddress, lane, addr,
              fmt::format("out-of-bounds {}-byte {} of shared memory at offset {} (the block has {} bytes)", size,
                          what, addr, target->shared.size()));
        return nullptr;
      }
      return target->shared.data() + addr;
    }
    case Space::Local: {
      if (addr + size > local_top_ || addr + size < addr) {
        fault(Status::IllegalAddress, lane, addr,
              fmt::format("out-of-bounds {}-byte {} of local memory at offset {} ({} bytes in use)", size, what,
                          addr, local_top_));
        return nullptr;
      }
      // Grown on first touch (zeroed), in 4 KB steps, so that host memory
      // follows what threads use rather than what their frames declare.
      std::vector<std::byte>& mem = local_[lane];
      if (addr + size > mem.size()) {
        mem.resize(std::min<uint64_t>((addr + size + 4095) / 4096 * 4096, local_top_));
        local_used_ = true;
      }
      return mem.data() + addr;
    }
    default: {
      if (in_cached_global(addr, size, write)) return reinterpret_cast<std::byte*>(addr);
      auto unmapped = [&] {
        fault(Status::IllegalAddress, lane, addr,
              fmt::format("out-of-bounds {}-byte {} of global memory at address 0x{:x} (no allocation holds it)",
                          size, what, addr));
        return nullptr;
      };
      const uint64_t off = addr - arena_.base;
      if (off < arena_.size && size <= arena_.size - off) {
        // In the arena: every chunk the access overlaps must be mapped.
        uint8_t all = 0xff, any = 0;
        for (uint64_t c = off >> Arena::kChunkShift; c <= (off + size - 1) >> Arena::kChunkShift; ++c) {
          const uint8_t f = arena_.flags[c].load(std::memory_order_relaxed);
          all &= f;
          any |= f;
        }
        if (!(all & Arena::kMapped)) return unmapped();
        if (write && (any & Arena::kConst) && space != Space::Const) {
          auto a = L_.memory ? L_.memory->find(DeviceAddr{addr}) : std::nullopt;
          fault(Status::IllegalAddress, lane, addr,
                a && a->label.rfind("const:", 0) == 0
                    ? fmt::format("write to constant memory '{}'", a->label.substr(6))
                    : fmt::format("write to constant memory at 0x{:x}", addr));
          return nullptr;
        }
        if (!(all & Arena::kTouched) && L_.memory) {
          std::string why;
          if (!L_.memory->touch(addr, size, &why)) {
            fault(Status::MemoryAllocation, lane, addr, why);
            return nullptr;
          }
        }
        return reinterpret_cast<std::byte*>(addr);
      }
      const Allocation* e = L_.external.find(addr, size);
      if (!e) return unmapped();
      last_ext_ = e;
      return reinterpret_cast<std::byte*>(addr);
    }
  }
}

std::byte* Warp::param_ptr(uint32_t lane, uint64_t offset, uint32_t size) {
  if (offset + size > fn_->param_bytes) {
    fault(Status::IllegalAddress, lane, offset, fmt::format("access past the parameter area of '{}'", fn_->name));
    return nullptr;
  }
  return &params_[frame_->param_base + size_t(lane) * fn_->param_bytes + offset];
}

void Warp::fault(Status s, uint32_t lane, uint64_t addr, const std::string& what, const std::string& preamble) {
  faulted_ = true;
  Fault f;
  f.status = s;
  f.kernel = L_.kernel->name;
  f.block = cta_->ctaid;
  f.thread = Dim3{tid_[0][lane], tid_[1][lane], tid_[2][lane]};
  const uint32_t pc = simt_.empty() ? 0 : simt_.back().pc;
  const Inst* in = fn_ && pc > 0 && pc <= fn_->code.size() ? &fn_->code[pc - 1] : nullptr;
  // The pc was already advanced for ordinary instructions; control ones fault before.
  if (fn_ && pc < fn_->code.size() && (fn_->code[pc].op == Opcode::Trap || fn_->code[pc].op == Opcode::Call ||
                                       fn_->code[pc].op == Opcode::Brx))
    in = &fn_->code[pc];
  f.ptx_line = in ? in->line : 0;
  f.address = addr;
  std::string src = in && L_.lp ? program::describe_source(L_.lp->prog, *fn_, uint32_t(in - fn_->code.data())) : "";
  if (!src.empty()) src = " (" + src + ")";
  f.message = preamble + fmt::format("softgpu: kernel '{}' block ({},{},{}) thread ({},{},{}): {}{}{}{}", f.kernel, f.block.x,
                          f.block.y, f.block.z, f.thread.x, f.thread.y, f.thread.z, what,
                          in ? fmt::format(" in '{}' at PTX line {}", in->text(), in->line) : "", src,
                          fn_ && fn_ != L_.kernel ? fmt::format(" (function '{}')", fn_->name) : "");
  L_.report(std::move(f));
}

uint64_t Warp::stack_alloc(uint64_t bytes, uint64_t align, uint32_t lane) {
  if (align == 0 || (align & (align - 1)) || align > 4096) {
    fault(Status::IllegalInstruction, lane, 0, fmt::format("alloca alignment {} is not a power of two <= 4096", align));
    return UINT64_MAX;
  }
  const uint64_t base = (uint64_t(local_top_) + align - 1) & ~(align - 1);
  const uint64_t top = base + bytes;
  if (bytes > L_.local_limit || top > L_.local_limit) {
    fault(Status::HardwareStackError, lane, 0,
          fmt::format("alloca of {} bytes overflows the stack: the limit is {} bytes of local memory per thread",
                      bytes, L_.local_limit));
    return UINT64_MAX;
  }
  local_top_ = uint32_t(top);
  return base;
}

void Warp::set_stack_top(uint64_t top, uint32_t lane) {
  const uint64_t floor = frame_ ? uint64_t(frame_->local_base) + fn_->local_bytes : 0;
  if (top < floor || top > local_top_) {
    fault(Status::IllegalAddress, lane, top,
          fmt::format("stackrestore to {} outside the current frame's stack ({}..{})", top, floor, local_top_));
    return;
  }
  local_top_ = uint32_t(top);
}

namespace {

// mapa{.shared::cluster}.u32/u64 d, a, rank: a's shared location in the CTA
// of the given rank. The generic form maps generic shared addresses.
void exec_mapa(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s0[kWarpSize], s1[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s0);
  const uint64_t* r = w.src(in.o[2], s1);
  uint64_t* d = w.dst(in.o[0]);
  const bool generic = in.m.space == Space::Generic;
  const Cluster* c = w.cta().cluster;
  const uint64_t n = c ? c->ctas.size() : 1;
  uint64_t out[kWarpSize] = {};
  bool ok = true;
  for_lanes(mask, [&](uint32_t l) {
    if (!ok) return;
    uint64_t addr = a[l];
    const uint64_t rank = uint32_t(r[l]);
    if (generic) {
      if (w.generic_space(addr) != Space::Shared) {
        w.fault(Status::IllegalAddress, l, addr, fmt::format("mapa of 0x{:x}, which is not a shared-memory address", addr));
        ok = false;
        return;
      }
      addr -= program::kSharedWindow;
    }
    if (rank >= n) {
      w.fault(Status::IllegalAddress, l, addr, fmt::format("mapa to CTA rank {} of a cluster of {}", rank, n));
      ok = false;
      return;
    }
    uint64_t v = ((rank + 1) << kClusterRankShift) | (addr & kClusterOffsetMask);
    out[l] = generic ? v + program::kSharedWindow : v;
  });
  if (ok && d) for_lanes(mask, [&](uint32_t l) { d[l] = program::type_size(in.type) == 4 ? uint32_t(out[l]) : out[l]; });
}

// alloca.u32/u64 d, size{, align}: the same local offset for every lane,
// sized for the largest request (local memory is per thread).
void exec_alloca(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s0[kWarpSize], s1[kWarpSize];
  const uint64_t* size = w.src(in.o[1], s0);
  const uint64_t* align = in.nops > 2 ? w.src(in.o[2], s1) : nullptr;
  uint64_t most = 0, al = 8;
  for_lanes(mask, [&](uint32_t l) { most = std::max(most, program::type_size(in.type) == 4 ? uint32_t(size[l]) : size[l]); });
  if (align) al = align[std::countr_zero(mask)];
  uint64_t base = w.stack_alloc(most, al, uint32_t(std::countr_zero(mask)));
  if (base == UINT64_MAX) return;
  if (uint64_t* d = w.dst(in.o[0])) for_lanes(mask, [&](uint32_t l) { d[l] = base; });
}

void exec_stacksave(Warp& w, const Inst& in, uint32_t mask) {
  if (uint64_t* d = w.dst(in.o[0])) for_lanes(mask, [&](uint32_t l) { d[l] = w.stack_top(); });
}

void exec_stackrestore(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s0[kWarpSize];
  const uint64_t* a = w.src(in.o[0], s0);
  const uint32_t lane = uint32_t(std::countr_zero(mask));
  w.set_stack_top(a[lane], lane);
}

bool int_addr_type(program::Type t) { return program::type_size(t) == 4 || program::type_size(t) == 8; }

}  // namespace

ExecFn bind_mapa(const Inst& in) {
  if (!int_addr_type(in.type) || (in.m.space != Space::Generic && in.m.space != Space::Shared)) return nullptr;
  return &exec_mapa;
}
ExecFn bind_alloca(const Inst& in) { return int_addr_type(in.type) ? &exec_alloca : nullptr; }
ExecFn bind_stacksave(const Inst& in) { return int_addr_type(in.type) ? &exec_stacksave : nullptr; }
ExecFn bind_stackrestore(const Inst& in) { return int_addr_type(in.type) ? &exec_stackrestore : nullptr; }

void register_coop_handlers(HandlerTable& t) {
  t.bind[size_t(Opcode::Mapa)] = &bind_mapa;
  t.bind[size_t(Opcode::Alloca)] = &bind_alloca;
  t.bind[size_t(Opcode::Stacksave)] = &bind_stacksave;
  t.bind[size_t(Opcode::Stackrestore)] = &bind_stackrestore;
}

}  // namespace softgpu::exec
