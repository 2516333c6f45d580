// The order a warp's instructions issue in, as the compiler would schedule
// them. softgpu runs PTX, in the order it is written; ptxas schedules the
// SASS it makes from it, and above all moves loads up, ahead of the
// arithmetic they do not depend on, so that their latencies overlap. An
// unrolled sum written `ld; add; ld; add; ...` (as nvcc writes PTX) issues
// on the GPU as `ld; ld; ...; add; add; ...`. The SM model (which issues
// each warp in order) sees the warp's trace in this compiler-like order.
#pragma once
#include "timing/trace.h"

namespace softgpu::timing {

// The furthest a load moves up, in instructions (the register pressure of
// that many loads in flight is what limits ptxas).
inline constexpr uint32_t kLoadHoistWindow = 64;

// Moves each global load of each warp up past the instructions before it
// that it may pass: arithmetic (ALU, FMA, FP16, FP64, XU pipes; not a
// branch, so no load leaves its basic block, nor a fence, shuffle, texture
// or tensor instruction) that writes none of its operands and neither
// reads nor writes its destination. It stops at any other memory access (loads
// keep their order among themselves; none passes a store, atomic, shared
// access or copy), a barrier, a wait, or after kLoadHoistWindow.
void hoist_loads(CtaTrace& t);

}  // namespace softgpu::timing
