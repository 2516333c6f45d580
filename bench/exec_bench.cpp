// Functional-execution speed: warp instructions per second on an ALU-bound
// and a memory-bound kernel (data/bench_kernels.cu), with 1 and 2 host
// threads, beside the same algorithms compiled natively with -O3.
#include <benchmark/benchmark.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "config/gpu_config.h"
#include "exec/engine.h"
#include "ptx/parser.h"
#include "timing/session.h"

using namespace softgpu;

namespace {

struct Loaded {
  exec::DeviceMemory mem{Bytes{4ull << 30}};
  std::shared_ptr<exec::LoadedProgram> prog;
  Loaded() {
    std::ifstream f(SOFTGPU_BENCH_DATA "/bench_kernels.ptx");
    std::stringstream ss;
    ss << f.rdbuf();
    auto pr = ptx::parse(ss.str(), "bench_kernels.ptx");
    std::vector<ptx::Module> mods;
    if (pr.module) mods.push_back(std::move(*pr.module));
    prog = exec::load_program(std::move(mods), mem).program;
  }
  void* alloc(size_t bytes) { return reinterpret_cast<void*>(mem.allocate(Bytes{bytes}, exec::MemKind::Device)->value); }
};

Loaded& loaded() {
  static Loaded l;
  return l;
}

template <class... A>
exec::LaunchConfig config(const char* kernel, Dim3 g, Dim3 b, A... args) {
  exec::LaunchConfig cfg;
  cfg.grid = g;
  cfg.block = b;
  const auto* ki = exec::find_kernel(*loaded().prog, kernel);
  cfg.params.resize(ki->param_bytes);
  size_t i = 0;
  ((std::memcpy(cfg.params.data() + ki->params[i++].offset, &args, sizeof args)), ...);
  return cfg;
}

void run(benchmark::State& state, const char* kernel, const exec::LaunchConfig& cfg) {
  exec::ExecOptions opts;
  opts.threads = unsigned(state.range(0));
  uint64_t winst = 0;
  for (auto _ : state) {
    auto r = exec::launch(*loaded().prog, kernel, cfg, loaded().mem, opts);
    if (r.status != Status::Success) { state.SkipWithError("launch failed"); return; }
    winst += r.warp_instructions;
  }
  state.counters["warp_inst_per_s"] = benchmark::Counter(double(winst), benchmark::Counter::kIsRate);
  state.counters["warp_inst_per_s_per_thread"] =
      benchmark::Counter(double(winst) / double(state.range(0)), benchmark::Counter::kIsRate);
}

void BM_AluBound(benchmark::State& state) {
  if (!loaded().prog) { state.SkipWithError("PTX did not load"); return; }
  static float* out = static_cast<float*>(loaded().alloc(64 * 256 * sizeof(float)));
  run(state, "alu_bound", config("alu_bound", Dim3{64}, Dim3{256}, out, 256));
}
BENCHMARK(BM_AluBound)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

constexpr int kTriadN = 1 << 22;
void BM_MemoryBound(benchmark::State& state) {
  if (!loaded().prog) { state.SkipWithError("PTX did not load"); return; }
  static float* a = static_cast<float*>(loaded().alloc(kTriadN * 4));
  static float* b = static_cast<float*>(loaded().alloc(kTriadN * 4));
  static float* c = static_cast<float*>(loaded().alloc(kTriadN * 4));
  run(state, "triad", config("triad", Dim3{512}, Dim3{256}, a, b, c, 2.0f, kTriadN));
}
BENCHMARK(BM_MemoryBound)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

// The same kernels under the timing model (H100): args {host threads,
// sampled = 1 / full = 2}. warp_inst_per_s counts the launch's executed
// warp instructions, so the ratio to the plain run is the cost of timing.
void run_timed(benchmark::State& state, const char* kernel, const exec::LaunchConfig& cfg) {
  auto gpu = config::find_gpu_config("h100", SOFTGPU_CONFIG_DIR);
  if (!gpu) { state.SkipWithError("no h100 config"); return; }
  timing::SamplingPolicy sp;
  sp.full = state.range(1) == 2;
  auto session = timing::TimingSession::create(*gpu, sp);
  if (!session) { state.SkipWithError("no timing session"); return; }
  exec::ExecOptions opts;
  opts.threads = unsigned(state.range(0));
  uint64_t winst = 0;
  for (auto _ : state) {
    opts.listener = (*session)->begin_launch({kernel, cfg.grid, cfg.block, 0, 0});
    auto r = exec::launch(*loaded().prog, kernel, cfg, loaded().mem, opts);
    (*session)->end_launch();
    if (r.status != Status::Success) { state.SkipWithError("launch failed"); return; }
    winst += r.warp_instructions;
  }
  state.counters["warp_inst_per_s"] = benchmark::Counter(double(winst), benchmark::Counter::kIsRate);
}

void BM_AluBoundTimed(benchmark::State& state) {
  if (!loaded().prog) { state.SkipWithError("PTX did not load"); return; }
  static float* out = static_cast<float*>(loaded().alloc(64 * 256 * sizeof(float)));
  run_timed(state, "alu_bound", config("alu_bound", Dim3{64}, Dim3{256}, out, 256));
}
BENCHMARK(BM_AluBoundTimed)->Args({1, 1})->Args({1, 2})->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_MemoryBoundTimed(benchmark::State& state) {
  if (!loaded().prog) { state.SkipWithError("PTX did not load"); return; }
  static float* a = static_cast<float*>(loaded().alloc(kTriadN * 4));
  static float* b = static_cast<float*>(loaded().alloc(kTriadN * 4));
  static float* c = static_cast<float*>(loaded().alloc(kTriadN * 4));
  run_timed(state, "triad", config("triad", Dim3{512}, Dim3{256}, a, b, c, 2.0f, kTriadN));
}
BENCHMARK(BM_MemoryBoundTimed)->Args({1, 1})->Args({1, 2})->UseRealTime()->Unit(benchmark::kMillisecond);

// Launch cost against the number of live allocations (it grew with them when
// each launch copied the allocation table): a one-block triad after N small
// cudaMalloc-like allocations.
void BM_LaunchWithAllocations(benchmark::State& state) {
  Loaded l;
  if (!l.prog) { state.SkipWithError("PTX did not load"); return; }
  for (int64_t i = 0; i < state.range(0); ++i) l.alloc(64);
  auto* a = static_cast<float*>(l.alloc(256 * 4));
  auto* b = static_cast<float*>(l.alloc(256 * 4));
  auto* c = static_cast<float*>(l.alloc(256 * 4));
  exec::LaunchConfig cfg;
  cfg.grid = Dim3{1};
  cfg.block = Dim3{256};
  const auto* ki = exec::find_kernel(*l.prog, "triad");
  cfg.params.resize(ki->param_bytes);
  float s = 2.0f;
  int n = 256;
  std::memcpy(cfg.params.data() + ki->params[0].offset, &a, 8);
  std::memcpy(cfg.params.data() + ki->params[1].offset, &b, 8);
  std::memcpy(cfg.params.data() + ki->params[2].offset, &c, 8);
  std::memcpy(cfg.params.data() + ki->params[3].offset, &s, 4);
  std::memcpy(cfg.params.data() + ki->params[4].offset, &n, 4);
  exec::ExecOptions opts;
  opts.threads = 1;
  for (auto _ : state) {
    auto r = exec::launch(*l.prog, "triad", cfg, l.mem, opts);
    if (r.status != Status::Success) { state.SkipWithError("launch failed"); return; }
  }
}
BENCHMARK(BM_LaunchWithAllocations)->Arg(0)->Arg(1000)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMicrosecond);

// A 4 GiB allocation and its release (address space only; it zero-filled
// for seconds before the arena).
void BM_Malloc4GiB(benchmark::State& state) {
  exec::DeviceMemory mem{Bytes{8ull << 30}};
  for (auto _ : state) {
    auto a = mem.allocate(Bytes{4ull << 30}, exec::MemKind::Device);
    if (!a) { state.SkipWithError("allocation failed"); return; }
    mem.release(*a, {exec::MemKind::Device});
  }
}
BENCHMARK(BM_Malloc4GiB)->Unit(benchmark::kMicrosecond);

// The same algorithms, natively.
void BM_NativeAlu(benchmark::State& state) {
  std::vector<float> out(64 * 256);
  for (auto _ : state) {
    for (int i = 0; i < 64 * 256; ++i) {
      unsigned x = unsigned(i) * 2654435761u;
      float f = float(i);
      for (int k = 0; k < 256; ++k) {
        x = x * 1664525u + 1013904223u;
        f = f * 0.999f + float(x >> 16) * 1e-6f;
      }
      out[size_t(i)] = f + float(x & 0xff);
    }
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_NativeAlu)->Unit(benchmark::kMillisecond);

void BM_NativeTriad(benchmark::State& state) {
  std::vector<float> a(kTriadN, 1.f), b(kTriadN, 2.f), c(kTriadN);
  for (auto _ : state) {
    for (int i = 0; i < kTriadN; ++i) c[size_t(i)] = a[size_t(i)] + 2.0f * b[size_t(i)];
    benchmark::DoNotOptimize(c.data());
  }
}
BENCHMARK(BM_NativeTriad)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
