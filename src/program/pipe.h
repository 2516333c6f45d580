// The hardware pipe that issues a decoded instruction. It depends on the
// opcode and on the type (`add.s32` is integer ALU, `add.f64` FP64,
// `fma.rn.f16x2` FP16), and on a few modifiers (`div.approx.f32` is one SFU
// operation, `div.rn.f32` a sequence on the FMA pipe). Names follow Nsight
// Compute's pipe metrics (alu, fma, fp16, fp64, xu, lsu, tex, tensor, cbu).
#pragma once
#include <cstdint>
#include <string_view>

#include "program/program.h"

namespace softgpu::program {

enum class Pipe : uint8_t {
  Alu,      // integer and logic, compares, moves, fp32 min/max/compare
  Fma,      // fp32 add/mul/fma, integer multiply (IMAD)
  Fp16,     // f16/bf16 arithmetic, scalar and packed
  Fp64,     // double precision, conversions from or to f64
  Xu,       // transcendentals (MUFU) and conversions between int and float
  Lsu,      // loads, stores, atomics, shuffles, fences, async copies
  Tex,      // texture and surface instructions
  Tensor,   // mma, wmma.mma
  Branch,   // branches, calls, returns, exit, trap (CBU)
  Barrier,  // bar/barrier
  Count_
};

Pipe pipe(const Inst& in);
std::string_view pipe_name(Pipe p);  // "fp64"

}  // namespace softgpu::program
