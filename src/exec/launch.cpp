// Kernel launch: CTAs spread over host threads, warps of a CTA scheduled
// round-robin and switched at barriers, a watchdog for runaway kernels.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <iostream>
#include <memory>
#include <thread>

#include "exec/warp.h"

namespace softgpu::exec {
namespace {

// Instructions a warp runs before the scheduler moves to the next one; keeps
// spin-waits on shared memory from starving the warp that would release them.
constexpr uint64_t kQuantum = 2000;

// Releases warps waiting at barriers that are complete. Returns true if any moved.
bool release_barriers(LaunchState& L, Cta& cta, std::vector<std::unique_ptr<Warp>>& warps) {
  bool released = false;
  uint32_t live = 0;
  for (auto& w : warps)
    if (w->state != WarpState::Done) live += w->live_threads();
  for (uint32_t id = 0; id < 16; ++id) {
    uint32_t arrived = 0, expected = 0, popc = 0;
    bool all = true, any = false, waiting = false;
    for (auto& w : warps) {
      if (w->state != WarpState::AtBarrier || w->bar_id != id) continue;
      waiting = true;
      arrived += w->bar_threads;
      if (w->bar_expected) expected = w->bar_expected;
      popc += w->red_popc;
      all &= w->red_all;
      any |= w->red_any;
    }
    if (!waiting) continue;
    if (!expected) expected = live;
    if (arrived < expected) continue;
    for (auto& w : warps)
      if (w->state == WarpState::AtBarrier && w->bar_id == id) w->finish_barrier(popc, all, any);
    released = true;
  }
  // bar.arrive never waits.
  for (auto& w : warps)
    if (w->state == WarpState::AtBarrier && w->bar_arrive_only) { w->finish_barrier(0, true, false); released = true; }
  return released;
}

void run_cta(LaunchState& L, uint32_t linear) {
  Cta cta;
  cta.linear = linear;
  cta.ctaid = Dim3{linear % L.grid.x, (linear / L.grid.x) % L.grid.y, linear / (L.grid.x * L.grid.y)};
  cta.nthreads = uint32_t(L.block.count());
  cta.shared.assign(L.shared_bytes, std::byte{0});
  std::vector<std::unique_ptr<Warp>> warps;
  const uint32_t nwarps = (cta.nthreads + kWarpSize - 1) / kWarpSize;
  for (uint32_t w = 0; w < nwarps; ++w)
    warps.push_back(std::make_unique<Warp>(L, cta, w, std::min(kWarpSize, cta.nthreads - w * kWarpSize)));
  uint64_t since_check = 0;
  for (;;) {
    bool any_ready = false, all_done = true;
    for (auto& w : warps) {
      if (w->state == WarpState::Ready) {
        any_ready = true;
        uint64_t n = w->run(kQuantum);
        since_check += n;
        if (w->faulted() || L.abort.load(std::memory_order_relaxed)) return;
        if (w->state == WarpState::AtBarrier) release_barriers(L, cta, warps);
      }
      if (w->state != WarpState::Done) all_done = false;
    }
    if (since_check > 100000) {
      uint64_t total = L.warp_instructions.fetch_add(since_check, std::memory_order_relaxed) + since_check;
      since_check = 0;
      const auto& o = *L.opts;
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - L.start).count();
      if ((o.watchdog_warp_instructions && total > o.watchdog_warp_instructions) ||
          (o.watchdog_seconds > 0 && secs > o.watchdog_seconds)) {
        Fault f;
        f.status = Status::LaunchTimeout;
        f.kernel = L.kernel->name;
        f.block = cta.ctaid;
        f.message = fmt::format(
            "softgpu: kernel '{}' stopped by the watchdog after {:.1f} s and {} warp instructions (block ({},{},{})); "
            "raise the limit with --watchdog SECONDS",
            f.kernel, secs, total, cta.ctaid.x, cta.ctaid.y, cta.ctaid.z);
        L.report(std::move(f));
        return;
      }
    }
    if (all_done) break;
    if (!any_ready && !release_barriers(L, cta, warps)) {
      // Every live warp waits at a barrier that can never complete.
      Fault f;
      f.status = Status::IllegalInstruction;
      f.kernel = L.kernel->name;
      f.block = cta.ctaid;
      uint32_t waiting = 0;
      for (auto& w : warps) waiting += w->state == WarpState::AtBarrier;
      f.message = fmt::format(
          "softgpu: kernel '{}' block ({},{},{}): deadlock: {} warps wait at a barrier that the other threads never "
          "reach (barrier inside divergent code?)",
          f.kernel, cta.ctaid.x, cta.ctaid.y, cta.ctaid.z, waiting);
      L.report(std::move(f));
      return;
    }
  }
  L.warp_instructions.fetch_add(since_check, std::memory_order_relaxed);
}

}  // namespace

LaunchResult launch(const LoadedProgram& lp, const std::string& kernel, const LaunchConfig& cfg,
                    DeviceMemory& memory, const ExecOptions& opts) {
  LaunchResult res;
  auto it = lp.prog.function_index.find(kernel);
  if (it == lp.prog.function_index.end() || !lp.prog.functions[it->second].is_entry) {
    res.status = Status::InvalidDeviceFunction;
    return res;
  }
  const Function& fn = lp.prog.functions[it->second];
  if (cfg.grid.count() == 0 || cfg.block.count() == 0) {
    res.status = Status::InvalidConfiguration;
    return res;
  }
  LaunchState L;
  L.lp = &lp;
  L.kernel = &fn;
  L.kernel_index = it->second;
  L.grid = cfg.grid;
  L.block = cfg.block;
  L.dynamic_shared = cfg.dynamic_shared_bytes;
  L.shared_bytes = lp.prog.dynamic_shared_offset + cfg.dynamic_shared_bytes;
  L.opts = &opts;
  L.memory = &memory;
  L.start = std::chrono::steady_clock::now();
  // The parameter buffer gets a device address so that kernels may take a
  // parameter's address (mov of a .param symbol) and load through it.
  std::vector<std::byte> params(std::max<size_t>(cfg.params.size(), fn.kernel_param_bytes) + 16);
  std::copy(cfg.params.begin(), cfg.params.end(), params.begin());
  L.params = params.data();
  L.params_addr = reinterpret_cast<uint64_t>(params.data());
  std::vector<Allocation> allocs = memory.snapshot().all();
  allocs.push_back(Allocation{L.params_addr, params.size(), MemKind::Internal, "kernel parameters"});
  std::sort(allocs.begin(), allocs.end(), [](const Allocation& a, const Allocation& b) { return a.base < b.base; });
  L.allocs = AllocationSnapshot(std::move(allocs));

  const uint64_t nctas = cfg.grid.count();
  const unsigned nthreads = unsigned(std::clamp<uint64_t>(opts.threads, 1, std::max<uint64_t>(nctas, 1)));
  std::atomic<uint64_t> next{0};
  auto worker = [&] {
    for (;;) {
      if (L.abort.load(std::memory_order_relaxed)) return;
      uint64_t c = next.fetch_add(1, std::memory_order_relaxed);
      if (c >= nctas) return;
      run_cta(L, uint32_t(c));
    }
  };
  if (nthreads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < nthreads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  if (!L.printf_buffer.empty()) {
    if (opts.printf_out) {
      *opts.printf_out << L.printf_buffer;
      opts.printf_out->flush();
    } else {
      std::fwrite(L.printf_buffer.data(), 1, L.printf_buffer.size(), stdout);
      std::fflush(stdout);
    }
  }
  res.warp_instructions = L.warp_instructions.load();
  if (L.fault) {
    res.status = L.fault->status;
    res.fault = std::move(L.fault);
  }
  return res;
}

}  // namespace softgpu::exec
