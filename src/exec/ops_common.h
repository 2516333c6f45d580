// The shared shape of the ALU handlers: fetch operands once per warp
// instruction, run a per-lane functor over the active lanes, write the
// destination. Semantics live in small functors (`static R f(A...)`), so
// each bound handler is one tight, type-specialized loop.
#pragma once
#include <cstdint>
#include <type_traits>

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

bool has_mod(const Inst& in, const char* m);

}  // namespace softgpu::exec::ops
