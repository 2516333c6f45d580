#include "isa/opcode.h"

namespace softgpu::isa {

std::string_view unit_name(UnitClass u) {
  switch (u) {
    case UnitClass::IntAlu: return "int_alu";
    case UnitClass::IntMul: return "int_mul";
    case UnitClass::IntDiv: return "int_div";
    case UnitClass::FpAlu: return "fp_alu";
    case UnitClass::Sfu: return "sfu";
    case UnitClass::Convert: return "convert";
    case UnitClass::Memory: return "memory";
    case UnitClass::Atomic: return "atomic";
    case UnitClass::Texture: return "texture";
    case UnitClass::Control: return "control";
    case UnitClass::Sync: return "sync";
    case UnitClass::Warp: return "warp";
    case UnitClass::Tensor: return "tensor";
  }
  return "unknown";
}

}  // namespace softgpu::isa
