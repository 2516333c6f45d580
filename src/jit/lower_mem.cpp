// Scalar ld/st of 1, 2, 4 and 8 bytes, shared and global (narrow loads
// sign- or zero-extended by type, as the handler's extend() does). The lanes' addresses
// are first matched against the patterns of tiled kernels, by half warp
// (patterned_access: consecutive elements, or a load's broadcast), checked
// with a few scalar compares; any other pattern checks every active lane
// (aligned, inside this CTA's shared memory; global memory the warp already
// reached, checked once for the lanes' whole address range) and takes one
// vector access or a gather or scatter. Global ranges are checked against
// the arena's chunk flags inline (Warp::in_cached_range's test; memory
// outside the arena is left to the handler). When a check fails, the
// instruction's handler runs it (the any-mask copy of the block, emit.cpp's
// fallback) and reports any fault. Lanes store in lane order, as the
// handler does, so the highest of several lanes writing one address wins.
#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <string_view>

#include "jit/emit.h"

namespace softgpu::jit {

using namespace llvm;
using isa::Opcode;
using program::Inst;
using program::Type;
using OK = program::Operand::Kind;

bool Emitter::lower_shared(const Inst& in) {
  if (in.m.space != ptx::Space::Shared || in.m.vec != 1 || !cur_fn_) return false;
  const LaneType t = lane_type(in.type);
  if (!t.valid) return false;
  for (const std::string& m : in.raw_mods)
    if (m != ".shared" && m != ".volatile" && m != program::type_name(in.type)) return false;
  const bool is_st = in.op == Opcode::St;
  const auto& a = in.o[is_st ? 0 : 1];
  const auto& v = in.o[is_st ? 1 : 0];
  if (in.nops != 2 || a.kind != OK::Addr || a.addr_kind != program::Operand::AddrKind::Plain) return false;
  if (is_st ? !(v.kind == OK::Reg || v.kind == OK::Imm) : v.kind != OK::Reg) return false;

  const uint32_t size = t.bits / 8;
  auto* v64 = FixedVectorType::get(i64_, exec::kWarpSize);
  Value* base = a.reg == program::kNoReg ? static_cast<Value*>(Constant::getNullValue(v64))
                                         : B.CreateAlignedLoad(v64, row(a.reg), MaybeAlign(8));
  Value* mv = mask_vec();  // made here, where it dominates every path
  BasicBlock* lanes = BasicBlock::Create(C, "shared_lanes", fn_);
  BasicBlock* fast = BasicBlock::Create(C, "shared", fn_);
  BasicBlock* done = BasicBlock::Create(C, "shared_done", fn_);
  BasicBlock* slow = fallback(done);
  patterned_access(in, base, a.imm, true, lanes, done);

  // Any other pattern: every active lane aligned and inside, then a
  // gather or scatter.
  B.SetInsertPoint(lanes);
  Value* addr = B.CreateAdd(base, splat(i64_, uint64_t(a.imm)));
  Value* ss = B.CreateVectorSplat(exec::kWarpSize, shared_size_);
  Value* aligned = B.CreateICmpEQ(B.CreateAnd(addr, splat(i64_, size - 1)), splat(i64_, 0));
  Value* inside = B.CreateAnd(B.CreateICmpULT(addr, ss), B.CreateICmpUGE(B.CreateSub(ss, addr), splat(i64_, size)));
  Value* good = B.CreateBitCast(B.CreateAnd(aligned, inside), i32_);
  Value* all = B.CreateICmpEQ(B.CreateAnd(good, mask_), mask_);
  B.CreateCondBr(all, fast, slow);
  B.SetInsertPoint(fast);
  memory_access(in, addr, mv, shared_);
  B.CreateBr(done);
  B.SetInsertPoint(done);
  return true;
}

Value* Emitter::every_active(Value* eq) {
  Value* bits = B.CreateBitCast(B.CreateOr(eq, B.CreateNot(mask_vec())), i32_);
  return B.CreateICmpEQ(bits, B.getInt32(~0u));
}

Value* Emitter::first_lane(int half) {
  Value* m = half ? B.CreateLShr(mask_, 16) : mask_;
  Value* i = B.CreateBinaryIntrinsic(Intrinsic::cttz, B.CreateOr(m, B.getInt32(0x8000)), B.getTrue());
  return half ? B.CreateAdd(i, B.getInt32(16)) : i;
}

Value* Emitter::halves(Value* a, Value* b) {
  Value* v = PoisonValue::get(FixedVectorType::get(a->getType(), 2));
  v = B.CreateInsertElement(B.CreateInsertElement(v, a, uint64_t(0)), b, uint64_t(1));
  SmallVector<int, exec::kWarpSize> idx;
  for (uint32_t l = 0; l < exec::kWarpSize; ++l) idx.push_back(l < 16 ? 0 : 1);
  return B.CreateShuffleVector(v, idx);
}

// True if [lo0, lo0 + extent) and [lo1, lo1 + extent) are size-aligned and
// inside this CTA's shared memory (`shared`), or inside global memory the
// warp may access directly (one check of the range over both, when it is at
// most an arena chunk: the check is exact there; outside the arena it
// branches to `outside`).
Value* Emitter::region_ok(Value* lo0, Value* lo1, uint64_t extent, uint32_t size, bool shared, bool write,
                          BasicBlock* outside) {
  Value* aligned = B.CreateICmpEQ(B.CreateAnd(B.CreateOr(lo0, lo1), B.getInt64(size - 1)), B.getInt64(0));
  if (shared) {
    auto inside = [&](Value* lo) {
      return B.CreateAnd(B.CreateICmpULT(lo, shared_size_),
                         B.CreateICmpUGE(B.CreateSub(shared_size_, lo), B.getInt64(extent)));
    };
    return B.CreateAnd(aligned, B.CreateAnd(inside(lo0), inside(lo1)));
  }
  Value* lo = B.CreateBinaryIntrinsic(Intrinsic::umin, lo0, lo1);
  Value* hi = B.CreateAdd(B.CreateBinaryIntrinsic(Intrinsic::umax, lo0, lo1), B.getInt64(extent));
  Value* bytes = B.CreateSub(hi, lo);
  Value* small = B.CreateAnd(aligned, B.CreateICmpULE(bytes, B.getInt64(exec::Arena::kChunk)));
  return B.CreateAnd(small, global_ok(lo, bytes, write, outside));
}

Value* Emitter::global_ok(Value* lo, Value* bytes, bool write, BasicBlock* outside) {
  if (!arena_[0]) {  // the warp's ArenaView, once, at the function's entry
    IRBuilder<> eb(fn_->getEntryBlock().getTerminator());
    Value* view = eb.CreateConstInBoundsGEP1_64(i8_, warp_, exec::Warp::arena_view_offset());
    arena_[0] = eb.CreateAlignedLoad(i64_, view, MaybeAlign(8));
    arena_[1] = eb.CreateAlignedLoad(i64_, eb.CreateConstInBoundsGEP1_64(i8_, view, 8), MaybeAlign(8));
    arena_[2] = eb.CreateAlignedLoad(ptr_, eb.CreateConstInBoundsGEP1_64(i8_, view, 16), MaybeAlign(8));
  }
  Value* off = B.CreateSub(lo, arena_[0]);
  Value* in = B.CreateAnd(B.CreateICmpULT(off, arena_[1]), B.CreateICmpULE(bytes, B.CreateSub(arena_[1], off)));
  BasicBlock* arena = BasicBlock::Create(C, "arena_flags", fn_);
  B.CreateCondBr(in, arena, outside);
  B.SetInsertPoint(arena);
  auto flags = [&](Value* o) {
    Value* p = B.CreateGEP(i8_, arena_[2], B.CreateLShr(o, exec::Arena::kChunkShift));
    LoadInst* f = B.CreateAlignedLoad(i8_, p, MaybeAlign(1));
    // Atomic as in_cached_range reads them (relaxed); unordered, so that
    // the optimizer may still keep register values across it.
    f->setAtomic(AtomicOrdering::Unordered);
    return f;
  };
  Value* fa = flags(off);
  Value* fb = flags(B.CreateSub(B.CreateAdd(off, bytes), B.getInt64(1)));
  constexpr uint8_t need = exec::Arena::kMapped | exec::Arena::kTouched;
  Value* ok = B.CreateICmpEQ(B.CreateAnd(B.CreateAnd(fa, fb), B.getInt8(need)), B.getInt8(need));
  if (write) ok = B.CreateAnd(ok, B.CreateICmpEQ(B.CreateAnd(B.CreateOr(fa, fb), B.getInt8(exec::Arena::kConst)), B.getInt8(0)));
  return ok;
}

// The access patterns of tiled kernels, by half warp: lanes of a half at
// one address (a broadcast: a tile row read by every thread of a row), or
// at consecutive elements (lane l at start + l * size). Found on the
// address register's lanes (the immediate offset keeps the pattern), so
// the accesses through one register share the work. Loads take either;
// stores the consecutive one, half 0 first, so the highest lane writing an
// address wins, as in the handler.
void Emitter::patterned_access(const Inst& in, Value* base, int64_t imm, bool shared, BasicBlock* generic,
                               BasicBlock* done) {
  const LaneType t = lane_type(in.type);
  const uint32_t size = t.bits / 8;
  const bool is_st = in.op == Opcode::St;
  const uint32_t half = exec::kWarpSize / 2;
  llvm::Type* et = B.getIntNTy(t.bits);
  Value* mv = mask_vec();
  auto ptr = [&](Value* a) { return shared ? B.CreateGEP(i8_, shared_, a) : B.CreateIntToPtr(a, ptr_); };
  // Loaded as integers of t's width; widen() extends them by t's sign (exec_ld's extend()).
  auto extend = [&](Value* r) { return widen(r, t); };
  Value* i0 = first_lane(0);
  Value* i1 = first_lane(1);
  Value* imm64 = B.getInt64(uint64_t(imm));
  // Consecutive first (coalesced global accesses, tile loads and stores),
  // then a load's broadcast.
  std::vector<Constant*> iota;
  for (uint32_t l = 0; l < exec::kWarpSize; ++l) iota.push_back(ConstantInt::get(i64_, uint64_t(l) * size));
  Value* d = B.CreateSub(base, ConstantVector::get(iota));
  Value* d0 = B.CreateExtractElement(d, i0);
  Value* d1 = B.CreateExtractElement(d, i1);
  BasicBlock* check = BasicBlock::Create(C, "half_consecutive", fn_);
  BasicBlock* go = BasicBlock::Create(C, "half_vectors", fn_);
  BasicBlock* other = is_st ? generic : BasicBlock::Create(C, "not_consecutive", fn_);
  B.CreateCondBr(every_active(B.CreateICmpEQ(d, halves(d0, d1))), check, other);
  if (!is_st) {
    B.SetInsertPoint(other);
    Value* r0 = B.CreateExtractElement(base, i0);
    Value* r1 = B.CreateExtractElement(base, i1);
    BasicBlock* bcheck = BasicBlock::Create(C, "broadcast", fn_);
    BasicBlock* bgo = BasicBlock::Create(C, "broadcast_load", fn_);
    B.CreateCondBr(every_active(B.CreateICmpEQ(base, halves(r0, r1))), bcheck, generic);
    B.SetInsertPoint(bcheck);
    Value* a0 = B.CreateAdd(r0, imm64);
    Value* a1 = B.CreateAdd(r1, imm64);
    B.CreateCondBr(region_ok(a0, a1, size, size, shared, false, generic), bgo, generic);
    B.SetInsertPoint(bgo);
    Value* x0 = B.CreateAlignedLoad(et, ptr(a0), Align(size));
    Value* x1 = B.CreateAlignedLoad(et, ptr(a1), Align(size));
    store_bits(in.o[0], extend(halves(x0, x1)));
    B.CreateBr(done);
  }
  B.SetInsertPoint(check);
  Value* s0 = B.CreateAdd(d0, imm64);
  Value* s1 = B.CreateAdd(d1, B.getInt64(uint64_t(imm) + uint64_t(half) * size));
  B.CreateCondBr(region_ok(s0, s1, uint64_t(half) * size, size, shared, is_st, generic), go, generic);
  B.SetInsertPoint(go);
  SmallVector<int, 16> lo_idx, hi_idx, all_idx;
  for (uint32_t l = 0; l < half; ++l) {
    lo_idx.push_back(int(l));
    hi_idx.push_back(int(l + half));
  }
  for (uint32_t l = 0; l < exec::kWarpSize; ++l) all_idx.push_back(int(l));
  Value* m0 = B.CreateShuffleVector(mv, lo_idx);
  Value* m1 = B.CreateShuffleVector(mv, hi_idx);
  auto* ht = FixedVectorType::get(et, half);
  if (is_st) {
    Value* bits = src_bits(in.o[1]);
    if (t.bits < 64) bits = B.CreateTrunc(bits, FixedVectorType::get(et, exec::kWarpSize));
    B.CreateMaskedStore(B.CreateShuffleVector(bits, lo_idx), ptr(s0), Align(size), m0);
    B.CreateMaskedStore(B.CreateShuffleVector(bits, hi_idx), ptr(s1), Align(size), m1);
  } else {
    Value* x0 = B.CreateMaskedLoad(ht, ptr(s0), Align(size), m0);
    Value* x1 = B.CreateMaskedLoad(ht, ptr(s1), Align(size), m1);
    store_bits(in.o[0], extend(B.CreateShuffleVector(x0, x1, all_idx)));
  }
  B.CreateBr(done);
}

// Any lane pattern (consecutive lanes took patterned_access before): a
// gather or scatter, which writes lanes in order (the highest lane writing
// an address wins). `host_base`: lane addresses are offsets from it, or
// host addresses when it is null.
void Emitter::memory_access(const Inst& in, Value* addr, Value* mv, Value* host_base) {
  const LaneType t = lane_type(in.type);
  const uint32_t size = t.bits / 8;
  auto* vt = FixedVectorType::get(B.getIntNTy(t.bits), exec::kWarpSize);
  Value* ptrs = host_base ? B.CreateGEP(i8_, host_base, addr)
                          : B.CreateIntToPtr(addr, FixedVectorType::get(ptr_, exec::kWarpSize));
  if (in.op == Opcode::St) {
    Value* bits = src_bits(in.o[1]);
    if (t.bits < 64) bits = B.CreateTrunc(bits, vt);
    B.CreateMaskedScatter(bits, ptrs, Align(size), mv);
    return;
  }
  store_bits(in.o[0], widen(B.CreateMaskedGather(vt, ptrs, Align(size), mv), t));
}

// ld.param of a kernel parameter at a constant offset inside the
// parameter buffer: one host load, extended as exec_ld's extend() does,
// for every lane.
bool Emitter::lower_param(const Inst& in) {
  const auto& a = in.o[1];
  if (in.m.space != ptx::Space::Param || in.m.vec != 1 || in.nops != 2 || in.o[0].kind != OK::Reg) return false;
  if (a.kind != OK::Addr || a.addr_kind != program::Operand::AddrKind::KParam || a.reg != program::kNoReg) return false;
  const LaneType t = lane_type(in.type);
  if (!t.valid) return false;
  for (const std::string& m : in.raw_mods)
    if (m != ".param" && m != program::type_name(in.type)) return false;
  const uint32_t size = t.bits / 8;
  if (a.imm < 0 || uint64_t(a.imm) + size > pf_.kernel_param_bytes || !pf_.is_entry) return false;
  Value* v = B.CreateAlignedLoad(B.getIntNTy(t.bits), B.CreateConstInBoundsGEP1_64(i8_, params_, uint64_t(a.imm)),
                                 MaybeAlign(1));
  const bool sext = in.type == Type::S8 || in.type == Type::S16 || in.type == Type::S32;
  if (t.bits < 64) v = sext ? B.CreateSExt(v, i64_) : B.CreateZExt(v, i64_);
  store_bits(in.o[0], B.CreateVectorSplat(exec::kWarpSize, v));
  return true;
}

// Modifiers a global ld/st (or ld.const) may carry without changing what it does here:
// cache operators, eviction hints and the memory model's weak/relaxed
// forms (execution is sequentially consistent per access); the vector
// widths (m.vec says which).
bool plain_global_mods(const Inst& in) {
  static const std::string_view ok[] = {".global", ".const", ".nc", ".ca", ".cg", ".cs", ".lu", ".cv", ".wb", ".wt", ".v2", ".v4",
                                        ".volatile", ".weak", ".relaxed", ".cta", ".gpu", ".sys",
                                        ".L1::evict_normal", ".L1::evict_unchanged", ".L1::evict_first",
                                        ".L1::evict_last", ".L1::no_allocate", ".L2::64B", ".L2::128B", ".L2::256B"};
  for (const std::string& m : in.raw_mods)
    if (m != program::type_name(in.type) && std::find(std::begin(ok), std::end(ok), m) == std::end(ok)) return false;
  return true;
}

// ld.const reads global memory through the same checks (constant banks
// are global allocations, read-only to the other spaces' stores), so it
// lowers as a global load; an address without a register (a __constant__
// symbol plus an offset) is the same for every lane.
bool Emitter::lower_global(const Inst& in) {
  const bool is_const = in.m.space == ptx::Space::Const && in.op == Opcode::Ld;
  if ((in.m.space != ptx::Space::Global && in.m.space != ptx::Space::Generic && !is_const) || in.m.vec != 1 || !cur_fn_)
    return false;
  const LaneType t = lane_type(in.type);
  if (!t.valid || !plain_global_mods(in)) return false;
  const bool is_st = in.op == Opcode::St;
  const auto& a = in.o[is_st ? 0 : 1];
  const auto& v = in.o[is_st ? 1 : 0];
  if (in.nops != 2 || a.kind != OK::Addr || a.addr_kind != program::Operand::AddrKind::Plain ||
      (a.reg == program::kNoReg && !is_const))
    return false;
  if (is_st ? !(v.kind == OK::Reg || v.kind == OK::Imm) : v.kind != OK::Reg) return false;

  const uint32_t size = t.bits / 8;
  auto* v64 = FixedVectorType::get(i64_, exec::kWarpSize);
  Value* base = a.reg == program::kNoReg ? static_cast<Value*>(Constant::getNullValue(v64))
                                         : B.CreateAlignedLoad(v64, row(a.reg), MaybeAlign(8));
  Value* mv = mask_vec();
  BasicBlock* lanes = BasicBlock::Create(C, "global_lanes", fn_);
  BasicBlock* check = BasicBlock::Create(C, "global_range", fn_);
  BasicBlock* fast = BasicBlock::Create(C, "global", fn_);
  BasicBlock* done = BasicBlock::Create(C, "global_done", fn_);
  BasicBlock* slow = fallback(done);
  patterned_access(in, base, a.imm, false, lanes, done);

  // Any other pattern: the active lanes' lowest and highest address and
  // any misalignment, one range check, then a gather or scatter.
  B.SetInsertPoint(lanes);
  Value* addr = B.CreateAdd(base, splat(i64_, uint64_t(a.imm)));
  Value* lo = B.CreateIntMinReduce(B.CreateSelect(mv, addr, splat(i64_, ~0ull)), false);
  Value* hi = B.CreateIntMaxReduce(B.CreateSelect(mv, addr, splat(i64_, 0)), false);
  Value* mis = B.CreateOrReduce(B.CreateSelect(mv, B.CreateAnd(addr, splat(i64_, size - 1)), splat(i64_, 0)));
  Value* bytes = B.CreateSub(B.CreateAdd(hi, B.getInt64(size)), lo);
  Value* small = B.CreateAnd(B.CreateICmpEQ(mis, B.getInt64(0)), B.CreateICmpULE(bytes, B.getInt64(exec::Arena::kChunk)));
  B.CreateCondBr(small, check, slow);
  B.SetInsertPoint(check);
  B.CreateCondBr(global_ok(lo, bytes, is_st, slow), fast, slow);
  B.SetInsertPoint(fast);
  memory_access(in, addr, mv, nullptr);
  B.CreateBr(done);
  B.SetInsertPoint(done);
  return true;
}

}  // namespace softgpu::jit
