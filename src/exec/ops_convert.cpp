// cvt: integer widths, int <-> float with every rounding mode, f32 <-> f64,
// and the narrow formats (f16, bf16, tf32, e4m3, e5m2, packed x2 forms).
// Float -> int conversions saturate and map NaN to 0 as the ISA specifies.
#include <cmath>
#include <limits>

#include "exec/float_util.h"
#include "exec/ops_common.h"

namespace softgpu::exec {
namespace ops {

// Float -> integer with integer rounding (Rni/Rzi/Rmi/Rpi), saturating,
// NaN -> 0. Exposed for unit tests.
template <class D>
D cvt_float_to_int(double x, Round irnd) {
  if (x != x) return D(0);
  double r;
  switch (irnd) {
    case Round::Rzi: r = std::trunc(x); break;
    case Round::Rmi: r = std::floor(x); break;
    case Round::Rpi: r = std::ceil(x); break;
    default: r = std::nearbyint(x); break;  // ties to even under the default host mode
  }
  constexpr double lo = double(std::numeric_limits<D>::min());
  constexpr double hi_excl = std::is_signed_v<D> ? -lo : 2.0 * (double(std::numeric_limits<D>::max() / 2) + 1.0);
  if (r <= lo) return std::numeric_limits<D>::min();
  if (r >= hi_excl) return std::numeric_limits<D>::max();
  return D(r);
}
template int32_t cvt_float_to_int<int32_t>(double, Round);
template uint32_t cvt_float_to_int<uint32_t>(double, Round);
template int64_t cvt_float_to_int<int64_t>(double, Round);
template uint64_t cvt_float_to_int<uint64_t>(double, Round);

namespace {

using program::Type;
using OK = Operand::Kind;

// Saturating integer narrowing/widening: clamp v (of type S) to D's range.
template <class D, class S>
D int_sat(S v) {
  if constexpr (std::is_signed_v<S>) {
    if (v < 0) {
      if constexpr (!std::is_signed_v<D>) return D(0);
      else if (int64_t(v) < int64_t(std::numeric_limits<D>::min())) return std::numeric_limits<D>::min();
      return D(v);
    }
  }
  if (uint64_t(v) > uint64_t(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
  return D(v);
}

template <class D, class S, bool SAT> struct IntToInt {
  static D f(S v) { return SAT ? int_sat<D>(v) : D(v); }
};
// Integer -> f32/f64 under the current host rounding mode (see rounded<>).
template <class D, class S, bool SAT> struct IntToFloat {
  static D f(S v) { D r = D(v); return SAT ? sat01(r) : r; }
};
template <class D, class S, int IRND, bool FTZ> struct FloatToInt {
  static D f(S v) {
    static constexpr Round r[] = {Round::Rni, Round::Rzi, Round::Rmi, Round::Rpi};
    return cvt_float_to_int<D>(double(FTZ ? ftz(v) : v), r[IRND]);
  }
};
// f32/f64 -> f32/f64; IRND >= 0 rounds to an integral value.
template <class D, class S, bool FTZ, bool SAT, int IRND> struct FloatToFloat {
  static D f(S v) {
    if (FTZ) v = ftz(v);
    if constexpr (IRND == 0) v = std::nearbyint(v);
    else if constexpr (IRND == 1) v = std::trunc(v);
    else if constexpr (IRND == 2) v = std::floor(v);
    else if constexpr (IRND == 3) v = std::ceil(v);
    D r = D(v);
    if constexpr (std::is_same_v<D, float>) if (FTZ) r = ftz(r);
    if (SAT) r = sat01(r);
    return canon(r);
  }
};


bool is_int(Type t) {
  switch (t) {
    case Type::S8: case Type::S16: case Type::S32: case Type::S64:
    case Type::U8: case Type::U16: case Type::U32: case Type::U64:
    case Type::B8: case Type::B16: case Type::B32: case Type::B64: return true;
    default: return false;
  }
}
bool is_mini(Type t) { return t == Type::F16 || t == Type::BF16 || t == Type::TF32 || t == Type::E4M3 || t == Type::E5M2; }

// ---- generic path for narrow formats (values through double) ----
template <Type S>
double rd(uint64_t b) {
  if constexpr (S == Type::F16) return f16_to_f32(uint16_t(b));
  else if constexpr (S == Type::BF16) return bf16_to_f32(uint16_t(b));
  else if constexpr (S == Type::F32) return from_bits<float>(b);
  else if constexpr (S == Type::F64) return from_bits<double>(b);
  else if constexpr (S == Type::E4M3) return decode_mini(uint32_t(b & 0xff), kE4M3);
  else if constexpr (S == Type::E5M2) return decode_mini(uint32_t(b & 0xff), kE5M2);
  else if constexpr (S == Type::S8) return double(int8_t(b));
  else if constexpr (S == Type::S16) return double(int16_t(b));
  else if constexpr (S == Type::S32) return double(int32_t(b));
  else if constexpr (S == Type::S64) return double(int64_t(b));  // > 2^53: rounded twice
  else if constexpr (S == Type::U8 || S == Type::B8) return double(uint8_t(b));
  else if constexpr (S == Type::U16 || S == Type::B16) return double(uint16_t(b));
  else if constexpr (S == Type::U32 || S == Type::B32) return double(uint32_t(b));
  else return double(b);
}
struct CvtMods {
  Round rnd;
  bool sat, relu, satfinite, ftz;
};
template <class D> uint64_t wr_int(double v, const CvtMods& m) { return to_bits<D>(cvt_float_to_int<D>(v, m.rnd)); }
template <Type D>
uint64_t wr(double v, const CvtMods& m) {
  if constexpr (D == Type::S8) return wr_int<int8_t>(v, m);
  else if constexpr (D == Type::S16) return wr_int<int16_t>(v, m);
  else if constexpr (D == Type::S32) return wr_int<int32_t>(v, m);
  else if constexpr (D == Type::S64) return wr_int<int64_t>(v, m);
  else if constexpr (D == Type::U8) return wr_int<uint8_t>(v, m);
  else if constexpr (D == Type::U16) return wr_int<uint16_t>(v, m);
  else if constexpr (D == Type::U32) return wr_int<uint32_t>(v, m);
  else if constexpr (D == Type::U64) return wr_int<uint64_t>(v, m);
  else {
    if (m.sat) v = sat01(v);
    if (m.relu && v < 0) v = 0;  // NaN stays NaN
    if constexpr (D == Type::F32) { float f = float(v); return to_bits<float>(m.ftz ? ftz(f) : canon(f)); }
    else if constexpr (D == Type::F64) return to_bits<double>(canon(v));
    else if constexpr (D == Type::F16) return v != v ? kCanonicalNanF16 : encode_mini(v, kF16, m.rnd, m.satfinite);
    else if constexpr (D == Type::BF16) return v != v ? kCanonicalNanBF16 : encode_mini(v, kBF16, m.rnd, m.satfinite);
    else if constexpr (D == Type::E4M3) return encode_mini(v, kE4M3, m.rnd, m.satfinite);
    else if constexpr (D == Type::E5M2) return encode_mini(v, kE5M2, m.rnd, m.satfinite);
    else if constexpr (D == Type::TF32) {
      if (v != v) return kCanonicalNanF32;
      return uint64_t(encode_mini(v, kTF32, m.rnd, m.satfinite)) << 13;
    } else return 0;
  }
}
template <Type D, Type S>
void exec_generic(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  uint64_t* d = w.dst(in.o[0]);
  if (!d) return;
  CvtMods m{in.m.rnd, in.m.sat, in.m.relu, has_mod(in, ".satfinite"), in.m.ftz};
  if (m.rnd == Round::None) m.rnd = Round::Rn;  // widening/exact forms
  for_lanes(mask, [&](uint32_t l) {
    double v = rd<S>(a[l]);
    if constexpr (S == Type::F32) if (m.ftz) v = ftz(float(v));
    d[l] = wr<D>(v, m);
  });
}

template <Type D>
ExecFn generic_from(Type s) {
  switch (s) {
#define S_(T) case Type::T: return &exec_generic<D, Type::T>;
    S_(F16) S_(BF16) S_(F32) S_(F64) S_(S8) S_(S16) S_(S32) S_(S64) S_(U8) S_(U16) S_(U32) S_(U64)
    S_(E4M3) S_(E5M2)
#undef S_
    default: return nullptr;
  }
}
ExecFn generic(Type d, Type s) {
  switch (d) {
#define D_(T) case Type::T: return generic_from<Type::T>(s);
    D_(F16) D_(BF16) D_(F32) D_(F64) D_(S8) D_(S16) D_(S32) D_(S64) D_(U8) D_(U16) D_(U32) D_(U64)
    D_(E4M3) D_(E5M2) D_(TF32)
#undef D_
    default: return nullptr;
  }
}

// cvt.{rni,rzi,rmi,rpi}{.ftz}{.sat}.f16.f16 / .bf16.bf16: round to an
// integral value in the same format (exact: an integer near a representable
// value is representable, except when it rounds past the largest finite,
// which cannot happen for the integral rounding of a finite value).
template <bool BF>
void exec_half_irnd(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  uint64_t* d = w.dst(in.o[0]);
  if (!d) return;
  const Round r = in.m.rnd;
  const bool z = in.m.ftz, sat = in.m.sat;
  const MiniFormat& F = BF ? kBF16 : kF16;
  for_lanes(mask, [&](uint32_t l) {
    uint32_t h = uint32_t(a[l] & 0xffff);
    if (z && (h & (BF ? 0x7f80u : 0x7c00u)) == 0) h &= 0x8000u;
    double v = decode_mini(h, F);
    if (v != v) { d[l] = BF ? kCanonicalNanBF16 : kCanonicalNanF16; return; }
    switch (r) {
      case Round::Rzi: v = std::trunc(v); break;
      case Round::Rmi: v = std::floor(v); break;
      case Round::Rpi: v = std::ceil(v); break;
      default: v = std::nearbyint(v); break;  // ties to even under the default host mode
    }
    if (sat) v = sat01(v);
    d[l] = encode_mini(v, F, Round::Rn);  // keeps the sign of zero (e.g. -0.3 -> -0)
  });
}

// Packed destinations from two f32 sources: d = {enc(a) high, enc(b) low}.
template <Type D, int Shift>
void exec_pack2(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize], s2[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  const uint64_t* b = w.src(in.o[2], s2);
  uint64_t* d = w.dst(in.o[0]);
  if (!d) return;
  CvtMods m{in.m.rnd, in.m.sat, in.m.relu, has_mod(in, ".satfinite"), false};
  for_lanes(mask, [&](uint32_t l) {
    d[l] = (wr<D>(from_bits<float>(a[l]), m) << Shift) | wr<D>(from_bits<float>(b[l]), m);
  });
}
// fp8x2 <- f16x2 (element-wise) and f16x2 <- fp8x2.
template <Type D>
void exec_f16x2_to_fp8x2(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  uint64_t* d = w.dst(in.o[0]);
  if (!d) return;
  CvtMods m{Round::Rn, false, in.m.relu, has_mod(in, ".satfinite"), false};
  for_lanes(mask, [&](uint32_t l) {
    d[l] = (wr<D>(f16_to_f32(uint16_t(a[l] >> 16)), m) << 8) | wr<D>(f16_to_f32(uint16_t(a[l])), m);
  });
}
template <bool E4M3>
void exec_fp8x2_to_f16x2(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  uint64_t* d = w.dst(in.o[0]);
  if (!d) return;
  const bool relu = in.m.relu;
  auto one = [&](uint32_t byte) {
    double v = decode_mini(byte, E4M3 ? kE4M3 : kE5M2);
    if (relu && v < 0) v = 0;
    return v != v ? uint32_t(kCanonicalNanF16) : encode_mini(v, kF16, Round::Rn);
  };
  for_lanes(mask, [&](uint32_t l) { d[l] = one(uint32_t(a[l] & 0xff)) | (uint64_t(one(uint32_t(a[l] >> 8 & 0xff))) << 16); });
}

// ---- fast paths: C++ types ----
template <class F>
ExecFn by_int_t(Type t, F&& f) { return by_int(t, std::forward<F>(f), true); }

ExecFn bind_cvt(const Inst& in) {
  const Type D = in.type, S = in.type2;
  const Round r = in.m.rnd;
  // Packed forms.
  if (D == Type::F16x2 || D == Type::BF16x2) {
    if (S == Type::F32 && in.nops == 3) {
      if (r != Round::Rn && r != Round::Rz && r != Round::Rna) return nullptr;
      return D == Type::F16x2 ? &exec_pack2<Type::F16, 16> : &exec_pack2<Type::BF16, 16>;
    }
    if (D == Type::F16x2 && S == Type::E4M3x2) return &exec_fp8x2_to_f16x2<true>;
    if (D == Type::F16x2 && S == Type::E5M2x2) return &exec_fp8x2_to_f16x2<false>;
    return nullptr;
  }
  if (D == Type::E4M3x2 || D == Type::E5M2x2) {
    if (r != Round::Rn || !has_mod(in, ".satfinite")) return nullptr;
    const bool e4 = D == Type::E4M3x2;
    if (S == Type::F32 && in.nops == 3) return e4 ? &exec_pack2<Type::E4M3, 8> : &exec_pack2<Type::E5M2, 8>;
    if (S == Type::F16x2) return e4 ? &exec_f16x2_to_fp8x2<Type::E4M3> : &exec_f16x2_to_fp8x2<Type::E5M2>;
    return nullptr;
  }
  if (in.nops != 2) return nullptr;
  // Integer <- integer.
  if (is_int(D) && is_int(S)) {
    const bool sat = in.m.sat;
    return by_int_t(D, [&]<class DT>() -> ExecFn {
      return by_int_t(S, [&]<class ST>() -> ExecFn {
        return sat ? &unary<DT, ST, IntToInt<DT, ST, true>> : &unary<DT, ST, IntToInt<DT, ST, false>>;
      });
    });
  }
  const bool dflt = D == Type::F32 || D == Type::F64;
  const bool sflt = S == Type::F32 || S == Type::F64;
  // Integer <- f32/f64.
  if (is_int(D) && sflt) {
    const int k = program::integral_round_index(r);
    if (k < 0) return nullptr;
    const bool z = in.m.ftz && S == Type::F32;
    return by_int_t(D, [&]<class DT>() -> ExecFn {
      if constexpr (sizeof(DT) < 4) {
        return generic(D, S);  // 8/16-bit destinations: generic path
      } else {
        static const ExecFn f32[2][4] = {
            {&unary<DT, float, FloatToInt<DT, float, 0, false>>, &unary<DT, float, FloatToInt<DT, float, 1, false>>,
             &unary<DT, float, FloatToInt<DT, float, 2, false>>, &unary<DT, float, FloatToInt<DT, float, 3, false>>},
            {&unary<DT, float, FloatToInt<DT, float, 0, true>>, &unary<DT, float, FloatToInt<DT, float, 1, true>>,
             &unary<DT, float, FloatToInt<DT, float, 2, true>>, &unary<DT, float, FloatToInt<DT, float, 3, true>>}};
        static const ExecFn f64[4] = {
            &unary<DT, double, FloatToInt<DT, double, 0, false>>, &unary<DT, double, FloatToInt<DT, double, 1, false>>,
            &unary<DT, double, FloatToInt<DT, double, 2, false>>, &unary<DT, double, FloatToInt<DT, double, 3, false>>};
        return S == Type::F32 ? f32[z][k] : f64[k];
      }
    });
  }
  // f32/f64 <- integer.
  if (dflt && is_int(S)) {
    if (r == Round::None || program::integral_round_index(r) >= 0) return nullptr;
    const bool sat = in.m.sat;
    return by_int_t(S, [&]<class ST>() -> ExecFn {
      if (D == Type::F32)
        return sat ? rounded<&unary<float, ST, IntToFloat<float, ST, true>>>(r) : rounded<&unary<float, ST, IntToFloat<float, ST, false>>>(r);
      return sat ? rounded<&unary<double, ST, IntToFloat<double, ST, true>>>(r) : rounded<&unary<double, ST, IntToFloat<double, ST, false>>>(r);
    });
  }
  // f32/f64 <- f32/f64.
  if (dflt && sflt) {
    const bool z = in.m.ftz, s = in.m.sat;
    if (z && D != Type::F32 && S != Type::F32) return nullptr;
    const int k = program::integral_round_index(r);
    if (k >= 0 && D != S) return nullptr;  // integral rounding keeps the type
    if (D == Type::F32 && S == Type::F64 && r == Round::None) return nullptr;  // narrowing needs a mode
    if (D == Type::F64 && S == Type::F32 && r != Round::None) return nullptr;  // widening is exact
    const Round dir = k >= 0 ? Round::None : r;
#define FF(DT, ST, IR)                                                                        \
  (z ? (s ? rounded<&unary<DT, ST, FloatToFloat<DT, ST, true, true, IR>>>(dir)                \
          : rounded<&unary<DT, ST, FloatToFloat<DT, ST, true, false, IR>>>(dir))              \
     : (s ? rounded<&unary<DT, ST, FloatToFloat<DT, ST, false, true, IR>>>(dir)               \
          : rounded<&unary<DT, ST, FloatToFloat<DT, ST, false, false, IR>>>(dir)))
    if (D == Type::F32 && S == Type::F64) return FF(float, double, -1);
    if (D == Type::F64 && S == Type::F32) return FF(double, float, -1);
    if (D == Type::F32) {
      switch (k) {
        case 0: return FF(float, float, 0);
        case 1: return FF(float, float, 1);
        case 2: return FF(float, float, 2);
        case 3: return FF(float, float, 3);
        default: return FF(float, float, -1);
      }
    }
    switch (k) {
      case 0: return FF(double, double, 0);
      case 1: return FF(double, double, 1);
      case 2: return FF(double, double, 2);
      case 3: return FF(double, double, 3);
      default: return FF(double, double, -1);
    }
#undef FF
  }
  // Narrow formats: destination or source f16/bf16/tf32/fp8.
  if (is_mini(D) || is_mini(S)) {
    if (is_int(D) && program::integral_round_index(r) < 0) return nullptr;
    if (D == Type::TF32 && S != Type::F32) return nullptr;
    if (S == Type::TF32) return nullptr;
    if ((D == Type::F16 || D == Type::BF16) && D == S && program::integral_round_index(r) >= 0)
      return D == Type::BF16 ? &exec_half_irnd<true> : &exec_half_irnd<false>;
    if ((S == Type::E4M3 || S == Type::E5M2) && (is_int(D) || D == Type::E4M3 || D == Type::E5M2)) return nullptr;
    // fp8 sources widen exactly into f16/bf16/f32/f64 (no mode needed).
    const bool fp8_src = S == Type::E4M3 || S == Type::E5M2;
    if (is_mini(D) && !is_mini(S) && r == Round::None) return nullptr;  // narrowing needs a mode
    if (is_mini(D) && program::integral_round_index(r) >= 0) return nullptr;
    if (fp8_src && (D == Type::TF32)) return nullptr;
    return generic(D, S);
  }
  return nullptr;
}

}  // namespace
}  // namespace ops

void register_convert_handlers(HandlerTable& t) {
  t.bind[size_t(isa::Opcode::Cvt)] = &ops::bind_cvt;
}

}  // namespace softgpu::exec
