// Per-lane semantics of the integer instructions, free of any Warp so unit
// tests can call them directly. Follows the PTX ISA pseudocode.
#pragma once
#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace softgpu::exec::isem {

template <class T> using U = std::make_unsigned_t<T>;
template <class T> inline constexpr int kBits = int(sizeof(T) * 8);

// Double-width type for .wide / .hi.
template <class T> struct Wide;
template <> struct Wide<int8_t> { using type = int16_t; };
template <> struct Wide<uint8_t> { using type = uint16_t; };
template <> struct Wide<int16_t> { using type = int32_t; };
template <> struct Wide<uint16_t> { using type = uint32_t; };
template <> struct Wide<int32_t> { using type = int64_t; };
template <> struct Wide<uint32_t> { using type = uint64_t; };
template <> struct Wide<int64_t> { using type = __int128; };
template <> struct Wide<uint64_t> { using type = unsigned __int128; };
template <class T> using W = typename Wide<T>::type;

template <class T> inline W<T> mul_wide(T a, T b) { return W<T>(a) * W<T>(b); }
template <class T> inline T mul_hi(T a, T b) { return T(mul_wide(a, b) >> kBits<T>); }

inline int32_t sat_s32(int64_t v) {
  if (v > INT32_MAX) return INT32_MAX;
  if (v < INT32_MIN) return INT32_MIN;
  return int32_t(v);
}

// Division by zero is undefined in PTX; these are the results NVIDIA
// hardware produces: quotient all ones (-1 for signed), remainder = dividend.
// INT_MIN / -1 wraps to INT_MIN with remainder 0.
template <class T> inline T div(T a, T b) {
  if (b == 0) return T(~U<T>(0));
  if constexpr (std::is_signed_v<T>)
    if (a == std::numeric_limits<T>::min() && b == T(-1)) return a;
  return T(a / b);
}
template <class T> inline T rem(T a, T b) {
  if (b == 0) return a;
  if constexpr (std::is_signed_v<T>)
    if (b == T(-1)) return 0;
  return T(a % b);
}

template <class T> inline T abs(T a) { return a < 0 ? T(U<T>(0) - U<T>(a)) : a; }

// |a - b| without overflow, as the unsigned type.
template <class T> inline U<T> absdiff(T a, T b) { return a < b ? U<T>(U<T>(b) - U<T>(a)) : U<T>(U<T>(a) - U<T>(b)); }

// bfind: position of the most significant non-sign bit, or 0xffffffff.
template <class T> inline uint32_t bfind(T a, bool shiftamt) {
  U<T> x = U<T>(a);
  if constexpr (std::is_signed_v<T>) if (a < 0) x = U<T>(~x);
  if (x == 0) return 0xffffffffu;
  uint32_t pos = uint32_t(kBits<T> - 1 - std::countl_zero(x));
  return shiftamt ? uint32_t(kBits<T> - 1) - pos : pos;
}

template <class T> inline T brev(T a) {
  U<T> x = U<T>(a), r = 0;
  for (int i = 0; i < kBits<T>; ++i) r |= U<T>((x >> i) & 1) << (kBits<T> - 1 - i);
  return T(r);
}

// bfe: extract len bits at pos; signed types replicate the field's top bit.
template <class T> inline T bfe(T a, uint32_t b, uint32_t c) {
  const int msb = kBits<T> - 1;
  const uint32_t pos = b & 0xff, len = c & 0xff;
  const U<T> x = U<T>(a);
  bool sbit = false;
  if constexpr (std::is_signed_v<T>) {
    if (len != 0) {
      uint32_t sp = pos + len - 1 < uint32_t(msb) ? pos + len - 1 : uint32_t(msb);
      sbit = (x >> sp) & 1;
    }
  }
  U<T> d = 0;
  for (int i = 0; i <= msb; ++i) {
    bool bit = (uint32_t(i) < len && pos + uint32_t(i) <= uint32_t(msb)) ? ((x >> (pos + i)) & 1) : sbit;
    d |= U<T>(bit) << i;
  }
  return T(d);
}

// bfi: insert the low len bits of a into b at pos.
template <class T> inline T bfi(T a, T b, uint32_t c, uint32_t dd) {
  const uint32_t msb = uint32_t(kBits<T> - 1);
  const uint32_t pos = c & 0xff, len = dd & 0xff;
  U<T> f = U<T>(b);
  for (uint32_t i = 0; i < len && pos + i <= msb; ++i) {
    U<T> bit = U<T>(U<T>(a) >> i & 1);
    f = U<T>((f & ~(U<T>(1) << (pos + i))) | (bit << (pos + i)));
  }
  return T(f);
}

inline uint32_t fns(uint32_t mask, uint32_t base, int32_t offset) {
  if (offset == 0) return (base < 32 && (mask >> base & 1)) ? base : 0xffffffffu;
  int pos = int(base);
  int64_t count = (offset > 0 ? int64_t(offset) : -int64_t(offset)) - 1;
  int inc = offset > 0 ? 1 : -1;
  while (pos >= 0 && pos < 32) {
    if (mask >> pos & 1) {
      if (count == 0) return uint32_t(pos);
      --count;
    }
    pos += inc;
  }
  return 0xffffffffu;
}

inline uint32_t bmsk(uint32_t a, uint32_t b, bool clamp) {
  uint32_t a1 = clamp ? (a < 32 ? a : 32) : (a & 0x1f);
  uint32_t b1 = clamp ? (b < 32 ? b : 32) : (b & 0x1f);
  uint64_t mask0 = a1 >= 32 ? 0 : (~uint64_t(0) << a1);
  uint64_t mask1 = (a1 + b1) < 32 ? (~uint64_t(0) << (a1 + b1)) : 0;
  return uint32_t(mask0 & ~mask1);
}

inline uint32_t szext(uint32_t a, uint32_t b, bool clamp, bool is_signed) {
  uint32_t b1 = b & 0x1f;
  bool too_large = b >= 32 && clamp;
  uint32_t mask = too_large ? 0 : (~0u << b1);
  uint32_t sign_pos = (b1 - 1) & 0x1f;
  bool sign_bit = !(b1 == 0 || too_large || !is_signed) && ((a >> sign_pos) & 1);
  return (a & ~mask) | (sign_bit ? mask : 0);
}

// shl/shr: amounts >= the width give 0 (or the sign fill for signed shr).
template <class T> inline T shl(T a, uint32_t n) {
  return n >= uint32_t(kBits<T>) ? T(0) : T(U<T>(a) << n);
}
template <class T> inline T shr(T a, uint32_t n) {
  if constexpr (std::is_signed_v<T>) return n >= uint32_t(kBits<T>) ? T(a < 0 ? -1 : 0) : T(a >> n);
  else return n >= uint32_t(kBits<T>) ? T(0) : T(a >> n);
}

// shf: funnel shift of the 64-bit {b, a} by c (clamp: min(c,32); wrap: c&31).
inline uint32_t shf_l(uint32_t a, uint32_t b, uint32_t c, bool wrap) {
  uint32_t n = wrap ? (c & 31) : (c < 32 ? c : 32);
  uint64_t v = (uint64_t(b) << 32) | a;
  return uint32_t((v << n) >> 32);
}
inline uint32_t shf_r(uint32_t a, uint32_t b, uint32_t c, bool wrap, bool arith) {
  uint32_t n = wrap ? (c & 31) : (c < 32 ? c : 32);
  uint64_t v = (uint64_t(b) << 32) | a;
  if (arith) return uint32_t(uint64_t(int64_t(v) >> n));
  return uint32_t(v >> n);
}

// prmt: mode 0 = generic, 1..6 = f4e b4e rc8 ecl ecr rc16.
inline uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, int mode) {
  const uint64_t tmp = (uint64_t(b) << 32) | a;
  auto byte = [&](uint32_t i) { return uint32_t(tmp >> (8 * (i & 7)) & 0xff); };
  if (mode == 0) {
    uint32_t d = 0;
    for (int i = 0; i < 4; ++i) {
      uint32_t ctl = c >> (4 * i) & 0xf;
      uint32_t v = byte(ctl & 7);
      if (ctl & 8) v = (v & 0x80) ? 0xff : 0;
      d |= v << (8 * i);
    }
    return d;
  }
  // Byte indices for d.b0..d.b3 per mode and selector c[1:0].
  static constexpr uint8_t table[6][4][4] = {
      {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},  // f4e
      {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},  // b4e
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},  // rc8
      {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},  // ecl
      {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},  // ecr
      {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},  // rc16
  };
  const uint8_t* sel = table[mode - 1][c & 3];
  return byte(sel[0]) | byte(sel[1]) << 8 | byte(sel[2]) << 16 | byte(sel[3]) << 24;
}

// lop3: bit i of d is immLut[{a_i, b_i, c_i}] with a as the most significant index bit.
template <class T> inline T lop3(T a, T b, T c, uint8_t lut) {
  U<T> r = 0, ua = U<T>(a), ub = U<T>(b), uc = U<T>(c);
  for (int k = 0; k < 8; ++k) {
    if (!(lut >> k & 1)) continue;
    U<T> ta = (k & 4) ? ua : U<T>(~ua), tb = (k & 2) ? ub : U<T>(~ub), tc = (k & 1) ? uc : U<T>(~uc);
    r |= U<T>(ta & tb & tc);
  }
  return T(r);
}

// dp4a: c + sum of the four byte products (each byte sign/zero-extended).
inline uint32_t dp4a(uint32_t a, uint32_t b, uint32_t c, bool as, bool bs) {
  int64_t sum = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t xa = a >> (8 * i) & 0xff, xb = b >> (8 * i) & 0xff;
    int64_t va = as ? int8_t(xa) : int64_t(xa), vb = bs ? int8_t(xb) : int64_t(xb);
    sum += va * vb;
  }
  return uint32_t(uint64_t(sum) + c);
}
// dp2a: c + a.h0*b.byte(k) + a.h1*b.byte(k+1), k = 0 (.lo) or 2 (.hi).
inline uint32_t dp2a(uint32_t a, uint32_t b, uint32_t c, bool as, bool bs, bool hi) {
  int64_t sum = 0;
  for (int i = 0; i < 2; ++i) {
    uint32_t xa = a >> (16 * i) & 0xffff, xb = b >> (8 * (i + (hi ? 2 : 0))) & 0xff;
    int64_t va = as ? int16_t(xa) : int64_t(xa), vb = bs ? int8_t(xb) : int64_t(xb);
    sum += va * vb;
  }
  return uint32_t(uint64_t(sum) + c);
}

// mul24: product of the low 24 bits (sign-extended for signed types);
// .hi returns bits 47..16 of the 48-bit product.
inline int64_t mul24_full(uint32_t a, uint32_t b, bool is_signed) {
  if (is_signed) {
    int64_t x = int32_t(a << 8) >> 8, y = int32_t(b << 8) >> 8;
    return x * y;
  }
  return int64_t(uint64_t(a & 0xffffff) * uint64_t(b & 0xffffff));
}

}  // namespace softgpu::exec::isem
