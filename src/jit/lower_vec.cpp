// ld/st.v2 and .v4 of 1- to 8-byte elements on shared and global memory
// (uchar4, short2, float4, double2, ...).
// Each lane accesses its n elements as one access of n * size bytes,
// aligned as the handler requires (to the access, at most 16 bytes). The
// half-warp patterns of lower_mem.cpp: consecutive lanes (one vector access
// per half warp, elements split into their registers with shuffles, or
// joined for a store) and, for loads, one address per half (a broadcast).
// Any other pattern, or a failed check, runs the handler (the fallback).
#include <algorithm>

#include "jit/emit.h"

namespace softgpu::jit {

using namespace llvm;
using isa::Opcode;
using program::Inst;
using program::Operand;
using OK = Operand::Kind;

bool Emitter::lower_vector_mem(const Inst& in) {
  const uint32_t n = in.m.vec;
  if ((n != 2 && n != 4) || !cur_fn_) return false;
  const bool shared = in.m.space == ptx::Space::Shared;
  if (!shared && in.m.space != ptx::Space::Global && in.m.space != ptx::Space::Generic) return false;
  const LaneType t = lane_type(in.type);
  if (!t.valid) return false;
  if (shared) {
    for (const std::string& m : in.raw_mods)
      if (m != ".shared" && m != ".volatile" && m != ".v2" && m != ".v4" && m != program::type_name(in.type))
        return false;
  } else if (!plain_global_mods(in)) {
    return false;
  }
  const bool is_st = in.op == Opcode::St;
  const Operand& a = in.o[is_st ? 0 : 1];
  const Operand& v = in.o[is_st ? 1 : 0];
  if (in.nops != 2 || a.kind != OK::Addr || a.addr_kind != Operand::AddrKind::Plain) return false;
  if (!shared && a.reg == program::kNoReg) return false;
  if (v.kind != OK::Vec || v.vec_n != n) return false;
  std::vector<const Operand*> elems;
  for (uint32_t i = 0; i < n; ++i) {
    const Operand& e = pf_.vec_operands[v.vec_begin + i];
    if (is_st ? !(e.kind == OK::Reg || e.kind == OK::Imm) : !(e.kind == OK::Reg || e.kind == OK::Sink)) return false;
    elems.push_back(&e);
  }

  const uint32_t size = t.bits / 8, bytes = n * size, align = std::min<uint32_t>(bytes, 16);
  const uint32_t half = exec::kWarpSize / 2;
  auto* v64 = FixedVectorType::get(i64_, exec::kWarpSize);
  llvm::Type* et = B.getIntNTy(t.bits);
  Value* base = a.reg == program::kNoReg ? static_cast<Value*>(Constant::getNullValue(v64))
                                         : B.CreateAlignedLoad(v64, row(a.reg), MaybeAlign(8));
  Value* mv = mask_vec();
  BasicBlock* done = BasicBlock::Create(C, "vector_done", fn_);
  BasicBlock* slow = fallback(done);
  auto ptr = [&](Value* x) { return shared ? B.CreateGEP(i8_, shared_, x) : B.CreateIntToPtr(x, ptr_); };
  // Loaded as integers of t's width; widen() extends them by t's sign (exec_ld's extend()).
  auto extend = [&](Value* r) { return widen(r, t); };
  Value* i0 = first_lane(0);
  Value* i1 = first_lane(1);
  Value* imm = B.getInt64(uint64_t(a.imm));

  // Consecutive: lane l's elements at start + l * bytes.
  std::vector<Constant*> iota;
  for (uint32_t l = 0; l < exec::kWarpSize; ++l) iota.push_back(ConstantInt::get(i64_, uint64_t(l) * bytes));
  Value* d = B.CreateSub(base, ConstantVector::get(iota));
  Value* d0 = B.CreateExtractElement(d, i0);
  Value* d1 = B.CreateExtractElement(d, i1);
  BasicBlock* check = BasicBlock::Create(C, "vector_consecutive", fn_);
  BasicBlock* go = BasicBlock::Create(C, "vector_halves", fn_);
  BasicBlock* other = is_st ? slow : BasicBlock::Create(C, "vector_not_consecutive", fn_);
  B.CreateCondBr(every_active(B.CreateICmpEQ(d, halves(d0, d1))), check, other);
  if (!is_st) {
    // One address per half: its n elements, broadcast.
    B.SetInsertPoint(other);
    Value* r0 = B.CreateExtractElement(base, i0);
    Value* r1 = B.CreateExtractElement(base, i1);
    BasicBlock* bcheck = BasicBlock::Create(C, "vector_broadcast", fn_);
    BasicBlock* bgo = BasicBlock::Create(C, "vector_broadcast_load", fn_);
    B.CreateCondBr(every_active(B.CreateICmpEQ(base, halves(r0, r1))), bcheck, slow);
    B.SetInsertPoint(bcheck);
    Value* a0 = B.CreateAdd(r0, imm);
    Value* a1 = B.CreateAdd(r1, imm);
    B.CreateCondBr(region_ok(a0, a1, bytes, align, shared, false, slow), bgo, slow);
    B.SetInsertPoint(bgo);
    auto* nt = FixedVectorType::get(et, n);
    Value* x0 = B.CreateAlignedLoad(nt, ptr(a0), Align(align));
    Value* x1 = B.CreateAlignedLoad(nt, ptr(a1), Align(align));
    for (uint32_t i = 0; i < n; ++i)
      store_bits(*elems[i], extend(halves(B.CreateExtractElement(x0, uint64_t(i)), B.CreateExtractElement(x1, uint64_t(i)))));
    B.CreateBr(done);
  }
  B.SetInsertPoint(check);
  Value* s0 = B.CreateAdd(d0, imm);
  Value* s1 = B.CreateAdd(d1, B.getInt64(uint64_t(a.imm) + uint64_t(half) * bytes));
  B.CreateCondBr(region_ok(s0, s1, uint64_t(half) * bytes, align, shared, is_st, slow), go, slow);
  B.SetInsertPoint(go);
  // A half warp's n * 16 elements in memory order: lane l's element i at l * n + i.
  Value* hmask[2];
  for (uint32_t h = 0; h < 2; ++h) {
    SmallVector<int, 64> idx;
    for (uint32_t j = 0; j < half * n; ++j) idx.push_back(int(h * half + j / n));
    hmask[h] = B.CreateShuffleVector(mv, idx);
  }
  auto* ht = FixedVectorType::get(et, half * n);
  Value* start[2] = {s0, s1};
  if (is_st) {
    // Every element row side by side (row i at i * 32), then each half's in memory order.
    std::vector<Value*> rows;
    for (uint32_t i = 0; i < n; ++i) {
      Value* bits = src_bits(*elems[i]);
      rows.push_back(t.bits < 64 ? B.CreateTrunc(bits, FixedVectorType::get(et, exec::kWarpSize)) : bits);
    }
    while (rows.size() > 1) {
      std::vector<Value*> next;
      for (size_t k = 0; k < rows.size(); k += 2) {
        const unsigned w = unsigned(cast<FixedVectorType>(rows[k]->getType())->getNumElements());
        SmallVector<int, 128> cat;
        for (unsigned j = 0; j < 2 * w; ++j) cat.push_back(int(j));
        next.push_back(B.CreateShuffleVector(rows[k], rows[k + 1], cat));
      }
      rows = next;
    }
    for (uint32_t h = 0; h < 2; ++h) {
      SmallVector<int, 64> idx;
      for (uint32_t j = 0; j < half * n; ++j) idx.push_back(int((j % n) * exec::kWarpSize + h * half + j / n));
      B.CreateMaskedStore(B.CreateShuffleVector(rows[0], idx), ptr(start[h]), Align(align), hmask[h]);
    }
  } else {
    Value* x[2];
    for (uint32_t h = 0; h < 2; ++h) x[h] = B.CreateMaskedLoad(ht, ptr(start[h]), Align(align), hmask[h]);
    for (uint32_t i = 0; i < n; ++i) {
      SmallVector<int, 32> idx;
      for (uint32_t l = 0; l < exec::kWarpSize; ++l) idx.push_back(int((l / half) * half * n + (l % half) * n + i));
      store_bits(*elems[i], extend(B.CreateShuffleVector(x[0], x[1], idx)));
    }
  }
  B.CreateBr(done);
  B.SetInsertPoint(done);
  return true;
}

}  // namespace softgpu::jit
