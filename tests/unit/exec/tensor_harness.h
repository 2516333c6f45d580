// The one-warp harness of the tensor-core tests (ops_tensor_test.cpp,
// mma_subbyte_sparse_test.cpp): a warp with 128 registers and 16 KiB of
// shared memory, and instructions built from their modifiers.
#pragma once
#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <string>

#include "exec/warp.h"
#include "program/decoder.h"

namespace softgpu::exec::test {

using program::Inst;
using program::Operand;

inline Operand R(uint32_t slot) { Operand o; o.kind = Operand::Kind::Reg; o.reg = slot; return o; }
inline Operand Imm(int64_t v) { Operand o; o.kind = Operand::Kind::Imm; o.imm = v; return o; }
inline Operand Addr(uint32_t base_reg, int64_t off = 0) {
  Operand o; o.kind = Operand::Kind::Addr; o.reg = base_reg; o.imm = off; return o;
}

struct Harness {
  LoadedProgram lp;
  ExecOptions opts;
  LaunchState L;
  Cta cta;
  std::unique_ptr<Warp> w;
  Harness() {
    program::Function f;
    f.name = "k";
    f.num_regs = 128;
    f.num_preds = 1;
    f.code.resize(1);
    lp.prog.functions.push_back(f);
    lp.fns.push_back({nullptr});
    L.lp = &lp;
    L.opts = &opts;
    L.kernel = &lp.prog.functions[0];
    L.block = Dim3{32, 1, 1};
    L.grid = Dim3{1, 1, 1};
    cta.shared.resize(16384);
    w = std::make_unique<Warp>(L, cta, 0, 32);
  }
  uint64_t* reg(uint32_t s) { return w->reg(s); }
  Operand vec(uint32_t first, uint32_t n) {
    auto& f = lp.prog.functions[0];
    Operand o;
    o.kind = Operand::Kind::Vec;
    o.vec_begin = uint32_t(f.vec_operands.size());
    o.vec_n = uint8_t(n);
    for (uint32_t i = 0; i < n; ++i) f.vec_operands.push_back(R(first + i));
    return o;
  }
  ExecFn bind(const Inst& in) {
    BindFn b = handler_table().bind[size_t(in.op)];
    return b ? b(in) : nullptr;
  }
  bool run(const Inst& in, uint32_t mask = 0xffffffffu) {
    ExecFn e = bind(in);
    if (!e) { ADD_FAILURE() << "not bound: " << in.text(); return false; }
    e(*w, in, mask);
    return !w->faulted();
  }
};

// "wmma.load.a.sync..." -> Inst with raw_mods split at the dots.
inline Inst make(isa::Opcode op, const std::string& mods, std::initializer_list<Operand> ops) {
  Inst in;
  in.op = op;
  std::string cur;
  for (char ch : mods) {
    if (ch == '.' && !cur.empty()) { in.raw_mods.push_back(cur); cur.clear(); }
    cur += ch;
  }
  if (!cur.empty()) in.raw_mods.push_back(cur);
  if (op == isa::Opcode::Mma) program::decode_instruction_modifiers(in, in.raw_mods);  // the form, in aux
  for (const auto& m : in.raw_mods) {
    if (m == ".shared" || m == ".shared::cta") in.m.space = ptx::Space::Shared;
    if (m == ".rn") in.m.rnd = program::Round::Rn;
  }
  uint8_t i = 0;
  for (const auto& o : ops) in.o[i++] = o;
  in.nops = i;
  return in;
}

}  // namespace softgpu::exec::test
