// Integer, bit and predicate-logic instructions. Each binder picks, once at
// load, the handler specialized for the instruction's type and modifiers;
// unsupported combinations return nullptr (a load error naming the line).
#include <algorithm>
#include <cstring>

#include "exec/ops_common.h"
#include "exec/ops_int_sem.h"

namespace softgpu::exec {
namespace ops {

bool has_mod(const Inst& in, const char* m) {
  return std::find(in.raw_mods.begin(), in.raw_mods.end(), m) != in.raw_mods.end();
}

namespace {

using program::MulMode;
using program::Type;
using OK = Operand::Kind;
namespace S = isem;

bool is_float(Type t) { return program::type_is_float(t); }

// ---- per-lane functors ----
template <class T> struct Add { static T f(T a, T b) { return wadd(a, b); } };
template <class T> struct Sub { static T f(T a, T b) { return wsub(a, b); } };
struct AddSat { static int32_t f(int32_t a, int32_t b) { return S::sat_s32(int64_t(a) + b); } };
struct SubSat { static int32_t f(int32_t a, int32_t b) { return S::sat_s32(int64_t(a) - b); } };
template <class T> struct MulLo { static T f(T a, T b) { return wmul(a, b); } };
template <class T> struct MulHi { static T f(T a, T b) { return S::mul_hi(a, b); } };
template <class T> struct MulWide { static S::W<T> f(T a, T b) { return S::mul_wide(a, b); } };
template <class T> struct MadLo { static T f(T a, T b, T c) { return wadd(wmul(a, b), c); } };
template <class T> struct MadHi { static T f(T a, T b, T c) { return wadd(S::mul_hi(a, b), c); } };
struct MadHiSat { static int32_t f(int32_t a, int32_t b, int32_t c) { return S::sat_s32(int64_t(S::mul_hi(a, b)) + c); } };
template <class T> struct MadWide {
  static S::W<T> f(T a, T b, S::W<T> c) { return wadd(S::mul_wide(a, b), c); }
};
template <bool Signed, bool Hi> struct Mul24 {
  static uint32_t f(uint32_t a, uint32_t b) {
    int64_t p = S::mul24_full(a, b, Signed);
    return Hi ? uint32_t(uint64_t(p) >> 16) : uint32_t(p);
  }
};
template <bool Signed, bool Hi, bool Sat> struct Mad24 {
  static uint32_t f(uint32_t a, uint32_t b, uint32_t c) {
    int64_t p = S::mul24_full(a, b, Signed);
    uint32_t m = Hi ? uint32_t(uint64_t(p) >> 16) : uint32_t(p);
    if (Sat) return uint32_t(S::sat_s32(int64_t(int32_t(m)) + int32_t(c)));
    return m + c;
  }
};
template <class T> struct Sad { static T f(T a, T b, T c) { return T(S::U<T>(S::absdiff(a, b) + S::U<T>(c))); } };
template <class T> struct Div { static T f(T a, T b) { return S::div(a, b); } };
template <class T> struct Rem { static T f(T a, T b) { return S::rem(a, b); } };
template <class T> struct Abs { static T f(T a) { return S::abs(a); } };
template <class T> struct Neg { static T f(T a) { return wsub(T(0), a); } };
template <class T, bool Relu> struct Min {
  static T f(T a, T b) { T r = std::min(a, b); return Relu && r < T(0) ? T(0) : r; }
};
template <class T, bool Relu> struct Max {
  static T f(T a, T b) { T r = std::max(a, b); return Relu && r < T(0) ? T(0) : r; }
};
template <class T> struct Popc { static uint32_t f(T a) { return uint32_t(std::popcount(a)); } };
template <class T> struct Clz { static uint32_t f(T a) { return uint32_t(std::countl_zero(a)); } };
template <class T, bool Sh> struct Bfind { static uint32_t f(T a) { return S::bfind(a, Sh); } };
template <class T> struct Brev { static T f(T a) { return S::brev(a); } };
template <class T> struct Bfe { static T f(T a, uint32_t b, uint32_t c) { return S::bfe(a, b, c); } };
template <class T> struct Bfi { static T f(T a, T b, uint32_t c, uint32_t d) { return S::bfi(a, b, c, d); } };
struct Fns { static uint32_t f(uint32_t m, uint32_t b, int32_t o) { return S::fns(m, b, o); } };
template <bool Clamp> struct Bmsk { static uint32_t f(uint32_t a, uint32_t b) { return S::bmsk(a, b, Clamp); } };
template <bool Clamp, bool Signed> struct Szext {
  static uint32_t f(uint32_t a, uint32_t b) { return S::szext(a, b, Clamp, Signed); }
};
template <bool As, bool Bs> struct Dp4a {
  static uint32_t f(uint32_t a, uint32_t b, uint32_t c) { return S::dp4a(a, b, c, As, Bs); }
};
template <bool As, bool Bs, bool Hi> struct Dp2a {
  static uint32_t f(uint32_t a, uint32_t b, uint32_t c) { return S::dp2a(a, b, c, As, Bs, Hi); }
};
template <class T> struct And { static T f(T a, T b) { return T(a & b); } };
template <class T> struct Or { static T f(T a, T b) { return T(a | b); } };
template <class T> struct Xor { static T f(T a, T b) { return T(a ^ b); } };
template <class T> struct Not { static T f(T a) { return T(~a); } };
template <class T> struct Cnot { static T f(T a) { return T(a == 0 ? 1 : 0); } };
template <class T> struct Shl { static T f(T a, uint32_t n) { return S::shl(a, n); } };
template <class T> struct Shr { static T f(T a, uint32_t n) { return S::shr(a, n); } };
template <bool Left, bool Wrap, bool Arith> struct Shf {
  static uint32_t f(uint32_t a, uint32_t b, uint32_t c) {
    return Left ? S::shf_l(a, b, c, Wrap) : S::shf_r(a, b, c, Wrap, Arith);
  }
};
// .s16x2/.u16x2: two independent 16-bit lanes. K: 0 add, 1 sub, 2 min, 3 max.
template <bool Signed, int K, bool Relu> struct Packed16 {
  static uint32_t f(uint32_t a, uint32_t b) {
    uint32_t r = 0;
    for (int i = 0; i < 2; ++i) {
      const uint16_t x = uint16_t(a >> (16 * i)), y = uint16_t(b >> (16 * i));
      uint16_t z;
      if constexpr (K == 0) z = uint16_t(x + y);
      else if constexpr (K == 1) z = uint16_t(x - y);
      else if constexpr (Signed) z = uint16_t((int16_t(x) < int16_t(y)) == (K == 2) ? x : y);
      else z = (x < y) == (K == 2) ? x : y;
      if (Relu && int16_t(z) < 0) z = 0;
      r |= uint32_t(z) << (16 * i);
    }
    return r;
  }
};
// The packed types are not decoded into in.type; they stay in raw_mods.
// Returns the handler for a packed form, nullptr if the instruction is not one.
template <int K>
ExecFn bind_packed16(const Inst& in, bool& is_packed) {
  using U3 = uint32_t;
  const bool s = has_mod(in, ".s16x2"), u = has_mod(in, ".u16x2");
  is_packed = s || u;
  if (!is_packed || in.nops != 3 || in.m.sat || in.m.cc) return nullptr;
  if (in.m.relu) {
    if (!s || K < 2) return nullptr;  // .relu: min/max.s16x2 only
    return &binary<U3, U3, U3, Packed16<true, K, true>>;
  }
  return s ? &binary<U3, U3, U3, Packed16<true, K, false>> : &binary<U3, U3, U3, Packed16<false, K, false>>;
}

template <int Mode> struct Prmt { static uint32_t f(uint32_t a, uint32_t b, uint32_t c) { return S::prmt(a, b, c, Mode); } };

// ---- handlers with non-standard operand shapes ----

// lop3 d, a, b, c, immLut: the LUT is an immediate, read once.
template <class T>
void exec_lop3(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize], s2[kWarpSize], s3[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  const uint64_t* b = w.src(in.o[2], s2);
  const uint64_t* c = w.src(in.o[3], s3);
  const uint8_t lut = uint8_t(in.o[4].imm);
  uint64_t* d = w.dst(in.o[0]);
  if (!d) return;
  for_lanes(mask, [&](uint32_t l) { d[l] = to_bits<T>(S::lop3(T(a[l]), T(b[l]), T(c[l]), lut)); });
}

// lop3.{and,or} d|p, a, b, c, immLut, q: p = (d != 0) BoolOp q (sm_70+ form).
template <class T>
void exec_lop3_pred(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize], s2[kWarpSize], s3[kWarpSize], r[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  const uint64_t* b = w.src(in.o[2], s2);
  const uint64_t* c = w.src(in.o[3], s3);
  const uint8_t lut = uint8_t(in.o[4].imm);
  uint32_t nonzero = 0;
  for_lanes(mask, [&](uint32_t l) {
    r[l] = to_bits<T>(S::lop3(T(a[l]), T(b[l]), T(c[l]), lut));
    if (T(r[l]) != 0) nonzero |= 1u << l;
  });
  if (uint64_t* d = w.dst(in.o[0])) for_lanes(mask, [&](uint32_t l) { d[l] = r[l]; });
  w.set_pred(in.pair(), combine(in.m.boolop, nonzero, w.pred_value(in.o[5])), mask);
}

// Predicate logic: and/or/xor/not/cnot .pred work on whole lane masks.
template <int Op>
void exec_pred_logic(Warp& w, const Inst& in, uint32_t mask) {
  uint32_t a = w.pred_value(in.o[1]);
  uint32_t r;
  if constexpr (Op == 0) r = a & w.pred_value(in.o[2]);
  else if constexpr (Op == 1) r = a | w.pred_value(in.o[2]);
  else if constexpr (Op == 2) r = a ^ w.pred_value(in.o[2]);
  else r = ~a;  // not / cnot on a predicate
  w.set_pred(in.o[0], r, mask);
}

// selp d, a, b, c: d = c ? a : b (raw bits, any type).
void exec_selp(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize], s2[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  const uint64_t* b = w.src(in.o[2], s2);
  const uint32_t c = w.pred_value(in.o[3]);
  uint64_t* d = w.dst(in.o[0]);
  if (!d) return;
  for_lanes(mask, [&](uint32_t l) { d[l] = (c >> l & 1) ? a[l] : b[l]; });
}

// slct d, a, b, c: d = c >= 0 ? a : b, c an s32 (or f32, see ops_float).
void exec_slct_s32(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize], s2[kWarpSize], s3[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  const uint64_t* b = w.src(in.o[2], s2);
  const uint64_t* c = w.src(in.o[3], s3);
  uint64_t* d = w.dst(in.o[0]);
  if (!d) return;
  for_lanes(mask, [&](uint32_t l) { d[l] = int32_t(c[l]) >= 0 ? a[l] : b[l]; });
}

// ---- binders ----
#define INT_BIN(NAME, OP)                                                              \
  ExecFn NAME(const Inst& in) {                                                        \
    return by_int(in.type, []<class T>() -> ExecFn { return &binary<T, T, T, OP<T>>; }); \
  }

ExecFn bind_add(const Inst& in) {
  bool packed = false;
  if (ExecFn f = bind_packed16<0>(in, packed); packed) return f;
  if (is_float(in.type)) return fbind::add(in);
  if (in.m.cc) return bind_carry(in);
  if (in.m.sat) return in.type == Type::S32 ? &binary<int32_t, int32_t, int32_t, AddSat> : nullptr;
  return by_int(in.type, []<class T>() -> ExecFn { return &binary<T, T, T, Add<T>>; });
}
ExecFn bind_sub(const Inst& in) {
  bool packed = false;
  if (ExecFn f = bind_packed16<1>(in, packed); packed) return f;
  if (is_float(in.type)) return fbind::sub(in);
  if (in.m.cc) return bind_carry(in);
  if (in.m.sat) return in.type == Type::S32 ? &binary<int32_t, int32_t, int32_t, SubSat> : nullptr;
  return by_int(in.type, []<class T>() -> ExecFn { return &binary<T, T, T, Sub<T>>; });
}
ExecFn bind_mul(const Inst& in) {
  if (is_float(in.type)) return fbind::mul(in);
  switch (in.m.mul) {
    case MulMode::Hi: return by_int(in.type, []<class T>() -> ExecFn { return &binary<T, T, T, MulHi<T>>; });
    case MulMode::Wide: {
      if (in.type == Type::S64 || in.type == Type::U64 || in.type == Type::B64) return nullptr;
      return by_int(in.type, []<class T>() -> ExecFn {
        if constexpr (sizeof(T) < 8) return &binary<S::W<T>, T, T, MulWide<T>>;
        else return nullptr;
      });
    }
    default: return by_int(in.type, []<class T>() -> ExecFn { return &binary<T, T, T, MulLo<T>>; });
  }
}
ExecFn bind_mad(const Inst& in) {
  if (is_float(in.type)) return fbind::mad(in);
  if (in.m.cc) return bind_carry(in);
  switch (in.m.mul) {
    case MulMode::Hi:
      if (in.m.sat) return in.type == Type::S32 ? &ternary<int32_t, int32_t, int32_t, int32_t, MadHiSat> : nullptr;
      return by_int(in.type, []<class T>() -> ExecFn { return &ternary<T, T, T, T, MadHi<T>>; });
    case MulMode::Wide:
      if (in.m.sat) return nullptr;
      return by_int(in.type, []<class T>() -> ExecFn {
        if constexpr (sizeof(T) < 8) return &ternary<S::W<T>, T, T, S::W<T>, MadWide<T>>;
        else return nullptr;
      });
    default:
      if (in.m.sat) return nullptr;
      return by_int(in.type, []<class T>() -> ExecFn { return &ternary<T, T, T, T, MadLo<T>>; });
  }
}
ExecFn bind_mul24(const Inst& in) {
  const bool hi = in.m.mul == MulMode::Hi;
  if (in.type == Type::S32) return hi ? &binary<uint32_t, uint32_t, uint32_t, Mul24<true, true>> : &binary<uint32_t, uint32_t, uint32_t, Mul24<true, false>>;
  if (in.type == Type::U32) return hi ? &binary<uint32_t, uint32_t, uint32_t, Mul24<false, true>> : &binary<uint32_t, uint32_t, uint32_t, Mul24<false, false>>;
  return nullptr;
}
ExecFn bind_mad24(const Inst& in) {
  const bool hi = in.m.mul == MulMode::Hi;
  using U3 = uint32_t;
  if (in.type == Type::S32) {
    if (in.m.sat) return hi ? &ternary<U3, U3, U3, U3, Mad24<true, true, true>> : nullptr;
    return hi ? &ternary<U3, U3, U3, U3, Mad24<true, true, false>> : &ternary<U3, U3, U3, U3, Mad24<true, false, false>>;
  }
  if (in.type == Type::U32 && !in.m.sat)
    return hi ? &ternary<U3, U3, U3, U3, Mad24<false, true, false>> : &ternary<U3, U3, U3, U3, Mad24<false, false, false>>;
  return nullptr;
}
ExecFn bind_sad(const Inst& in) {
  return by_int(in.type, []<class T>() -> ExecFn { return &ternary<T, T, T, T, Sad<T>>; });
}
ExecFn bind_div(const Inst& in) {
  if (is_float(in.type)) return fbind::div(in);
  return by_int(in.type, []<class T>() -> ExecFn { return &binary<T, T, T, Div<T>>; });
}
INT_BIN(bind_rem, Rem)
ExecFn bind_abs(const Inst& in) {
  if (is_float(in.type)) return fbind::abs(in);
  return by_int(in.type, []<class T>() -> ExecFn {
    if constexpr (std::is_signed_v<T>) return &unary<T, T, Abs<T>>;
    else return nullptr;
  });
}
ExecFn bind_neg(const Inst& in) {
  if (is_float(in.type)) return fbind::neg(in);
  return by_int(in.type, []<class T>() -> ExecFn {
    if constexpr (std::is_signed_v<T>) return &unary<T, T, Neg<T>>;
    else return nullptr;
  });
}
template <bool IsMax>
ExecFn bind_minmax(const Inst& in) {
  bool packed = false;
  if (ExecFn f = bind_packed16<IsMax ? 3 : 2>(in, packed); packed) return f;
  if (is_float(in.type)) return IsMax ? fbind::max(in) : fbind::min(in);
  if (in.nops != 3) return nullptr;  // three-input forms are f16/f32 only
  if (in.m.relu) {
    if (in.type != Type::S32) return nullptr;
    return IsMax ? &binary<int32_t, int32_t, int32_t, Max<int32_t, true>> : &binary<int32_t, int32_t, int32_t, Min<int32_t, true>>;
  }
  return by_int(in.type, []<class T>() -> ExecFn {
    if constexpr (IsMax) return &binary<T, T, T, Max<T, false>>;
    else return &binary<T, T, T, Min<T, false>>;
  });
}
ExecFn bind_popc(const Inst& in) {
  if (in.type == Type::B32) return &unary<uint32_t, uint32_t, Popc<uint32_t>>;
  if (in.type == Type::B64) return &unary<uint32_t, uint64_t, Popc<uint64_t>>;
  return nullptr;
}
ExecFn bind_clz(const Inst& in) {
  if (in.type == Type::B32) return &unary<uint32_t, uint32_t, Clz<uint32_t>>;
  if (in.type == Type::B64) return &unary<uint32_t, uint64_t, Clz<uint64_t>>;
  return nullptr;
}
ExecFn bind_bfind(const Inst& in) {
  const bool sh = in.m.shiftamt;
  switch (in.type) {
    case Type::U32: return sh ? &unary<uint32_t, uint32_t, Bfind<uint32_t, true>> : &unary<uint32_t, uint32_t, Bfind<uint32_t, false>>;
    case Type::S32: return sh ? &unary<uint32_t, int32_t, Bfind<int32_t, true>> : &unary<uint32_t, int32_t, Bfind<int32_t, false>>;
    case Type::U64: return sh ? &unary<uint32_t, uint64_t, Bfind<uint64_t, true>> : &unary<uint32_t, uint64_t, Bfind<uint64_t, false>>;
    case Type::S64: return sh ? &unary<uint32_t, int64_t, Bfind<int64_t, true>> : &unary<uint32_t, int64_t, Bfind<int64_t, false>>;
    default: return nullptr;
  }
}
ExecFn bind_brev(const Inst& in) {
  if (in.type == Type::B32) return &unary<uint32_t, uint32_t, Brev<uint32_t>>;
  if (in.type == Type::B64) return &unary<uint64_t, uint64_t, Brev<uint64_t>>;
  return nullptr;
}
ExecFn bind_bfe(const Inst& in) {
  switch (in.type) {
    case Type::U32: return &ternary<uint32_t, uint32_t, uint32_t, uint32_t, Bfe<uint32_t>>;
    case Type::S32: return &ternary<int32_t, int32_t, uint32_t, uint32_t, Bfe<int32_t>>;
    case Type::U64: return &ternary<uint64_t, uint64_t, uint32_t, uint32_t, Bfe<uint64_t>>;
    case Type::S64: return &ternary<int64_t, int64_t, uint32_t, uint32_t, Bfe<int64_t>>;
    default: return nullptr;
  }
}
ExecFn bind_bfi(const Inst& in) {
  if (in.type == Type::B32) return &quaternary<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, Bfi<uint32_t>>;
  if (in.type == Type::B64) return &quaternary<uint64_t, uint64_t, uint64_t, uint32_t, uint32_t, Bfi<uint64_t>>;
  return nullptr;
}
ExecFn bind_fns(const Inst& in) {
  return in.type == Type::B32 ? &ternary<uint32_t, uint32_t, uint32_t, int32_t, Fns> : nullptr;
}
ExecFn bind_bmsk(const Inst& in) {
  if (in.type != Type::B32 || in.m.clamp == in.m.wrap) return nullptr;
  return in.m.clamp ? &binary<uint32_t, uint32_t, uint32_t, Bmsk<true>> : &binary<uint32_t, uint32_t, uint32_t, Bmsk<false>>;
}
ExecFn bind_szext(const Inst& in) {
  if (in.m.clamp == in.m.wrap) return nullptr;
  using U3 = uint32_t;
  if (in.type == Type::S32) return in.m.clamp ? &binary<U3, U3, U3, Szext<true, true>> : &binary<U3, U3, U3, Szext<false, true>>;
  if (in.type == Type::U32) return in.m.clamp ? &binary<U3, U3, U3, Szext<true, false>> : &binary<U3, U3, U3, Szext<false, false>>;
  return nullptr;
}
ExecFn bind_dp4a(const Inst& in) {
  const bool as = in.type == Type::S32, bs = in.type2 == Type::S32;
  using U3 = uint32_t;
  if ((in.type != Type::S32 && in.type != Type::U32) || (in.type2 != Type::S32 && in.type2 != Type::U32)) return nullptr;
  if (as) return bs ? &ternary<U3, U3, U3, U3, Dp4a<true, true>> : &ternary<U3, U3, U3, U3, Dp4a<true, false>>;
  return bs ? &ternary<U3, U3, U3, U3, Dp4a<false, true>> : &ternary<U3, U3, U3, U3, Dp4a<false, false>>;
}
ExecFn bind_dp2a(const Inst& in) {
  const bool as = in.type == Type::S32, bs = in.type2 == Type::S32;
  if ((in.type != Type::S32 && in.type != Type::U32) || (in.type2 != Type::S32 && in.type2 != Type::U32)) return nullptr;
  const bool hi = has_mod(in, ".hi");
  if (!hi && !has_mod(in, ".lo")) return nullptr;
  using U3 = uint32_t;
  ExecFn t[2][2][2] = {{{&ternary<U3, U3, U3, U3, Dp2a<false, false, false>>, &ternary<U3, U3, U3, U3, Dp2a<false, false, true>>},
                        {&ternary<U3, U3, U3, U3, Dp2a<false, true, false>>, &ternary<U3, U3, U3, U3, Dp2a<false, true, true>>}},
                       {{&ternary<U3, U3, U3, U3, Dp2a<true, false, false>>, &ternary<U3, U3, U3, U3, Dp2a<true, false, true>>},
                        {&ternary<U3, U3, U3, U3, Dp2a<true, true, false>>, &ternary<U3, U3, U3, U3, Dp2a<true, true, true>>}}};
  return t[as][bs][hi];
}
template <int PredOp, template <class> class Op>
ExecFn bind_logic(const Inst& in) {
  if (in.type == Type::Pred) return &exec_pred_logic<PredOp>;
  return by_bits(in.type, []<class T>() -> ExecFn { return &binary<T, T, T, Op<T>>; });
}
ExecFn bind_not(const Inst& in) {
  if (in.type == Type::Pred) return &exec_pred_logic<3>;
  return by_bits(in.type, []<class T>() -> ExecFn { return &unary<T, T, Not<T>>; });
}
ExecFn bind_cnot(const Inst& in) {
  return by_bits(in.type, []<class T>() -> ExecFn { return &unary<T, T, Cnot<T>>; });
}
ExecFn bind_lop3(const Inst& in) {
  if (in.nops == 6 && in.o[4].kind == OK::Imm && in.pair().kind == OK::Pred &&
      (in.m.boolop == program::BoolOp::And || in.m.boolop == program::BoolOp::Or)) {
    if (in.type == Type::B32) return &exec_lop3_pred<uint32_t>;
    if (in.type == Type::B64) return &exec_lop3_pred<uint64_t>;
    return nullptr;
  }
  if (in.nops != 5 || in.o[4].kind != OK::Imm || in.pair().kind != OK::None) return nullptr;
  if (in.type == Type::B32) return &exec_lop3<uint32_t>;
  if (in.type == Type::B64) return &exec_lop3<uint64_t>;
  return nullptr;
}
ExecFn bind_shf(const Inst& in) {
  if (in.m.left() == in.m.right() || in.m.clamp == in.m.wrap) return nullptr;
  using U3 = uint32_t;
  const bool arith = in.type == Type::S32;
  if (in.type != Type::B32 && in.type != Type::U32 && in.type != Type::S32) return nullptr;
  if (in.m.left()) return in.m.wrap ? &ternary<U3, U3, U3, U3, Shf<true, true, false>> : &ternary<U3, U3, U3, U3, Shf<true, false, false>>;
  if (arith) return in.m.wrap ? &ternary<U3, U3, U3, U3, Shf<false, true, true>> : &ternary<U3, U3, U3, U3, Shf<false, false, true>>;
  return in.m.wrap ? &ternary<U3, U3, U3, U3, Shf<false, true, false>> : &ternary<U3, U3, U3, U3, Shf<false, false, false>>;
}
ExecFn bind_shl(const Inst& in) {
  return by_bits(in.type, []<class T>() -> ExecFn { return &binary<T, T, uint32_t, Shl<T>>; });
}
ExecFn bind_shr(const Inst& in) {
  return by_int(in.type, []<class T>() -> ExecFn { return &binary<T, T, uint32_t, Shr<T>>; });
}
ExecFn bind_prmt(const Inst& in) {
  if (in.type != Type::B32) return nullptr;
  using U3 = uint32_t;
  static const char* modes[] = {".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"};
  static const ExecFn fns[] = {&ternary<U3, U3, U3, U3, Prmt<0>>, &ternary<U3, U3, U3, U3, Prmt<1>>,
                               &ternary<U3, U3, U3, U3, Prmt<2>>, &ternary<U3, U3, U3, U3, Prmt<3>>,
                               &ternary<U3, U3, U3, U3, Prmt<4>>, &ternary<U3, U3, U3, U3, Prmt<5>>,
                               &ternary<U3, U3, U3, U3, Prmt<6>>};
  for (int i = 0; i < 6; ++i)
    if (has_mod(in, modes[i])) return fns[i + 1];
  return fns[0];
}
ExecFn bind_setp(const Inst& in) {
  if (is_float(in.type)) return fbind::setp(in);
  return by_int(in.type, [&]<class T>() -> ExecFn {
    return by_cmp(in.m.cmp, []<class C>() -> ExecFn { return &setp_exec<GetAs<T>, C>; }, false);
  });
}
ExecFn bind_set(const Inst& in) {
  // set.cmp.dtype.stype: type = destination, type2 = source.
  if (is_float(in.type2)) return fbind::set(in);
  const bool fdst = in.type == Type::F32;
  if (!fdst && in.type != Type::U32 && in.type != Type::S32 && in.type != Type::B32) return nullptr;
  return by_int(in.type2, [&]<class T>() -> ExecFn {
    return by_cmp(in.m.cmp, [&]<class C>() -> ExecFn {
      return fdst ? &set_exec<GetAs<T>, C, true> : &set_exec<GetAs<T>, C, false>;
    }, false);
  });
}
ExecFn bind_selp(const Inst& in) { return in.type == Type::Pred || in.type == Type::None ? nullptr : &exec_selp; }
ExecFn bind_slct(const Inst& in) {
  if (in.type2 == Type::S32) return &exec_slct_s32;
  return fbind::slct(in);
}

}  // namespace
}  // namespace ops

void register_integer_handlers(HandlerTable& t) {
  using isa::Opcode;
  using namespace ops;
  auto set = [&](Opcode op, BindFn f) { t.bind[size_t(op)] = f; };
  set(Opcode::Add, &bind_add);
  set(Opcode::Addc, &bind_carry);
  set(Opcode::Subc, &bind_carry);
  set(Opcode::Madc, &bind_carry);
  set(Opcode::Sub, &bind_sub);
  set(Opcode::Mul, &bind_mul);
  set(Opcode::Mad, &bind_mad);
  set(Opcode::Mul24, &bind_mul24);
  set(Opcode::Mad24, &bind_mad24);
  set(Opcode::Sad, &bind_sad);
  set(Opcode::Div, &bind_div);
  set(Opcode::Rem, &bind_rem);
  set(Opcode::Abs, &bind_abs);
  set(Opcode::Neg, &bind_neg);
  set(Opcode::Min, &bind_minmax<false>);
  set(Opcode::Max, &bind_minmax<true>);
  set(Opcode::Popc, &bind_popc);
  set(Opcode::Clz, &bind_clz);
  set(Opcode::Bfind, &bind_bfind);
  set(Opcode::Brev, &bind_brev);
  set(Opcode::Bfe, &bind_bfe);
  set(Opcode::Bfi, &bind_bfi);
  set(Opcode::Fns, &bind_fns);
  set(Opcode::Bmsk, &bind_bmsk);
  set(Opcode::Szext, &bind_szext);
  set(Opcode::Dp4a, &bind_dp4a);
  set(Opcode::Dp2a, &bind_dp2a);
  set(Opcode::And, &bind_logic<0, And>);
  set(Opcode::Or, &bind_logic<1, Or>);
  set(Opcode::Xor, &bind_logic<2, Xor>);
  set(Opcode::Not, &bind_not);
  set(Opcode::Cnot, &bind_cnot);
  set(Opcode::Lop3, &bind_lop3);
  set(Opcode::Shf, &bind_shf);
  set(Opcode::Shl, &bind_shl);
  set(Opcode::Shr, &bind_shr);
  set(Opcode::Prmt, &bind_prmt);
  set(Opcode::Setp, &bind_setp);
  set(Opcode::Set, &bind_set);
  set(Opcode::Selp, &bind_selp);
  set(Opcode::Slct, &bind_slct);
}

}  // namespace softgpu::exec
