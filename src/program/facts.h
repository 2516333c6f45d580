// Facts about each decoded instruction, computed once at load: its register
// read and write sets (from the opcode table's destination count and the
// operands), its pipe (program/pipe.h) and its sequence kind (program/sequence.h).
#pragma once
#include <span>

#include "program/program.h"

namespace softgpu::program {

// Fills f.facts (one per pc) and f.reg_slots. Destinations are the leading
// `isa::info(op).destinations` operands unless an address stands there
// (`mbarrier.init [a], n`), plus the second result after '|'; every other
// register or predicate operand, address base, vector element, texture
// coordinate and the guard is read. A register both read and written
// (`mma` accumulators named twice) appears in both sets.
void compute_facts(Function& f);

inline std::span<const uint32_t> writes(const Function& f, uint32_t pc) {
  const InstFacts& u = f.facts[pc];
  return {f.reg_slots.data() + u.first, u.writes};
}
inline std::span<const uint32_t> reads(const Function& f, uint32_t pc) {
  const InstFacts& u = f.facts[pc];
  return {f.reg_slots.data() + u.first + u.writes, u.reads};
}

}  // namespace softgpu::program
