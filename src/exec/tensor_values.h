// Values of matrix-instruction operands, shared by mma/wmma (ops_tensor.cpp)
// and wgmma (ops_wgmma.cpp): element types, decoding and rounding of
// elements, fragment registers.
#pragma once
#include <cstdint>
#include <string_view>

#include "exec/tensor_layout.h"
#include "exec/warp.h"

namespace softgpu::exec::tensor {

Elem elem_of(std::string_view modifier);  // ".f16" -> F16; None for anything else
bool parse_shape(std::string_view modifier, Shape& out);  // ".m16n8k16"
double decode(Elem t, uint64_t bits);  // one element's value (tf32: the tf32 bits of an f32)
// A result rounded to nearest even into t (f16/f32/f64), or an s32 sum that
// wraps (or clamps with satfinite).
uint64_t encode(Elem t, double v, bool satfinite);
// Matrix instructions are warp-collective (.sync.aligned): faults unless
// every lane executes.
bool require_full_warp(Warp& w, const Inst& in, uint32_t mask);

// Register values of a vector operand (immediates materialized).
struct VecVals {
  uint64_t scratch[16][kWarpSize];
  const uint64_t* v[16] = {};
  uint32_t n = 0;
  void load(Warp& w, const Operand& op) {
    n = op.kind == Operand::Kind::Vec ? op.vec_n : 1;
    for (uint32_t i = 0; i < n && i < 16; ++i)
      v[i] = w.src(op.kind == Operand::Kind::Vec ? w.vec_elem(op, i) : op, scratch[i]);
  }
  uint64_t elem(Elem t, uint32_t lane, uint32_t i) const {
    const uint32_t per = per_reg(t), bits = elem_bits(t);
    const uint64_t r = v[i / per][lane];
    if (bits >= 64) return r;
    return (r >> ((i % per) * bits)) & ((1ull << bits) - 1);
  }
};

// Writes packed fragment elements to a vector destination.
inline void write_frag(Warp& w, const Operand& op, uint32_t nregs, const uint64_t (*regs)[kWarpSize], uint32_t mask) {
  for (uint32_t r = 0; r < nregs; ++r) {
    const Operand& e = op.kind == Operand::Kind::Vec ? w.vec_elem(op, r) : op;
    if (uint64_t* out = w.dst(e)) for_lanes(mask, [&](uint32_t l) { out[l] = regs[r][l]; });
  }
}

}  // namespace softgpu::exec::tensor
