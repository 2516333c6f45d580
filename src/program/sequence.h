// PTX instructions that become a sequence of machine instructions on the
// GPU (IEEE division, reciprocal and square root, f64 reciprocal square
// root, integer division and remainder, 64-bit integer multiply), one kind
// per cost: the timing model's [timing.sequences] has an entry per kind,
// keyed by sequence_key(), measured with ptxas (scripts/sass-sequences.py,
// docs/gpus.md). Everything else, conversions included, is one machine
// instruction on sm_80, sm_89 and sm_90 (that script checks the forms).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "program/program.h"

namespace softgpu::program {

enum class Sequence : uint8_t {
  None,
  DivRnF32,    // div.rn.f32
  DivFullF32,  // div.full.f32
  DivRzF32,    // div.rz/rm/rp.f32 (a subroutine)
  RcpF32,      // rcp.rn/rz/rm/rp.f32
  SqrtRnF32,   // sqrt.rn.f32
  SqrtRzF32,   // sqrt.rz/rm/rp.f32
  DivF64,      // div.rn/rz/rm/rp.f64
  RcpF64,      // rcp.rn/rz/rm/rp.f64
  SqrtF64,     // sqrt.rn/rz/rm/rp.f64
  RsqrtF64,    // rsqrt.approx.f64 (the .ftz form is two instructions: not a sequence)
  DivU32, DivS32, RemU32, RemS32,
  DivU64, DivS64, RemU64, RemS64,  // subroutines
  MulLo64,     // mul.lo/mad.lo of 64-bit integers (mul.wide.s32 is one IMAD.WIDE)
  MulHi64,     // mul.hi/mad.hi of 64-bit integers
  Count_
};
inline constexpr size_t kSequenceKinds = size_t(Sequence::Count_) - 1;  // without None

Sequence sequence(const Inst& in);
inline bool is_sequence(const Inst& in) { return sequence(in) != Sequence::None; }

// The config key ("div_rn_f32"); "" for None.
std::string_view sequence_key(Sequence s);

}  // namespace softgpu::program
