// A one-warp harness for handler tests: builds an Inst by hand, binds it
// through the real handler table, and runs it on a Warp with known registers.
#pragma once
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <initializer_list>
#include <memory>

#include "exec/warp.h"

namespace softgpu::exec::test {

using program::Inst;
using program::Operand;
using program::Type;

inline Operand R(uint32_t slot) { Operand o; o.kind = Operand::Kind::Reg; o.reg = slot; return o; }
inline Operand P(uint32_t slot, bool neg = false) { Operand o; o.kind = Operand::Kind::Pred; o.reg = slot; o.negate = neg; return o; }
inline Operand I(int64_t v) { Operand o; o.kind = Operand::Kind::Imm; o.imm = v; return o; }
inline Operand Sink() { Operand o; o.kind = Operand::Kind::Sink; return o; }
inline uint64_t fbits(float f) { return std::bit_cast<uint32_t>(f); }
inline uint64_t dbits(double d) { return std::bit_cast<uint64_t>(d); }
inline float asf(uint64_t b) { return std::bit_cast<float>(uint32_t(b)); }
inline double asd(uint64_t b) { return std::bit_cast<double>(b); }

struct WarpHarness {
  LoadedProgram lp;
  ExecOptions opts;
  LaunchState L;
  Cta cta;
  std::unique_ptr<Warp> w;

  WarpHarness() {
    program::Function f;
    f.name = "k";
    f.num_regs = 16;
    f.num_preds = 8;
    f.code.resize(1);
    lp.prog.functions.push_back(f);
    lp.fns.push_back({nullptr});
    L.lp = &lp;
    L.opts = &opts;
    L.block = Dim3{32, 1, 1};
    L.grid = Dim3{1, 1, 1};
    w = std::make_unique<Warp>(L, cta, 0, 32);
  }
  uint64_t* reg(uint32_t s) { return w->reg(s); }
  uint32_t& pred(uint32_t s) { return w->pred(s); }
  void fill(uint32_t s, uint64_t v) { for (uint32_t l = 0; l < 32; ++l) reg(s)[l] = v; }

  // Binds `in`; returns false (and records a failure) if it is unsupported.
  bool run(const Inst& in, uint32_t mask = 0xffffffffu) {
    BindFn b = handler_table().bind[size_t(in.op)];
    ExecFn e = b ? b(in) : nullptr;
    if (!e) { ADD_FAILURE() << "not bound: " << in.text(); return false; }
    e(*w, in, mask);
    return true;
  }
  bool bound(const Inst& in) {
    BindFn b = handler_table().bind[size_t(in.op)];
    return b && b(in);
  }
};

inline Inst make(isa::Opcode op, Type t, std::initializer_list<Operand> ops, Type t2 = Type::None) {
  Inst in;
  in.op = op;
  in.type = t;
  in.type2 = t2;
  uint8_t i = 0;
  for (const auto& o : ops) in.o[i++] = o;
  in.nops = i;
  return in;
}

}  // namespace softgpu::exec::test

namespace isa = softgpu::isa;
namespace program = softgpu::program;
