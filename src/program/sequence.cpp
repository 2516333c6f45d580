#include "program/sequence.h"

namespace softgpu::program {
namespace {

using isa::Opcode;

bool is_64(Type t) { return t == Type::U64 || t == Type::S64 || t == Type::B64; }
bool is_signed(Type t) { return t == Type::S32 || t == Type::S64; }
bool directed(Round r) { return r == Round::Rz || r == Round::Rm || r == Round::Rp; }

Sequence integer_division(const Inst& in) {
  const bool rem = in.op == Opcode::Rem, s = is_signed(in.type);
  if (is_64(in.type)) return rem ? (s ? Sequence::RemS64 : Sequence::RemU64) : (s ? Sequence::DivS64 : Sequence::DivU64);
  return rem ? (s ? Sequence::RemS32 : Sequence::RemU32) : (s ? Sequence::DivS32 : Sequence::DivU32);
}

}  // namespace

Sequence sequence(const Inst& in) {
  const Type t = in.type;
  switch (in.op) {
    case Opcode::Div:
      if (t == Type::F64) return Sequence::DivF64;
      if (t == Type::F32) {
        if (in.m.approx) return Sequence::None;  // MUFU.RCP and a multiply
        if (in.m.full) return Sequence::DivFullF32;
        return directed(in.m.rnd) ? Sequence::DivRzF32 : Sequence::DivRnF32;
      }
      return integer_division(in);
    case Opcode::Rem: return integer_division(in);
    case Opcode::Rcp:
      if (in.m.approx) return Sequence::None;  // MUFU.RCP (f64: MUFU.RCP64H and a move)
      return t == Type::F64 ? Sequence::RcpF64 : Sequence::RcpF32;
    case Opcode::Sqrt:
      if (in.m.approx) return Sequence::None;
      if (t == Type::F64) return Sequence::SqrtF64;
      return directed(in.m.rnd) ? Sequence::SqrtRzF32 : Sequence::SqrtRnF32;
    case Opcode::Rsqrt: return t == Type::F64 && !in.m.ftz ? Sequence::RsqrtF64 : Sequence::None;
    case Opcode::Mul: case Opcode::Mad:
      // mul.wide.s32 is one IMAD.WIDE (its type is the sources'); mul.lo.s32 one IMAD.
      if (!is_64(t) || in.m.mul == MulMode::Wide) return Sequence::None;
      return in.m.mul == MulMode::Hi ? Sequence::MulHi64 : Sequence::MulLo64;
    default: return Sequence::None;
  }
}

std::string_view sequence_key(Sequence s) {
  switch (s) {
    case Sequence::DivRnF32: return "div_rn_f32";
    case Sequence::DivFullF32: return "div_full_f32";
    case Sequence::DivRzF32: return "div_rz_f32";
    case Sequence::RcpF32: return "rcp_f32";
    case Sequence::SqrtRnF32: return "sqrt_rn_f32";
    case Sequence::SqrtRzF32: return "sqrt_rz_f32";
    case Sequence::DivF64: return "div_f64";
    case Sequence::RcpF64: return "rcp_f64";
    case Sequence::SqrtF64: return "sqrt_f64";
    case Sequence::RsqrtF64: return "rsqrt_f64";
    case Sequence::DivU32: return "div_u32";
    case Sequence::DivS32: return "div_s32";
    case Sequence::RemU32: return "rem_u32";
    case Sequence::RemS32: return "rem_s32";
    case Sequence::DivU64: return "div_u64";
    case Sequence::DivS64: return "div_s64";
    case Sequence::RemU64: return "rem_u64";
    case Sequence::RemS64: return "rem_s64";
    case Sequence::MulLo64: return "mul_lo_64";
    case Sequence::MulHi64: return "mul_hi_64";
    case Sequence::None: case Sequence::Count_: break;
  }
  return "";
}

}  // namespace softgpu::program
