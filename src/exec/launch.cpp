// Kernel launch: CTAs spread over host threads, warps of a CTA scheduled
// round-robin and switched at barriers, a watchdog for runaway kernels.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <iostream>
#include <memory>
#include <thread>

#include "exec/warp.h"
#include "ptx/parser.h"

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

// A CTA being run, with its warps (dropped when it finishes).
struct CtaRun {
  std::unique_ptr<Cta> cta;
  std::vector<std::unique_ptr<Warp>> warps;
  bool done = false;
};

uint32_t live_threads(const CtaRun& r) {
  uint32_t n = 0;
  for (auto& w : r.warps)
    if (w->state != WarpState::Done) n += w->live_threads();
  return n;
}

// Completes the cluster's barrier phase when every live thread of its CTAs
// has arrived, and releases the warps waiting for a completed phase.
bool release_cluster(Cluster& c, std::vector<CtaRun>& runs, size_t first, size_t count) {
  uint32_t live = 0;
  for (size_t i = first; i < first + count; ++i) live += live_threads(runs[i]);
  bool released = false;
  if (c.arrived > 0 && c.arrived >= live) {
    c.arrived = 0;
    ++c.phase;
  }
  for (size_t i = first; i < first + count; ++i)
    for (auto& w : runs[i].warps)
      if (w->state == WarpState::AtClusterBarrier && w->cl_phase < c.phase) {
        w->state = WarpState::Ready;
        released = true;
      }
  return released;
}

void report_deadlock(LaunchState& L, const Cta& cta, uint32_t waiting, bool cluster) {
  Fault f;
  f.status = Status::IllegalInstruction;
  f.kernel = L.kernel->name;
  f.block = cta.ctaid;
  f.message = fmt::format(
      "softgpu: kernel '{}' block ({},{},{}): deadlock: {} warps wait at a {} that the other threads never "
      "reach (barrier inside divergent code?)",
      f.kernel, cta.ctaid.x, cta.ctaid.y, cta.ctaid.z, waiting, cluster ? "cluster barrier" : "barrier");
  L.report(std::move(f));
}

// Runs a set of clusters co-scheduled on this host thread: their CTAs' warps
// in turn, each for a quantum or until it blocks. One cluster of one CTA is
// an ordinary launch; a cooperative launch gives each host thread a share of
// the whole grid so that CTAs spinning in grid.sync() let the others progress.
void run_group(LaunchState& L, const std::vector<uint32_t>& clusters) {
  const Dim3 cd = L.cluster;
  const Dim3 ncl{L.grid.x / cd.x, L.grid.y / cd.y, L.grid.z / cd.z};
  const uint32_t csize = uint32_t(cd.count());
  std::vector<Cluster> cls(clusters.size());
  std::vector<CtaRun> runs(clusters.size() * csize);
  for (size_t ci = 0; ci < clusters.size(); ++ci) {
    const uint32_t id = clusters[ci];
    Cluster& c = cls[ci];
    c.id = Dim3{id % ncl.x, (id / ncl.x) % ncl.y, id / (ncl.x * ncl.y)};
    for (uint32_t r = 0; r < csize; ++r) {
      CtaRun& run = runs[ci * csize + r];
      run.cta = std::make_unique<Cta>();
      Cta& cta = *run.cta;
      cta.cluster = &c;
      cta.cluster_rank = r;
      cta.cluster_ctaid = Dim3{r % cd.x, (r / cd.x) % cd.y, r / (cd.x * cd.y)};
      cta.ctaid = Dim3{c.id.x * cd.x + cta.cluster_ctaid.x, c.id.y * cd.y + cta.cluster_ctaid.y,
                       c.id.z * cd.z + cta.cluster_ctaid.z};
      cta.linear = cta.ctaid.x + L.grid.x * (cta.ctaid.y + L.grid.y * cta.ctaid.z);
      cta.nthreads = uint32_t(L.block.count());
      cta.shared.assign(L.reserved_smem ? L.reserved_smem + program::kReservedSmemBytes : L.shared_bytes,
                        std::byte{0});
      c.ctas.push_back(&cta);
      const uint32_t nwarps = (cta.nthreads + kWarpSize - 1) / kWarpSize;
      for (uint32_t w = 0; w < nwarps; ++w)
        run.warps.push_back(
            std::make_unique<Warp>(L, cta, w, std::min(kWarpSize, cta.nthreads - w * kWarpSize)));
    }
  }
  uint64_t since_check = 0, since_memory_check = 0;
  for (;;) {
    bool any_ready = false, all_done = true;
    for (size_t i = 0; i < runs.size(); ++i) {
      CtaRun& run = runs[i];
      if (run.done) continue;
      bool cta_done = true, cluster_wait = false;
      for (auto& w : run.warps) {
        if (w->state == WarpState::Ready) {
          any_ready = true;
          const uint64_t ran = w->run(kQuantum);
          since_check += ran;
          since_memory_check += ran;
          if (w->faulted() || L.abort.load(std::memory_order_relaxed)) return;
          if (w->state == WarpState::AtBarrier) release_barriers(L, *run.cta, run.warps);
        }
        cluster_wait |= w->state == WarpState::AtClusterBarrier;
        if (w->state != WarpState::Done) cta_done = false;
      }
      Cluster& c = *run.cta->cluster;
      if (cluster_wait || c.arrived) {
        const size_t first = i / csize * csize;
        release_cluster(c, runs, first, csize);
      }
      if (cta_done) {
        run.done = true;
        run.warps.clear();  // the Cta itself stays: cluster peers may name its shared memory
      } else {
        all_done = false;
      }
    }
    // Past the host-memory budget's comfortable zone, re-measure the
    // process's memory every few thousand warp instructions.
    if (since_memory_check > 8192) {
      since_memory_check = 0;
      std::string why;
      if (L.memory && L.memory->budget_tight() && !L.memory->check_budget(&why)) {
        const Cta& cta = *runs.front().cta;
        Fault f;
        f.status = Status::MemoryAllocation;
        f.kernel = L.kernel->name;
        f.block = cta.ctaid;
        f.message = fmt::format("softgpu: kernel '{}' block ({},{},{}): {}", f.kernel, cta.ctaid.x, cta.ctaid.y,
                                cta.ctaid.z, why);
        L.report(std::move(f));
        return;
      }
    }
    if (since_check > 100000) {
      uint64_t total = L.warp_instructions.fetch_add(since_check, std::memory_order_relaxed) + since_check;
      since_check = 0;
      const auto& o = *L.opts;
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - L.start).count();
      if ((o.watchdog_warp_instructions && total > o.watchdog_warp_instructions) ||
          (o.watchdog_seconds > 0 && secs > o.watchdog_seconds)) {
        const Cta& cta = *runs.front().cta;
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
    if (any_ready) continue;
    bool released = false;
    for (size_t i = 0; i < runs.size(); ++i)
      if (!runs[i].done) released |= release_barriers(L, *runs[i].cta, runs[i].warps);
    for (size_t ci = 0; ci < cls.size(); ++ci) released |= release_cluster(cls[ci], runs, ci * csize, csize);
    if (released) continue;
    // Every live warp waits at a barrier that can never complete.
    for (auto& run : runs) {
      if (run.done) continue;
      uint32_t waiting = 0, cl_waiting = 0;
      for (auto& w : run.warps) {
        waiting += w->state == WarpState::AtBarrier;
        cl_waiting += w->state == WarpState::AtClusterBarrier;
      }
      report_deadlock(L, *run.cta, waiting + cl_waiting, cl_waiting > 0);
      return;
    }
    return;
  }
  L.warp_instructions.fetch_add(since_check, std::memory_order_relaxed);
}

bool uses_malloc(const Program& p) {
  for (const auto& f : p.functions)
    if (f.builtin == Function::Builtin::Malloc || f.builtin == Function::Builtin::Free) return true;
  return false;
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
  const Dim3 cl = cfg.cluster;
  if (cl.count() == 0 || cfg.grid.x % cl.x || cfg.grid.y % cl.y || cfg.grid.z % cl.z) {
    res.status = Status::InvalidValue;  // the grid must be whole clusters
    return res;
  }
  LaunchState L;
  L.cluster = cl;
  L.explicit_cluster = cfg.explicit_cluster;
  L.lp = &lp;
  L.kernel = &fn;
  L.kernel_index = it->second;
  L.grid = cfg.grid;
  L.block = cfg.block;
  // Local memory: the kernel's frame as declared, plus the call stack; a
  // frame beyond what a thread may have never launches.
  if (fn.local_bytes > ptx::kMaxLocalBytesPerThread) {
    res.status = Status::LaunchOutOfResources;
    const bool saturated = fn.local_bytes >= 0xffff'0000u;  // the decoder's cap (4 GB and more)
    res.error = fmt::format("kernel '{}' needs {}{} bytes of local memory per thread, more than the {} a thread may have",
                            fn.name, saturated ? "over " : "", fn.local_bytes, ptx::kMaxLocalBytesPerThread);
    return res;
  }
  L.local_limit = uint32_t(std::min<uint64_t>(ptx::kMaxLocalBytesPerThread, fn.local_bytes + opts.local_bytes_per_thread));
  L.dynamic_shared = cfg.dynamic_shared_bytes;
  L.shared_bytes = lp.prog.dynamic_shared_offset + cfg.dynamic_shared_bytes;
  // The reserved shared memory exists only where a kernel asks for it, so
  // that overruns of the block's own shared memory still fault elsewhere.
  for (const auto& f : lp.prog.functions)
    if (f.uses_reserved_smem) L.reserved_smem = std::max<uint32_t>((L.shared_bytes + 127) / 128 * 128, 128);
  L.opts = &opts;
  L.memory = &memory;
  L.start = std::chrono::steady_clock::now();
  // The parameter buffer gets a device address so that kernels may take a
  // parameter's address (mov of a .param symbol) and load through it.
  std::vector<std::byte> params(std::max<size_t>(cfg.params.size(), fn.kernel_param_bytes) + 16);
  std::copy(cfg.params.begin(), cfg.params.end(), params.begin());
  L.params = params.data();
  L.params_addr = reinterpret_cast<uint64_t>(params.data());
  // Grid-sync workspace of a cooperative launch, zeroed: {wsSize, barrier}
  // as cooperative_groups/details/driver_abi.h reads it through %envreg1/2.
  std::vector<uint32_t> workspace;
  if (cfg.cooperative) {
    workspace.assign(4, 0);
    workspace[0] = uint32_t(workspace.size() * sizeof(uint32_t));
    L.grid_workspace = reinterpret_cast<uint64_t>(workspace.data());
  }
  if (uses_malloc(lp.prog)) L.heap = memory.heap(Bytes{opts.malloc_heap_bytes});
  // The hot path checks the arena's chunk flags; only the few regions outside
  // the arena are listed (copied), so launch cost does not grow with the
  // number of allocations.
  L.arena_base = memory.arena().base();
  L.arena_size = memory.arena().size();
  L.arena_flags = memory.arena().flags();
  // The host may already be past the budget (host code writing managed
  // memory, the program's own allocations): stop before running.
  if (std::string why; !memory.check_budget(&why)) {
    Fault f;
    f.status = Status::MemoryAllocation;
    f.kernel = fn.name;
    f.message = fmt::format("softgpu: kernel '{}' not started: {}", fn.name, why);
    res.status = f.status;
    res.fault = std::move(f);
    return res;
  }
  std::vector<Allocation> allocs = memory.external_regions();
  allocs.push_back(Allocation{L.params_addr, params.size(), MemKind::Internal, "kernel parameters"});
  if (cfg.cooperative)
    allocs.push_back(Allocation{L.grid_workspace, workspace.size() * sizeof(uint32_t), MemKind::Internal,
                                "grid sync workspace"});
  std::sort(allocs.begin(), allocs.end(), [](const Allocation& a, const Allocation& b) { return a.base < b.base; });
  L.external = AllocationSnapshot(std::move(allocs));

  // Clusters, one scheduling unit each; the default 1x1x1 makes every CTA
  // its own cluster.
  const uint64_t nclusters = cfg.grid.count() / cfg.cluster.count();
  std::vector<std::vector<uint32_t>> groups;
  if (cfg.cooperative) {
    // Every CTA is resident at once: host thread t owns clusters t, t+T, ...
    const unsigned t = unsigned(std::clamp<uint64_t>(opts.threads, 1, nclusters));
    groups.resize(t);
    for (uint64_t c = 0; c < nclusters; ++c) groups[c % t].push_back(uint32_t(c));
  }
  const unsigned nthreads = cfg.cooperative ? unsigned(groups.size())
                                            : unsigned(std::clamp<uint64_t>(opts.threads, 1, nclusters));
  std::atomic<uint64_t> next{0};
  auto worker = [&] {
    for (;;) {
      if (L.abort.load(std::memory_order_relaxed)) return;
      uint64_t c = next.fetch_add(1, std::memory_order_relaxed);
      if (cfg.cooperative) {
        if (c < groups.size()) run_group(L, groups[c]);
        return;
      }
      if (c >= nclusters) return;
      run_group(L, {uint32_t(c)});
    }
  };
  if (nthreads <= 1) {
    if (cfg.cooperative) run_group(L, groups[0]);
    else worker();
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
