// Extended-precision integer arithmetic: add.cc/addc, sub.cc/subc,
// mad.cc/madc. CC.CF is one bit per lane in Warp::carry; for subtraction it
// holds the borrow (PTX: subc computes d = a - (b + CC.CF)).
#include "exec/warp.h"

namespace softgpu::exec {
namespace {

using program::MulMode;
using program::Type;
using isa::Opcode;

enum class Kind { Add, Sub, Mad };

template <class T, Kind K, bool CarryIn, bool CarryOut, MulMode M>
void exec_carry(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s0[kWarpSize], s1[kWarpSize], s2[kWarpSize];
  const uint64_t* a = w.src(in.o[1], s0);
  const uint64_t* b = w.src(in.o[2], s1);
  const uint64_t* c = K == Kind::Mad ? w.src(in.o[3], s2) : s2;
  uint64_t* d = w.dst(in.o[0]);
  uint32_t cf_out = 0;
  const uint32_t cf_in = w.carry;
  for_lanes(mask, [&](uint32_t l) {
    const T x = T(a[l]), y = T(b[l]);
    const T cin = CarryIn ? T(cf_in >> l & 1) : T(0);
    T r;
    bool out;
    if constexpr (K == Kind::Sub) {
      r = T(x - y - cin);
      out = (x < y) || (x - y < cin);  // borrow
    } else {
      T p = y;
      T addend = y;
      if constexpr (K == Kind::Mad) {
        using W = std::conditional_t<sizeof(T) == 4, uint64_t, unsigned __int128>;
        W prod = W(x) * W(y);
        p = M == MulMode::Hi ? T(prod >> (sizeof(T) * 8)) : T(prod);
        addend = T(c[l]);
        const T base = p;
        r = T(base + addend);
        out = r < base;
        const T r2 = T(r + cin);
        out = out || r2 < r;
        r = r2;
      } else {
        r = T(x + addend);
        out = r < x;
        const T r2 = T(r + cin);
        out = out || r2 < r;
        r = r2;
      }
      (void)p;
    }
    if (d) d[l] = r;
    if (out) cf_out |= 1u << l;
  });
  if (CarryOut) w.carry = (w.carry & ~mask) | (cf_out & mask);
}

template <class T, Kind K, bool CarryIn, bool CarryOut>
ExecFn pick_mul(const Inst& in) {
  if constexpr (K == Kind::Mad) {
    if (in.m.mul == MulMode::Hi) return &exec_carry<T, K, CarryIn, CarryOut, MulMode::Hi>;
    if (in.m.mul == MulMode::Lo) return &exec_carry<T, K, CarryIn, CarryOut, MulMode::Lo>;
    return nullptr;
  }
  return &exec_carry<T, K, CarryIn, CarryOut, MulMode::None>;
}

template <class T>
ExecFn pick(const Inst& in) {
  const bool cin = in.op == Opcode::Addc || in.op == Opcode::Subc || in.op == Opcode::Madc;
  const bool cout = in.m.cc;
  Kind k = (in.op == Opcode::Add || in.op == Opcode::Addc) ? Kind::Add
           : (in.op == Opcode::Sub || in.op == Opcode::Subc) ? Kind::Sub : Kind::Mad;
#define SG_PICK(KIND)                                         \
  if (k == KIND) {                                            \
    if (cin && cout) return pick_mul<T, KIND, true, true>(in);  \
    if (cin) return pick_mul<T, KIND, true, false>(in);         \
    if (cout) return pick_mul<T, KIND, false, true>(in);        \
    return pick_mul<T, KIND, false, false>(in);                 \
  }
  SG_PICK(Kind::Add)
  SG_PICK(Kind::Sub)
  SG_PICK(Kind::Mad)
#undef SG_PICK
  return nullptr;
}

}  // namespace

ExecFn bind_carry(const Inst& in) {
  // Signed and unsigned forms compute the same bits and the same carry.
  switch (in.type) {
    case Type::U32: case Type::S32: return pick<uint32_t>(in);
    case Type::U64: case Type::S64: return pick<uint64_t>(in);
    default: return nullptr;
  }
}

}  // namespace softgpu::exec
