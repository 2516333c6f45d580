// Compiled code for launches: the kernel and the functions it calls
// directly, compiled once per program, at the first launch or, tiered,
// once the kernel is hot (a fixed threshold, ExecOptions::jit_hot) or once
// compiling is worth its estimated cost (worth_compiling, the default):
// then by the host thread that noticed, while the launch's other threads go
// on interpreting. (Not on a thread of its own: one compiling while the
// process exits would run into LLVM's function-local statics being
// destroyed under it.) Code an earlier compilation left at hand (the disk
// cache) is taken at the first launch.
#include "exec/compiled.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <vector>

#include "common/cpu_time.h"
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
  j.interpreted.assign(n, 0);
}

// Host-thread seconds the launch has cost so far: the process's CPU time
// since it started (all its host threads; not wall time x threads, which a
// loaded machine stretches while the compile estimate stays put).
double launch_cpu_seconds(const LaunchState& L) { return process_cpu_seconds() - L.start_cpu; }

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
  const std::vector<uint32_t> fns = closure(lp, kernel);
  uint64_t size = 0;
  for (uint32_t f : fns) size += lp.prog.functions[f].code.size();
  L.jit_cost = !o.jit_hot;
  bool now = o.jit_hot == 0, probe = false;
  {
    std::lock_guard lock(lp.jit.mu);
    size_tables(lp);
    L.jit_before = lp.jit.executed[kernel];
    L.jit_threshold = o.jit_hot.value_or(0) * size;
    L.jit_spent_before = lp.jit.interpreted[kernel];
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
  } else if (!L.jit_cost) {
    jit_progress(L, 0);
  } else if (!L.jit_asked) {
    // The estimate covers what is left to compile (not what the cache or
    // another kernel's compilation gave).
    {
      std::lock_guard lock(lp.jit.mu);
      for (uint32_t f : fns)
        if (!lp.jit.tried[f]) L.jit_instructions += lp.prog.functions[f].code.size();
    }
    L.jit_seconds_per_instruction = o.compiler->seconds_per_instruction();
    if (worth_compiling(L.jit_spent_before, std::nullopt, L.jit_instructions, L.jit_seconds_per_instruction))
      request_compile(L);
  }
}

bool jit_cost_says_compile(const LaunchState& L) {
  const double spent = launch_cpu_seconds(L);
  // The rest of the launch at the rate of its CTAs so far, once a sample
  // of them has finished: 1% of them and 4 per host thread (the first
  // CTAs run slower than the rest, and those still running count in
  // `spent` but not in `done`: early projections overshoot, by 2-3x on
  // SHOC MaxFlops' first kernel).
  const uint64_t done = L.ctas_done.load(std::memory_order_relaxed);
  std::optional<double> remaining;
  if (done >= std::max<uint64_t>(4 * uint64_t(L.jit_threads), L.total_ctas / 100))
    remaining = done < L.total_ctas ? spent * double(L.total_ctas - done) / double(done) : 0;
  return worth_compiling(L.jit_spent_before + spent, remaining, L.jit_instructions, L.jit_seconds_per_instruction);
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
  const double spent = launch_cpu_seconds(L);
  std::lock_guard lock(L.lp->jit.mu);
  L.lp->jit.executed[L.kernel_index] += total;
  L.lp->jit.interpreted[L.kernel_index] += spent;
}

}  // namespace softgpu::exec
