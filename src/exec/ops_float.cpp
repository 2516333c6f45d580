// Floating-point instructions: f32/f64 arithmetic with .ftz/.sat and the
// four IEEE rounding modes, the .approx special functions, comparisons,
// and f16/bf16 (scalar and x2) arithmetic. NaN results are the canonical
// NaN NVIDIA hardware returns. An f32/f64 mul and add/sub without rounding
// modifiers that ptxas would fuse arrive here as one fma, fused by the
// decoder (program/contract.cpp); f16 ones are executed unfused.
#include <cmath>

#include "exec/float_util.h"
#include "exec/ops_common.h"

namespace softgpu::exec {
namespace ops {
namespace {

using program::Round;
using program::Type;
using OK = Operand::Kind;


template <class T, bool FTZ> inline T fin(T x) { return FTZ ? ftz(x) : x; }
template <class T, bool FTZ, bool SAT> inline T fout(T r) {
  if (FTZ) r = ftz(r);
  if (SAT) return sat01(r);
  return canon(r);
}

template <class T, bool Z, bool S> struct FAdd { static T f(T a, T b) { return fout<T, Z, S>(fin<T, Z>(a) + fin<T, Z>(b)); } };
template <class T, bool Z, bool S> struct FSub { static T f(T a, T b) { return fout<T, Z, S>(fin<T, Z>(a) - fin<T, Z>(b)); } };
template <class T, bool Z, bool S> struct FMul { static T f(T a, T b) { return fout<T, Z, S>(fin<T, Z>(a) * fin<T, Z>(b)); } };
template <class T, bool Z, bool S> struct FFma {
  static T f(T a, T b, T c) { return fout<T, Z, S>(std::fma(fin<T, Z>(a), fin<T, Z>(b), fin<T, Z>(c))); }
};
// The fma the decoder makes of a mul and a sub (program/contract.cpp).
template <class T, bool Z, bool S> struct FFmaNegProduct {
  static T f(T a, T b, T c) { return FFma<T, Z, S>::f(-a, b, c); }
};
template <class T, bool Z, bool S> struct FFmaNegAddend {
  static T f(T a, T b, T c) { return FFma<T, Z, S>::f(a, b, -c); }
};
template <class T, bool Z> struct FDiv { static T f(T a, T b) { return fout<T, Z, false>(fin<T, Z>(a) / fin<T, Z>(b)); } };
// div.approx / div.full.f32: for 2^126 < |b| < 2^128 the hardware returns
// 0 (NaN when a is infinite); elsewhere a (near) correctly rounded quotient.
template <bool Z> struct FDivApprox {
  static float f(float a, float b) {
    a = fin<float, Z>(a); b = fin<float, Z>(b);
    float ab = std::fabs(b);
    if (ab > 0x1p126f && ab < INFINITY) {
      if (std::isinf(a)) return std::bit_cast<float>(kCanonicalNanF32);
      return std::signbit(a) != std::signbit(b) ? -0.0f : 0.0f;
    }
    return fout<float, Z, false>(a / b);
  }
};
template <class T, bool NaNOut>
inline T fminmax(T a, T b, bool is_max) {
  const bool na = a != a, nb = b != b;
  if (na || nb) {
    if (NaNOut || (na && nb)) return canon(std::numeric_limits<T>::quiet_NaN());
    return na ? b : a;
  }
  if (a == b) return (std::signbit(a) == is_max) ? b : a;  // -0 < +0
  return (a < b) == is_max ? b : a;
}
template <class T, bool Z, bool N, bool Max> struct FMinMax {
  static T f(T a, T b) { return fminmax<T, N>(fin<T, Z>(a), fin<T, Z>(b), Max); }
};
template <class T, bool Z> struct FAbs { static T f(T a) { return std::fabs(fin<T, Z>(a)); } };
template <class T, bool Z> struct FNeg { static T f(T a) { return -fin<T, Z>(a); } };
template <class T, bool Z> struct FRcp { static T f(T a) { return fout<T, Z, false>(T(1) / fin<T, Z>(a)); } };
template <class T, bool Z> struct FSqrt { static T f(T a) { return fout<T, Z, false>(std::sqrt(fin<T, Z>(a))); } };
template <class T, bool Z> struct FRsqrt {
  static T f(T a) { return fout<T, Z, false>(T(1.0 / std::sqrt(double(fin<T, Z>(a))))); }
};
// .approx.f32 special functions: evaluated in double, rounded once
// (float_util.h, shared with the JIT).
template <bool Z, int K> struct FSpecial {
  static float f(float a) { return approx_special_f32<Z, K>(a); }
};
template <class T> struct FCopysign { static T f(T a, T b) { return std::copysign(b, a); } };
// Three-input min/max (sm_100): NaN-ignoring (or .NaN-propagating) min/max
// is associative, so min(a, b, c) = min(min(a, b), c); .abs takes |x| first.
template <bool Z, bool N, bool Max, bool Abs> struct FMinMax3 {
  static float f(float a, float b, float c) {
    a = fin<float, Z>(a); b = fin<float, Z>(b); c = fin<float, Z>(c);
    if (Abs) { a = std::fabs(a); b = std::fabs(b); c = std::fabs(c); }
    return fminmax<float, N>(fminmax<float, N>(a, b, Max), c, Max);
  }
};
// .xorsign.abs: |result| = min/max(|a|, |b|), sign = sign(a) XOR sign(b).
// A NaN result stays the canonical NaN.
template <class T> inline T xorsign_abs(T a, T b, bool nan_out, bool is_max) {
  const bool s = std::signbit(a) != std::signbit(b);
  T r = nan_out ? fminmax<T, true>(std::fabs(a), std::fabs(b), is_max) : fminmax<T, false>(std::fabs(a), std::fabs(b), is_max);
  if (r != r) return r;
  return s ? -r : r;
}
template <bool Z, bool N, bool Max> struct FMinMaxXs {
  static float f(float a, float b) { return xorsign_abs<float>(fin<float, Z>(a), fin<float, Z>(b), N, Max); }
};

// ---- f16 / bf16 ----
template <bool BF> inline double hdec(uint32_t h) { return BF ? double(bf16_to_f32(uint16_t(h))) : double(f16_to_f32(uint16_t(h))); }
template <bool BF> inline uint32_t henc(double x) {
  if (x != x) return BF ? kCanonicalNanBF16 : kCanonicalNanF16;
  return encode_mini(x, BF ? kBF16 : kF16, Round::Rn);
}
template <bool BF> inline uint32_t hftz(uint32_t h) {
  const uint32_t expmask = BF ? 0x7f80u : 0x7c00u;
  return (h & expmask) == 0 ? (h & 0x8000u) : h;
}
// Flags: FTZ, SAT, RELU, MAX (for min/max), NAN (min/max .NaN).
template <bool BF, int K, bool Z, bool S, bool R>
inline uint32_t hop(uint32_t a, uint32_t b, uint32_t c) {
  if (Z) { a = hftz<BF>(a); b = hftz<BF>(b); c = hftz<BF>(c); }
  const double x = hdec<BF>(a), y = hdec<BF>(b);
  double r;
  if constexpr (K == 0) r = x + y;
  else if constexpr (K == 1) r = x - y;
  else if constexpr (K == 2) r = x * y;
  else if constexpr (K == 3) r = fma_sticky(x, y, hdec<BF>(c));
  else if constexpr (K == 4) r = fminmax<double, false>(x, y, false);
  else if constexpr (K == 5) r = fminmax<double, false>(x, y, true);
  else if constexpr (K == 6) r = fminmax<double, true>(x, y, false);
  else r = fminmax<double, true>(x, y, true);
  if (S) r = sat01(r);
  if (R && r < 0) r = 0;  // NaN stays NaN (canonicalized by henc)
  uint32_t h = henc<BF>(r);
  return Z ? hftz<BF>(h) : h;
}
template <bool BF, int K, bool Z, bool S, bool R, bool X2, int N>
void exec_half(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize], s2[kWarpSize], s3[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  const uint64_t* b = N >= 2 ? w.src(in.o[2], s2) : a;
  const uint64_t* c = N >= 3 ? w.src(in.o[3], s3) : a;
  uint64_t* d = w.dst(in.o[0]);
  if (!d) return;
  for_lanes(mask, [&](uint32_t l) {
    uint32_t lo = hop<BF, K, Z, S, R>(uint32_t(a[l] & 0xffff), uint32_t(b[l] & 0xffff), uint32_t(c[l] & 0xffff));
    if constexpr (X2) {
      uint32_t hi = hop<BF, K, Z, S, R>(uint32_t(a[l] >> 16 & 0xffff), uint32_t(b[l] >> 16 & 0xffff), uint32_t(c[l] >> 16 & 0xffff));
      d[l] = lo | (uint64_t(hi) << 16);
    } else {
      d[l] = lo;
    }
  });
}
// neg/abs on halves are sign-bit operations (with optional flush).
template <bool BF, bool Abs, bool Z, bool X2>
void exec_half_sign(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  uint64_t* d = w.dst(in.o[0]);
  if (!d) return;
  auto one = [](uint32_t h) {
    if (Z) h = hftz<BF>(h);
    return Abs ? (h & 0x7fffu) : (h ^ 0x8000u);
  };
  for_lanes(mask, [&](uint32_t l) {
    uint64_t r = one(uint32_t(a[l] & 0xffff));
    if (X2) r |= uint64_t(one(uint32_t(a[l] >> 16 & 0xffff))) << 16;
    d[l] = r;
  });
}

// min/max.xorsign.abs on f16/bf16 (scalar and x2).
template <bool BF, bool Max, bool N, bool Z, bool X2>
void exec_half_xs(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize], s2[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  const uint64_t* b = w.src(in.o[2], s2);
  uint64_t* d = w.dst(in.o[0]);
  if (!d) return;
  auto one = [](uint32_t x, uint32_t y) {
    if (Z) { x = hftz<BF>(x); y = hftz<BF>(y); }
    uint32_t h = henc<BF>(xorsign_abs<double>(hdec<BF>(x), hdec<BF>(y), N, Max));
    return Z ? hftz<BF>(h) : h;
  };
  for_lanes(mask, [&](uint32_t l) {
    uint64_t r = one(uint32_t(a[l] & 0xffff), uint32_t(b[l] & 0xffff));
    if (X2) r |= uint64_t(one(uint32_t(a[l] >> 16 & 0xffff), uint32_t(b[l] >> 16 & 0xffff))) << 16;
    d[l] = r;
  });
}
// ex2.approx / tanh.approx on f16/bf16 (scalar and x2): evaluated in double
// and rounded once to nearest (within the ISA's error bound for .approx).
template <bool BF, int K, bool Z, bool X2>
void exec_half_special(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  uint64_t* d = w.dst(in.o[0]);
  if (!d) return;
  auto one = [](uint32_t x) {
    if (Z) x = hftz<BF>(x);
    const double v = hdec<BF>(x);
    uint32_t h = henc<BF>(K == 0 ? std::exp2(v) : std::tanh(v));
    return Z ? hftz<BF>(h) : h;
  };
  for_lanes(mask, [&](uint32_t l) {
    uint64_t r = one(uint32_t(a[l] & 0xffff));
    if (X2) r |= uint64_t(one(uint32_t(a[l] >> 16 & 0xffff))) << 16;
    d[l] = r;
  });
}

struct HalfMods { bool bf, x2; };
inline bool half_type(Type t, HalfMods& h) {
  switch (t) {
    case Type::F16: h = {false, false}; return true;
    case Type::F16x2: h = {false, true}; return true;
    case Type::BF16: h = {true, false}; return true;
    case Type::BF16x2: h = {true, true}; return true;
    default: return false;
  }
}

// Picks exec_half<...> from runtime flags (bind time only).
template <int K, int N>
ExecFn pick_half(const Inst& in, bool z, bool s, bool r) {
  HalfMods h{};
  if (!half_type(in.type, h)) return nullptr;
  if (in.m.rnd != Round::None && in.m.rnd != Round::Rn) return nullptr;
  if (h.bf && (z || s)) return nullptr;
  if (int(z) + int(s) + int(r) > 1) return nullptr;
#define HP(BF, X2)                                                             \
  if (h.bf == BF && h.x2 == X2) {                                              \
    if (z) return &exec_half<BF, K, true, false, false, X2, N>;                \
    if (s) return &exec_half<BF, K, false, true, false, X2, N>;                \
    if (r) return &exec_half<BF, K, false, false, true, X2, N>;                \
    return &exec_half<BF, K, false, false, false, X2, N>;                      \
  }
  HP(false, false) HP(false, true) HP(true, false) HP(true, true)
#undef HP
  return nullptr;
}

// ---- f32/f64 picking ----
// Arithmetic with .ftz/.sat on f32 and the rounding mode.
template <template <class, bool, bool> class Op, int N>
ExecFn pick_arith(const Inst& in) {
  const Round r = in.m.rnd;
  if (in.type == Type::F32) {
    const bool z = in.m.ftz, s = in.m.sat;
    if constexpr (N == 2) {
      if (z && s) return rounded<&binary<float, float, float, Op<float, true, true>>>(r);
      if (z) return rounded<&binary<float, float, float, Op<float, true, false>>>(r);
      if (s) return rounded<&binary<float, float, float, Op<float, false, true>>>(r);
      return rounded<&binary<float, float, float, Op<float, false, false>>>(r);
    } else {
      if (z && s) return rounded<&ternary<float, float, float, float, Op<float, true, true>>>(r);
      if (z) return rounded<&ternary<float, float, float, float, Op<float, true, false>>>(r);
      if (s) return rounded<&ternary<float, float, float, float, Op<float, false, true>>>(r);
      return rounded<&ternary<float, float, float, float, Op<float, false, false>>>(r);
    }
  }
  if (in.type == Type::F64) {
    if (in.m.ftz || in.m.sat) return nullptr;
    if constexpr (N == 2) return rounded<&binary<double, double, double, Op<double, false, false>>>(r);
    else return rounded<&ternary<double, double, double, double, Op<double, false, false>>>(r);
  }
  return nullptr;
}

template <template <class, bool> class Op>
ExecFn pick_unary_z(const Inst& in, bool allow_round) {
  const Round r = allow_round ? in.m.rnd : Round::None;
  if (!allow_round && in.m.rnd != Round::None) return nullptr;
  if (in.type == Type::F32)
    return in.m.ftz ? rounded<&unary<float, float, Op<float, true>>>(r) : rounded<&unary<float, float, Op<float, false>>>(r);
  if (in.type == Type::F64) return rounded<&unary<double, double, Op<double, false>>>(r);
  return nullptr;
}

}  // namespace

namespace fbind {

ExecFn add(const Inst& in) {
  if (in.m.cc) return nullptr;
  if (Type t = in.type; t == Type::F32 || t == Type::F64) return pick_arith<FAdd, 2>(in);
  return pick_half<0, 2>(in, in.m.ftz, in.m.sat, false);
}
ExecFn sub(const Inst& in) {
  if (Type t = in.type; t == Type::F32 || t == Type::F64) return pick_arith<FSub, 2>(in);
  return pick_half<1, 2>(in, in.m.ftz, in.m.sat, false);
}
ExecFn mul(const Inst& in) {
  if (Type t = in.type; t == Type::F32 || t == Type::F64) return pick_arith<FMul, 2>(in);
  return pick_half<2, 2>(in, in.m.ftz, in.m.sat, false);
}
ExecFn mad(const Inst& in) {
  if (Type t = in.type; t == Type::F32 || t == Type::F64) return pick_arith<FFma, 3>(in);
  return nullptr;
}
ExecFn fma(const Inst& in) {
  if (Type t = in.type; t == Type::F32 || t == Type::F64) {
    if (in.m.neg_product()) return pick_arith<FFmaNegProduct, 3>(in);
    if (in.m.neg_addend()) return pick_arith<FFmaNegAddend, 3>(in);
    return pick_arith<FFma, 3>(in);
  }
  return pick_half<3, 3>(in, in.m.ftz, in.m.sat, in.m.relu);
}
ExecFn div(const Inst& in) {
  if (in.type == Type::F32) {
    const bool z = in.m.ftz;
    if (in.m.approx || in.m.full) {
      if (in.m.rnd != Round::None) return nullptr;
      return z ? &binary<float, float, float, FDivApprox<true>> : &binary<float, float, float, FDivApprox<false>>;
    }
    if (in.m.rnd == Round::None) return nullptr;  // div.f32 needs .approx, .full or a rounding mode
    return z ? rounded<&binary<float, float, float, FDiv<float, true>>>(in.m.rnd)
             : rounded<&binary<float, float, float, FDiv<float, false>>>(in.m.rnd);
  }
  if (in.type == Type::F64) {
    if (in.m.ftz || in.m.approx) return nullptr;
    return rounded<&binary<double, double, double, FDiv<double, false>>>(in.m.rnd);
  }
  return nullptr;
}
template <bool Max, bool Z, bool N>
ExecFn pick_minmax3(bool ab) {
  return ab ? &ternary<float, float, float, float, FMinMax3<Z, N, Max, true>>
            : &ternary<float, float, float, float, FMinMax3<Z, N, Max, false>>;
}
template <bool Max, bool N>
ExecFn pick_half_xs(const HalfMods& h, bool z) {
#define HX(BF, X2) \
  if (h.bf == BF && h.x2 == X2) return z ? &exec_half_xs<BF, Max, N, true, X2> : &exec_half_xs<BF, Max, N, false, X2>;
  HX(false, false) HX(false, true) HX(true, false) HX(true, true)
#undef HX
  return nullptr;
}
template <bool Max>
ExecFn minmax(const Inst& in) {
  const bool n = has_mod(in, ".NaN");
  const bool xs = has_mod(in, ".xorsign");
  const bool ab = has_mod(in, ".abs");
  const bool z = in.m.ftz;
  if (xs && !ab) return nullptr;  // the modifier is .xorsign.abs
  if (in.nops == 4) {  // min/max{.ftz}{.NaN}{.abs}.f32 d, a, b, c
    if (in.type != Type::F32 || xs || in.m.relu) return nullptr;
    if (z) return n ? pick_minmax3<Max, true, true>(ab) : pick_minmax3<Max, true, false>(ab);
    return n ? pick_minmax3<Max, false, true>(ab) : pick_minmax3<Max, false, false>(ab);
  }
  if (in.nops != 3) return nullptr;
  if (xs) {
    if (in.m.relu) return nullptr;
    if (in.type == Type::F32) {
      if (z) return n ? &binary<float, float, float, FMinMaxXs<true, true, Max>> : &binary<float, float, float, FMinMaxXs<true, false, Max>>;
      return n ? &binary<float, float, float, FMinMaxXs<false, true, Max>> : &binary<float, float, float, FMinMaxXs<false, false, Max>>;
    }
    HalfMods h{};
    if (!half_type(in.type, h) || (h.bf && z)) return nullptr;
    return n ? pick_half_xs<Max, true>(h, z) : pick_half_xs<Max, false>(h, z);
  }
  if (ab) return nullptr;  // .abs alone: three-input form only
  if (in.type == Type::F32) {
    if (in.m.relu) return nullptr;
    if (z && n) return &binary<float, float, float, FMinMax<float, true, true, Max>>;
    if (z) return &binary<float, float, float, FMinMax<float, true, false, Max>>;
    if (n) return &binary<float, float, float, FMinMax<float, false, true, Max>>;
    return &binary<float, float, float, FMinMax<float, false, false, Max>>;
  }
  if (in.type == Type::F64) {
    if (in.m.ftz || n || in.m.relu) return nullptr;
    return &binary<double, double, double, FMinMax<double, false, false, Max>>;
  }
  return n ? pick_half<Max ? 7 : 6, 2>(in, in.m.ftz, false, in.m.relu)
           : pick_half<Max ? 5 : 4, 2>(in, in.m.ftz, false, in.m.relu);
}
ExecFn min(const Inst& in) { return minmax<false>(in); }
ExecFn max(const Inst& in) { return minmax<true>(in); }

template <bool Abs>
ExecFn sign_op(const Inst& in) {
  HalfMods h{};
  if (half_type(in.type, h)) {
    const bool z = in.m.ftz;
    if (h.bf && z) return nullptr;
#define HS(BF, X2)                                                                            \
    if (h.bf == BF && h.x2 == X2) return z ? &exec_half_sign<BF, Abs, true, X2> : &exec_half_sign<BF, Abs, false, X2>;
    HS(false, false) HS(false, true) HS(true, false) HS(true, true)
#undef HS
    return nullptr;
  }
  if constexpr (Abs) return pick_unary_z<FAbs>(in, false);
  else return pick_unary_z<FNeg>(in, false);
}
ExecFn abs(const Inst& in) { return sign_op<true>(in); }
ExecFn neg(const Inst& in) { return sign_op<false>(in); }

struct GetF16 { static float f(uint64_t b) { return f16_to_f32(uint16_t(b)); } };
struct GetBF16 { static float f(uint64_t b) { return bf16_to_f32(uint16_t(b)); } };
struct GetF32Ftz { static float f(uint64_t b) { return ftz(from_bits<float>(b)); } };
struct GetF16Ftz { static float f(uint64_t b) { return f16_to_f32(uint16_t(hftz<false>(uint32_t(b & 0xffff)))); } };

// setp on packed halves: p gets the low-half result, q the high-half one.
template <bool BF, class Cmp>
void exec_setp_x2(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize], s2[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  const uint64_t* b = w.src(in.o[2], s2);
  uint32_t lo = 0, hi = 0;
  for_lanes(mask, [&](uint32_t l) {
    lo |= uint32_t(Cmp::f(hdec<BF>(uint32_t(a[l] & 0xffff)), hdec<BF>(uint32_t(b[l] & 0xffff)))) << l;
    hi |= uint32_t(Cmp::f(hdec<BF>(uint32_t(a[l] >> 16 & 0xffff)), hdec<BF>(uint32_t(b[l] >> 16 & 0xffff)))) << l;
  });
  uint32_t c = in.m.boolop != program::BoolOp::None ? w.pred_value(in.o[3]) : 0;
  w.set_pred(in.o[0], combine(in.m.boolop, lo, c), mask);
  w.set_pred(in.pair(), combine(in.m.boolop, hi, c), mask);
}

template <class Get>
ExecFn setp_with(const Inst& in) {
  return by_cmp(in.m.cmp, []<class C>() -> ExecFn { return &setp_exec<Get, C>; }, true);
}
ExecFn setp(const Inst& in) {
  switch (in.type) {
    case Type::F32: return in.m.ftz ? setp_with<GetF32Ftz>(in) : setp_with<GetAs<float>>(in);
    case Type::F64: return in.m.ftz ? nullptr : setp_with<GetAs<double>>(in);
    case Type::F16: return in.m.ftz ? setp_with<GetF16Ftz>(in) : setp_with<GetF16>(in);
    case Type::BF16: return setp_with<GetBF16>(in);
    case Type::F16x2: case Type::BF16x2: {
      if (in.m.ftz || in.pair().kind != OK::Pred) return nullptr;
      const bool bf = in.type == Type::BF16x2;
      return by_cmp(in.m.cmp, [bf]<class C>() -> ExecFn {
        return bf ? &exec_setp_x2<true, C> : &exec_setp_x2<false, C>;
      }, true);
    }
    default: return nullptr;
  }
}
template <class Get>
ExecFn set_with(const Inst& in, bool fdst) {
  return by_cmp(in.m.cmp, [fdst]<class C>() -> ExecFn {
    return fdst ? &set_exec<Get, C, true> : &set_exec<Get, C, false>;
  }, true);
}
// set with f16/bf16 sources (scalar or x2). Each compared half gives all
// ones (integer destinations: 0xffff per half, 0xffffffff for a scalar
// source into a 32-bit integer) or 1.0 in the destination's float format.
template <bool BF, class Cmp>
void exec_set_half(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize], s2[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  const uint64_t* b = w.src(in.o[2], s2);
  uint64_t* d = w.dst(in.o[0]);
  const bool x2 = in.type2 == Type::F16x2 || in.type2 == Type::BF16x2;
  const bool z = in.m.ftz;
  const uint32_t c = in.m.boolop != program::BoolOp::None ? w.pred_value(in.o[3]) : 0;
  uint32_t one;  // value of a true 16-bit result
  switch (in.type) {
    case Type::F16: case Type::F16x2: one = 0x3c00; break;
    case Type::BF16: case Type::BF16x2: one = 0x3f80; break;
    default: one = 0xffff; break;
  }
  const bool wide_true = !x2 && program::type_size(in.type) == 4;  // scalar source, 32-bit integer destination
  if (!d) return;
  for_lanes(mask, [&](uint32_t l) {
    auto cmp = [&](uint32_t x, uint32_t y) {
      if (z) { x = hftz<BF>(x); y = hftz<BF>(y); }
      bool r = Cmp::f(hdec<BF>(x), hdec<BF>(y));
      return (combine(in.m.boolop, r ? kFullMask : 0, c) >> l & 1) != 0;
    };
    const bool lo = cmp(uint32_t(a[l] & 0xffff), uint32_t(b[l] & 0xffff));
    if (!x2) {
      d[l] = lo ? (wide_true ? 0xffffffffu : one) : 0;
      return;
    }
    const bool hi = cmp(uint32_t(a[l] >> 16 & 0xffff), uint32_t(b[l] >> 16 & 0xffff));
    d[l] = (lo ? one : 0) | (uint64_t(hi ? one : 0) << 16);
  });
}
ExecFn set_half(const Inst& in) {
  HalfMods h{};
  if (!half_type(in.type2, h)) return nullptr;
  if (h.bf && in.m.ftz) return nullptr;
  switch (in.type) {
    case Type::U16: case Type::S16: case Type::U32: case Type::S32: case Type::B32: break;
    case Type::F16: case Type::BF16: case Type::F16x2: case Type::BF16x2: {
      // Float destinations match the source format, packed or not.
      HalfMods dh{};
      half_type(in.type, dh);
      if (dh.bf != h.bf || (dh.x2 && !h.x2)) return nullptr;
      break;
    }
    default: return nullptr;
  }
  return by_cmp(in.m.cmp, [bf = h.bf]<class C>() -> ExecFn {
    return bf ? &exec_set_half<true, C> : &exec_set_half<false, C>;
  }, true);
}
ExecFn set(const Inst& in) {
  if (in.type2 == Type::F16 || in.type2 == Type::BF16 || in.type2 == Type::F16x2 || in.type2 == Type::BF16x2)
    return set_half(in);
  const bool fdst = in.type == Type::F32;
  if (!fdst && in.type != Type::U32 && in.type != Type::S32 && in.type != Type::B32) return nullptr;
  switch (in.type2) {
    case Type::F32: return in.m.ftz ? set_with<GetF32Ftz>(in, fdst) : set_with<GetAs<float>>(in, fdst);
    case Type::F64: return in.m.ftz ? nullptr : set_with<GetAs<double>>(in, fdst);
    default: return nullptr;
  }
}

template <bool Z>
void exec_slct_f32(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize], s2[kWarpSize], s3[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  const uint64_t* b = w.src(in.o[2], s2);
  const uint64_t* c = w.src(in.o[3], s3);
  uint64_t* d = w.dst(in.o[0]);
  if (!d) return;
  for_lanes(mask, [&](uint32_t l) { d[l] = fin<float, Z>(from_bits<float>(c[l])) >= 0.0f ? a[l] : b[l]; });
}
ExecFn slct(const Inst& in) {
  if (in.type2 != Type::F32) return nullptr;
  return in.m.ftz ? &exec_slct_f32<true> : &exec_slct_f32<false>;
}

}  // namespace fbind

namespace {

ExecFn bind_fma(const Inst& in) { return fbind::fma(in); }
ExecFn bind_rcp(const Inst& in) {
  if (in.type == Type::F64 && in.m.approx) return in.m.ftz ? &unary<double, double, FRcp<double, false>> : nullptr;
  if (in.m.approx) return in.m.rnd == Round::None ? pick_unary_z<FRcp>(in, false) : nullptr;
  if (in.m.rnd == Round::None) return nullptr;
  if (in.type == Type::F64 && in.m.ftz) return nullptr;
  return pick_unary_z<FRcp>(in, true);
}
ExecFn bind_sqrt(const Inst& in) {
  if (in.m.approx) return in.type == Type::F32 ? pick_unary_z<FSqrt>(in, false) : nullptr;
  if (in.m.rnd == Round::None) return nullptr;
  if (in.type == Type::F64 && in.m.ftz) return nullptr;
  return pick_unary_z<FSqrt>(in, true);
}
ExecFn bind_rsqrt(const Inst& in) {
  if (!in.m.approx) return nullptr;
  if (in.type == Type::F64) return &unary<double, double, FRsqrt<double, false>>;  // .ftz: no f64 subnormal flush
  return pick_unary_z<FRsqrt>(in, false);
}
// ex2 (K = 0) / tanh (K = 1) .approx on f16, f16x2 (no .ftz) and bf16,
// bf16x2 (ex2 needs .ftz there; tanh takes none).
template <int K>
ExecFn half_special(const Inst& in) {
  HalfMods h{};
  if (!in.m.approx || !half_type(in.type, h)) return nullptr;
  const bool z = in.m.ftz;
  if (K == 0 ? (z != h.bf) : z) return nullptr;
#define HSP(BF, X2) \
  if (h.bf == BF && h.x2 == X2) return z ? &exec_half_special<BF, K, true, X2> : &exec_half_special<BF, K, false, X2>;
  HSP(false, false) HSP(false, true) HSP(true, false) HSP(true, true)
#undef HSP
  return nullptr;
}
template <int K>
ExecFn bind_special(const Inst& in) {
  if (K == 3 && in.type != Type::F32) return half_special<0>(in);
  if (in.type != Type::F32 || !in.m.approx) return nullptr;
  return in.m.ftz ? &unary<float, float, FSpecial<true, K>> : &unary<float, float, FSpecial<false, K>>;
}
ExecFn bind_tanh(const Inst& in) {
  if (in.type != Type::F32) return half_special<1>(in);
  if (!in.m.approx) return nullptr;
  return &unary<float, float, FSpecial<false, 4>>;
}
ExecFn bind_copysign(const Inst& in) {
  if (in.type == Type::F32) return &binary<float, float, float, FCopysign<float>>;
  if (in.type == Type::F64) return &binary<double, double, double, FCopysign<double>>;
  return nullptr;
}

template <class T, int K>
void exec_testp(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  uint32_t r = 0;
  for_lanes(mask, [&](uint32_t l) {
    T x = from_bits<T>(a[l]);
    bool v;
    if constexpr (K == 0) v = std::isfinite(x);
    else if constexpr (K == 1) v = std::isinf(x);
    else if constexpr (K == 2) v = !std::isnan(x);
    else if constexpr (K == 3) v = std::isnan(x);
    else if constexpr (K == 4) v = std::isnormal(x);
    else v = std::fpclassify(x) == FP_SUBNORMAL;
    r |= uint32_t(v) << l;
  });
  w.set_pred(in.o[0], r, mask);
}
template <class T>
ExecFn testp_for(int k) {
  static const ExecFn t[] = {&exec_testp<T, 0>, &exec_testp<T, 1>, &exec_testp<T, 2>,
                             &exec_testp<T, 3>, &exec_testp<T, 4>, &exec_testp<T, 5>};
  return t[k];
}
ExecFn bind_testp(const Inst& in) {
  static const char* names[] = {".finite", ".infinite", ".number", ".notanumber", ".normal", ".subnormal"};
  for (int k = 0; k < 6; ++k) {
    if (!has_mod(in, names[k])) continue;
    if (in.type == Type::F32) return testp_for<float>(k);
    if (in.type == Type::F64) return testp_for<double>(k);
    return nullptr;
  }
  return nullptr;
}

}  // namespace
}  // namespace ops

void register_float_handlers(HandlerTable& t) {
  using isa::Opcode;
  using namespace ops;
  auto set = [&](Opcode op, BindFn f) { t.bind[size_t(op)] = f; };
  set(Opcode::Fma, &bind_fma);
  set(Opcode::Rcp, &bind_rcp);
  set(Opcode::Sqrt, &bind_sqrt);
  set(Opcode::Rsqrt, &bind_rsqrt);
  set(Opcode::Sin, &bind_special<0>);
  set(Opcode::Cos, &bind_special<1>);
  set(Opcode::Lg2, &bind_special<2>);
  set(Opcode::Ex2, &bind_special<3>);
  set(Opcode::Tanh, &bind_tanh);
  set(Opcode::Copysign, &bind_copysign);
  set(Opcode::Testp, &bind_testp);
  // add/sub/mul/mad/div/min/max/abs/neg/setp/set/slct are bound in
  // ops_int.cpp and forward float types to ops::fbind.
}

}  // namespace softgpu::exec
