// The functions compiled blocks call (src/jit/helpers.cpp), by name: the
// JIT resolves these symbols to them.
#pragma once
#include <cstdint>

#include "exec/warp.h"

namespace softgpu::jit {

extern "C" {
// Runs the bound handler of the instruction at `pc` of the warp's current
// function; returns nonzero when it faulted. (Compiled code names
// instructions by pc: it holds no host addresses.)
uint32_t softgpu_jit_exec(exec::Warp* w, uint32_t pc, uint32_t mask);
// The 32 lane values of operand `idx` of the instruction at `pc`, a source
// operand the block does not materialize itself.
void softgpu_jit_src(exec::Warp* w, uint32_t pc, uint32_t idx, uint64_t* out);
// The .approx.f32 special function `fn` (exec::approx_special_f32's K,
// plus 8 for .ftz) of each lane of `v` in `mask`, in place: the very
// function the handlers call, one lane at a time.
void softgpu_jit_special(float* v, uint32_t fn, uint32_t mask);
}

}  // namespace softgpu::jit
