// Compiled code for launches: the kernel and the functions it calls
// directly, compiled once per program, at the first launch or, tiered,
// once the kernel is hot (exec/compiled.h).
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

}  // namespace

ProgramCode::~ProgramCode() {
  std::unique_lock lock(mu);
  closing = true;
  cv.wait(lock, [&] { return pending == 0; });
}

void bind_compiled_code(LaunchState& L, uint32_t kernel) {
  const ExecOptions& o = *L.opts;
  L.jit = o.compiler && !o.listener;
  if (!L.jit) return;
  const LoadedProgram& lp = *L.lp;
  uint64_t size = 0;
  for (uint32_t f : closure(lp, kernel)) size += lp.prog.functions[f].code.size();
  bool now = o.jit_hot == 0;
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
    }
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
  if (L.opts->compile_queue) L.opts->compile_queue->request(lp, L.kernel_index);
  else compile_closure(lp, L.kernel_index, *L.opts->compiler);
}

void jit_launch_end(LaunchState& L, uint64_t total) {
  if (!L.jit) return;
  std::lock_guard lock(L.lp->jit.mu);
  L.lp->jit.executed[L.kernel_index] += total;
}

CompileQueue::CompileQueue(CodeCompiler& compiler) : compiler_(compiler) {
  thread_ = std::thread([this] { work(); });
}

CompileQueue::~CompileQueue() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void CompileQueue::request(const LoadedProgram& lp, uint32_t kernel) {
  {
    std::lock_guard lock(lp.jit.mu);
    if (lp.jit.closing) return;
    ++lp.jit.pending;
  }
  {
    std::lock_guard lock(mu_);
    queue_.emplace_back(&lp, kernel);
  }
  cv_.notify_all();
}

void CompileQueue::drain() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return queue_.empty() && !busy_; });
}

void CompileQueue::work() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    auto [lp, kernel] = queue_.front();
    queue_.pop_front();
    busy_ = true;
    const bool stopping = stop_;
    lock.unlock();
    // Stopping or unloading: the job is dropped (the program interprets).
    bool skip;
    {
      std::lock_guard l(lp->jit.mu);
      skip = lp->jit.closing;
    }
    if (!skip && !stopping) compile_closure(*lp, kernel, compiler_);
    {
      // Last touch of the program: its destructor may go on after this.
      std::lock_guard l(lp->jit.mu);
      --lp->jit.pending;
      lp->jit.cv.notify_all();
    }
    lock.lock();
    busy_ = false;
    cv_.notify_all();
  }
}

}  // namespace softgpu::exec
