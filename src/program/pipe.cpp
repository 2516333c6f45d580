#include "program/pipe.h"

namespace softgpu::program {
namespace {

using isa::Opcode;

bool is_half(Type t) { return t == Type::F16 || t == Type::F16x2 || t == Type::BF16 || t == Type::BF16x2; }
bool is_wide_int(Type t) { return t == Type::U64 || t == Type::S64 || t == Type::B64; }
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

}  // namespace

Pipe pipe(const Inst& in) {
  const auto& info = isa::info(in.op);
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
    case Opcode::Div: case Opcode::Rem:
      if (in.type == Type::F32 && in.m.approx) return Pipe::Xu;
      return by_type(in.type, Pipe::Fma, Pipe::Fma);
    case Opcode::Rcp: case Opcode::Sqrt: case Opcode::Rsqrt: case Opcode::Sin: case Opcode::Cos:
    case Opcode::Lg2: case Opcode::Ex2: case Opcode::Tanh:
      return in.type == Type::F64 ? Pipe::Fp64 : Pipe::Xu;
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

bool is_sequence(const Inst& in) {
  switch (in.op) {
    case Opcode::Div: case Opcode::Rem:
      return !(in.type == Type::F32 && in.m.approx);
    case Opcode::Sqrt: case Opcode::Rcp:
      return in.type == Type::F64 || !in.m.approx;
    case Opcode::Rsqrt: case Opcode::Sin: case Opcode::Cos: case Opcode::Lg2: case Opcode::Ex2: case Opcode::Tanh:
      return in.type == Type::F64;
    case Opcode::Mul: case Opcode::Mad:
      return is_wide_int(in.type);  // mul.wide.s32 is one IMAD.WIDE; mul.lo.u64 is several
    default:
      return false;
  }
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
