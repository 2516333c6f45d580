// Kernel launch: CTAs spread over host threads, warps of a CTA scheduled
// round-robin and switched at barriers, a watchdog for runaway kernels.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <iostream>
#include <memory>
#include <optional>
#include <system_error>

#include "exec/host_threads.h"
#include "exec/monitor.h"
#include "exec/listener.h"
#include "common/cpu_time.h"
#include "exec/warp.h"
#include "ptx/parser.h"

namespace softgpu::exec {
namespace {

// Instructions a warp runs before the scheduler moves to the next one; keeps
// spin-waits on shared memory from starving the warp that would release them.
constexpr uint64_t kQuantum = 2000;

// The CTA's live threads: those of its warps that have not finished.
uint32_t live_threads(const std::vector<std::unique_ptr<Warp>>& warps) {
  uint32_t n = 0;
  for (auto& w : warps)
    if (w->state != WarpState::Done) n += w->live_threads();
  return n;
}

// Releases warps waiting at barriers that are complete. Returns true if any moved.
// `only`: the barrier a warp just arrived at, the one whose count changed
// (-1: look at all of them). `live`: live_threads(warps).
bool release_barriers(LaunchState& L, Cta& cta, std::vector<std::unique_ptr<Warp>>& warps, uint32_t live,
                      int only = -1) {
  bool released = false;
  for (uint32_t id = only < 0 ? 0 : uint32_t(only); id < (only < 0 ? 16u : uint32_t(only) + 1); ++id) {
    Cta::Barrier& b = cta.barriers[id];  // threads that passed it with bar.arrive, still counted
    uint32_t arrived = b.arrived, expected = b.expected, popc = 0;
    bool all = true, any = false, waiting = b.arrived > 0;
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
    b.arrived = b.expected = 0;
    uint32_t waited = 0;
    for (size_t i = 0; i < warps.size(); ++i)
      if (warps[i]->state == WarpState::AtBarrier && warps[i]->bar_id == id) {
        warps[i]->finish_barrier(popc, all, any);
        waited |= 1u << i;
      }
    if (L.opts->listener && cta.listener_ctx) L.opts->listener->barrier_released(cta.listener_ctx, id, waited);
    released = true;
  }
  // bar.arrive never waits; its threads count until the barrier completes.
  for (auto& w : warps)
    if (w->state == WarpState::AtBarrier && w->bar_arrive_only) {
      Cta::Barrier& b = cta.barriers[w->bar_id];
      b.arrived += w->bar_threads;
      if (w->bar_expected) b.expected = w->bar_expected;
      w->finish_barrier(0, true, false);
      released = true;
    }
  return released;
}

// A CTA being run, with its warps (dropped when it finishes).
struct CtaRun {
  std::unique_ptr<Cta> cta;
  std::vector<std::unique_ptr<Warp>> warps;
  bool done = false;
  ExecutionListener* listener = nullptr;  // told when the CTA ends (or the launch stops)
  CtaRun() = default;
  CtaRun(CtaRun&&) = default;
  ~CtaRun() { end(); }
  void end() {
    if (listener && cta) listener->cta_end(cta->linear, cta->listener_ctx);
    listener = nullptr;
  }
};

uint32_t live_threads(const CtaRun& r) { return live_threads(r.warps); }

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

// `what`: the kind of wait most warps are in (see unblock).
void report_deadlock(LaunchState& L, const Cta& cta, uint32_t waiting, WarpState what) {
  Fault f;
  f.status = Status::IllegalInstruction;
  f.kernel = L.kernel->name;
  f.block = cta.ctaid;
  const std::string head = fmt::format("softgpu: kernel '{}' block ({},{},{}): deadlock: {} warps wait", f.kernel,
                                       cta.ctaid.x, cta.ctaid.y, cta.ctaid.z, waiting);
  if (what == WarpState::AtWgmmaWait)
    f.message = head + " in wgmma.wait_group for a wgmma.mma_async that the other warps of their warpgroup never "
                       "issue (a warpgroup is four consecutive warps, all of which must execute each wgmma.mma_async; "
                       "one of them exited, waits elsewhere, or does not exist)";
  else
    f.message = fmt::format("{} at a {} that the other threads never reach (barrier inside divergent code?)", head,
                            what == WarpState::AtClusterBarrier ? "cluster barrier" : "barrier");
  L.report(std::move(f));
}

// A cluster being run: its CTAs by rank (one for launches without clusters).
struct ClusterRun {
  Cluster cluster;
  std::vector<CtaRun> runs;
  uint32_t done = 0;  // CTAs finished
};

// What one host thread keeps of its finished clusters for its next ones:
// their ClusterRun, Cta and Warp objects and the storage they hold. A
// 512-thread CTA holds up to a megabyte of registers; freed at every CTA's
// end, it lets malloc give the top of its heap back to the system and the
// next CTA fault it in again page by page (docs/performance.md, 2026-12-02,
// srad); and a short kernel's CTA spent most of its host time building and
// freeing these objects (issue 22).
struct Spares {
  std::vector<std::unique_ptr<Warp>> warps;
  std::vector<std::unique_ptr<ClusterRun>> clusters;
};

std::unique_ptr<ClusterRun> make_cluster(LaunchState& L, uint32_t id, Spares& spare) {
  const Dim3 cd = L.cluster;
  const Dim3 ncl{L.grid.x / cd.x, L.grid.y / cd.y, L.grid.z / cd.z};
  const uint32_t csize = uint32_t(cd.count());
  std::unique_ptr<ClusterRun> cr;
  if (!spare.clusters.empty()) {
    cr = std::move(spare.clusters.back());
    spare.clusters.pop_back();
    cr->cluster.ctas.clear();
    cr->cluster.arrived = 0;
    cr->cluster.phase = 0;
    cr->done = 0;
  } else {
    cr = std::make_unique<ClusterRun>();
  }
  Cluster& c = cr->cluster;
  c.id = Dim3{id % ncl.x, (id / ncl.x) % ncl.y, id / (ncl.x * ncl.y)};
  cr->runs.resize(csize);
  for (uint32_t r = 0; r < csize; ++r) {
    CtaRun& run = cr->runs[r];
    run.done = false;
    if (run.cta) {
      std::vector<std::byte> shared = std::move(run.cta->shared);
      *run.cta = Cta{};
      run.cta->shared = std::move(shared);
    } else {
      run.cta = std::make_unique<Cta>();
    }
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
    if ((run.listener = L.opts->listener)) cta.listener_ctx = run.listener->cta_begin(cta.linear, cta.ctaid, nwarps);
    run.warps.clear();
    for (uint32_t w = 0; w < nwarps; ++w) {
      const uint32_t nlanes = std::min(kWarpSize, cta.nthreads - w * kWarpSize);
      if (!spare.warps.empty()) {
        run.warps.push_back(std::move(spare.warps.back()));
        spare.warps.pop_back();
        run.warps.back()->restart(cta, w, nlanes);
      } else {
        run.warps.push_back(std::make_unique<Warp>(L, cta, w, nlanes));
      }
    }
    cta.warps = &run.warps;
  }
  return cr;
}

// What one round over a cluster's warps did.
struct Round {
  uint64_t executed = 0;
  bool any_ready = false;  // some warp could run
  bool spinning = false;   // some warp stopped in a spin-wait
  bool stop = false;       // fault or abort
};

// Runs each ready warp of the cluster's CTAs for a quantum, releases
// barriers, retires finished CTAs.
void run_round(LaunchState& L, ClusterRun& cr, Round& rd, Spares& spare) {
  auto& runs = cr.runs;
  for (size_t i = 0; i < runs.size(); ++i) {
    CtaRun& run = runs[i];
    if (run.done) continue;
    bool cta_done = true, cluster_wait = false;
    uint32_t live = live_threads(run.warps);  // kept up to date as warps run (exits, finishing)
    for (auto& w : run.warps) {
      if (w->state == WarpState::Ready) {
        rd.any_ready = true;
        const uint32_t before = w->live_threads();
        rd.executed += w->run(kQuantum);
        live = live - before + (w->state == WarpState::Done ? 0 : w->live_threads());
        rd.spinning |= w->spinning();
        if (w->faulted() || L.abort.load(std::memory_order_relaxed)) { rd.stop = true; return; }
        if (w->state == WarpState::AtBarrier) release_barriers(L, *run.cta, run.warps, live, int(w->bar_id & 15));
      }
      cluster_wait |= w->state == WarpState::AtClusterBarrier;
      if (w->state != WarpState::Done) cta_done = false;
    }
    Cluster& c = cr.cluster;
    if (cluster_wait || c.arrived) release_cluster(c, runs, 0, runs.size());
    if (cta_done) {
      run.done = true;
      ++cr.done;
      L.ctas_done.fetch_add(1, std::memory_order_relaxed);
      // Its warps serve the next CTAs; the Cta itself stays: cluster peers
      // may name its shared memory.
      // (Last first, so that warp 0 gets warp 0 back: its thread ids hold.)
      for (auto w = run.warps.rbegin(); w != run.warps.rend(); ++w) spare.warps.push_back(std::move(*w));
      run.warps.clear();
      run.end();
    }
  }
}

// When no warp of the cluster could run: releases what can be released, or
// reports the deadlock. Returns false after a deadlock report.
bool unblock(LaunchState& L, ClusterRun& cr) {
  bool released = false;
  for (auto& run : cr.runs)
    if (!run.done) released |= release_barriers(L, *run.cta, run.warps, live_threads(run.warps));
  released |= release_cluster(cr.cluster, cr.runs, 0, cr.runs.size());
  if (released) return true;
  // Every live warp waits at a barrier that can never complete.
  for (auto& run : cr.runs) {
    if (run.done) continue;
    uint32_t waiting = 0, cl_waiting = 0, wg_waiting = 0;
    for (auto& w : run.warps) {
      waiting += w->state == WarpState::AtBarrier;
      cl_waiting += w->state == WarpState::AtClusterBarrier;
      wg_waiting += w->state == WarpState::AtWgmmaWait;
    }
    const WarpState what = wg_waiting ? WarpState::AtWgmmaWait
                           : cl_waiting ? WarpState::AtClusterBarrier : WarpState::AtBarrier;
    report_deadlock(L, *run.cta, waiting + cl_waiting + wg_waiting, what);
    return false;
  }
  return true;
}

// Past the host-memory budget's comfortable zone, the process's memory is
// re-measured every few thousand warp instructions of a host thread.
constexpr uint64_t kMemoryCheckEvery = 8192;
bool memory_ok(LaunchState& L, const Cta& cta) {
  std::string why;
  if (!L.memory || !L.memory->budget_tight() || L.memory->check_budget(&why)) return true;
  Fault f;
  f.status = Status::MemoryAllocation;
  f.kernel = L.kernel->name;
  f.block = cta.ctaid;
  f.message = fmt::format("softgpu: kernel '{}' block ({},{},{}): {}", f.kernel, cta.ctaid.x, cta.ctaid.y,
                          cta.ctaid.z, why);
  L.report(std::move(f));
  return false;
}

// Instructions a host thread runs without any of its CTAs finishing before
// it starts another resident CTA even though none was seen spinning (a spin
// whose registers change every iteration, e.g. with a retry counter).
constexpr uint64_t kAdmitAfter = 1ull << 24;

// Runs clusters on this host thread. `next` hands out cluster ids (nullopt
// when none is left). Up to `slots` clusters are resident at once: the first
// starts alone, as on a GPU that runs one CTA after another; another is
// started beside the running ones when one of them spins (a CTA waiting on
// another CTA; one more for each spinning cluster) or when none finished for
// kAdmitAfter instructions, and a finished one is replaced. `start` clusters
// are started at once (a cooperative launch starts its whole share).
// Deterministic for one host thread.
template <class Next>
void run_clusters(LaunchState& L, Next&& next, size_t slots, size_t start) {
  Monitor mon(L);
  Spares spare;
  std::vector<std::unique_ptr<ClusterRun>> active;
  auto admit = [&] {
    std::optional<uint32_t> id = next();
    if (!id) return false;
    active.push_back(make_cluster(L, *id, spare));
    return true;
  };
  for (size_t i = 0; i < std::max<size_t>(start, 1); ++i)
    if (!admit()) break;
  uint64_t since_done = 0, since_memory_check = 0;
  while (!active.empty()) {
    Round rd;
    bool finished = false;
    size_t spinning = 0;  // clusters with a spinning warp
    for (size_t i = 0; i < active.size(); ++i) {
      ClusterRun& cr = *active[i];
      Round one;
      run_round(L, cr, one, spare);
      rd.executed += one.executed;
      spinning += one.spinning;
      if (one.stop) {
        mon.add(rd.executed, cr.runs.front().cta->ctaid);  // counted, the launch ends anyway
        return;
      }
      if (!one.any_ready && cr.done < cr.runs.size() && !unblock(L, cr)) return;
      rd.any_ready |= one.any_ready;
      finished |= cr.done == cr.runs.size();
    }
    if (!mon.add(rd.executed, active.front()->runs.front().cta->ctaid)) return;
    since_done += rd.executed;
    if ((since_memory_check += rd.executed) > kMemoryCheckEvery) {
      since_memory_check = 0;
      if (!memory_ok(L, *active.front()->runs.front().cta)) return;
    }
    if (finished) {
      since_done = 0;
      const size_t before = active.size();
      std::erase_if(active, [&](auto& cr) {
        if (cr->done != cr->runs.size()) return false;
        spare.clusters.push_back(std::move(cr));
        return true;
      });
      for (size_t i = active.size(); i < before; ++i)
        if (!admit()) break;
      continue;
    }
    // As many new clusters as spin (the wave doubles when all of them wait).
    if (since_done > kAdmitAfter) spinning = std::max<size_t>(spinning, 1);
    for (size_t k = 0; k < spinning && active.size() < slots && admit(); ++k) since_done = 0;
  }
}

// Runs a host thread's share of the launch; an exception (std::bad_alloc
// from a huge local or shared allocation, say) becomes the launch's fault.
template <class F>
void guarded(LaunchState& L, F&& f) {
  auto fail = [&](const char* what) {
    Fault fl;
    fl.status = Status::LaunchFailure;
    fl.kernel = L.kernel->name;
    fl.message = fmt::format("softgpu: kernel '{}' failed inside the simulator: {}", fl.kernel, what);
    L.report(std::move(fl));
  };
  try {
    f();
  } catch (const std::bad_alloc&) {
    fail("out of host memory (std::bad_alloc)");
  } catch (const std::exception& e) {
    fail(e.what());
  } catch (...) {
    fail("unknown exception");
  }
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
  // A kernel reaching an instruction softgpu does not implement never
  // starts; the error is the launch's own, not sticky (exec/loader.cpp).
  if (const KernelInfo* k = find_kernel(lp, kernel); k && !k->not_implemented.empty()) {
    res.status = Status::NotSupported;
    res.error = k->not_implemented;
    return res;
  }
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
  bind_compiled_code(L, it->second);
  L.start = std::chrono::steady_clock::now();
  L.start_cpu = process_cpu_seconds();
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
  const uint64_t csize = cfg.cluster.count();
  const uint64_t nclusters = cfg.grid.count() / csize;
  L.total_ctas = cfg.grid.count();
  init_progress(L);
  if (opts.listener) {
    LaunchInfo li;
    li.kernel = fn.name;
    li.program = &lp.prog;
    li.grid = cfg.grid;
    li.block = cfg.block;
    li.cluster = cfg.cluster;
    li.regs_per_thread = opts.registers_per_thread;
    li.shared_per_cta = L.shared_bytes;
    li.local_per_thread = fn.local_bytes;
    li.cooperative = cfg.cooperative;
    opts.listener->launch_begin(li);
  }
  const unsigned nthreads = unsigned(std::clamp<uint64_t>(opts.threads, 1, nclusters));
  L.jit_threads = nthreads;
  // The runtime's threads, kept between launches; without them this launch
  // starts and joins its own.
  std::optional<HostThreads> own;
  HostThreads& threads = opts.host_threads ? *opts.host_threads : own.emplace();
  if (cfg.cooperative) {
    // Every CTA is resident at once: host thread t owns clusters t, t+T, ...
    threads.run(nthreads, [&](unsigned t) {
      guarded(L, [&] {
        uint64_t c = t;
        const size_t n = size_t((nclusters - t + nthreads - 1) / nthreads);
        run_clusters(L, [&]() -> std::optional<uint32_t> {
          if (c >= nclusters) return std::nullopt;
          uint64_t id = c;
          c += nthreads;
          return uint32_t(id);
        }, n, n);
      });
    }, [&](unsigned started) {
      // The shares must run together (grid sync): no way around a missing thread.
      Fault f;
      f.status = Status::LaunchOutOfResources;
      f.kernel = fn.name;
      f.message = fmt::format("softgpu: kernel '{}': cannot start host thread {} of {}", fn.name,
                              started + 1, nthreads);
      L.report(std::move(f));
    });
  } else {
    // Each host thread holds its share of the resident clusters; shares of
    // threads that could not be started are taken by the others.
    std::atomic<uint64_t> next{0};
    const uint64_t resident = opts.resident_ctas / csize;
    const size_t slots = size_t(std::max<uint64_t>(1, resident / nthreads));
    threads.run(nthreads, [&](unsigned) {
      guarded(L, [&] {
        run_clusters(L, [&]() -> std::optional<uint32_t> {
          if (L.abort.load(std::memory_order_relaxed)) return std::nullopt;
          uint64_t c = next.fetch_add(1, std::memory_order_relaxed);
          if (c >= nclusters) return std::nullopt;
          return uint32_t(c);
        }, slots, 1);
      });
    });
  }
  finish_progress(L);
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
  res.compiled_instructions = L.compiled_instructions.load();
  jit_launch_end(L, res.warp_instructions);
  if (L.fault) {
    res.status = L.fault->status;
    res.fault = std::move(L.fault);
  }
  if (opts.listener) opts.listener->launch_end(res.status);
  return res;
}

}  // namespace softgpu::exec
