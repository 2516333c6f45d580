#include "program/pipe.h"

#include "program/sequence.h"

namespace softgpu::program {
namespace {

using isa::Opcode;

bool is_half(Type t) { return t == Type::F16 || t == Type::F16x2 || t == Type::BF16 || t == Type::BF16x2; }
bool has_mod(const Inst& in, std::string_view m) {
  for (const auto& r : in.raw_mods)
    if (r == m) return true;
  return false;
}

// Arithmetic whose pipe follows the type: fp64, fp16, or `f32` for fp32.
Pipe by_type(Type t, Pipe f32, Pipe integer) {
  if (t == Type::F64) return Pipe::Fp64;
  if (is_half(t)) return Pipe::Fp16;
  if (t == Type::F32 || t == Type::TF32) return f32;
  return integer;
}

// The pipe most of a sequence's machine instructions go to (ptxas for sm_80,
// sm_89, sm_90: scripts/sass-sequences.py --mix, docs/gpus.md).
Pipe sequence_pipe(Sequence s) {
  switch (s) {
    case Sequence::DivF64: case Sequence::RcpF64: case Sequence::SqrtF64: case Sequence::RsqrtF64:
      return Pipe::Fp64;
    case Sequence::DivU32: case Sequence::DivS32: case Sequence::RemU32: case Sequence::RemS32:
    case Sequence::DivU64: case Sequence::DivS64: case Sequence::RemU64: case Sequence::RemS64:
      return Pipe::Alu;  // IADD3/LOP3/ISETP/SEL, then IMADs, three MUFU/I2F/F2I
    default:
      return Pipe::Fma;  // FFMA refinements of one MUFU; IMAD.WIDE/IMAD.HI for 64-bit multiply
  }
}

}  // namespace

Pipe pipe(const Inst& in) {
  const auto& info = isa::info(in.op);
  if (const Sequence s = sequence(in); s != Sequence::None) return sequence_pipe(s);
  switch (in.op) {
    case Opcode::Bar: case Opcode::Barrier: return Pipe::Barrier;
    case Opcode::Wmma: return (has_mod(in, ".mma")) ? Pipe::Tensor : Pipe::Lsu;
    case Opcode::Mma: return Pipe::Tensor;
    case Opcode::Wgmma: return has_mod(in, ".mma_async") ? Pipe::Tensor : Pipe::Branch;  // fence/commit/wait
    case Opcode::Setmaxnreg: return Pipe::Branch;
    case Opcode::Shfl: case Opcode::Match: case Opcode::Membar: case Opcode::Fence: return Pipe::Lsu;
    case Opcode::Vote: case Opcode::Activemask: case Opcode::Elect: case Opcode::Redux: return Pipe::Alu;
    case Opcode::Nanosleep: case Opcode::Brkpt: case Opcode::Pmevent: case Opcode::Griddepcontrol:
      return Pipe::Branch;
    // fp32 add/sub/mul/fma go to the FMA pipe, integer add/sub to the ALU.
    case Opcode::Add: case Opcode::Sub: return by_type(in.type, Pipe::Fma, Pipe::Alu);
    case Opcode::Mul: case Opcode::Mad: case Opcode::Fma: case Opcode::Mul24: case Opcode::Mad24:
    case Opcode::Madc: case Opcode::Dp4a: case Opcode::Dp2a:
      return by_type(in.type, Pipe::Fma, Pipe::Fma);
    // What is not a sequence is an approximation: MUFU (rcp.approx.ftz.f64 and
    // rsqrt.approx.ftz.f64 too, as MUFU.RCP64H/RSQ64H).
    case Opcode::Div: case Opcode::Rem: case Opcode::Rcp: case Opcode::Sqrt: case Opcode::Rsqrt:
    case Opcode::Sin: case Opcode::Cos: case Opcode::Lg2: case Opcode::Ex2: case Opcode::Tanh:
      return Pipe::Xu;
    case Opcode::Setp: case Opcode::Set: case Opcode::Slct:
      // compares key on the source type
      return by_type(in.type2 != Type::None ? in.type2 : in.type, Pipe::Alu, Pipe::Alu);
    case Opcode::Cvt: {
      const Type d = in.type, s = in.type2;
      if (d == Type::F64 || s == Type::F64) return Pipe::Fp64;
      const bool df = type_is_float(d), sf = type_is_float(s);
      if (!df && !sf) return Pipe::Alu;
      if (df && sf && (is_half(d) || is_half(s))) return Pipe::Fp16;
      return Pipe::Xu;
    }
    default: break;
  }
  if (info.has(isa::kControl)) return Pipe::Branch;
  if (info.unit == isa::UnitClass::Texture) return Pipe::Tex;
  if (info.touches_memory() || info.unit == isa::UnitClass::Memory || info.unit == isa::UnitClass::Atomic ||
      info.has(isa::kBarrier))
    return Pipe::Lsu;
  // min/max/abs/neg/copysign/testp and the integer rest: ALU unless f64/f16.
  return by_type(in.type, Pipe::Alu, Pipe::Alu);
}

std::string_view pipe_name(Pipe p) {
  switch (p) {
    case Pipe::Alu: return "alu";
    case Pipe::Fma: return "fma";
    case Pipe::Fp16: return "fp16";
    case Pipe::Fp64: return "fp64";
    case Pipe::Xu: return "xu";
    case Pipe::Lsu: return "lsu";
    case Pipe::Tex: return "tex";
    case Pipe::Tensor: return "tensor";
    case Pipe::Branch: return "cbu";
    case Pipe::Barrier: return "barrier";
    case Pipe::Count_: break;
  }
  return "unknown";
}

}  // namespace softgpu::program
