// Compiled code for launches: the kernel and the functions it calls
// directly, compiled once per program, at the first launch or, tiered,
// once the kernel is hot (exec/compiled.h): then by the host thread that
// noticed, while the launch's other threads go on interpreting. (Not on a
// thread of its own: one compiling while the process exits would run into
// LLVM's function-local statics being destroyed under it.) Code an earlier
// compilation left at hand (the disk cache) is taken at the first launch.
#include "exec/compiled.h"

#include <vector>

#include "exec/warp.h"

namespace softgpu::exec {

namespace {

// The kernel and its direct callees, kernel first.
std::vector<uint32_t> closure(const LoadedProgram& lp, uint32_t kernel) {
  const auto& fns = lp.prog.functions;
  std::vector<uint8_t> seen(fns.size(), 0);
  std::vector<uint32_t> out{kernel};
  seen[kernel] = 1;
  for (size_t i = 0; i < out.size(); ++i)
    for (const Inst& in : fns[out[i]].code)
      if (in.op == isa::Opcode::Call && !fns[out[i]].calls[in.aux].indirect && in.target < fns.size() &&
          !seen[in.target]) {
        seen[in.target] = 1;
        out.push_back(in.target);
      }
  return out;
}

// Sizes the program's tables (under jit.mu); they never move afterwards.
void size_tables(const LoadedProgram& lp) {
  ProgramCode& j = lp.jit;
  const size_t n = lp.prog.functions.size();
  if (j.published) return;
  j.published = std::make_unique<std::atomic<const CompiledCode*>[]>(n);
  for (size_t i = 0; i < n; ++i) j.published[i].store(nullptr, std::memory_order_relaxed);
  j.compiled.resize(n);
  j.tried.assign(n, 0);
  j.requested.assign(n, 0);
  j.probed.assign(n, 0);
  j.executed.assign(n, 0);
}

// Compiles what of the closure is not compiled yet and publishes it. The
// compiler runs without the lock: a launch binding meanwhile interprets.
void compile_closure(const LoadedProgram& lp, uint32_t kernel, CodeCompiler& compiler) {
  ProgramCode& j = lp.jit;
  for (uint32_t f : closure(lp, kernel)) {
    {
      std::lock_guard lock(j.mu);
      if (j.tried[f]) continue;
      j.tried[f] = 1;
    }
    if (lp.prog.functions[f].code.empty()) continue;
    std::shared_ptr<const CompiledCode> code = compiler.compile(lp, f);
    std::lock_guard lock(j.mu);
    j.compiled[f] = std::move(code);
    j.published[f].store(j.compiled[f].get(), std::memory_order_release);
  }
}

// Publishes the code of the closure's functions that the compiler has at
// hand without compiling (once per kernel). True when the whole closure is
// compiled now: nothing is left to ask for.
bool adopt_cached(const LoadedProgram& lp, uint32_t kernel, CodeCompiler& compiler) {
  ProgramCode& j = lp.jit;
  bool all = true;
  for (uint32_t f : closure(lp, kernel)) {
    {
      std::lock_guard lock(j.mu);
      if (j.tried[f]) {
        all &= j.compiled[f] != nullptr || lp.prog.functions[f].code.empty();
        continue;
      }
    }
    if (lp.prog.functions[f].code.empty()) continue;
    std::shared_ptr<const CompiledCode> code = compiler.cached(lp, f);
    std::lock_guard lock(j.mu);
    if (!code || j.tried[f]) {
      all &= j.compiled[f] != nullptr;
      continue;
    }
    j.tried[f] = 1;
    j.compiled[f] = std::move(code);
    j.published[f].store(j.compiled[f].get(), std::memory_order_release);
  }
  return all;
}

}  // namespace

void bind_compiled_code(LaunchState& L, uint32_t kernel) {
  const ExecOptions& o = *L.opts;
  L.jit = o.compiler && !o.listener;
  if (!L.jit) return;
  const LoadedProgram& lp = *L.lp;
  uint64_t size = 0;
  for (uint32_t f : closure(lp, kernel)) size += lp.prog.functions[f].code.size();
  bool now = o.jit_hot == 0, probe = false;
  {
    std::lock_guard lock(lp.jit.mu);
    size_tables(lp);
    L.jit_before = lp.jit.executed[kernel];
    L.jit_threshold = o.jit_hot * size;
    if (lp.jit.requested[kernel]) {
      L.jit_asked = true;
      now = false;
    } else if (now) {
      lp.jit.requested[kernel] = 1;
    } else if (!lp.jit.probed[kernel]) {
      lp.jit.probed[kernel] = probe = true;
    }
  }
  // Tiered: code compiled before (the disk cache) runs from the first
  // instruction; the threshold is for what must still be compiled.
  if (probe && adopt_cached(lp, kernel, *o.compiler)) {
    std::lock_guard lock(lp.jit.mu);
    lp.jit.requested[kernel] = 1;
    L.jit_asked = true;
  }
  if (now) {
    L.jit_asked = true;
    compile_closure(lp, kernel, *o.compiler);
  } else {
    jit_progress(L, 0);
  }
}

void request_compile(LaunchState& L) {
  if (L.jit_asked.exchange(true)) return;
  const LoadedProgram& lp = *L.lp;
  {
    std::lock_guard lock(lp.jit.mu);
    if (lp.jit.requested[L.kernel_index]) return;
    lp.jit.requested[L.kernel_index] = 1;
  }
  compile_closure(lp, L.kernel_index, *L.opts->compiler);
}

void jit_launch_end(LaunchState& L, uint64_t total) {
  if (!L.jit) return;
  std::lock_guard lock(L.lp->jit.mu);
  L.lp->jit.executed[L.kernel_index] += total;
}

}  // namespace softgpu::exec
