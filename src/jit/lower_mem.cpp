// Scalar ld/st of 4 and 8 bytes, shared and global: when every lane's
// address is aligned and inside memory the fast path may touch (this CTA's
// own shared memory; global memory the warp already reached, checked once
// for the lanes' whole address range), a gather or scatter; otherwise the
// handler runs the instruction and reports any fault. Lanes store in lane
// order, as the handler does, so the highest of several lanes writing one
// address wins.
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
  if (!t.valid || (t.bits != 32 && t.bits != 64)) return false;
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
  Value* addr = B.CreateAdd(base, splat(i64_, uint64_t(a.imm)));
  Value* ss = B.CreateVectorSplat(exec::kWarpSize, shared_size_);
  Value* aligned = B.CreateICmpEQ(B.CreateAnd(addr, splat(i64_, size - 1)), splat(i64_, 0));
  Value* inside = B.CreateAnd(B.CreateICmpULT(addr, ss), B.CreateICmpUGE(B.CreateSub(ss, addr), splat(i64_, size)));
  Value* good = B.CreateBitCast(B.CreateAnd(aligned, inside), i32_);
  Value* all = B.CreateICmpEQ(B.CreateAnd(good, mask_), mask_);
  Value* mv = mask_vec();  // made here, where it dominates both paths
  BasicBlock* fast = BasicBlock::Create(C, "shared", fn_);
  BasicBlock* slow = BasicBlock::Create(C, "shared_checked", fn_);
  BasicBlock* done = BasicBlock::Create(C, "shared_done", fn_);
  B.CreateCondBr(all, fast, slow);

  B.SetInsertPoint(fast);
  memory_access(in, addr, mv, shared_);
  B.CreateBr(done);

  B.SetInsertPoint(slow);
  call_handler(in, cur_pc_, cur_fn_, cur_count_);
  B.CreateBr(done);
  B.SetInsertPoint(done);
  return true;
}

// Consecutive lane addresses (lane l at base + l * size over the active
// lanes, the coalesced case) become one vector load or store; any other
// pattern a gather or scatter. `ptr_of` maps a lane address to a pointer.
void Emitter::memory_access(const Inst& in, Value* addr, Value* mv, Value* host_base) {
  const LaneType t = lane_type(in.type);
  const uint32_t size = t.bits / 8;
  const bool is_st = in.op == Opcode::St;
  auto* v64 = FixedVectorType::get(i64_, exec::kWarpSize);
  auto* vt = FixedVectorType::get(B.getIntNTy(t.bits), exec::kWarpSize);
  std::vector<Constant*> iota;
  for (uint32_t l = 0; l < exec::kWarpSize; ++l) iota.push_back(ConstantInt::get(i64_, uint64_t(l) * size));
  Value* d = B.CreateSub(addr, ConstantVector::get(iota));
  Value* dmin = B.CreateIntMinReduce(B.CreateSelect(mv, d, splat(i64_, ~0ull)), false);
  Value* dmax = B.CreateIntMaxReduce(B.CreateSelect(mv, d, splat(i64_, 0)), false);
  auto ptr = [&](Value* a) { return host_base ? B.CreateGEP(i8_, host_base, a) : B.CreateIntToPtr(a, ptr_); };
  auto ptrs = [&] {
    return host_base ? B.CreateGEP(i8_, host_base, addr)
                     : B.CreateIntToPtr(addr, FixedVectorType::get(ptr_, exec::kWarpSize));
  };
  Value* bits = nullptr;
  if (is_st) {
    bits = src_bits(in.o[1]);  // before the branch: both paths store it
    if (t.bits == 32) bits = B.CreateTrunc(bits, vt);
  }
  BasicBlock* contig = BasicBlock::Create(C, "consecutive", fn_);
  BasicBlock* scattered = BasicBlock::Create(C, "scattered", fn_);
  BasicBlock* done = BasicBlock::Create(C, "access_done", fn_);
  B.CreateCondBr(B.CreateICmpEQ(dmin, dmax), contig, scattered);
  auto finish_load = [&](Value* r) {
    if (t.bits == 32) r = in.type == Type::S32 ? B.CreateSExt(r, v64) : B.CreateZExt(r, v64);
    return r;
  };
  B.SetInsertPoint(contig);
  Value* r1 = nullptr;
  if (is_st) B.CreateMaskedStore(bits, ptr(dmin), Align(size), mv);
  else r1 = finish_load(B.CreateMaskedLoad(vt, ptr(dmin), Align(size), mv));
  B.CreateBr(done);
  B.SetInsertPoint(scattered);
  Value* r2 = nullptr;
  if (is_st) B.CreateMaskedScatter(bits, ptrs(), Align(size), mv);
  else r2 = finish_load(B.CreateMaskedGather(vt, ptrs(), Align(size), mv));
  B.CreateBr(done);
  B.SetInsertPoint(done);
  if (!is_st) {
    PHINode* phi = B.CreatePHI(v64, 2);
    phi->addIncoming(r1, contig);
    phi->addIncoming(r2, scattered);
    store_bits(in.o[0], phi);
  }
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

// Modifiers a global ld/st may carry without changing what it does here:
// cache operators, eviction hints and the memory model's weak/relaxed
// forms (execution is sequentially consistent per access).
static bool plain_global_mods(const Inst& in) {
  static const std::string_view ok[] = {".global", ".nc", ".ca", ".cg", ".cs", ".lu", ".cv", ".wb", ".wt",
                                        ".volatile", ".weak", ".relaxed", ".cta", ".gpu", ".sys",
                                        ".L1::evict_normal", ".L1::evict_unchanged", ".L1::evict_first",
                                        ".L1::evict_last", ".L1::no_allocate", ".L2::64B", ".L2::128B", ".L2::256B"};
  for (const std::string& m : in.raw_mods)
    if (m != program::type_name(in.type) && std::find(std::begin(ok), std::end(ok), m) == std::end(ok)) return false;
  return true;
}

bool Emitter::lower_global(const Inst& in) {
  if ((in.m.space != ptx::Space::Global && in.m.space != ptx::Space::Generic) || in.m.vec != 1 || !cur_fn_)
    return false;
  const LaneType t = lane_type(in.type);
  if (!t.valid || (t.bits != 32 && t.bits != 64) || !plain_global_mods(in)) return false;
  const bool is_st = in.op == Opcode::St;
  const auto& a = in.o[is_st ? 0 : 1];
  const auto& v = in.o[is_st ? 1 : 0];
  if (in.nops != 2 || a.kind != OK::Addr || a.addr_kind != program::Operand::AddrKind::Plain || a.reg == program::kNoReg)
    return false;
  if (is_st ? !(v.kind == OK::Reg || v.kind == OK::Imm) : v.kind != OK::Reg) return false;

  const uint32_t size = t.bits / 8;
  auto* v64 = FixedVectorType::get(i64_, exec::kWarpSize);
  Value* base = B.CreateAlignedLoad(v64, row(a.reg), MaybeAlign(8));
  Value* addr = B.CreateAdd(base, splat(i64_, uint64_t(a.imm)));
  Value* mv = mask_vec();
  // The active lanes' lowest and highest address and any misalignment.
  Value* lo = B.CreateIntMinReduce(B.CreateSelect(mv, addr, splat(i64_, ~0ull)), false);
  Value* hi = B.CreateIntMaxReduce(B.CreateSelect(mv, addr, splat(i64_, 0)), false);
  Value* mis = B.CreateOrReduce(B.CreateSelect(mv, B.CreateAnd(addr, splat(i64_, size - 1)), splat(i64_, 0)));
  Value* bytes = B.CreateSub(B.CreateAdd(hi, B.getInt64(size)), lo);
  Value* small = B.CreateAnd(B.CreateICmpEQ(mis, B.getInt64(0)), B.CreateICmpULE(bytes, B.getInt64(exec::Arena::kChunk)));
  BasicBlock* check = BasicBlock::Create(C, "global_range", fn_);
  BasicBlock* fast = BasicBlock::Create(C, "global", fn_);
  BasicBlock* slow = BasicBlock::Create(C, "global_checked", fn_);
  BasicBlock* done = BasicBlock::Create(C, "global_done", fn_);
  B.CreateCondBr(small, check, slow);
  B.SetInsertPoint(check);
  Value* ok = B.CreateCall(global_ok_fn_, {warp_, lo, bytes, B.getInt32(is_st ? 1 : 0)});
  B.CreateCondBr(B.CreateICmpNE(ok, B.getInt32(0)), fast, slow);
  B.SetInsertPoint(fast);
  memory_access(in, addr, mv, nullptr);
  B.CreateBr(done);
  B.SetInsertPoint(slow);
  call_handler(in, cur_pc_, cur_fn_, cur_count_);
  B.CreateBr(done);
  B.SetInsertPoint(done);
  return true;
}

}  // namespace softgpu::jit
