// The block frame, guards, handler calls and operand access in IR.
#include "jit/emit.h"

#include "exec/float_util.h"
#include "jit/lower.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/Support/ModRef.h>

namespace softgpu::jit {

using namespace llvm;
using program::Inst;
using program::Operand;
using PType = program::Type;
using OK = Operand::Kind;

constexpr unsigned kLanes = exec::kWarpSize;

LaneType lane_type(PType t) {
  switch (t) {
    case PType::S8: return int_type(8, true);
    case PType::S16: return int_type(16, true);
    case PType::S32: return int_type(32, true);
    case PType::S64: return int_type(64, true);
    case PType::U8: case PType::B8: return int_type(8, false);
    case PType::U16: case PType::B16: return int_type(16, false);
    case PType::U32: case PType::B32: return int_type(32, false);
    case PType::U64: case PType::B64: return int_type(64, false);
    case PType::F32: return {LaneType::F32, true, 32, true};
    case PType::F64: return {LaneType::F64, true, 64, true};
    default: return {};
  }
}

Emitter::Emitter(LLVMContext& c, Module& m, const std::string& name, const program::Function& f)
    : C(c), M(m), B(c), pf_(f) {
  i1_ = llvm::Type::getInt1Ty(C);
  i8_ = llvm::Type::getInt8Ty(C);
  i16_ = llvm::Type::getInt16Ty(C);
  i32_ = llvm::Type::getInt32Ty(C);
  i64_ = llvm::Type::getInt64Ty(C);
  f32_ = llvm::Type::getFloatTy(C);
  f64_ = llvm::Type::getDoubleTy(C);
  ptr_ = PointerType::get(C, 0);
  auto* fty = FunctionType::get(i32_, {ptr_}, false);
  fn_ = Function::Create(fty, Function::ExternalLinkage, name, M);
  fn_->addFnAttr(Attribute::NoUnwind);
  BasicBlock* entry = BasicBlock::Create(C, "entry", fn_);
  B.SetInsertPoint(entry);
  // BlockCtx (exec/compiled.h): regs, preds, pc, warp, shared, shared_size, active.
  Value* ctx = fn_->getArg(0);
  ctx_ = ctx;
  auto field = [&](unsigned off, llvm::Type* t) {
    return B.CreateAlignedLoad(t, B.CreateConstInBoundsGEP1_64(i8_, ctx, off), MaybeAlign(8));
  };
  regs_ = field(0, ptr_);
  preds_ = field(8, ptr_);
  pcp_ = field(16, ptr_);
  warp_ = field(24, ptr_);
  shared_ = field(32, ptr_);
  shared_size_ = field(40, i64_);
  active_loaded_ = B.CreateAlignedLoad(i32_, B.CreateConstInBoundsGEP1_64(i8_, ctx, 48), MaybeAlign(8));
  reconv_ = B.CreateAlignedLoad(i32_, B.CreateConstInBoundsGEP1_64(i8_, ctx, 52), MaybeAlign(4));
  converged_ = B.CreateAlignedLoad(i32_, B.CreateConstInBoundsGEP1_64(i8_, ctx, 56), MaybeAlign(8));
  params_ = field(64, ptr_);
  tid_ = field(72, ptr_);
  ids_ = field(80, ptr_);
  active_ = active_loaded_;
  auto* buf_ty = ArrayType::get(i64_, kLanes);
  for (auto& b : bufs_) b = B.CreateAlloca(buf_ty);
  count_ = B.CreateAlloca(i32_);
  back_ = B.CreateAlloca(i32_);
  B.CreateStore(B.getInt32(0), count_);
  B.CreateStore(B.getInt32(0), back_);
  exec_fn_ = M.getOrInsertFunction("softgpu_jit_exec", FunctionType::get(i32_, {ptr_, i32_, i32_}, false));
  src_fn_ = M.getOrInsertFunction("softgpu_jit_src",
                                  FunctionType::get(llvm::Type::getVoidTy(C), {ptr_, i32_, i32_, ptr_}, false));
  fbuf_ = B.CreateAlloca(ArrayType::get(f32_, kLanes));
  special_fn_ = M.getOrInsertFunction("softgpu_jit_special",
                                      FunctionType::get(llvm::Type::getVoidTy(C), {ptr_, i32_, i32_}, false));
  if (auto* sf = dyn_cast<Function>(special_fn_.getCallee())) {
    // It reads and writes only the lanes it is given (no registers, no
    // memory of the warp): values stay in vector registers around it.
    sf->setMemoryEffects(MemoryEffects::argMemOnly());
    sf->setDoesNotThrow();
    sf->addFnAttr(Attribute::WillReturn);
    sf->addParamAttr(0, Attribute::NoCapture);
  }
}

void Emitter::make_blocks(size_t n) {
  for (int v = 0; v < 2; ++v)
    for (size_t i = 0; i < n; ++i) blocks_[v].push_back(BasicBlock::Create(C, v ? "any" : "full", fn_));
}

void Emitter::dispatch(const std::vector<BlockRange>& blocks) {
  Value* pc = B.CreateAlignedLoad(i32_, pcp_, MaybeAlign(4));
  BasicBlock* sw[2] = {BasicBlock::Create(C, "enter_full", fn_), BasicBlock::Create(C, "enter_any", fn_)};
  BasicBlock* none = BasicBlock::Create(C, "no_block", fn_);
  B.CreateCondBr(B.CreateICmpEQ(active_loaded_, B.getInt32(~0u)), sw[0], sw[1]);
  for (int v = 0; v < 2; ++v) {
    B.SetInsertPoint(sw[v]);
    SwitchInst* s = B.CreateSwitch(pc, none, unsigned(blocks.size()));
    for (size_t i = 0; i < blocks.size(); ++i) s->addCase(B.getInt32(blocks[i].begin), blocks_[v][i]);
  }
  B.SetInsertPoint(none);  // not reached: entries exist only at blocks' first pcs
  B.CreateRet(B.getInt32(0));
}

void Emitter::begin_block(size_t i, bool full) {
  full_ = full;
  B.SetInsertPoint(blocks_[full ? 0 : 1][i]);
  active_ = full ? static_cast<Value*>(B.getInt32(~0u)) : active_loaded_;
}

void Emitter::exit_at(uint32_t pc, uint32_t add) {
  B.CreateAlignedStore(B.getInt32(pc), pcp_, MaybeAlign(4));
  ret(B.CreateAdd(B.CreateLoad(i32_, count_), B.getInt32(add)));
}

// Returns `count` executed instructions, with BlockCtx::back set.
void Emitter::ret(Value* count) {
  B.CreateAlignedStore(B.CreateLoad(i32_, back_), B.CreateConstInBoundsGEP1_64(i8_, ctx_, 60), MaybeAlign(4));
  B.CreateRet(count);
}

// Continues at `pc` (block `block`, -1 for none) after `add` more
// instructions. Forward: into the block unless pc is where the SIMT entry
// reconverges. Backward: into the block only while the warp is converged
// and has looped fewer than kMaxBackBranches times in this run; otherwise
// back to the interpreter before the branch, which then takes it itself.
void Emitter::go(uint32_t pc, uint32_t add, int block, bool backward, uint32_t back_exit_pc, uint32_t back_add) {
  constexpr uint32_t kMaxBackBranches = 256;
  if (block < 0) {
    if (backward) exit_at(back_exit_pc, back_add);
    else exit_at(pc, add);
    return;
  }
  BasicBlock* into = BasicBlock::Create(C, "into", fn_);
  BasicBlock* out = BasicBlock::Create(C, "out", fn_);
  Value* stay = B.CreateICmpNE(reconv_, B.getInt32(pc));
  // A full warp in the any-mask copy is here after a fallback of the full
  // copy (the mask does not change within a run): back to the interpreter,
  // whose next step enters the full copy. (Branching there would put
  // handler calls on the full copy's loops and keep the optimizer from
  // holding register values across iterations.)
  if (!full_) stay = B.CreateAnd(stay, B.CreateICmpNE(active_, B.getInt32(~0u)));
  if (backward) {
    Value* n = B.CreateLoad(i32_, back_);
    stay = B.CreateAnd(stay, B.CreateAnd(B.CreateICmpNE(converged_, B.getInt32(0)),
                                         B.CreateICmpULT(n, B.getInt32(kMaxBackBranches))));
    B.CreateCondBr(stay, into, out);
    B.SetInsertPoint(into);
    B.CreateStore(B.CreateAdd(n, B.getInt32(1)), back_);
  } else {
    B.CreateCondBr(stay, into, out);
    B.SetInsertPoint(into);
  }
  B.CreateStore(B.CreateAdd(B.CreateLoad(i32_, count_), B.getInt32(add)), count_);
  B.CreateBr(blocks_[full_ ? 0 : 1][size_t(block)]);
  B.SetInsertPoint(out);
  if (backward) exit_at(back_exit_pc, back_add);
  else exit_at(pc, add);
}

void Emitter::fall_through(uint32_t next_pc, uint32_t len, int next_block) {
  go(next_pc, len, next_block, false, 0, 0);
}

// bra at pc, as Warp::exec_branch: uniform outcomes continue in compiled
// code, a divergent one returns to the interpreter at the bra.
void Emitter::branch(const Inst& bra, uint32_t pc, uint32_t len, int target_block, bool backward, int next_block) {
  Value* taken = active_;
  if (bra.has_guard) {
    Value* p = B.CreateAlignedLoad(i32_, B.CreateConstInBoundsGEP1_64(i32_, preds_, bra.guard), MaybeAlign(4));
    if (bra.guard_neg) p = B.CreateNot(p);
    taken = B.CreateAnd(active_, p);
  }
  BasicBlock* t = BasicBlock::Create(C, "taken", fn_);
  BasicBlock* maybe = BasicBlock::Create(C, "not_all", fn_);
  BasicBlock* nt = BasicBlock::Create(C, "not_taken", fn_);
  BasicBlock* diverged = BasicBlock::Create(C, "diverged", fn_);
  B.CreateCondBr(B.CreateICmpEQ(taken, active_), t, maybe);
  B.SetInsertPoint(maybe);
  B.CreateCondBr(B.CreateICmpEQ(taken, B.getInt32(0)), nt, diverged);
  B.SetInsertPoint(diverged);
  exit_at(pc, len);
  B.SetInsertPoint(t);
  go(bra.target, len + 1, target_block, backward, pc, len);
  B.SetInsertPoint(nt);
  go(pc + 1, len + 1, next_block, false, 0, 0);
}

void Emitter::begin_inst(const Inst& in) {
  next_buf_ = 0;
  mask_vec_ = nullptr;
  next_bb_ = nullptr;
  if (!in.has_guard) {
    mask_ = active_;
    return;
  }
  Value* p = B.CreateAlignedLoad(i32_, B.CreateConstInBoundsGEP1_64(i32_, preds_, in.guard), MaybeAlign(4));
  if (in.guard_neg) p = B.CreateNot(p);
  mask_ = B.CreateAnd(active_, p);
  BasicBlock* run = BasicBlock::Create(C, "run", fn_);
  next_bb_ = BasicBlock::Create(C, "next", fn_);
  B.CreateCondBr(B.CreateICmpNE(mask_, B.getInt32(0)), run, next_bb_);
  B.SetInsertPoint(run);
}

void Emitter::end_inst() {
  if (!next_bb_) return;
  B.CreateBr(next_bb_);
  B.SetInsertPoint(next_bb_);
}

void Emitter::call_handler(const Inst& in, uint32_t pc, exec::ExecFn fn, uint32_t k) {
  // The pc is advanced before the handler runs, as the interpreter does,
  // so that a fault names this instruction. The code names the instruction
  // by its pc: it holds no host address (the on-disk cache reuses it).
  B.CreateAlignedStore(B.getInt32(pc + 1), pcp_, MaybeAlign(4));
  Value* faulted = B.CreateCall(exec_fn_, {warp_, B.getInt32(pc), mask_});
  BasicBlock* stop = BasicBlock::Create(C, "fault", fn_);
  BasicBlock* go_on = BasicBlock::Create(C, "ok", fn_);
  B.CreateCondBr(B.CreateICmpNE(faulted, B.getInt32(0)), stop, go_on);
  B.SetInsertPoint(stop);
  ret(B.CreateAdd(B.CreateLoad(i32_, count_), B.getInt32(k + 1)));
  B.SetInsertPoint(go_on);
}

BasicBlock* Emitter::fallback(BasicBlock* done) {
  if (full_) {
    if (any_entry_.size() <= cur_pc_) any_entry_.resize(pf_.code.size() + 1, nullptr);
    if (!any_entry_[cur_pc_]) any_entry_[cur_pc_] = BasicBlock::Create(C, "fallback", fn_);
    return any_entry_[cur_pc_];
  }
  BasicBlock* slow = BasicBlock::Create(C, "checked", fn_);
  IRBuilderBase::InsertPointGuard keep(B);
  B.SetInsertPoint(slow);
  call_handler(pf_.code[cur_pc_], cur_pc_, cur_fn_, cur_count_);
  B.CreateBr(done);
  return slow;
}

void Emitter::enter_any(uint32_t pc) {
  if (pc >= any_entry_.size() || !any_entry_[pc]) return;
  B.CreateBr(any_entry_[pc]);
  B.SetInsertPoint(any_entry_[pc]);
}

// The warp's register and predicate files are two host vectors of its own;
// the memory a lowered access reaches is this CTA's shared memory or global
// memory that passed the checks (the arena, never the simulator's own
// state): the three never overlap.
void Emitter::annotate_aliasing() {
  MDBuilder mdb(C);
  MDNode* domain = mdb.createAnonymousAliasScopeDomain("softgpu");
  MDNode* scope[3] = {mdb.createAnonymousAliasScope(domain, "registers"),
                      mdb.createAnonymousAliasScope(domain, "predicates"),
                      mdb.createAnonymousAliasScope(domain, "device memory")};
  auto mark = [&](Instruction& i, int k) {
    i.setMetadata(LLVMContext::MD_alias_scope, MDNode::get(C, {scope[k]}));
    i.setMetadata(LLVMContext::MD_noalias, MDNode::get(C, {scope[(k + 1) % 3], scope[(k + 2) % 3]}));
  };
  for (BasicBlock& bb : *fn_)
    for (Instruction& i : bb) {
      Value* p = nullptr;
      if (auto* l = dyn_cast<LoadInst>(&i)) p = l->getPointerOperand();
      else if (auto* st = dyn_cast<StoreInst>(&i)) p = st->getPointerOperand();
      else if (auto* c = dyn_cast<IntrinsicInst>(&i)) {
        switch (c->getIntrinsicID()) {
          case Intrinsic::masked_load: case Intrinsic::masked_gather: p = c->getArgOperand(0); break;
          case Intrinsic::masked_store: case Intrinsic::masked_scatter: p = c->getArgOperand(1); break;
          default: break;
        }
      }
      if (!p) continue;
      const Value* u = getUnderlyingObject(p);
      if (u == regs_) mark(i, 0);
      else if (u == preds_) mark(i, 1);
      else if (u == shared_ || llvm::isa<IntToPtrInst>(u)) mark(i, 2);
    }
}

// ---- operands ----

static llvm::Type* vec(llvm::Type* t) { return FixedVectorType::get(t, kLanes); }

Value* Emitter::row(uint32_t slot) { return B.CreateConstInBoundsGEP1_64(i64_, regs_, uint64_t(slot) * kLanes); }

Value* Emitter::splat(llvm::Type* elem, uint64_t bits) {
  return ConstantVector::getSplat(ElementCount::getFixed(kLanes), ConstantInt::get(elem, bits));
}

bool Emitter::plain_source(const Operand& o) const {
  switch (o.kind) {
    case OK::Reg: case OK::Imm: case OK::Sreg: case OK::Pred: case OK::FrameAddr: case OK::KParamAddr: return true;
    default: return false;
  }
}

Value* Emitter::src_bits(const Operand& o) {
  auto* vt = FixedVectorType::get(i64_, kLanes);
  if (o.kind == OK::Reg) return B.CreateAlignedLoad(vt, row(o.reg), MaybeAlign(8));
  if (o.kind == OK::Imm) return splat(i64_, uint64_t(o.imm));
  if (o.kind == OK::Sreg) {
    using program::Sreg;
    const unsigned s = unsigned(o.sreg);
    if (s >= unsigned(Sreg::TidX) && s <= unsigned(Sreg::TidZ)) {
      Value* row = B.CreateConstInBoundsGEP1_64(i32_, tid_, uint64_t(s - unsigned(Sreg::TidX)) * kLanes);
      return B.CreateZExt(B.CreateAlignedLoad(vec(i32_), row, MaybeAlign(4)), vt);
    }
    if (s >= unsigned(Sreg::NtidX) && s <= unsigned(Sreg::NctaidZ)) {  // ntid, ctaid, nctaid: Warp::ids_ order
      Value* v = B.CreateAlignedLoad(i32_, B.CreateConstInBoundsGEP1_64(i32_, ids_, s - unsigned(Sreg::NtidX)),
                                     MaybeAlign(4));
      return B.CreateVectorSplat(kLanes, B.CreateZExt(v, i64_));
    }
  }
  // Materialized by the warp: named by the instruction's pc and the
  // operand's index, which the operand must be one of.
  const Inst& cur = pf_.code[cur_pc_];
  const ptrdiff_t idx = &o - cur.o;
  if (idx < 0 || idx >= ptrdiff_t(std::size(cur.o))) {
    failed_ = true;
    return splat(i64_, 0);
  }
  Value* buf = bufs_[next_buf_++ % 4];
  B.CreateCall(src_fn_, {warp_, B.getInt32(cur_pc_), B.getInt32(uint32_t(idx)), buf});
  return B.CreateAlignedLoad(vt, buf, MaybeAlign(8));
}


Value* Emitter::narrow(Value* bits, LaneType t) {
  switch (t.kind) {
    case LaneType::F32: return B.CreateBitCast(B.CreateTrunc(bits, vec(i32_)), vec(f32_));
    case LaneType::F64: return B.CreateBitCast(bits, vec(f64_));
    default: return t.bits == 64 ? bits : B.CreateTrunc(bits, vec(B.getIntNTy(t.bits)));
  }
}

Value* Emitter::widen(Value* v, LaneType t) {
  switch (t.kind) {
    case LaneType::F32: return B.CreateZExt(B.CreateBitCast(v, vec(i32_)), vec(i64_));
    case LaneType::F64: return B.CreateBitCast(v, vec(i64_));
    default:
      if (t.bits == 64) return v;
      return t.is_signed ? B.CreateSExt(v, vec(i64_)) : B.CreateZExt(v, vec(i64_));
  }
}

Value* Emitter::mask_vec() {
  if (!mask_vec_) mask_vec_ = B.CreateBitCast(mask_, vec(i1_));
  return mask_vec_;
}

void Emitter::store_bits(const Operand& d, Value* bits) {
  if (d.kind != OK::Reg) return;  // a sink
  B.CreateMaskedStore(bits, row(d.reg), Align(8), mask_vec());
}

bool Emitter::pred_source(const Operand& o) const { return o.kind == OK::Pred || o.kind == OK::Imm; }

Value* Emitter::pred_value(const Operand& o) {
  if (o.kind == OK::Imm) return B.getInt32(o.imm ? 0xffffffffu : 0u);
  Value* p = B.CreateAlignedLoad(i32_, B.CreateConstInBoundsGEP1_64(i32_, preds_, o.reg), MaybeAlign(4));
  return o.negate ? B.CreateNot(p) : p;
}

void Emitter::set_pred(const Operand& o, Value* v) {
  if (o.kind != OK::Pred) return;
  Value* at = B.CreateConstInBoundsGEP1_64(i32_, preds_, o.reg);
  Value* p = B.CreateAlignedLoad(i32_, at, MaybeAlign(4));
  Value* nv = B.CreateOr(B.CreateAnd(p, B.CreateNot(mask_)), B.CreateAnd(v, mask_));
  B.CreateAlignedStore(nv, at, MaybeAlign(4));
}

Value* Emitter::ftz(Value* v) {
  Value* bits = B.CreateBitCast(v, vec(i32_));
  Value* sub = B.CreateICmpEQ(B.CreateAnd(bits, splat(i32_, 0x7f800000u)), splat(i32_, 0));
  Value* zero = B.CreateBitCast(B.CreateAnd(bits, splat(i32_, 0x80000000u)), vec(f32_));
  return B.CreateSelect(sub, zero, v);
}

Value* Emitter::canon(Value* v) {
  const bool f64 = v->getType()->getScalarType()->isDoubleTy();
  Value* nan = f64 ? B.CreateBitCast(splat(i64_, exec::kCanonicalNanF64), vec(f64_))
                   : B.CreateBitCast(splat(i32_, exec::kCanonicalNanF32), vec(f32_));
  return B.CreateSelect(B.CreateFCmpUNO(v, v), nan, v);
}

}  // namespace softgpu::jit
