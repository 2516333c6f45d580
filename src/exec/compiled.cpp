// Compiled code for a launch: the kernel and the functions it calls
// directly, compiled once per program (exec/compiled.h).
#include <vector>

#include "exec/warp.h"

namespace softgpu::exec {

void bind_compiled_code(const LoadedProgram& lp, uint32_t kernel, CodeCompiler& compiler,
                        std::vector<const CompiledCode*>& out) {
  const auto& fns = lp.prog.functions;
  std::vector<uint8_t> seen(fns.size(), 0);
  std::vector<uint32_t> todo{kernel};
  seen[kernel] = 1;
  std::lock_guard lock(lp.jit_mu);
  lp.compiled.resize(fns.size());
  lp.compile_tried.resize(fns.size(), 0);
  out.assign(fns.size(), nullptr);
  while (!todo.empty()) {
    const uint32_t f = todo.back();
    todo.pop_back();
    if (!lp.compile_tried[f]) {
      lp.compile_tried[f] = 1;
      if (!fns[f].code.empty()) lp.compiled[f] = compiler.compile(lp, f);
    }
    out[f] = lp.compiled[f].get();
    for (const Inst& in : fns[f].code)
      if (in.op == isa::Opcode::Call && !fns[f].calls[in.aux].indirect && in.target < fns.size() &&
          !seen[in.target]) {
        seen[in.target] = 1;
        todo.push_back(in.target);
      }
  }
}

}  // namespace softgpu::exec
