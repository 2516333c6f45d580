// Native lowering of the common integer, logic, compare, select, float and
// conversion forms. Each follows its interpreter handler bit for bit
// (exec/ops_int.cpp, ops_float.cpp, ops_convert.cpp, ops_memory.cpp's mov):
// the same C++ lane types, wrap-around, shift clamping, canonical NaNs and
// .ftz flushing. Anything else returns false and calls its handler.
#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <initializer_list>
#include <string_view>

#include "jit/emit.h"

namespace softgpu::jit {

using namespace llvm;
using isa::Opcode;
using program::Cmp;
using program::Inst;
using program::MulMode;
using program::Round;
using program::Type;
using OK = program::Operand::Kind;

bool only_mods(const Inst& in, std::initializer_list<std::string_view> allowed) {
  for (const std::string& m : in.raw_mods) {
    if (in.type != Type::None && m == program::type_name(in.type)) continue;
    if (in.type2 != Type::None && m == program::type_name(in.type2)) continue;
    if (std::find(allowed.begin(), allowed.end(), m) == allowed.end()) return false;
  }
  return true;
}

namespace {

const std::initializer_list<std::string_view> kCmpMods = {
    ".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".lo", ".ls", ".hi", ".hs", ".equ", ".neu",
    ".ltu", ".leu", ".gtu", ".geu", ".num", ".nan", ".and", ".or", ".xor", ".ftz"};

}  // namespace

bool Emitter::lower_native(const Inst& in) {
  switch (in.op) {
    case Opcode::Mov: return lower_mov(in);
    case Opcode::Add: case Opcode::Sub: case Opcode::Mul: case Opcode::Mad: case Opcode::Neg:
      return lower_int(in) || lower_float(in);
    case Opcode::Fma: case Opcode::Abs: return lower_float(in);
    case Opcode::Shl: case Opcode::Shr: return lower_shift(in);
    case Opcode::And: case Opcode::Or: case Opcode::Xor: case Opcode::Not:
      return lower_logic(in) || lower_pred_logic(in);
    case Opcode::Cvta: return lower_cvta(in);
    case Opcode::Setp: return lower_setp(in);
    case Opcode::Selp: return lower_selp(in);
    case Opcode::Cvt: return lower_cvt(in) || lower_cvt_float(in) || lower_cvt_half(in);
    case Opcode::Div: return lower_divrem(in) || lower_fdiv(in);
    case Opcode::Rem: return lower_divrem(in);
    case Opcode::Rcp: case Opcode::Sqrt: case Opcode::Rsqrt: return lower_root(in);
    case Opcode::Sin: case Opcode::Cos: case Opcode::Lg2: case Opcode::Ex2: case Opcode::Tanh:
      return lower_special(in);
    case Opcode::Min: case Opcode::Max: return lower_minmax(in);
    case Opcode::Ld: return lower_shared(in) || lower_global(in) || lower_vector_mem(in) || lower_param(in);
    case Opcode::St: return lower_shared(in) || lower_global(in) || lower_vector_mem(in);
    default: return false;
  }
}

// mov d, a: the source's 64 bits as Warp::src gives them (exec_mov).
bool Emitter::lower_mov(const Inst& in) {
  const auto& d = in.o[0];
  const auto& a = in.o[1];
  if (in.nops != 2 || d.kind != OK::Reg || a.kind == OK::Pred || !plain_source(a) || in.type == Type::Pred)
    return false;
  store_bits(d, src_bits(a));
  return true;
}

// add/sub/mul/mad (.lo, .wide) and neg on integers: wrapping arithmetic in
// the type's width; .wide widens the operands first.
bool Emitter::lower_int(const Inst& in) {
  const LaneType t = lane_type(in.type);
  if (!is_int(t) || t.bits < 16 || in.m.cc || in.m.sat) return false;
  if (!only_mods(in, {".lo", ".wide"})) return false;
  const bool wide = in.m.mul == MulMode::Wide;
  if (in.m.mul == MulMode::Hi || (wide && t.bits == 64)) return false;
  const unsigned nsrc = in.op == Opcode::Mad ? 3 : in.op == Opcode::Neg ? 1 : 2;
  if (in.nops != nsrc + 1 || in.o[0].kind != OK::Reg) return false;
  if (in.op == Opcode::Neg && !t.is_signed) return false;
  if (wide && in.op != Opcode::Mul && in.op != Opcode::Mad) return false;
  for (unsigned i = 1; i <= nsrc; ++i)
    if (!plain_source(in.o[i])) return false;
  const LaneType w = wide ? int_type(t.bits * 2, t.is_signed) : t;
  auto* wv = FixedVectorType::get(B.getIntNTy(w.bits), exec::kWarpSize);
  auto operand = [&](unsigned i) {
    Value* v = src(in.o[i], t);
    return wide ? (t.is_signed ? B.CreateSExt(v, wv) : B.CreateZExt(v, wv)) : v;
  };
  Value* r = nullptr;
  switch (in.op) {
    case Opcode::Add: r = B.CreateAdd(src(in.o[1], t), src(in.o[2], t)); break;
    case Opcode::Sub: r = B.CreateSub(src(in.o[1], t), src(in.o[2], t)); break;
    case Opcode::Neg: r = B.CreateNeg(src(in.o[1], t)); break;
    case Opcode::Mul: r = B.CreateMul(operand(1), operand(2)); break;
    case Opcode::Mad: {
      Value* p = B.CreateMul(operand(1), operand(2));
      r = B.CreateAdd(p, src(in.o[3], w));  // .wide: c is read in the wide type
      break;
    }
    default: return false;
  }
  store(in.o[0], r, w);
  return true;
}

// shl/shr: amounts (read as u32) of the width or more give 0, or the sign
// fill for a signed shr (isem::shl/shr).
bool Emitter::lower_shift(const Inst& in) {
  const LaneType t0 = lane_type(in.type);
  if (!is_int(t0) || t0.bits < 16 || in.nops != 3 || in.o[0].kind != OK::Reg) return false;
  if (!plain_source(in.o[1]) || !plain_source(in.o[2]) || !only_mods(in, {})) return false;
  // shl is defined on bit types (unsigned); shr keeps the type's sign.
  const LaneType t = in.op == Opcode::Shl ? int_type(t0.bits, false) : t0;
  Value* a = src(in.o[1], t);
  Value* n = src(in.o[2], int_type(32, false));
  auto* vt = cast<FixedVectorType>(a->getType());
  Value* big = B.CreateICmpUGE(n, splat(i32_, t.bits));
  Value* amt = B.CreateAnd(n, splat(i32_, t.bits - 1));
  if (t.bits != 32) amt = B.CreateZExtOrTrunc(amt, vt);
  Value* r;
  if (in.op == Opcode::Shl) {
    r = B.CreateSelect(big, Constant::getNullValue(vt), B.CreateShl(a, amt));
  } else if (t.is_signed) {
    r = B.CreateAShr(a, B.CreateSelect(big, splat(vt->getElementType(), t.bits - 1), amt));
  } else {
    r = B.CreateSelect(big, Constant::getNullValue(vt), B.CreateLShr(a, amt));
  }
  store(in.o[0], r, t);
  return true;
}

// and/or/xor/not on 16/32/64-bit registers (as unsigned bits); predicates
// keep their handler.
bool Emitter::lower_logic(const Inst& in) {
  const LaneType t0 = lane_type(in.type);
  if (!is_int(t0) || t0.bits < 16 || in.o[0].kind != OK::Reg || !only_mods(in, {})) return false;
  const LaneType t = int_type(t0.bits, false);
  const unsigned nsrc = in.op == Opcode::Not ? 1 : 2;
  if (in.nops != nsrc + 1) return false;
  for (unsigned i = 1; i <= nsrc; ++i)
    if (!plain_source(in.o[i]) || in.o[i].kind == OK::Pred) return false;
  Value* a = src(in.o[1], t);
  Value* r;
  switch (in.op) {
    case Opcode::And: r = B.CreateAnd(a, src(in.o[2], t)); break;
    case Opcode::Or: r = B.CreateOr(a, src(in.o[2], t)); break;
    case Opcode::Xor: r = B.CreateXor(a, src(in.o[2], t)); break;
    default: r = B.CreateNot(a); break;
  }
  store(in.o[0], r, t);
  return true;
}

// and/or/xor/not.pred on whole lane masks (exec_pred_logic).
bool Emitter::lower_pred_logic(const Inst& in) {
  if (in.type != Type::Pred || in.o[0].kind != OK::Pred || !only_mods(in, {})) return false;
  const unsigned nsrc = in.op == Opcode::Not ? 1 : 2;
  if (in.nops != nsrc + 1) return false;
  for (unsigned i = 1; i <= nsrc; ++i)
    if (!pred_source(in.o[i])) return false;
  Value* a = pred_value(in.o[1]);
  Value* r;
  switch (in.op) {
    case Opcode::And: r = B.CreateAnd(a, pred_value(in.o[2])); break;
    case Opcode::Or: r = B.CreateOr(a, pred_value(in.o[2])); break;
    case Opcode::Xor: r = B.CreateXor(a, pred_value(in.o[2])); break;
    default: r = B.CreateNot(a); break;
  }
  set_pred(in.o[0], r);
  return true;
}

// cvta{.to}.space.size: adds (or, with .to, subtracts) the space's generic
// window; 32-bit forms truncate as exec_cvta does.
bool Emitter::lower_cvta(const Inst& in) {
  if (in.nops != 2 || in.o[0].kind != OK::Reg || !plain_source(in.o[1])) return false;
  if (!only_mods(in, {".to", ".global", ".shared", ".local", ".const", ".param", ".shared::cta"})) return false;
  uint64_t win = 0;
  if (in.m.space == ptx::Space::Shared) win = program::kSharedWindow;
  else if (in.m.space == ptx::Space::Local) win = program::kLocalWindow;
  else if (in.m.space != ptx::Space::Global && in.m.space != ptx::Space::Const && in.m.space != ptx::Space::Param)
    return false;
  const bool narrow = program::type_size(in.type) == 4;
  auto* v64 = FixedVectorType::get(i64_, exec::kWarpSize);
  auto* v32 = FixedVectorType::get(i32_, exec::kWarpSize);
  auto trunc32 = [&](Value* v) { return narrow ? B.CreateZExt(B.CreateTrunc(v, v32), v64) : v; };
  Value* s = src_bits(in.o[1]);
  Value* r = in.m.to ? trunc32(B.CreateSub(s, splat(i64_, win))) : B.CreateAdd(trunc32(s), splat(i64_, win));
  store_bits(in.o[0], r);
  return true;
}

// setp.cmp{.boolop}.type p{|q}, a, b{, c} on integers and f32/f64
// (setp_exec / finish_setp): unordered float compares are true on NaN,
// .ftz flushes f32 inputs.
bool Emitter::lower_setp(const Inst& in) {
  const LaneType t = lane_type(in.type);
  if (!t.valid || (is_int(t) && t.bits < 16) || in.o[0].kind != OK::Pred || !only_mods(in, kCmpMods)) return false;
  if (in.m.ftz && t.kind != LaneType::F32) return false;
  const bool has_c = in.m.boolop != program::BoolOp::None;
  if (in.nops != (has_c ? 4 : 3) || !plain_source(in.o[1]) || !plain_source(in.o[2])) return false;
  if (has_c && !pred_source(in.o[3])) return false;
  const auto pair = in.pair().kind;
  if (pair != OK::None && pair != OK::Pred) return false;
  CmpInst::Predicate p;
  const bool s = t.is_signed;
  if (is_int(t)) {
    switch (in.m.cmp) {
      case Cmp::Eq: p = CmpInst::ICMP_EQ; break;
      case Cmp::Ne: p = CmpInst::ICMP_NE; break;
      case Cmp::Lt: case Cmp::Lo: p = s ? CmpInst::ICMP_SLT : CmpInst::ICMP_ULT; break;
      case Cmp::Le: case Cmp::Ls: p = s ? CmpInst::ICMP_SLE : CmpInst::ICMP_ULE; break;
      case Cmp::Gt: case Cmp::Hi: p = s ? CmpInst::ICMP_SGT : CmpInst::ICMP_UGT; break;
      case Cmp::Ge: case Cmp::Hs: p = s ? CmpInst::ICMP_SGE : CmpInst::ICMP_UGE; break;
      default: return false;
    }
  } else {
    switch (in.m.cmp) {
      case Cmp::Eq: p = CmpInst::FCMP_OEQ; break;
      case Cmp::Ne: p = CmpInst::FCMP_ONE; break;
      case Cmp::Lt: p = CmpInst::FCMP_OLT; break;
      case Cmp::Le: p = CmpInst::FCMP_OLE; break;
      case Cmp::Gt: p = CmpInst::FCMP_OGT; break;
      case Cmp::Ge: p = CmpInst::FCMP_OGE; break;
      case Cmp::Equ: p = CmpInst::FCMP_UEQ; break;
      case Cmp::Neu: p = CmpInst::FCMP_UNE; break;
      case Cmp::Ltu: p = CmpInst::FCMP_ULT; break;
      case Cmp::Leu: p = CmpInst::FCMP_ULE; break;
      case Cmp::Gtu: p = CmpInst::FCMP_UGT; break;
      case Cmp::Geu: p = CmpInst::FCMP_UGE; break;
      case Cmp::Num: p = CmpInst::FCMP_ORD; break;
      case Cmp::Nan: p = CmpInst::FCMP_UNO; break;
      default: return false;
    }
  }
  Value* a = src(in.o[1], t);
  Value* b = src(in.o[2], t);
  if (in.m.ftz) { a = ftz(a); b = ftz(b); }
  Value* r = B.CreateBitCast(is_int(t) ? B.CreateICmp(p, a, b) : B.CreateFCmp(p, a, b), i32_);
  Value* c = has_c ? pred_value(in.o[3]) : nullptr;
  auto combine = [&](Value* x) -> Value* {
    switch (in.m.boolop) {
      case program::BoolOp::And: return B.CreateAnd(x, c);
      case program::BoolOp::Or: return B.CreateOr(x, c);
      case program::BoolOp::Xor: return B.CreateXor(x, c);
      default: return x;
    }
  };
  set_pred(in.o[0], combine(r));
  if (pair == OK::Pred) set_pred(in.pair(), combine(B.CreateNot(r)));
  return true;
}

// selp d, a, b, c: the raw 64 bits of a or b (exec_selp).
bool Emitter::lower_selp(const Inst& in) {
  if (in.type == Type::Pred || in.type == Type::None || in.nops != 4 || in.o[0].kind != OK::Reg) return false;
  if (!plain_source(in.o[1]) || !plain_source(in.o[2]) || !pred_source(in.o[3]) || !only_mods(in, {})) return false;
  Value* a = src_bits(in.o[1]);
  Value* b = src_bits(in.o[2]);
  Value* c = B.CreateBitCast(pred_value(in.o[3]), FixedVectorType::get(i1_, exec::kWarpSize));
  store_bits(in.o[0], B.CreateSelect(c, a, b));
  return true;
}

// f32/f64 add/sub/mul/fma/mad (round to nearest, .ftz on f32), neg, abs:
// results canonicalize NaNs as ops_float.cpp's fout does; neg/abs only
// touch the sign.
bool Emitter::lower_float(const Inst& in) {
  const LaneType t = lane_type(in.type);
  if (!is_float(t) || in.m.sat || in.m.cc || in.o[0].kind != OK::Reg) return false;
  if (in.m.rnd != Round::None && in.m.rnd != Round::Rn) return false;
  if (in.m.ftz && t.kind != LaneType::F32) return false;
  if (!only_mods(in, {".rn", ".ftz"})) return false;
  const bool sign_op = in.op == Opcode::Neg || in.op == Opcode::Abs;
  if (sign_op && in.m.rnd != Round::None) return false;
  const unsigned nsrc = (in.op == Opcode::Fma || in.op == Opcode::Mad) ? 3 : sign_op ? 1 : 2;
  if (in.nops != nsrc + 1) return false;
  for (unsigned i = 1; i <= nsrc; ++i)
    if (!plain_source(in.o[i])) return false;
  auto get = [&](unsigned i) {
    Value* v = src(in.o[i], t);
    return in.m.ftz ? ftz(v) : v;
  };
  Value* r = nullptr;
  switch (in.op) {
    case Opcode::Add: r = B.CreateFAdd(get(1), get(2)); break;
    case Opcode::Sub: r = B.CreateFSub(get(1), get(2)); break;
    case Opcode::Mul: r = B.CreateFMul(get(1), get(2)); break;
    case Opcode::Fma: case Opcode::Mad: {
      Value* a = get(1);
      Value* b = get(2);
      Value* c = get(3);
      if (in.m.neg_product()) a = B.CreateFNeg(a);  // a mul and a sub fused (program/contract.cpp)
      if (in.m.neg_addend()) c = B.CreateFNeg(c);
      r = B.CreateIntrinsic(Intrinsic::fma, {a->getType()}, {a, b, c});
      break;
    }
    case Opcode::Neg: r = B.CreateFNeg(get(1)); break;
    case Opcode::Abs: {
      Value* a = get(1);
      r = B.CreateUnaryIntrinsic(Intrinsic::fabs, a);
      break;
    }
    default: return false;
  }
  if (!sign_op) {
    if (in.m.ftz) r = ftz(r);
    r = canon(r);
  }
  store(in.o[0], r, t);
  return true;
}

// cvt between integer types (truncate or extend by the source's sign, no
// .sat) and cvt.rn.f32/f64 from 8- to 64-bit integers.
bool Emitter::lower_cvt(const Inst& in) {
  const LaneType d = lane_type(in.type), s = lane_type(in.type2);
  if (!d.valid || !s.valid || in.nops != 2 || in.o[0].kind != OK::Reg || !plain_source(in.o[1])) return false;
  if (in.m.sat || in.m.ftz || !only_mods(in, {".rn"})) return false;
  const bool int_int = is_int(d) && is_int(s);
  const bool int_float = is_float(d) && is_int(s);
  if (int_int ? in.m.rnd != Round::None : !(int_float && in.m.rnd == Round::Rn)) return false;
  auto* dv = FixedVectorType::get(d.kind == LaneType::Int ? B.getIntNTy(d.bits) : d.kind == LaneType::F32 ? f32_ : f64_,
                                  exec::kWarpSize);
  Value* v = src(in.o[1], s);
  Value* r = v;
  if (int_int) {
    if (d.bits > s.bits) r = s.is_signed ? B.CreateSExt(v, dv) : B.CreateZExt(v, dv);
    else if (d.bits < s.bits) r = B.CreateTrunc(v, dv);
  } else {
    r = s.is_signed ? B.CreateSIToFP(v, dv) : B.CreateUIToFP(v, dv);
  }
  store(in.o[0], r, d);
  return true;
}

}  // namespace softgpu::jit
