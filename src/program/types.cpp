#include "program/program.h"

namespace softgpu::program {

uint32_t type_size(Type t) {
  switch (t) {
    case Type::B8: case Type::U8: case Type::S8: case Type::E4M3: case Type::E5M2: return 1;
    case Type::B16: case Type::U16: case Type::S16: case Type::F16: case Type::BF16:
    case Type::E4M3x2: case Type::E5M2x2: return 2;
    case Type::B32: case Type::U32: case Type::S32: case Type::F32: case Type::F16x2:
    case Type::BF16x2: case Type::TF32: return 4;
    case Type::B64: case Type::U64: case Type::S64: case Type::F64: return 8;
    case Type::B128: return 16;
    default: return 0;
  }
}

bool type_is_float(Type t) {
  switch (t) {
    case Type::F16: case Type::F16x2: case Type::BF16: case Type::BF16x2: case Type::TF32:
    case Type::F32: case Type::F64: case Type::E4M3: case Type::E5M2: case Type::E4M3x2:
    case Type::E5M2x2: return true;
    default: return false;
  }
}

bool type_is_signed(Type t) {
  return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64;
}

const char* type_name(Type t) {
  static const char* names[] = {"", ".pred", ".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16",
                                ".u32", ".u64", ".s8", ".s16", ".s32", ".s64", ".f16", ".f16x2",
                                ".bf16", ".bf16x2", ".tf32", ".f32", ".f64", ".e4m3", ".e5m2",
                                ".e4m3x2", ".e5m2x2"};
  return names[size_t(t)];
}

std::string Inst::text() const {
  // Opcode::Unimplemented keeps the mnemonic as written in raw_mods[0].
  std::string s(op == isa::Opcode::Unimplemented ? std::string_view{} : isa::info(op).mnemonic);
  for (const auto& m : raw_mods) s += m;
  return s;
}

}  // namespace softgpu::program
