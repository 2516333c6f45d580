// Lowering of a function's blocks to LLVM IR: one IR function per PTX
// function, `uint32_t run(BlockCtx*)` (exec/compiled.h), entered at any
// block's first pc, running blocks and the uniform branches between them.
// What an instruction needs that the lowering does not emit itself, it
// gets by calling the instruction's bound handler, so every blockable
// instruction can be in a block.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "exec/warp.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace softgpu::jit {

// A block: code[begin, end) of one function, and the bra at `end` when
// `branch` (a block may be just that branch: begin == end).
struct BlockRange {
  uint32_t begin = 0, end = 0;
  bool branch = false;
};

// True if the instruction may run inside a block: not control flow, not a
// barrier, not warp-collective or warp-aligned, and it has a handler.
bool blockable(const program::Inst& in, exec::ExecFn fn);
// The blocks of a function: maximal blockable runs, split at every pc the
// interpreter may resume at (branch targets, reconvergence points).
std::vector<BlockRange> find_blocks(const program::Function& f, const std::vector<exec::ExecFn>& fns);

struct LowerStats {
  uint32_t native = 0;    // instructions lowered to IR
  uint32_t handler = 0;   // instructions that call their handler
  bool failed = false;    // the IR is not usable (Emitter::failed)
};

// Emits the IR function `name` running the function's blocks.
void lower_function(llvm::LLVMContext& ctx, llvm::Module& m, const std::string& name, const program::Function& f,
                    const std::vector<exec::ExecFn>& fns, const std::vector<BlockRange>& blocks, LowerStats& stats);

}  // namespace softgpu::jit
