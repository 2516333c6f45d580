// The opcode table (from opcodes.def) as C++: enum, mnemonic, unit class,
// operand and destination counts, flags.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace softgpu::isa {

// Which hardware unit executes an instruction; the timing model keys on it.
enum class UnitClass : uint8_t { IntAlu, IntMul, IntDiv, FpAlu, Sfu, Convert, Memory, Atomic, Texture, Control, Sync, Warp, Tensor };

// What an opcode is, for every layer that needs to know (one place: the
// table). "May" flags hold for some forms: `wmma` reads memory in its load
// form only, `cp` is a copy in its async forms and a group wait in others.
enum Flag : uint32_t {
  kControl = 1u << 0,         // changes the warp's control state (branch, call, return, barrier)
  kBranch = 1u << 1,          // bra/brx: a target inside the function
  kCall = 1u << 2,
  kTerminator = 1u << 3,      // ends the path (ret/exit/trap): no fall-through when unguarded
  kMemRead = 1u << 4,         // may read memory
  kMemWrite = 1u << 5,        // may write memory
  kMemHint = 1u << 6,         // names memory without reading or writing it (prefetch, discard)
  kAtomic = 1u << 7,          // read-modify-write at the memory
  kAsync = 1u << 8,           // completes after issue (cp.async, bulk copies)
  kBarrier = 1u << 9,         // waits for or signals other threads (bar, barrier, mbarrier)
  kFence = 1u << 10,          // orders memory (membar, fence)
  kWarpCollective = 1u << 11, // reads other lanes of the warp (shfl, vote, match, redux, elect)
  kWarpAligned = 1u << 12,    // .sync.aligned on the whole warp (mma, wmma, ldmatrix, stmatrix, wgmma,
                              // setmaxnreg): its lanes reconverge before it (exec/its.cpp)
};

enum class Opcode : uint16_t {
#define OP(E, M, U, MIN, MAX, DST, FLAGS) E,
#include "isa/opcodes.def"
#undef OP
  Count_
};

struct OpcodeInfo {
  Opcode op;
  std::string_view mnemonic;
  UnitClass unit;
  uint8_t min_operands, max_operands;
  uint8_t destinations;  // leading operands written (see opcodes.def)
  uint32_t flags;        // Flag bits
  constexpr bool has(uint32_t f) const { return (flags & f) != 0; }
  constexpr bool touches_memory() const { return has(kMemRead | kMemWrite | kMemHint); }
};

inline constexpr std::array<OpcodeInfo, size_t(Opcode::Count_)> kOpcodes = {{
#define OP(E, M, U, MIN, MAX, DST, FLAGS) {Opcode::E, M, UnitClass::U, MIN, MAX, DST, FLAGS},
#include "isa/opcodes.def"
#undef OP
}};

constexpr const OpcodeInfo& info(Opcode op) { return kOpcodes[size_t(op)]; }
constexpr bool has_flag(Opcode op, uint32_t f) { return info(op).has(f); }

// Looks a mnemonic up ("ld" -> Opcode::Ld); nullopt if unknown.
constexpr std::optional<Opcode> find_opcode(std::string_view mnemonic) {
  for (const auto& i : kOpcodes)
    if (i.mnemonic == mnemonic) return i.op;
  return std::nullopt;
}

std::string_view unit_name(UnitClass u);

// Forms of an opcode whose operand counts go beyond its table row, which
// counts the opcode's other forms: the TMA copies, whose "[tmap, {coords}]"
// counts as two operands and which may add im2col offsets, a multicast mask
// and a cache policy; sparse wgmma, with its metadata and selector; the
// tensor-map proxy fence, whose acquire form names the map.
// Matched on the mnemonic and its leading modifiers.
struct WideForm {
  std::string_view prefix;
  uint8_t max_operands;
};
inline constexpr WideForm kWideForms[] = {
    {"cp.async.bulk.tensor", 7},           // [dst], [tmap, {c}], [mbar], {im2col}, ctaMask, policy
    {"cp.reduce.async.bulk.tensor", 4},    // [tmap, {c}], [src], policy
    {"cp.async.bulk.prefetch.tensor", 4},  // [tmap, {c}], {im2col}, policy
    {"wgmma.mma_async.sp", 10},            // d, a, b, sp-meta, sp-sel, scale-d, 4 immediates
    {"fence.proxy.tensormap::generic", 2}, // .acquire: [addr], size
};
constexpr std::optional<uint8_t> wide_form_max_operands(std::string_view instruction) {
  for (const WideForm& f : kWideForms)
    if (instruction.substr(0, f.prefix.size()) == f.prefix &&
        (instruction.size() == f.prefix.size() || instruction[f.prefix.size()] == '.'))
      return f.max_operands;
  return std::nullopt;
}

}  // namespace softgpu::isa
