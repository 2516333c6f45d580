// Native lowering of the float conversions, integer div/rem, float div,
// rcp/sqrt/rsqrt and the .approx special functions. Each follows its
// interpreter handler bit for bit (exec/ops_convert.cpp, ops_int_sem.h,
// ops_float.cpp): the same .ftz flushing before and after, canonical NaNs,
// saturation of float -> int, the hardware's results of a division by zero
// and of INT_MIN / -1. Only round-to-nearest forms (and the integral
// roundings, which do not depend on the host mode) are lowered: the
// directed modes run their handlers under a host rounding mode. The special
// functions call softgpu_jit_special (jit/helpers.cpp), the same libm-based
// function the handlers call, one lane at a time.
// SOFTGPU_JIT_MATH=0 leaves all of these to their handlers (for measuring
// what the lowering buys, or ruling it out when hunting a difference).
#include <llvm/IR/Intrinsics.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "exec/float_util.h"
#include "jit/emit.h"

namespace softgpu::jit {

using namespace llvm;
using isa::Opcode;
using program::Inst;
using program::Round;
using program::Type;
using OK = program::Operand::Kind;

namespace {

bool math_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("SOFTGPU_JIT_MATH");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  return on;
}

llvm::Type* vec(llvm::Type* t) { return FixedVectorType::get(t, exec::kWarpSize); }

Constant* fsplat(llvm::Type* t, double v) {
  return ConstantVector::getSplat(ElementCount::getFixed(exec::kWarpSize), ConstantFP::get(t, v));
}

bool unary_shape(const Inst& in) {
  return in.nops == 2 && in.o[0].kind == OK::Reg && !in.m.sat && !in.m.cc && !in.m.relu;
}


// std::nearbyint (under the default host mode the interpreter runs in),
// trunc, floor, ceil.
Intrinsic::ID irnd_intrinsic(int k) {
  static const Intrinsic::ID ids[] = {Intrinsic::nearbyint, Intrinsic::trunc, Intrinsic::floor, Intrinsic::ceil};
  return ids[k];
}

const std::initializer_list<std::string_view> kCvtMods = {".rn", ".rni", ".rzi", ".rmi", ".rpi", ".ftz", ".sat"};

}  // namespace

// cvt between f32/f64 (FloatToFloat, .sat too) and from f32/f64 to 32/64-bit
// integers (FloatToInt: integral rounding in double, NaN -> 0, saturation).
bool Emitter::lower_cvt_float(const Inst& in) {
  if (!math_enabled()) return false;
  const LaneType d = lane_type(in.type), s = lane_type(in.type2);
  if (!is_float(s) || !d.valid || !plain_source(in.o[1]) || !only_mods(in, kCvtMods)) return false;
  const bool sat = in.m.sat && is_float(d);  // float <- float: clamped to [0, 1] (sat01)
  if (in.nops != 2 || in.o[0].kind != OK::Reg || in.m.cc || in.m.relu || (in.m.sat && !sat)) return false;
  const int k = program::integral_round_index(in.m.rnd);
  const bool z = in.m.ftz;
  if (is_int(d)) {
    if (k < 0 || d.bits < 32 || (z && s.kind != LaneType::F32)) return false;
    Value* v = src(in.o[1], s);
    if (s.kind == LaneType::F32) v = B.CreateFPExt(z ? ftz(v) : v, vec(f64_));
    Value* r = B.CreateUnaryIntrinsic(irnd_intrinsic(k), v);
    const double lo = d.is_signed ? -std::ldexp(1.0, int(d.bits) - 1) : 0.0;
    const double hi = std::ldexp(1.0, int(d.bits) - (d.is_signed ? 1 : 0));  // first value past the range
    Value* low = B.CreateFCmpOLE(r, fsplat(f64_, lo));
    Value* high = B.CreateFCmpOGE(r, fsplat(f64_, hi));
    Value* nan = B.CreateFCmpUNO(r, r);
    Value* out = B.CreateOr(B.CreateOr(low, high), nan);
    Value* safe = B.CreateSelect(out, fsplat(f64_, 0.0), r);
    auto* it = vec(B.getIntNTy(d.bits));
    Value* c = d.is_signed ? B.CreateFPToSI(safe, it) : B.CreateFPToUI(safe, it);
    const uint64_t all = d.bits == 64 ? ~0ull : (1ull << d.bits) - 1;
    const uint64_t mn = d.is_signed ? 1ull << (d.bits - 1) : 0, mx = d.is_signed ? all >> 1 : all;
    c = B.CreateSelect(low, splat(B.getIntNTy(d.bits), mn), c);
    c = B.CreateSelect(high, splat(B.getIntNTy(d.bits), mx), c);
    c = B.CreateSelect(nan, Constant::getNullValue(it), c);
    store(in.o[0], c, d);
    return true;
  }
  // Float <- float: the same type (none or an integral rounding), f32 <- f64
  // rounded to nearest, f64 <- f32 (exact).
  const bool same = d.kind == s.kind;
  if (same ? !(k >= 0 || in.m.rnd == Round::None)
           : d.kind == LaneType::F32 ? in.m.rnd != Round::Rn : in.m.rnd != Round::None)
    return false;
  if (z && same && d.kind == LaneType::F64) return false;  // no handler
  Value* v = src(in.o[1], s);
  if (z && s.kind == LaneType::F32) v = ftz(v);
  if (k >= 0) v = B.CreateUnaryIntrinsic(irnd_intrinsic(k), v);
  if (!same) v = d.kind == LaneType::F32 ? B.CreateFPTrunc(v, vec(f32_)) : B.CreateFPExt(v, vec(f64_));
  if (z && d.kind == LaneType::F32) v = ftz(v);
  if (sat) {  // !(v > 0) (NaN, -0, negatives) -> +0; v > 1 -> 1
    Value* zero = fsplat(v->getType()->getScalarType(), 0.0);
    Value* one = fsplat(v->getType()->getScalarType(), 1.0);
    v = B.CreateSelect(B.CreateFCmpOGT(v, zero), B.CreateSelect(B.CreateFCmpOGT(v, one), one, v), zero);
  }
  store(in.o[0], canon(v), d);
  return true;
}

// cvt.rn{.ftz}.f16/.bf16.f32, cvt.rn.f16x2/.bf16x2.f32 and cvt.f32/.f64.f16/.bf16 (ops_convert.cpp's
// generic path: NaN to the canonical f16/bf16 NaN; f32_to_bf16_rn's and
// f16_to_f32's arithmetic; encode_mini's rounding to nearest even, which
// fptrunc to half computes).
bool Emitter::lower_cvt_half(const Inst& in) {
  if (!math_enabled() || in.o[0].kind != OK::Reg || in.m.sat || in.m.relu || !plain_source(in.o[1]) ||
      !only_mods(in, {".rn", ".ftz"}))
    return false;
  const bool to_half = in.type == Type::F16 || in.type == Type::BF16;
  const bool to_pair = in.type == Type::F16x2 || in.type == Type::BF16x2;
  const bool from_half = in.type2 == Type::F16 || in.type2 == Type::BF16;
  const LaneType u16 = int_type(16, false), f32 = lane_type(Type::F32);
  // f32 -> f16/bf16 bits, rounded to nearest even; NaN -> 0x7fff.
  auto encode = [&](Value* v, bool bf) {
    Value* h;
    if (!bf) {
      h = B.CreateBitCast(B.CreateFPTrunc(v, vec(B.getHalfTy())), vec(i16_));
    } else {
      Value* b = B.CreateBitCast(v, vec(i32_));
      Value* odd = B.CreateAnd(B.CreateLShr(b, splat(i32_, 16)), splat(i32_, 1));
      h = B.CreateTrunc(B.CreateLShr(B.CreateAdd(B.CreateAdd(b, splat(i32_, 0x7fff)), odd), splat(i32_, 16)),
                        vec(i16_));
    }
    return B.CreateSelect(B.CreateFCmpUNO(v, v), splat(i16_, 0x7fff), h);  // kCanonicalNanF16 / BF16
  };
  if (in.type2 == Type::F32 && in.m.rnd == Round::Rn) {
    if (to_half && in.nops == 2) {
      Value* v = src(in.o[1], f32);
      store(in.o[0], encode(in.m.ftz ? ftz(v) : v, in.type == Type::BF16), u16);
      return true;
    }
    // cvt.rn.f16x2/.bf16x2.f32 d, a, b (exec_pack2): a in the high half.
    if (to_pair && in.nops == 3 && !in.m.ftz && plain_source(in.o[2])) {
      const bool bf = in.type == Type::BF16x2;
      Value* hi = B.CreateZExt(encode(src(in.o[1], f32), bf), vec(i32_));
      Value* lo = B.CreateZExt(encode(src(in.o[2], f32), bf), vec(i32_));
      store(in.o[0], B.CreateOr(B.CreateShl(hi, splat(i32_, 16)), lo), int_type(32, false));
      return true;
    }
    return false;
  }
  if (in.nops != 2) return false;
  if (!from_half || in.m.ftz || in.m.rnd != Round::None || (in.type != Type::F32 && in.type != Type::F64))
    return false;
  Value* h = B.CreateZExt(src(in.o[1], u16), vec(i32_));
  Value* bits;
  if (in.type2 == Type::BF16) {
    bits = B.CreateShl(h, splat(i32_, 16));
  } else {
    Value* sign = B.CreateShl(B.CreateAnd(h, splat(i32_, 0x8000)), splat(i32_, 16));
    Value* e = B.CreateAnd(B.CreateLShr(h, splat(i32_, 10)), splat(i32_, 0x1f));
    Value* m = B.CreateAnd(h, splat(i32_, 0x3ff));
    Value* m13 = B.CreateShl(m, splat(i32_, 13));
    Value* special = B.CreateOr(B.CreateOr(sign, splat(i32_, 0x7f800000)), m13);
    Value* normal = B.CreateOr(B.CreateOr(sign, B.CreateShl(B.CreateAdd(e, splat(i32_, 112)), splat(i32_, 23))), m13);
    Value* sub = B.CreateFMul(B.CreateUIToFP(m, vec(f32_)), fsplat(f32_, 0x1p-24));  // exact
    Value* subbits = B.CreateOr(B.CreateBitCast(sub, vec(i32_)), sign);
    bits = B.CreateSelect(B.CreateICmpEQ(e, splat(i32_, 0x1f)), special,
                          B.CreateSelect(B.CreateICmpNE(e, splat(i32_, 0)), normal, subbits));
  }
  Value* f = B.CreateBitCast(bits, vec(f32_));
  if (in.type == Type::F64) {
    store(in.o[0], canon(B.CreateFPExt(f, vec(f64_))), lane_type(Type::F64));
  } else {
    store(in.o[0], canon(f), lane_type(Type::F32));
  }
  return true;
}

// div/rem on 16/32/64-bit integers (ops_int_sem.h): a zero divisor gives
// all ones (div) or the dividend (rem); INT_MIN / -1 gives INT_MIN, and a
// signed rem by -1 gives 0.
bool Emitter::lower_divrem(const Inst& in) {
  if (!math_enabled()) return false;
  switch (in.type) {
    case Type::S16: case Type::S32: case Type::S64: case Type::U16: case Type::U32: case Type::U64: break;
    default: return false;
  }
  const LaneType t = lane_type(in.type);
  if (in.nops != 3 || in.o[0].kind != OK::Reg || !plain_source(in.o[1]) || !plain_source(in.o[2]) ||
      !only_mods(in, {}))
    return false;
  Value* a = src(in.o[1], t);
  Value* b = src(in.o[2], t);
  llvm::Type* et = B.getIntNTy(t.bits);
  Value* zero = B.CreateICmpEQ(b, Constant::getNullValue(b->getType()));
  Value* one = splat(et, 1);
  const bool div = in.op == Opcode::Div;
  Value* r;
  if (t.is_signed) {
    Value* minus1 = B.CreateICmpEQ(b, Constant::getAllOnesValue(b->getType()));
    Value* amin = B.CreateICmpEQ(a, splat(et, 1ull << (t.bits - 1)));
    // Divides by 1 where the quotient is set below (no trap, no poison).
    Value* avoid = B.CreateOr(zero, div ? B.CreateAnd(minus1, amin) : minus1);
    Value* sb = B.CreateSelect(avoid, one, b);
    r = div ? B.CreateSDiv(a, sb) : B.CreateSRem(a, sb);  // a / 1 = a: INT_MIN / -1; a % 1 = 0: rem by -1
  } else {
    Value* sb = B.CreateSelect(zero, one, b);
    r = div ? B.CreateUDiv(a, sb) : B.CreateURem(a, sb);
  }
  r = B.CreateSelect(zero, div ? Constant::getAllOnesValue(a->getType()) : a, r);
  store(in.o[0], r, t);
  return true;
}

// div.rn.f32 (.ftz), div.rn.f64, div.approx/.full.f32 (.ftz): for
// 2^126 < |b| < inf the approximate forms give a signed zero (NaN for an
// infinite a), as FDivApprox does.
bool Emitter::lower_fdiv(const Inst& in) {
  if (!math_enabled()) return false;
  const LaneType t = lane_type(in.type);
  if (!is_float(t) || in.nops != 3 || in.o[0].kind != OK::Reg || in.m.sat || in.m.cc) return false;
  if (!plain_source(in.o[1]) || !plain_source(in.o[2]) || !only_mods(in, {".rn", ".approx", ".full", ".ftz"}))
    return false;
  const bool f32 = t.kind == LaneType::F32, z = in.m.ftz;
  const bool approx = in.m.approx || in.m.full;
  if (approx ? !(f32 && in.m.rnd == Round::None) : in.m.rnd != Round::Rn) return false;
  if (z && !f32) return false;
  Value* a = src(in.o[1], t);
  Value* b = src(in.o[2], t);
  if (z) { a = ftz(a); b = ftz(b); }
  Value* q = B.CreateFDiv(a, b);
  if (z) q = ftz(q);
  q = canon(q);
  if (approx) {
    Value* ab = B.CreateUnaryIntrinsic(Intrinsic::fabs, b);
    Value* huge = B.CreateAnd(B.CreateFCmpOGT(ab, fsplat(f32_, 0x1p126)), B.CreateFCmpOLT(ab, fsplat(f32_, INFINITY)));
    Value* ainf = B.CreateFCmpOEQ(B.CreateUnaryIntrinsic(Intrinsic::fabs, a), fsplat(f32_, INFINITY));
    Value* sa = B.CreateICmpSLT(B.CreateBitCast(a, vec(i32_)), splat(i32_, 0));
    Value* sb = B.CreateICmpSLT(B.CreateBitCast(b, vec(i32_)), splat(i32_, 0));
    Value* zs = B.CreateSelect(B.CreateXor(sa, sb), fsplat(f32_, -0.0), fsplat(f32_, 0.0));
    Value* nan = B.CreateBitCast(splat(i32_, exec::kCanonicalNanF32), vec(f32_));
    q = B.CreateSelect(huge, B.CreateSelect(ainf, nan, zs), q);
  }
  store(in.o[0], q, t);
  return true;
}

// rcp, sqrt (.approx.f32 and .rn, .ftz on f32) and rsqrt.approx (f32 with
// .ftz; f64, where .ftz changes nothing), as bind_rcp/bind_sqrt/bind_rsqrt
// pick them: 1 / x and sqrt(x) correctly rounded, rsqrt as
// float(1.0 / sqrt(double(x))).
bool Emitter::lower_root(const Inst& in) {
  if (!math_enabled()) return false;
  const LaneType t = lane_type(in.type);
  if (!is_float(t) || !unary_shape(in) || !plain_source(in.o[1]) || !only_mods(in, {".rn", ".approx", ".ftz"}))
    return false;
  const bool f32 = t.kind == LaneType::F32, z = in.m.ftz, ap = in.m.approx;
  const Round r = in.m.rnd;
  bool flush = z && f32;
  switch (in.op) {
    case Opcode::Rcp:
      if (f32 ? !(ap ? r == Round::None : r == Round::Rn) : !(ap ? z && r == Round::None : !z && r == Round::Rn))
        return false;
      break;
    case Opcode::Sqrt:
      if (f32 ? !(ap ? r == Round::None : r == Round::Rn) : (ap || z || r != Round::Rn)) return false;
      break;
    default:  // rsqrt
      if (!ap || r != Round::None) return false;
      break;
  }
  Value* x = src(in.o[1], t);
  if (flush) x = ftz(x);
  Value* y;
  if (in.op == Opcode::Rcp) {
    y = B.CreateFDiv(fsplat(x->getType()->getScalarType(), 1.0), x);
  } else if (in.op == Opcode::Sqrt) {
    y = B.CreateUnaryIntrinsic(Intrinsic::sqrt, x);
  } else {
    Value* xd = f32 ? B.CreateFPExt(x, vec(f64_)) : x;
    y = B.CreateFDiv(fsplat(f64_, 1.0), B.CreateUnaryIntrinsic(Intrinsic::sqrt, xd));
    if (f32) y = B.CreateFPTrunc(y, vec(f32_));
  }
  if (flush) y = ftz(y);
  store(in.o[0], canon(y), t);
  return true;
}

// min/max on 16/32/64-bit integers (no .relu): the smaller or larger by the
// type's sign. min/max{.ftz}.f32 and min/max.f64 (fminmax without .NaN): a
// NaN operand gives the other one (two NaNs the canonical NaN), -0 is below
// +0, and the result is otherwise an operand's bits unchanged.
bool Emitter::lower_minmax(const Inst& in) {
  const LaneType t = lane_type(in.type);
  if (is_int(t) && t.bits >= 16 && in.nops == 3 && in.o[0].kind == OK::Reg && !in.m.relu && !in.m.sat &&
      plain_source(in.o[1]) && plain_source(in.o[2]) && only_mods(in, {})) {
    const bool is_max = in.op == Opcode::Max;
    const Intrinsic::ID id = t.is_signed ? (is_max ? Intrinsic::smax : Intrinsic::smin)
                                         : (is_max ? Intrinsic::umax : Intrinsic::umin);
    store(in.o[0], B.CreateBinaryIntrinsic(id, src(in.o[1], t), src(in.o[2], t)), t);
    return true;
  }
  if (!math_enabled()) return false;
  if (!is_float(t) || in.nops != 3 || in.o[0].kind != OK::Reg || in.m.relu || in.m.sat) return false;
  if (!plain_source(in.o[1]) || !plain_source(in.o[2]) || !only_mods(in, {".ftz"})) return false;
  if (in.m.ftz && t.kind != LaneType::F32) return false;
  Value* a = src(in.o[1], t);
  Value* b = src(in.o[2], t);
  if (in.m.ftz) { a = ftz(a); b = ftz(b); }
  const bool is_max = in.op == Opcode::Max;
  llvm::Type* it = vec(B.getIntNTy(t.bits));
  Value* neg_a = B.CreateICmpSLT(B.CreateBitCast(a, it), Constant::getNullValue(it));
  Value* on_eq = is_max ? B.CreateSelect(neg_a, b, a) : B.CreateSelect(neg_a, a, b);
  Value* lt = B.CreateFCmpOLT(a, b);
  Value* r = B.CreateSelect(B.CreateFCmpOEQ(a, b), on_eq, is_max ? B.CreateSelect(lt, b, a) : B.CreateSelect(lt, a, b));
  Value* na = B.CreateFCmpUNO(a, a);
  Value* nb = B.CreateFCmpUNO(b, b);
  r = B.CreateSelect(nb, a, r);
  r = B.CreateSelect(na, b, r);
  r = B.CreateSelect(B.CreateAnd(na, nb), canon(a), r);
  store(in.o[0], r, t);
  return true;
}

// sin, cos, lg2, ex2 .approx{.ftz}.f32 and tanh.approx.f32: each active
// lane through exec::approx_special_f32, by softgpu_jit_special.
bool Emitter::lower_special(const Inst& in) {
  if (!math_enabled() || in.type != Type::F32 || !in.m.approx || !unary_shape(in) || !plain_source(in.o[1]) ||
      in.m.rnd != Round::None || !only_mods(in, {".approx", ".ftz"}))
    return false;
  uint32_t k;
  switch (in.op) {
    case Opcode::Sin: k = 0; break;
    case Opcode::Cos: k = 1; break;
    case Opcode::Lg2: k = 2; break;
    case Opcode::Ex2: k = 3; break;
    default: k = 4; break;  // tanh: bind_tanh ignores .ftz
  }
  if (in.m.ftz && k != 4) k |= 8;
  const LaneType t = lane_type(Type::F32);
  B.CreateAlignedStore(src(in.o[1], t), fbuf_, MaybeAlign(4));
  B.CreateCall(special_fn_, {fbuf_, B.getInt32(k), mask_});
  store(in.o[0], B.CreateAlignedLoad(vec(f32_), fbuf_, MaybeAlign(4)), t);
  return true;
}

}  // namespace softgpu::jit
