// The shared shape of the ALU handlers: fetch operands once per warp
// instruction, run a per-lane functor over the active lanes, write the
// destination. Semantics live in small functors (`static R f(A...)`), so
// each bound handler is one tight, type-specialized loop.
#pragma once
#include <atomic>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "exec/float_util.h"
#include "exec/lanes.h"
#include "exec/warp.h"

namespace softgpu::exec::ops {

using program::Type;

// d = Op::f(a) with a read as A and d written as R.
template <class R, class A, class Op>
void unary(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  uint64_t* d = w.dst(in.o[0]);
  if (!d) return;
  for_lanes(mask, [&](uint32_t l) { d[l] = to_bits<R>(Op::f(from_bits<A>(a[l]))); });
}

template <class R, class A, class B, class Op>
void binary(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize], s2[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  const uint64_t* b = w.src(in.o[2], s2);
  uint64_t* d = w.dst(in.o[0]);
  if (!d) return;
  for_lanes(mask, [&](uint32_t l) { d[l] = to_bits<R>(Op::f(from_bits<A>(a[l]), from_bits<B>(b[l]))); });
}

template <class R, class A, class B, class C, class Op>
void ternary(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize], s2[kWarpSize], s3[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  const uint64_t* b = w.src(in.o[2], s2);
  const uint64_t* c = w.src(in.o[3], s3);
  uint64_t* d = w.dst(in.o[0]);
  if (!d) return;
  for_lanes(mask, [&](uint32_t l) {
    d[l] = to_bits<R>(Op::f(from_bits<A>(a[l]), from_bits<B>(b[l]), from_bits<C>(c[l])));
  });
}

template <class R, class A, class B, class C, class E, class Op>
void quaternary(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize], s2[kWarpSize], s3[kWarpSize], s4[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  const uint64_t* b = w.src(in.o[2], s2);
  const uint64_t* c = w.src(in.o[3], s3);
  const uint64_t* e = w.src(in.o[4], s4);
  uint64_t* d = w.dst(in.o[0]);
  if (!d) return;
  for_lanes(mask, [&](uint32_t l) {
    d[l] = to_bits<R>(Op::f(from_bits<A>(a[l]), from_bits<B>(b[l]), from_bits<C>(c[l]), from_bits<E>(e[l])));
  });
}

// Calls f.template operator()<T>() with T the C++ type of an integer PTX
// type (b-types as unsigned); nullptr for anything else.
template <class F>
ExecFn by_int(Type t, F&& f, bool allow8 = false) {
  switch (t) {
    case Type::S8: return allow8 ? f.template operator()<int8_t>() : nullptr;
    case Type::U8: case Type::B8: return allow8 ? f.template operator()<uint8_t>() : nullptr;
    case Type::S16: return f.template operator()<int16_t>();
    case Type::U16: case Type::B16: return f.template operator()<uint16_t>();
    case Type::S32: return f.template operator()<int32_t>();
    case Type::U32: case Type::B32: return f.template operator()<uint32_t>();
    case Type::S64: return f.template operator()<int64_t>();
    case Type::U64: case Type::B64: return f.template operator()<uint64_t>();
    default: return nullptr;
  }
}

// Same for bit types / any integer width, by size only (unsigned).
template <class F>
ExecFn by_bits(Type t, F&& f) {
  switch (t) {
    case Type::B16: case Type::U16: case Type::S16: return f.template operator()<uint16_t>();
    case Type::B32: case Type::U32: case Type::S32: return f.template operator()<uint32_t>();
    case Type::B64: case Type::U64: case Type::S64: return f.template operator()<uint64_t>();
    default: return nullptr;
  }
}

// Two's-complement wrapping arithmetic without signed-overflow UB.
template <class T>
inline T wadd(T a, T b) { using U = std::make_unsigned_t<T>; return T(U(U(a) + U(b))); }
template <class T>
inline T wsub(T a, T b) { using U = std::make_unsigned_t<T>; return T(U(U(a) - U(b))); }
template <class T>
inline T wmul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  using P = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, U>;  // avoid int promotion UB
  return T(U(P(U(a)) * P(U(b))));
}

// True if the instruction was written with modifier m (".f4e").
bool has_mod(const Inst& in, const char* m);

// Flushes an f32 subnormal to a zero of the same sign.
inline float flush(float v) { return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0f, v) : v; }

// One integer or f32 atom/red update of *p with b (c: cas's new value),
// atomically on the host word (other CTAs run on other host threads).
template <class T>
T atomic_apply(program::AtomOp op, T* p, T b, T c, bool ftz) {
  std::atomic_ref<T> ref(*p);
  T old = ref.load(std::memory_order_relaxed);
  for (;;) {
    T nv{};
    switch (op) {
      case program::AtomOp::Add:
        if constexpr (std::is_same_v<T, float>) {
          nv = ftz ? flush(flush(old) + flush(b)) : T(old + b);
        } else {
          nv = T(old + b);
        }
        break;
      case program::AtomOp::Min: nv = b < old ? b : old; break;
      case program::AtomOp::Max: nv = b > old ? b : old; break;
      case program::AtomOp::Exch: nv = b; break;
      case program::AtomOp::Cas: if (old != b) return old; nv = c; break;
      default:
        if constexpr (std::is_integral_v<T>) {
          switch (op) {
            case program::AtomOp::Inc: nv = (old >= b) ? T(0) : T(old + 1); break;
            case program::AtomOp::Dec: nv = (old == 0 || old > b) ? b : T(old - 1); break;
            case program::AtomOp::And: nv = old & b; break;
            case program::AtomOp::Or: nv = old | b; break;
            case program::AtomOp::Xor: nv = old ^ b; break;
            default: return old;
          }
        }
    }
    if (ref.compare_exchange_weak(old, nv, std::memory_order_relaxed)) return old;
  }
}

// The scalar coordinate operands of "[handle, {c0, c1, ...}]" (tex, suld,
// sust, the TMA copies), flattened (the braces may come as one nested
// vector): the first N in out, the count of all of them returned.
template <size_t N>
uint32_t coord_operands(const Warp& w, const program::Operand& addr, const program::Operand* (&out)[N]) {
  uint32_t n = 0;
  auto put = [&](const program::Operand& e) {
    if (n < N) out[n] = &e;
    ++n;
  };
  for (uint32_t i = 0; i < addr.vec_n; ++i) {
    const program::Operand& e = w.vec_elem(addr, i);
    if (e.kind == program::Operand::Kind::Vec)
      for (uint32_t j = 0; j < e.vec_n; ++j) put(w.vec_elem(e, j));
    else
      put(e);
  }
  return n;
}

// Writes a comparison result (a lane mask) to setp's destinations: p = r
// BOOLOP c and, for "p|q", q = !r BOOLOP c.
inline uint32_t combine(program::BoolOp op, uint32_t r, uint32_t c) {
  switch (op) {
    case program::BoolOp::And: return r & c;
    case program::BoolOp::Or: return r | c;
    case program::BoolOp::Xor: return r ^ c;
    default: return r;
  }
}
inline void finish_setp(Warp& w, const Inst& in, uint32_t r, uint32_t mask) {
  uint32_t c = in.m.boolop != program::BoolOp::None ? w.pred_value(in.o[3]) : 0;
  w.set_pred(in.o[0], combine(in.m.boolop, r, c), mask);
  if (in.pair().kind == Operand::Kind::Pred) w.set_pred(in.pair(), combine(in.m.boolop, ~r, c), mask);
}

// Comparison functors for setp/set on integer and float values (the
// C++ type decides signedness; unordered forms are true on NaN).
template <program::Cmp C>
struct CmpOp {
  template <class T>
  static bool f(T a, T b) {
    using program::Cmp;
    if constexpr (C == Cmp::Eq) return a == b;
    else if constexpr (C == Cmp::Ne) {
      if constexpr (std::is_floating_point_v<T>) return a < b || a > b;
      else return a != b;
    }
    else if constexpr (C == Cmp::Lt || C == Cmp::Lo) return a < b;
    else if constexpr (C == Cmp::Le || C == Cmp::Ls) return a <= b;
    else if constexpr (C == Cmp::Gt || C == Cmp::Hi) return a > b;
    else if constexpr (C == Cmp::Ge || C == Cmp::Hs) return a >= b;
    else if constexpr (C == Cmp::Equ) return !(a < b || a > b);
    else if constexpr (C == Cmp::Neu) return a != b;
    else if constexpr (C == Cmp::Ltu) return !(a >= b);
    else if constexpr (C == Cmp::Leu) return !(a > b);
    else if constexpr (C == Cmp::Gtu) return !(a <= b);
    else if constexpr (C == Cmp::Geu) return !(a < b);
    else if constexpr (C == Cmp::Num) return a == a && b == b;
    else if constexpr (C == Cmp::Nan) return a != a || b != b;
    else return false;
  }
};

// Calls f.template operator()<CmpOp<C>>() for the instruction's compare.
template <class F>
ExecFn by_cmp(program::Cmp c, F&& f, bool is_float) {
  using program::Cmp;
  switch (c) {
    case Cmp::Eq: return f.template operator()<CmpOp<Cmp::Eq>>();
    case Cmp::Ne: return f.template operator()<CmpOp<Cmp::Ne>>();
    case Cmp::Lt: case Cmp::Lo: return f.template operator()<CmpOp<Cmp::Lt>>();
    case Cmp::Le: case Cmp::Ls: return f.template operator()<CmpOp<Cmp::Le>>();
    case Cmp::Gt: case Cmp::Hi: return f.template operator()<CmpOp<Cmp::Gt>>();
    case Cmp::Ge: case Cmp::Hs: return f.template operator()<CmpOp<Cmp::Ge>>();
    default: break;
  }
  if (!is_float) return nullptr;
  switch (c) {
    case Cmp::Equ: return f.template operator()<CmpOp<Cmp::Equ>>();
    case Cmp::Neu: return f.template operator()<CmpOp<Cmp::Neu>>();
    case Cmp::Ltu: return f.template operator()<CmpOp<Cmp::Ltu>>();
    case Cmp::Leu: return f.template operator()<CmpOp<Cmp::Leu>>();
    case Cmp::Gtu: return f.template operator()<CmpOp<Cmp::Gtu>>();
    case Cmp::Geu: return f.template operator()<CmpOp<Cmp::Geu>>();
    case Cmp::Num: return f.template operator()<CmpOp<Cmp::Num>>();
    case Cmp::Nan: return f.template operator()<CmpOp<Cmp::Nan>>();
    default: return nullptr;
  }
}

// setp over values converted by Get (a functor: uint64_t bits -> value).
template <class Get, class Cmp>
void setp_exec(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize], s2[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  const uint64_t* b = w.src(in.o[2], s2);
  uint32_t r = 0;
  for_lanes(mask, [&](uint32_t l) { r |= uint32_t(Cmp::f(Get::f(a[l]), Get::f(b[l]))) << l; });
  finish_setp(w, in, r, mask);
}

// set: like setp, but d = 1.0f (float destination) or 0xffffffff when true.
template <class Get, class Cmp, bool FloatDst>
void set_exec(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s1[kWarpSize], s2[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s1);
  const uint64_t* b = w.src(in.o[2], s2);
  uint32_t r = 0;
  for_lanes(mask, [&](uint32_t l) { r |= uint32_t(Cmp::f(Get::f(a[l]), Get::f(b[l]))) << l; });
  uint32_t c = in.m.boolop != program::BoolOp::None ? w.pred_value(in.o[3]) : 0;
  r = combine(in.m.boolop, r, c);
  uint64_t* d = w.dst(in.o[0]);
  if (!d) return;
  const uint64_t t = FloatDst ? 0x3f800000u : 0xffffffffu;
  for_lanes(mask, [&](uint32_t l) { d[l] = (r >> l & 1) ? t : 0; });
}

template <class T>
struct GetAs { static T f(uint64_t b) { return from_bits<T>(b); } };

// Binders of opcodes shared by integer and float types; the float halves
// live in ops_float.cpp.
// Runs Inner under the host rounding mode Mode (directed .rz/.rm/.rp).
template <int Mode, ExecFn Inner>
void with_round(Warp& w, const Inst& in, uint32_t mask) {
  HostRounding g(Mode);
  Inner(w, in, mask);
}

// The handler F for round-to-nearest, or F under the directed mode r.
template <ExecFn F>
ExecFn rounded(program::Round r) {
  using program::Round;
  switch (r) {
    case Round::None: case Round::Rn: return F;
    case Round::Rz: return &with_round<FE_TOWARDZERO, F>;
    case Round::Rm: return &with_round<FE_DOWNWARD, F>;
    case Round::Rp: return &with_round<FE_UPWARD, F>;
    default: return nullptr;
  }
}

namespace fbind {
ExecFn add(const Inst&);
ExecFn sub(const Inst&);
ExecFn mul(const Inst&);
ExecFn mad(const Inst&);
ExecFn div(const Inst&);
ExecFn min(const Inst&);
ExecFn max(const Inst&);
ExecFn abs(const Inst&);
ExecFn neg(const Inst&);
ExecFn setp(const Inst&);
ExecFn set(const Inst&);
ExecFn slct(const Inst&);
}  // namespace fbind

}  // namespace softgpu::exec::ops
