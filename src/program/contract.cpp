// Contraction of f32/f64 mul + add/sub into fma, as ptxas does.
//
// PTX lets the code generator fuse a mul and an add that carry no rounding
// modifier ("mul/add without a rounding modifier may be optimized
// aggressively", PTX ISA, Floating-Point Instructions), and ptxas does:
// NVVM leaves unsuffixed mul.f64 + sub.f64 for CuPy's `in0 - floor(in0 /
// in1) * in1`, and the SASS ptxas makes of it is one DFMA, so NumPy and a
// real GPU agree where an unfused mul + sub is off by one rounding. The
// rules below are what `ptxas -arch=sm_90` (CUDA 13.0) was seen to do on
// small kernels (SASS read with cuobjdump; tests/ptx/contract lists them):
//   - the mul and the add/sub have no rounding modifier, the same type and
//     the same .ftz; the mul has no .sat and no guard (.sat on the add is
//     kept: FFMA.SAT), a guard on the add is kept;
//   - every use of the mul's result is such an add/sub in the same basic
//     block (a use by anything else, a store say, or one across a branch
//     keeps FMUL + FADD), and then each of those adds is fused;
//   - an add whose two operands are both such products fuses its first;
//   - add d, m, c -> fma(a, b, c); sub d, m, c -> fma(a, b, -c);
//     sub d, c, m -> fma(-a, b, c).
// softgpu fuses at the add, reading the mul's sources there, so it also
// requires that they are not written in between (ptxas, working on SSA
// values, has no such limit) and that the product register has one
// definition. The mul itself stays in the code (the executor still writes
// its register), marked folded when every one of its uses was fused: ptxas
// then drops it, so the timing model does not issue it.
#include <algorithm>

#include "program/decoder.h"
#include "program/facts.h"

namespace softgpu::program {
namespace {

using isa::Opcode;
using OK = Operand::Kind;

bool float_type(Type t) { return t == Type::F32 || t == Type::F64; }

bool plain(const Operand& o) { return o.kind == OK::Reg || o.kind == OK::Imm; }

// A mul the rules allow to be fused (its uses aside).
bool product(const Inst& in) {
  return in.op == Opcode::Mul && float_type(in.type) && in.m.rnd == Round::None && !in.m.sat && !in.has_guard &&
         in.nops == 3 && in.o[0].kind == OK::Reg && plain(in.o[1]) && plain(in.o[2]);
}

// An add/sub that may take a product.
bool sum(const Inst& in) {
  return (in.op == Opcode::Add || in.op == Opcode::Sub) && float_type(in.type) && in.m.rnd == Round::None &&
         !in.m.cc && in.nops == 3 && in.o[0].kind == OK::Reg && plain(in.o[1]) && plain(in.o[2]);
}

bool ends_block(Opcode op) {
  switch (op) {
    case Opcode::Bra: case Opcode::Brx: case Opcode::Call: case Opcode::Ret: case Opcode::Exit: case Opcode::Trap:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool contract_mul_add(Function& f) {
  const uint32_t n = uint32_t(f.code.size());
  if (n == 0 || f.facts.size() != n) return false;
  for (const auto& u : f.facts)
    if (u.flags & kFactSlotsCut) return false;  // the read sets are incomplete
  // Basic blocks: a new one starts at every branch target and after every
  // instruction that transfers control.
  std::vector<uint32_t> block(n, 0);
  std::vector<uint8_t> leader(n + 1, 0);
  for (uint32_t pc = 0; pc < n; ++pc) {
    const Inst& in = f.code[pc];
    if (in.op == Opcode::Bra && in.target <= n) leader[in.target] = 1;
    if (in.op == Opcode::Brx && in.aux < f.branch_tables.size())
      for (uint32_t t : f.branch_tables[in.aux]) leader[std::min(t, n)] = 1;
    if (ends_block(in.op)) leader[pc + 1] = 1;
  }
  for (uint32_t pc = 0, b = 0; pc < n; ++pc) {
    if (pc > 0 && leader[pc]) ++b;
    block[pc] = b;
  }
  // Definitions and uses of each register slot.
  std::vector<std::vector<uint32_t>> defs(f.num_regs), uses(f.num_regs);
  for (uint32_t pc = 0; pc < n; ++pc) {
    for (uint32_t s : writes(f, pc))
      if (!(s & kPredSlot) && s < f.num_regs) defs[s].push_back(pc);
    for (uint32_t s : reads(f, pc))
      if (!(s & kPredSlot) && s < f.num_regs) uses[s].push_back(pc);
  }
  auto slot = [&](const Operand& o) { return o.kind == OK::Reg && o.reg < f.num_regs; };
  auto written_between = [&](const Operand& o, uint32_t from, uint32_t to) {
    if (!slot(o)) return o.kind == OK::Reg;  // a register outside the frame: do not fuse
    for (uint32_t d : defs[o.reg])
      if (d > from && d < to) return true;
    return false;
  };
  // The muls whose every use is an add/sub the rules fuse them into,
  // decided before any add is rewritten.
  std::vector<uint8_t> eligible(n, 0);
  for (uint32_t m = 0; m < n; ++m) {
    const Inst& mul = f.code[m];
    if (!product(mul) || !slot(mul.o[0]) || defs[mul.o[0].reg].size() != 1 || uses[mul.o[0].reg].empty()) continue;
    bool all = true;
    for (uint32_t u : uses[mul.o[0].reg]) {
      const Inst& user = f.code[u];
      all = all && u > m && block[u] == block[m] && sum(user) && user.type == mul.type && user.m.ftz == mul.m.ftz;
    }
    eligible[m] = all;
  }
  bool changed = false;
  std::vector<uint32_t> fused(n, 0);  // per mul: how many of its uses were fused
  for (uint32_t pc = 0; pc < n; ++pc) {
    Inst& add = f.code[pc];
    if (!sum(add)) continue;
    for (int side = 1; side <= 2; ++side) {
      const Operand& o = add.o[side];
      if (!slot(o) || defs[o.reg].size() != 1) continue;
      const uint32_t m = defs[o.reg][0];
      if (!eligible[m] || m >= pc) continue;
      const Inst& mul = f.code[m];
      // ptxas would fuse this one; softgpu cannot if a source changed since.
      if (written_between(mul.o[1], m, pc) || written_between(mul.o[2], m, pc)) break;
      const Operand addend = add.o[side == 1 ? 2 : 1];
      if (add.op == Opcode::Sub) add.m.bits |= side == 1 ? Modifiers::kNegAddend : Modifiers::kNegProduct;
      add.op = Opcode::Fma;
      add.nops = 4;
      add.o[1] = mul.o[1];
      add.o[2] = mul.o[2];
      add.o[3] = addend;
      ++fused[m];
      changed = true;
      break;  // the first operand that is a product wins
    }
  }
  for (uint32_t m = 0; m < n; ++m)
    if (fused[m] && fused[m] == uses[f.code[m].o[0].reg].size()) f.code[m].m.bits |= Modifiers::kFolded;
  return changed;
}

}  // namespace softgpu::program
