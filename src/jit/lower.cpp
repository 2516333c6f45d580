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
  auto is_bra = [&](uint32_t pc) { return pc < n && f.code[pc].op == Opcode::Bra; };
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
    if (!ok[pc] && !(is_bra(pc) && leader[pc])) { ++pc; continue; }
    uint32_t e = pc;
    while (e < n && ok[e] && (e == pc || !leader[e]) && e - pc < kMaxBlock) ++e;
    // A bra right after the run (and not a leader of its own) ends the block.
    const bool branch = is_bra(e) && (e == pc || !leader[e]);
    out.push_back({pc, e, branch});
    pc = branch ? e + 1 : e;
  }
  return out;
}

// Forms lowered in the any-mask copy too: arithmetic, logic, compares,
// selects and conversions, straight-line vector code with no memory paths,
// so that a diverged warp's loops (per-lane trip counts) run compiled. The
// rest call their handlers there: memory accesses' checked paths and the
// math lowerings' calls would double the compile time of large kernels.
namespace {
bool any_mask_native(const Inst& in) {
  switch (in.op) {
    case Opcode::Mov: case Opcode::Add: case Opcode::Sub: case Opcode::Mul: case Opcode::Mad: case Opcode::Neg:
    case Opcode::Fma: case Opcode::Abs: case Opcode::Shl: case Opcode::Shr: case Opcode::And: case Opcode::Or:
    case Opcode::Xor: case Opcode::Not: case Opcode::Setp: case Opcode::Selp: case Opcode::Min: case Opcode::Max:
    case Opcode::Cvt:
      return true;
    default: return false;
  }
}
}  // namespace

void lower_function(llvm::LLVMContext& ctx, llvm::Module& m, const std::string& name, const program::Function& f,
                    const std::vector<exec::ExecFn>& fns, const std::vector<BlockRange>& blocks, LowerStats& stats) {
  Emitter e(ctx, m, name, f);
  std::vector<int> at(f.code.size() + 1, -1);  // block index by first pc
  for (size_t i = 0; i < blocks.size(); ++i) at[blocks[i].begin] = int(i);
  e.make_blocks(blocks.size());
  e.dispatch(blocks);
  for (bool full : {true, false}) {
    for (size_t i = 0; i < blocks.size(); ++i) {
      const BlockRange& r = blocks[i];
      e.begin_block(i, full);
      for (uint32_t pc = r.begin; pc < r.end; ++pc) {
        const Inst& in = f.code[pc];
        if (!full) e.enter_any(pc);
        e.begin_inst(in);
        e.set_current(pc, fns[pc], pc - r.begin);
        const bool native = (full || any_mask_native(in)) && e.lower_native(in);
        if (!native) e.call_handler(in, pc, fns[pc], pc - r.begin);
        if (full) ++(native ? stats.native : stats.handler);
        e.end_inst();
      }
      const uint32_t len = r.end - r.begin;
      if (r.branch) {
        const Inst& bra = f.code[r.end];
        e.branch(bra, r.end, len, at[bra.target], bra.target <= r.end, at[r.end + 1]);
      } else {
        e.fall_through(r.end, len, at[r.end]);
      }
    }
  }
  stats.failed = e.failed();
  e.annotate_aliasing();
}

}  // namespace softgpu::jit
