// Floating-point helpers for the instruction handlers: narrow formats
// (f16, bf16, tf32, e4m3, e5m2) encoded with an explicit rounding mode,
// flush-to-zero, saturation, and a scoped host rounding mode.
#pragma once
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>

#include "program/program.h"

namespace softgpu::exec {

using program::Round;

// NVIDIA GPUs return this NaN from arithmetic that produces a NaN.
inline constexpr uint32_t kCanonicalNanF32 = 0x7fffffffu;
inline constexpr uint64_t kCanonicalNanF64 = 0x7fffffffffffffffull;
inline constexpr uint16_t kCanonicalNanF16 = 0x7fffu;
inline constexpr uint16_t kCanonicalNanBF16 = 0x7fffu;

inline float canon(float x) { return x != x ? std::bit_cast<float>(kCanonicalNanF32) : x; }
inline double canon(double x) { return x != x ? std::bit_cast<double>(kCanonicalNanF64) : x; }

// .ftz: a subnormal becomes a zero of the same sign.
inline float ftz(float x) {
  uint32_t b = std::bit_cast<uint32_t>(x);
  return (b & 0x7f800000u) == 0 ? std::bit_cast<float>(b & 0x80000000u) : x;
}
inline double ftz(double x) { return x; }  // .ftz applies to f32 only

// .sat: clamp to [0, 1]; NaN becomes +0.
template <class T>
inline T sat01(T x) {
  if (!(x > T(0))) return T(0);  // NaN, -0 and negatives
  return x > T(1) ? T(1) : x;
}

// Sets the host rounding mode for a scope (directed-rounding instructions)
// and restores the previous one. Loads and stores through memory cannot be
// moved across the opaque fesetround calls, so the arithmetic in between
// runs under the requested mode.
class HostRounding {
 public:
  explicit HostRounding(int mode) : saved_(std::fegetround()) { std::fesetround(mode); }
  ~HostRounding() { std::fesetround(saved_); }
  HostRounding(const HostRounding&) = delete;
  HostRounding& operator=(const HostRounding&) = delete;

 private:
  int saved_;
};

// Host fenv constant for a PTX rounding modifier (integer-rounding forms map
// to the same direction). Rn for None.
inline int fe_mode(Round r) {
  switch (r) {
    case Round::Rz: case Round::Rzi: return FE_TOWARDZERO;
    case Round::Rm: case Round::Rmi: return FE_DOWNWARD;
    case Round::Rp: case Round::Rpi: return FE_UPWARD;
    default: return FE_TONEAREST;
  }
}

// The .approx.f32 special functions (K: 0 sin, 1 cos, 2 lg2, 3 ex2, 4 tanh):
// evaluated in double by libm, rounded once, then .ftz (Z) and the
// canonical NaN. The interpreter's handlers and the JIT's helper
// (jit/helpers.cpp) both call this, so both compute the same bits.
template <bool Z, int K>
float approx_special_f32(float a) {
  const double x = double(Z ? ftz(a) : a);
  double r;
  if constexpr (K == 0) r = std::sin(x);
  else if constexpr (K == 1) r = std::cos(x);
  else if constexpr (K == 2) r = std::log2(x);
  else if constexpr (K == 3) r = std::exp2(x);
  else r = std::tanh(x);
  float f = float(r);
  if (Z) f = ftz(f);
  return canon(f);
}

// A binary floating-point format narrower than f32.
struct MiniFormat {
  int mant;        // stored mantissa bits
  int ebits;       // exponent bits
  int bias;
  bool ieee;       // all-ones exponent = inf/NaN (false: e4m3, only S.1111.111 is NaN)
  uint32_t nan;    // NaN encoding (without sign)
  constexpr int max_field() const { return ieee ? (1 << ebits) - 2 : (1 << ebits) - 1; }
};
inline constexpr MiniFormat kF16{10, 5, 15, true, 0x7fff};
inline constexpr MiniFormat kBF16{7, 8, 127, true, 0x7fff};
inline constexpr MiniFormat kE5M2{2, 5, 15, true, 0x7f};
inline constexpr MiniFormat kE4M3{3, 4, 7, false, 0x7f};
inline constexpr MiniFormat kTF32{10, 8, 127, true, 0x7ffff};  // tf32 fields of an f32 >> 13

// Encodes x in format F with rounding mode r (Rn, Rna, Rz, Rm, Rp; None=Rn).
// satfinite: overflow and infinities give the largest finite value (NaN
// stays NaN). e4m3 has no infinity: without satfinite an overflow is NaN.
inline uint32_t encode_mini(double x, const MiniFormat& F, Round r, bool satfinite = false) {
  const uint32_t sign = std::signbit(x) ? 1u << (F.mant + F.ebits) : 0u;
  const uint32_t max_finite = F.ieee ? (uint32_t(F.max_field()) << F.mant) | ((1u << F.mant) - 1)
                                     : F.nan - 1;  // e4m3: 448
  const uint32_t inf = F.ieee ? uint32_t(F.max_field() + 1) << F.mant : F.nan;
  if (std::isnan(x)) return F.nan;
  if (std::isinf(x)) return sign | (satfinite ? max_finite : inf);
  if (x == 0) return sign;
  double a = std::fabs(x);
  int e;
  std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1)
  int exp = e - 1;    // a in [2^exp, 2^(exp+1))
  const int emin = 1 - F.bias;
  if (exp < emin) exp = emin;  // subnormal range shares the quantum of emin
  const int qexp = exp - F.mant;
  double m = std::ldexp(a, -qexp);  // exact: scaling by a power of two
  double fl = std::floor(m);
  double frac = m - fl;
  bool neg = sign != 0;
  bool up;
  switch (r) {
    case Round::Rz: up = false; break;
    case Round::Rm: up = neg && frac != 0; break;
    case Round::Rp: up = !neg && frac != 0; break;
    case Round::Rna: up = frac >= 0.5; break;
    default: up = frac > 0.5 || (frac == 0.5 && std::fmod(fl, 2.0) != 0); break;
  }
  uint64_t mi = uint64_t(fl) + (up ? 1 : 0);
  // mi * 2^qexp; normalize into the field layout.
  uint32_t field;
  if (mi < (1ull << F.mant)) {
    field = 0;  // subnormal (or rounded to zero)
  } else {
    if (mi >= (2ull << F.mant)) { mi >>= 1; ++exp; }
    field = uint32_t(exp + F.bias);
    mi -= 1ull << F.mant;
  }
  uint32_t bits = (field << F.mant) | uint32_t(mi);
  bool overflow = bits > max_finite;
  if (overflow) {
    if (satfinite) return sign | max_finite;
    if (!F.ieee) return sign | F.nan;
    // Directed modes that round toward zero stop at the largest finite value.
    bool to_max = r == Round::Rz || (r == Round::Rm && !neg) || (r == Round::Rp && neg);
    return sign | (to_max ? max_finite : inf);
  }
  return sign | bits;
}

// Decodes a narrow-format value exactly.
inline double decode_mini(uint32_t bits, const MiniFormat& F) {
  const int ebits = F.ebits;
  const uint32_t sign = bits >> (F.mant + ebits) & 1;
  const uint32_t field = bits >> F.mant & ((1u << ebits) - 1);
  const uint32_t m = bits & ((1u << F.mant) - 1);
  double v;
  if (F.ieee && field == uint32_t(F.max_field() + 1)) {
    v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (!F.ieee && field == 15 && m == 7) {
    v = std::numeric_limits<double>::quiet_NaN();
  } else if (field == 0) {
    v = std::ldexp(double(m), 1 - F.bias - F.mant);
  } else {
    v = std::ldexp(double(m | (1u << F.mant)), int(field) - F.bias - F.mant);
  }
  return sign ? -v : v;
}

// f16 <-> f32 fast paths used by the arithmetic handlers.
inline float f16_to_f32(uint16_t h) {
  const uint32_t s = uint32_t(h & 0x8000u) << 16;
  const uint32_t e = h >> 10 & 0x1f, m = h & 0x3ffu;
  if (e == 0x1f) return std::bit_cast<float>(s | 0x7f800000u | (m << 13));
  if (e != 0) return std::bit_cast<float>(s | ((e + 112) << 23) | (m << 13));
  float v = float(m) * 0x1p-24f;  // subnormal (exact)
  return s ? -v : v;
}
inline float bf16_to_f32(uint16_t h) { return std::bit_cast<float>(uint32_t(h) << 16); }

// Round-to-nearest-even f32 -> f16 / bf16 (the common arithmetic path).
inline uint16_t f32_to_f16_rn(float f) { return uint16_t(encode_mini(double(f), kF16, Round::Rn)); }
inline uint16_t f32_to_bf16_rn(float f) {
  uint32_t b = std::bit_cast<uint32_t>(f);
  if ((b & 0x7fffffffu) > 0x7f800000u) return kCanonicalNanBF16;
  b += 0x7fffu + (b >> 16 & 1);  // ties to even; overflow carries into inf correctly
  return uint16_t(b >> 16);
}

// Double value with a sticky correction: hi is rn(x), lo the exact
// remainder. Nudging hi one double-ulp toward the true value breaks false
// ties so a later rounding to a much narrower format is correct.
inline double sticky(double hi, double lo) {
  if (lo == 0 || !std::isfinite(hi)) return hi;
  return std::nextafter(hi, lo > 0 ? std::numeric_limits<double>::infinity()
                                   : -std::numeric_limits<double>::infinity());
}

// Exact a*b+c for narrow inputs (products of <=24-bit mantissas are exact in
// double), returned as an rn double with a sticky nudge.
inline double fma_sticky(double a, double b, double c) {
  double p = a * b;
  double s = p + c;
  if (!std::isfinite(s)) return s;
  double bb = s - p;
  double err = (p - (s - bb)) + (c - bb);  // TwoSum
  return sticky(s, err);
}

}  // namespace softgpu::exec
