// Blocks and their IR: guards, handler calls, and the frame the native
// lowerings (lower_alu.cpp, lower_mem.cpp) work in.
#include "jit/lower.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <algorithm>

#include "jit/emit.h"

namespace softgpu::jit {

using isa::Opcode;
using program::Inst;

// A block longer than this is split, so one block run stays short beside
// the scheduler's budget and compile time stays bounded.
constexpr uint32_t kMaxBlock = 256;

bool blockable(const Inst& in, exec::ExecFn fn) {
  if (!fn) return false;
  switch (in.op) {
    case Opcode::Bra: case Opcode::Brx: case Opcode::Call: case Opcode::Ret: case Opcode::Exit:
    case Opcode::Trap: case Opcode::Bar: case Opcode::Barrier: case Opcode::Unimplemented:
      return false;
    default: break;
  }
  const isa::OpcodeInfo& i = isa::info(in.op);
  if (i.unit == isa::UnitClass::Warp || i.unit == isa::UnitClass::Sync || i.unit == isa::UnitClass::Control)
    return false;
  return !i.has(isa::kControl | isa::kBranch | isa::kCall | isa::kTerminator | isa::kBarrier |
                isa::kWarpCollective | isa::kWarpAligned);
}

std::vector<BlockRange> find_blocks(const program::Function& f, const std::vector<exec::ExecFn>& fns) {
  const uint32_t n = uint32_t(f.code.size());
  std::vector<uint8_t> leader(n + 1, 0), ok(n, 0);
  leader[0] = 1;
  auto mark = [&](uint32_t pc) { if (pc <= n) leader[pc] = 1; };
  for (uint32_t pc = 0; pc < n; ++pc) {
    const Inst& in = f.code[pc];
    ok[pc] = blockable(in, pc < fns.size() ? fns[pc] : nullptr);
    if (!ok[pc]) mark(pc + 1);
    if (in.op == Opcode::Bra) { mark(in.target); mark(in.reconv); }
    if (in.op == Opcode::Brx) {
      mark(in.reconv);
      if (in.aux < f.branch_tables.size())
        for (uint32_t t : f.branch_tables[in.aux]) mark(t);
    }
  }
  std::vector<BlockRange> out;
  for (uint32_t pc = 0; pc < n;) {
    if (!ok[pc]) { ++pc; continue; }
    uint32_t e = pc + 1;
    while (e < n && ok[e] && !leader[e] && e - pc < kMaxBlock) ++e;
    out.push_back({pc, e});
    pc = e;
  }
  return out;
}

void lower_block(llvm::LLVMContext& ctx, llvm::Module& m, const std::string& name, const program::Function& f,
                 const std::vector<exec::ExecFn>& fns, BlockRange r, LowerStats& stats) {
  Emitter e(ctx, m, name, f);
  for (bool full : {true, false}) {
    e.begin_variant(full);
    for (uint32_t pc = r.begin; pc < r.end; ++pc) {
      const Inst& in = f.code[pc];
      e.begin_inst(in);
      e.set_current(pc, fns[pc], pc - r.begin + 1);
      const bool native = e.lower_native(in);
      if (!native) e.call_handler(in, pc, fns[pc], pc - r.begin + 1);
      if (full) ++(native ? stats.native : stats.handler);
      e.end_inst();
    }
    e.finish(r.end, r.end - r.begin);
  }
}

}  // namespace softgpu::jit
