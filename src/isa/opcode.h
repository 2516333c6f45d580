// The opcode table (from opcodes.def) as C++: enum, mnemonic, unit class.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace softgpu::isa {

// Which hardware unit executes an instruction; the timing model keys on it.
enum class UnitClass : uint8_t { IntAlu, IntMul, IntDiv, FpAlu, Sfu, Convert, Memory, Atomic, Texture, Control, Sync, Warp, Tensor };

enum class Opcode : uint16_t {
#define OP(E, M, U, MIN, MAX) E,
#include "isa/opcodes.def"
#undef OP
  Count_
};

struct OpcodeInfo {
  Opcode op;
  std::string_view mnemonic;
  UnitClass unit;
  uint8_t min_operands, max_operands;
};

inline constexpr std::array<OpcodeInfo, size_t(Opcode::Count_)> kOpcodes = {{
#define OP(E, M, U, MIN, MAX) {Opcode::E, M, UnitClass::U, MIN, MAX},
#include "isa/opcodes.def"
#undef OP
}};

constexpr const OpcodeInfo& info(Opcode op) { return kOpcodes[size_t(op)]; }

// Looks a mnemonic up ("ld" -> Opcode::Ld); nullopt if unknown.
constexpr std::optional<Opcode> find_opcode(std::string_view mnemonic) {
  for (const auto& i : kOpcodes)
    if (i.mnemonic == mnemonic) return i.op;
  return std::nullopt;
}

std::string_view unit_name(UnitClass u);

}  // namespace softgpu::isa
