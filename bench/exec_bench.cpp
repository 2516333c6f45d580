// Functional-execution speed: warp instructions per second on the kernels of
// data/bench_kernels.cu (ALU-bound, triad, tiled SGEMM, five-point stencil,
// one thread per element, reduction with atomics, GELU, 8-bit convolution,
// Mandelbrot), with 1 and 2 host threads, beside the same algorithms
// compiled natively with -O3 (native.cpp).
#include <benchmark/benchmark.h>

#include <chrono>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <sstream>
#include <vector>

#include "config/gpu_config.h"
#include "exec/compiled.h"
#include "exec/engine.h"
#include "exec/host_threads.h"
#include "jit/jit.h"
#include "native.h"
#include "ptx/parser.h"
#include "timing/session.h"

using namespace softgpu;
using namespace softgpu::bench;

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
  // A device copy of host data (device addresses are host addresses; the
  // write is announced to the memory budget as cudaMemcpy does).
  float* upload(const std::vector<float>& v) {
    auto* d = static_cast<float*>(alloc(v.size() * sizeof(float)));
    if (mem.prepare_write(d, v.size() * sizeof(float), "bench upload", nullptr) != Status::Success) return nullptr;
    std::memcpy(d, v.data(), v.size() * sizeof(float));
    return d;
  }
  // Zeroes n device floats, so that a check reads what this run wrote.
  bool clear(float* d, size_t n) {
    if (mem.prepare_write(d, n * sizeof(float), "bench clear", nullptr) != Status::Success) return false;
    std::memset(d, 0, n * sizeof(float));
    return true;
  }
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

// The JIT all benchmarks share (src/jit), as a process has one.
exec::CodeCompiler* bench_jit() {
  static std::unique_ptr<exec::CodeCompiler> jit = [] {
    jit::JitOptions o;
    const char* v = std::getenv("SOFTGPU_JIT_VERBOSE");  // a line per compiled kernel: its compile time
    o.verbose = v && *v && std::string(v) != "0";
    return jit::make_compiler(o);
  }();
  return jit.get();
}

// The one place the benchmarks build their ExecOptions: `jit` compiles the
// kernels (src/jit), else the interpreter runs them.
exec::ExecOptions options(benchmark::State& state, unsigned threads, bool jit = false) {
  exec::ExecOptions opts;
  opts.threads = threads;
  if (jit) {
    opts.compiler = bench_jit();
    if (!opts.compiler) state.SkipWithError("the JIT is not available in this build");
  }
  return opts;
}

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// Launches `kernel` once per iteration with range(0) host threads,
// interpreted (range(1) = 0) or compiled by the JIT (1); `before` (if any)
// runs ahead of each launch, inside the timing (keep it tiny). With the JIT
// a first launch outside the timing compiles the kernel (its wall time is
// the counter first_launch_ms). False when a launch failed (the state then
// carries the error).
bool run(benchmark::State& state, const char* kernel, const exec::LaunchConfig& cfg,
         const std::function<void()>& before = {}) {
  const bool jit = state.range(1) != 0;
  auto opts = options(state, unsigned(state.range(0)), jit);
  exec::HostThreads threads;  // kept across the launches, as the runtime keeps them
  opts.host_threads = &threads;
  if (jit) {
    if (!opts.compiler) return false;
    const auto t0 = std::chrono::steady_clock::now();
    if (before) before();
    if (exec::launch(*loaded().prog, kernel, cfg, loaded().mem, opts).status != Status::Success) {
      state.SkipWithError("launch failed");
      return false;
    }
    state.counters["first_launch_ms"] =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  uint64_t winst = 0;
  const double cpu0 = process_cpu_seconds();
  for (auto _ : state) {
    if (before) before();
    auto r = exec::launch(*loaded().prog, kernel, cfg, loaded().mem, opts);
    if (r.status != Status::Success) { state.SkipWithError("launch failed"); return false; }
    winst += r.warp_instructions;
  }
  state.counters["warp_inst_per_s"] = benchmark::Counter(double(winst), benchmark::Counter::kIsRate);
  state.counters["warp_inst_per_s_per_thread"] =
      benchmark::Counter(double(winst) / double(state.range(0)), benchmark::Counter::kIsRate);
  state.counters["warp_inst_per_launch"] = benchmark::Counter(double(winst), benchmark::Counter::kAvgIterations);
  // CPU time of all host threads: with 2 threads against 1 it shows the cost
  // of running in parallel even when the machine is too busy for wall time to.
  state.counters["process_cpu_ms_per_launch"] =
      benchmark::Counter((process_cpu_seconds() - cpu0) * 1e3, benchmark::Counter::kAvgIterations);
  return true;
}

// The simulated benchmarks' arguments: 1 and 2 host threads, interpreted and JIT.
void sim_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"threads", "jit"});
  for (int jit : {0, 1})
    for (int threads : {1, 2}) b->Args({threads, jit});
}

// Uniform floats in [lo, hi) from a fixed LCG (the same data every run).
std::vector<float> random_floats(size_t n, uint32_t seed, float lo, float hi) {
  std::vector<float> v(n);
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = lo + (hi - lo) * float(seed >> 8) * (1.0f / 16777216.0f);
  }
  return v;
}

// Largest |got - want| over want.size() floats (counter max_abs_err); the
// benchmark fails past `tolerance`.
bool check_close(benchmark::State& state, const float* got, const std::vector<float>& want, double tolerance) {
  double err = 0;
  for (size_t i = 0; i < want.size(); ++i) err = std::max(err, std::fabs(double(got[i]) - double(want[i])));
  state.counters["max_abs_err"] = err;
  if (!(err <= tolerance)) { state.SkipWithError("simulated result differs from the native one"); return false; }
  return true;
}

void BM_AluBound(benchmark::State& state) {
  if (!loaded().prog) { state.SkipWithError("PTX did not load"); return; }
  static float* out = static_cast<float*>(loaded().alloc(64 * 256 * sizeof(float)));
  run(state, "alu_bound", config("alu_bound", Dim3{64}, Dim3{256}, out, 256));
}
BENCHMARK(BM_AluBound)->Apply(sim_args)->UseRealTime()->Unit(benchmark::kMillisecond);

constexpr int kTriadN = 1 << 22;
void BM_MemoryBound(benchmark::State& state) {
  if (!loaded().prog) { state.SkipWithError("PTX did not load"); return; }
  static float* a = static_cast<float*>(loaded().alloc(kTriadN * 4));
  static float* b = static_cast<float*>(loaded().alloc(kTriadN * 4));
  static float* c = static_cast<float*>(loaded().alloc(kTriadN * 4));
  run(state, "triad", config("triad", Dim3{512}, Dim3{256}, a, b, c, 2.0f, kTriadN));
}
BENCHMARK(BM_MemoryBound)->Apply(sim_args)->UseRealTime()->Unit(benchmark::kMillisecond);

// Tiled shared-memory SGEMM 512^3 (16x16 tiles, one output per thread),
// checked once against native_sgemm.
constexpr int kGemmN = 512;
struct Gemm {
  std::vector<float> a = random_floats(size_t(kGemmN) * kGemmN, 1, -1.f, 1.f);
  std::vector<float> b = random_floats(size_t(kGemmN) * kGemmN, 2, -1.f, 1.f);
  std::vector<float> want = std::vector<float>(size_t(kGemmN) * kGemmN);
  Gemm() { native_sgemm(a.data(), b.data(), want.data(), kGemmN); }
};
const Gemm& gemm() {
  static Gemm g;
  return g;
}

void BM_Sgemm(benchmark::State& state) {
  if (!loaded().prog) { state.SkipWithError("PTX did not load"); return; }
  static float* a = loaded().upload(gemm().a);
  static float* b = loaded().upload(gemm().b);
  static float* c = static_cast<float*>(loaded().alloc(size_t(kGemmN) * kGemmN * 4));
  if (!a || !b || !loaded().clear(c, size_t(kGemmN) * kGemmN)) { state.SkipWithError("upload failed"); return; }
  auto cfg = config("sgemm_tiled", Dim3{kGemmN / 16, kGemmN / 16}, Dim3{16, 16}, a, b, c, kGemmN);
  if (run(state, "sgemm_tiled", cfg)) check_close(state, c, gemm().want, 1e-3);
}
BENCHMARK(BM_Sgemm)->Apply(sim_args)->UseRealTime()->Unit(benchmark::kMillisecond);

// 2-D five-point stencil, 1024 x 1024 floats, 16x16 blocks.
constexpr int kStencilN = 1024;
struct Stencil {
  std::vector<float> in = random_floats(size_t(kStencilN) * kStencilN, 3, 0.f, 1.f);
  std::vector<float> want = std::vector<float>(size_t(kStencilN) * kStencilN);
  Stencil() { native_stencil5(in.data(), want.data(), kStencilN, kStencilN); }
};
const Stencil& stencil() {
  static Stencil s;
  return s;
}

void BM_Stencil(benchmark::State& state) {
  if (!loaded().prog) { state.SkipWithError("PTX did not load"); return; }
  static float* in = loaded().upload(stencil().in);
  static float* out = static_cast<float*>(loaded().alloc(size_t(kStencilN) * kStencilN * 4));
  if (!in || !loaded().clear(out, size_t(kStencilN) * kStencilN)) { state.SkipWithError("upload failed"); return; }
  auto cfg = config("stencil5", Dim3{kStencilN / 16, kStencilN / 16}, Dim3{16, 16}, in, out, kStencilN, kStencilN);
  if (run(state, "stencil5", cfg)) check_close(state, out, stencil().want, 1e-6);
}
BENCHMARK(BM_Stencil)->Apply(sim_args)->UseRealTime()->Unit(benchmark::kMillisecond);

// One thread per element over 16 Mi floats (65,536 CTAs of 256 threads):
// y = x + y, x small integers and y zero at first, so after k launches y is
// exactly k x whatever the order.
constexpr int kElemN = 1 << 24;
void BM_Elementwise(benchmark::State& state) {
  if (!loaded().prog) { state.SkipWithError("PTX did not load"); return; }
  static std::vector<float> xs = [] {
    std::vector<float> v(kElemN);
    for (size_t i = 0; i < v.size(); ++i) v[i] = float(i % 16);
    return v;
  }();
  static float* x = loaded().upload(xs);
  static float* y = static_cast<float*>(loaded().alloc(size_t(kElemN) * 4));
  if (!x || !loaded().clear(y, kElemN)) { state.SkipWithError("upload failed"); return; }
  auto cfg = config("saxpy1", Dim3{kElemN / 256}, Dim3{256}, x, y, 1.0f, kElemN);
  if (!run(state, "saxpy1", cfg)) return;
  const float launches = float(state.iterations() + (state.range(1) != 0 ? 1 : 0));
  std::vector<float> want(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) want[i] = launches * xs[i];
  check_close(state, y, want, 0);
}
BENCHMARK(BM_Elementwise)->Apply(sim_args)->UseRealTime()->Unit(benchmark::kMillisecond);

// Sum of 4 Mi floats: grid-stride partial sums, a shared-memory tree per
// block, one atomicAdd per block (1024 x 256 threads). The values are small
// integers, so every partial sum is exact and any order gives the same sum.
constexpr int kReduceN = 1 << 22;
struct Reduce {
  std::vector<float> in = std::vector<float>(kReduceN);
  Reduce() {
    for (size_t i = 0; i < in.size(); ++i) in[i] = float((i * 2654435761u >> 13) & 3);
  }
};
const Reduce& reduce() {
  static Reduce r;
  return r;
}

void BM_Reduce(benchmark::State& state) {
  if (!loaded().prog) { state.SkipWithError("PTX did not load"); return; }
  static float* in = loaded().upload(reduce().in);
  static float* out = loaded().upload({0.f});
  if (!in || !out) { state.SkipWithError("upload failed"); return; }
  auto cfg = config("reduce_sum", Dim3{1024}, Dim3{256}, in, out, kReduceN);
  if (run(state, "reduce_sum", cfg, [] { *out = 0.f; }))
    check_close(state, out, {native_sum(reduce().in.data(), reduce().in.size())}, 0);
}
BENCHMARK(BM_Reduce)->Apply(sim_args)->UseRealTime()->Unit(benchmark::kMillisecond);

// GELU with fake quantization over 2 Mi floats in rows of 1000 (one thread
// per element, 256 per block): cvt, ex2.approx, rcp.rn and div/rem index
// math, the forms of softmax/layernorm/GELU kernels.
constexpr int kGeluN = 1 << 21;
constexpr unsigned kGeluCols = 1000;
struct Gelu {
  std::vector<float> in = random_floats(kGeluN, 11, -6.f, 6.f);
  std::vector<float> want = std::vector<float>(kGeluN);
  Gelu() { native_gelu_quant(in.data(), want.data(), kGeluN, kGeluCols); }
};
const Gelu& gelu() {
  static Gelu g;
  return g;
}

void BM_Gelu(benchmark::State& state) {
  if (!loaded().prog) { state.SkipWithError("PTX did not load"); return; }
  static float* in = loaded().upload(gelu().in);
  static float* out = static_cast<float*>(loaded().alloc(kGeluN * sizeof(float)));
  if (!in || !out || !loaded().clear(out, kGeluN)) { state.SkipWithError("upload failed"); return; }
  auto cfg = config("gelu_quant", Dim3{kGeluN / 256}, Dim3{256}, in, out, kGeluN, kGeluCols);
  // Within one quantization step (1/127): where the simulated ex2.approx
  // and the host's exp2f differ by an ulp, g * 127 may round the other way.
  if (run(state, "gelu_quant", cfg)) check_close(state, out, gelu().want, 1.01 / 127);
}
BENCHMARK(BM_Gelu)->Apply(sim_args)->UseRealTime()->Unit(benchmark::kMillisecond);

// 3x3 convolution of a 2048 x 1024 8-bit image, the filter in constant
// memory (16 x 16 blocks): byte loads and stores, ld.const, clamped indices.
constexpr int kConvW = 2048, kConvH = 1024;
constexpr float kConvFilter[9] = {0.0625f, 0.125f, 0.0625f, 0.125f, 0.25f, 0.125f, 0.0625f, 0.125f, 0.0625f};
struct Conv {
  std::vector<unsigned char> in = std::vector<unsigned char>(size_t(kConvW) * kConvH);
  std::vector<unsigned char> want = std::vector<unsigned char>(size_t(kConvW) * kConvH);
  Conv() {
    for (size_t i = 0; i < in.size(); ++i) in[i] = (unsigned char)((i * 2654435761u) >> 24);
    native_conv3x3_u8(in.data(), want.data(), kConvW, kConvH, kConvFilter);
  }
};
const Conv& conv() {
  static Conv c;
  return c;
}

// Device bytes holding `v` (written as cudaMemcpy would), or null.
void* upload_bytes(const void* v, size_t n, void* d = nullptr) {
  if (!d) d = loaded().alloc(n);
  if (loaded().mem.prepare_write(d, n, "bench upload", nullptr) != Status::Success) return nullptr;
  std::memcpy(d, v, n);
  return d;
}

void BM_ConvU8(benchmark::State& state) {
  if (!loaded().prog) { state.SkipWithError("PTX did not load"); return; }
  const auto f = exec::find_variable(*loaded().prog, "c_filter");
  if (!f || !upload_bytes(kConvFilter, sizeof kConvFilter, reinterpret_cast<void*>(f->address.value))) {
    state.SkipWithError("no c_filter");
    return;
  }
  static void* in = upload_bytes(conv().in.data(), conv().in.size());
  static auto* out = static_cast<unsigned char*>(loaded().alloc(conv().in.size()));
  if (!in || !upload_bytes(std::vector<unsigned char>(conv().in.size()).data(), conv().in.size(), out)) {
    state.SkipWithError("upload failed");
    return;
  }
  auto cfg = config("conv3x3_u8", Dim3{kConvW / 16, kConvH / 16}, Dim3{16, 16}, in, out, kConvW, kConvH);
  if (!run(state, "conv3x3_u8", cfg)) return;
  // The simulated kernel fuses each multiply-add (fma.rn): a sum within an
  // ulp of the native one may round to the next byte.
  int err = 0;
  for (size_t i = 0; i < conv().want.size(); ++i) err = std::max(err, std::abs(int(out[i]) - int(conv().want[i])));
  state.counters["max_abs_err"] = err;
  if (err > 1) state.SkipWithError("simulated result differs from the native one");
}
BENCHMARK(BM_ConvU8)->Apply(sim_args)->UseRealTime()->Unit(benchmark::kMillisecond);

// Mandelbrot, 1024 x 768 pixels, at most 256 iterations: diverged warps.
constexpr int kMandelW = 1024, kMandelH = 768, kMandelIt = 256;
const std::vector<int>& mandel_want() {
  static std::vector<int> w = [] {
    std::vector<int> v(size_t(kMandelW) * kMandelH);
    native_mandel(v.data(), kMandelW, kMandelH, kMandelIt);
    return v;
  }();
  return w;
}

void BM_Mandel(benchmark::State& state) {
  if (!loaded().prog) { state.SkipWithError("PTX did not load"); return; }
  const size_t n = size_t(kMandelW) * kMandelH;
  static auto* out = static_cast<int*>(loaded().alloc(n * sizeof(int)));
  if (!upload_bytes(std::vector<int>(n).data(), n * sizeof(int), out)) { state.SkipWithError("upload failed"); return; }
  auto cfg = config("mandel", Dim3{kMandelW / 16, kMandelH / 16}, Dim3{16, 16}, out, kMandelW, kMandelH, kMandelIt);
  if (!run(state, "mandel", cfg)) return;
  size_t differ = 0;
  for (size_t i = 0; i < n; ++i) differ += out[i] != mandel_want()[i];
  state.counters["pixels_differing"] = double(differ);
  if (differ) state.SkipWithError("simulated result differs from the native one");
}
BENCHMARK(BM_Mandel)->Apply(sim_args)->UseRealTime()->Unit(benchmark::kMillisecond);

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
  auto opts = options(state, unsigned(state.range(0)));
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
  const auto opts = options(state, 1);
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

void BM_NativeElementwise(benchmark::State& state) {
  std::vector<float> x(kElemN, 1.f), y(kElemN, 0.f);
  for (auto _ : state) {
    for (size_t i = 0; i < size_t(kElemN); ++i) y[i] = 1.0f * x[i] + y[i];
    benchmark::DoNotOptimize(y.data());
  }
}
BENCHMARK(BM_NativeElementwise)->Unit(benchmark::kMillisecond);

void BM_NativeSgemm(benchmark::State& state) {
  std::vector<float> c(size_t(kGemmN) * kGemmN);
  for (auto _ : state) {
    native_sgemm(gemm().a.data(), gemm().b.data(), c.data(), kGemmN);
    benchmark::DoNotOptimize(c.data());
  }
}
BENCHMARK(BM_NativeSgemm)->Unit(benchmark::kMillisecond);

void BM_NativeStencil(benchmark::State& state) {
  std::vector<float> out(size_t(kStencilN) * kStencilN);
  for (auto _ : state) {
    native_stencil5(stencil().in.data(), out.data(), kStencilN, kStencilN);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_NativeStencil)->Unit(benchmark::kMillisecond);

void BM_NativeReduce(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(native_sum(reduce().in.data(), reduce().in.size()));
}
BENCHMARK(BM_NativeReduce)->Unit(benchmark::kMillisecond);

void BM_NativeGelu(benchmark::State& state) {
  std::vector<float> out(kGeluN);
  for (auto _ : state) {
    native_gelu_quant(gelu().in.data(), out.data(), kGeluN, kGeluCols);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_NativeGelu)->Unit(benchmark::kMillisecond);

void BM_NativeMandel(benchmark::State& state) {
  std::vector<int> out(size_t(kMandelW) * kMandelH);
  for (auto _ : state) {
    native_mandel(out.data(), kMandelW, kMandelH, kMandelIt);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_NativeMandel)->Unit(benchmark::kMillisecond);

void BM_NativeConvU8(benchmark::State& state) {
  std::vector<unsigned char> out(conv().in.size());
  for (auto _ : state) {
    native_conv3x3_u8(conv().in.data(), out.data(), kConvW, kConvH, kConvFilter);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_NativeConvU8)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
