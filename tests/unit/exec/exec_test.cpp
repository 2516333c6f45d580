// Executor tests on nvcc-generated PTX (data/kernels.cu -> data/kernels.ptx),
// each checked against a CPU computation of the same algorithm.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>
#include <fstream>
#include <numeric>
#include <sstream>

#include "exec/engine.h"
#include "exec/host_threads.h"
#include "exec/listener.h"
#include "ptx/parser.h"

using namespace softgpu;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Fixture {
  exec::DeviceMemory mem{Bytes{1ull << 30}};
  std::shared_ptr<exec::LoadedProgram> prog;
  exec::ExecOptions opts;

  explicit Fixture(const char* file = "kernels.ptx") {
    std::string path = std::string(SOFTGPU_EXEC_TEST_DATA) + "/" + file;
    std::string text = read_file(path);
    auto pr = ptx::parse(text, path);
    if (!pr.module) ADD_FAILURE() << ptx::render(pr.diagnostics, text);
    std::vector<ptx::Module> mods;
    mods.push_back(std::move(*pr.module));
    auto lr = exec::load_program(std::move(mods), mem);
    if (!lr.program) ADD_FAILURE() << ptx::render(lr.diagnostics, text);
    prog = lr.program;
  }
  template <class T>
  T* alloc(size_t n) {
    auto a = mem.allocate(Bytes{n * sizeof(T)}, exec::MemKind::Device);
    return reinterpret_cast<T*>(a->value);
  }
  template <class... A>
  exec::LaunchResult run(const std::string& k, Dim3 g, Dim3 b, A... args) {
    exec::LaunchConfig cfg;
    cfg.grid = g;
    cfg.block = b;
    const auto* ki = exec::find_kernel(*prog, k);
    EXPECT_NE(ki, nullptr);
    cfg.params.resize(ki->param_bytes);
    size_t i = 0;
    auto put = [&](auto v) {
      std::memcpy(cfg.params.data() + ki->params[i].offset, &v, sizeof v);
      ++i;
    };
    (put(args), ...);
    return exec::launch(*prog, k, cfg, mem, opts);
  }
  template <class... A>
  exec::LaunchResult run_cfg(const std::string& k, exec::LaunchConfig cfg, A... args) {
    const auto* ki = exec::find_kernel(*prog, k);
    EXPECT_NE(ki, nullptr);
    cfg.params.resize(ki->param_bytes);
    size_t i = 0;
    auto put = [&](auto v) {
      std::memcpy(cfg.params.data() + ki->params[i].offset, &v, sizeof v);
      ++i;
    };
    (put(args), ...);
    return exec::launch(*prog, k, cfg, mem, opts);
  }
};

int collatz(int x) {
  int s = 0;
  while (x != 1) { x = (x & 1) ? 3 * x + 1 : x / 2; ++s; if (s > 1000) return -1; }
  return s;
}
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

}  // namespace

TEST(Exec, VectorAddGridStride) {
  Fixture f;
  ASSERT_TRUE(f.prog);
  const int n = 10007;
  float* a = f.alloc<float>(n);
  float* b = f.alloc<float>(n);
  float* c = f.alloc<float>(n);
  for (int i = 0; i < n; ++i) { a[i] = float(i) * 0.5f; b[i] = 3.0f - float(i); }
  auto r = f.run("vadd", Dim3{7}, Dim3{128}, a, b, c, n);
  ASSERT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
  for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
}

TEST(Exec, SharedReductionWithBarriersAndAtomics) {
  for (unsigned threads : {1u, 2u}) {
    Fixture f;
    ASSERT_TRUE(f.prog);
    f.opts.threads = threads;
    const int n = 5000;
    int* in = f.alloc<int>(n);
    int* out = f.alloc<int>(1);
    long long expect = 0;
    for (int i = 0; i < n; ++i) { in[i] = (i * 7919) % 1000 - 500; expect += in[i]; }
    auto r = f.run("block_sum", Dim3{(n + 255) / 256}, Dim3{256}, in, out, n);
    ASSERT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
    EXPECT_EQ(*out, expect) << "threads=" << threads;
  }
}

TEST(Exec, DivergenceCallsAndRecursion) {
  Fixture f;
  ASSERT_TRUE(f.prog);
  const int n = 300;
  int* out = f.alloc<int>(n);
  auto r = f.run("divergent", Dim3{3}, Dim3{128}, out, n);
  ASSERT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
  for (int i = 0; i < n; ++i) {
    int v;
    if (i % 3 == 0) v = collatz(i + 1);
    else if (i % 3 == 1) v = fib(i % 12);
    else { v = 0; for (int k = 0; k < (i & 7); ++k) { if (k == 5) break; v += k * i; } }
    ASSERT_EQ(out[i], v) << i;
  }
}

TEST(Exec, WarpShuffleReduction) {
  Fixture f;
  ASSERT_TRUE(f.prog);
  int* in = f.alloc<int>(256);
  int* out = f.alloc<int>(8);
  for (int i = 0; i < 256; ++i) in[i] = i * i - 100;
  auto r = f.run("warp_reduce", Dim3{2}, Dim3{128}, in, out);
  ASSERT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
  for (int w = 0; w < 8; ++w) {
    int s = 0;
    for (int l = 0; l < 32; ++l) s += in[w * 32 + l];
    EXPECT_EQ(out[w], s) << w;
  }
}

TEST(Exec, OutOfBoundsStoreFaults) {
  Fixture f;
  ASSERT_TRUE(f.prog);
  int* p = f.alloc<int>(16);
  auto r = f.run("oob", Dim3{1}, Dim3{32}, p);
  EXPECT_EQ(r.status, Status::IllegalAddress);
  ASSERT_TRUE(r.fault);
  EXPECT_NE(r.fault->message.find("oob"), std::string::npos) << r.fault->message;
  EXPECT_NE(r.fault->message.find("PTX line"), std::string::npos) << r.fault->message;
}

TEST(Exec, DevicePrintf) {
  Fixture f;
  ASSERT_TRUE(f.prog);
  std::ostringstream os;
  f.opts.printf_out = &os;
  auto r = f.run("hello", Dim3{1}, Dim3{4}, 42);
  ASSERT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
  EXPECT_EQ(os.str(), "hello 42 world 1.50\n");
}

// ---- data/coop.ptx: brx.idx, device malloc, grid barrier, clusters ----

TEST(ExecCoop, BrxIdxDivergentTargets) {
  Fixture f("coop.ptx");
  ASSERT_TRUE(f.prog);
  uint32_t* out = f.alloc<uint32_t>(64);
  auto r = f.run("jump", Dim3{1}, Dim3{64}, out);
  ASSERT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(out[t], 10 * (t % 3) + t) << t;
}

TEST(ExecCoop, DeviceMallocAndExhaustion) {
  Fixture f("coop.ptx");
  ASSERT_TRUE(f.prog);
  f.opts.malloc_heap_bytes = 4096;
  int32_t* out = f.alloc<int32_t>(64);
  auto r = f.run("heap", Dim3{2}, Dim3{64}, out, uint64_t(8));
  ASSERT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
  for (int t = 0; t < 64; ++t) EXPECT_EQ(out[t], t) << t;
  // Larger than the heap: every malloc returns NULL.
  r = f.run("heap", Dim3{1}, Dim3{32}, out, uint64_t(8192));
  ASSERT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
  for (int t = 0; t < 32; ++t) EXPECT_EQ(out[t], -1) << t;
}

TEST(ExecCoop, HeapAllocatorCoalesces) {
  exec::DeviceHeap h(0x1000, 256);
  uint64_t a = h.allocate(100), b = h.allocate(100), c = h.allocate(100);
  EXPECT_EQ(a, 0x1000u);
  EXPECT_EQ(b, 0x1000u + 112);  // 16-byte granules
  EXPECT_EQ(c, 0u);             // 224 used, 32 left
  EXPECT_TRUE(h.release(a));
  EXPECT_FALSE(h.release(a));   // double free
  EXPECT_TRUE(h.release(b));
  EXPECT_EQ(h.in_use(), 0u);
  EXPECT_EQ(h.allocate(256), 0x1000u);  // the freed blocks merged back into one
}

TEST(ExecCoop, GridBarrierThroughEnvregWorkspace) {
  for (unsigned threads : {1u, 3u}) {
    Fixture f("coop.ptx");
    ASSERT_TRUE(f.prog);
    f.opts.threads = threads;
    const uint32_t n = 20;
    uint32_t* out = f.alloc<uint32_t>(n);
    exec::LaunchConfig cfg;
    cfg.grid = Dim3{n};
    cfg.block = Dim3{64};
    cfg.cooperative = true;
    auto r = f.run_cfg("gridbar", cfg, out);
    ASSERT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
    // No CTA passes the barrier before all have arrived.
    for (uint32_t c = 0; c < n; ++c) EXPECT_EQ(out[c], n) << "cta " << c << " threads " << threads;
  }
}

// Launches on the runtime's kept threads (ExecOptions::host_threads): the
// same results launch after launch, cooperative launches included, and no
// thread started after the first launch.
TEST(ExecCoop, LaunchesReuseKeptHostThreads) {
  exec::HostThreads pool;
  for (int round = 0; round < 3; ++round) {
    Fixture f("coop.ptx");
    ASSERT_TRUE(f.prog);
    f.opts.threads = 3;
    f.opts.host_threads = &pool;
    const uint32_t n = 20;
    uint32_t* out = f.alloc<uint32_t>(n);
    exec::LaunchConfig cfg;
    cfg.grid = Dim3{n};
    cfg.block = Dim3{64};
    cfg.cooperative = true;
    auto r = f.run_cfg("gridbar", cfg, out);
    ASSERT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
    for (uint32_t c = 0; c < n; ++c) EXPECT_EQ(out[c], n) << "cta " << c << " round " << round;
    EXPECT_EQ(pool.parked(), 2u);
  }
  Fixture f;
  ASSERT_TRUE(f.prog);
  f.opts.threads = 3;
  f.opts.host_threads = &pool;
  const int n = 10007;
  float* a = f.alloc<float>(n);
  float* b = f.alloc<float>(n);
  float* c = f.alloc<float>(n);
  for (int i = 0; i < n; ++i) { a[i] = float(i) * 0.25f; b[i] = 1.0f - float(i); }
  for (int round = 0; round < 20; ++round) {
    std::fill(c, c + n, 0.0f);
    auto r = f.run("vadd", Dim3{7}, Dim3{128}, a, b, c, n);
    ASSERT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
    for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i << " round " << round;
  }
  EXPECT_EQ(pool.parked(), 2u);
}

TEST(ExecCoop, ClusterRegistersAndBarrier) {
  Fixture f("coop.ptx");
  ASSERT_TRUE(f.prog);
  f.opts.threads = 1;  // clusters run in order, so the counter is deterministic
  const uint32_t n = 12, cl = 3;
  uint32_t* out = f.alloc<uint32_t>(n * 8);
  uint32_t* counter = f.alloc<uint32_t>(1);
  exec::LaunchConfig cfg;
  cfg.grid = Dim3{n};
  cfg.block = Dim3{96};
  cfg.cluster = Dim3{cl};
  cfg.explicit_cluster = true;
  auto r = f.run_cfg("clusterregs", cfg, out, counter);
  ASSERT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
  for (uint32_t c = 0; c < n; ++c) {
    EXPECT_EQ(out[c * 8 + 0], c % cl) << c;
    EXPECT_EQ(out[c * 8 + 1], cl) << c;
    EXPECT_EQ(out[c * 8 + 2], c / cl) << c;
    EXPECT_EQ(out[c * 8 + 3], 1u) << c;
    EXPECT_EQ(out[c * 8 + 4], (c / cl + 1) * cl) << c;  // the whole cluster counted before the barrier
  }
  // A grid that is not whole clusters is rejected.
  cfg.grid = Dim3{13};
  EXPECT_EQ(f.run_cfg("clusterregs", cfg, out, counter).status, Status::InvalidValue);
}

TEST(Exec, EarlyReturnThenBarrier) {
  for (int n : {50, 1, 127, 128}) {
    Fixture f;
    ASSERT_TRUE(f.prog);
    int* out = f.alloc<int>(128);
    for (int i = 0; i < 128; ++i) out[i] = -1;
    auto r = f.run("early_return_barrier", Dim3{1}, Dim3{128}, out, n);
    ASSERT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
    for (int t = 0; t < 128; ++t) ASSERT_EQ(out[t], t < n ? (n - 1 - t) * 3 : -1) << "n=" << n << " t=" << t;
  }
}

// Lanes past the end of mapped device memory fault even when the warp's
// first lane is in bounds (the fast path for loads and stores checks every
// lane). A 2 MiB allocation fills its chunk exactly and nothing follows it,
// so the chunk after it is unmapped.
TEST(Exec, PartlyOutOfBoundsWarpFaults) {
  constexpr size_t kChunkFloats = (2u << 20) / sizeof(float);
  Fixture f;
  ASSERT_TRUE(f.prog);
  float* a = f.alloc<float>(128);
  float* b = f.alloc<float>(128);
  float* c = f.alloc<float>(kChunkFloats) + kChunkFloats - 100;  // the kernel writes 128
  auto r = f.run("vadd", Dim3{1}, Dim3{128}, a, b, c, 128);
  EXPECT_EQ(r.status, Status::IllegalAddress);
  ASSERT_TRUE(r.fault);
  EXPECT_GE(r.fault->thread.x, 100u) << r.fault->message;
  // Reads past the end fault too: a is the short one now.
  Fixture g;
  float* b2 = g.alloc<float>(128);
  float* c2 = g.alloc<float>(128);
  float* a2 = g.alloc<float>(kChunkFloats) + kChunkFloats - 50;
  auto r2 = g.run("vadd", Dim3{1}, Dim3{128}, a2, b2, c2, 128);
  EXPECT_EQ(r2.status, Status::IllegalAddress);
  ASSERT_TRUE(r2.fault);
  EXPECT_GE(r2.fault->thread.x, 50u) << r2.fault->message;
}

// An observer that throws std::bad_alloc after `after` instructions: stands in
// for a host allocation failing inside the executor.
struct ThrowingObserver : exec::ExecutionListener {
  std::atomic<uint64_t> seen{0};
  uint64_t after = 0;
  void* cta_begin(uint32_t, Dim3, uint32_t) override { return this; }
  void step(const exec::WarpStep&) override {
    if (seen.fetch_add(1) >= after) throw std::bad_alloc();
  }
};

TEST(Exec, HostExceptionInWorkerThreadIsALaunchFailure) {
  for (unsigned threads : {1u, 2u, 4u}) {
    Fixture f;
    ASSERT_TRUE(f.prog);
    ThrowingObserver obs;
    obs.after = 500;
    f.opts.threads = threads;
    f.opts.listener = &obs;
    const int n = 64 * 128;
    float* a = f.alloc<float>(n);
    float* b = f.alloc<float>(n);
    float* c = f.alloc<float>(n);
    auto r = f.run("vadd", Dim3{64}, Dim3{128}, a, b, c, n);
    EXPECT_EQ(r.status, Status::LaunchFailure) << threads;
    ASSERT_TRUE(r.fault) << threads;
    EXPECT_NE(r.fault->message.find("out of host memory"), std::string::npos) << r.fault->message;
    EXPECT_NE(r.fault->message.find("vadd"), std::string::npos) << r.fault->message;
  }
}

TEST(Exec, WatchdogCountsAllCtasOfALaunch) {
  // 4096 CTAs of ~40 warp instructions each: no CTA comes near the limit,
  // the launch (~160k) does.
  for (unsigned threads : {1u, 2u}) {
    Fixture f;
    ASSERT_TRUE(f.prog);
    f.opts.threads = threads;
    f.opts.watchdog_warp_instructions = 50000;
    const int n = 4096 * 32;
    float* a = f.alloc<float>(n);
    float* b = f.alloc<float>(n);
    float* c = f.alloc<float>(n);
    auto r = f.run("vadd", Dim3{4096}, Dim3{32}, a, b, c, n);
    EXPECT_EQ(r.status, Status::LaunchTimeout) << threads;
    ASSERT_TRUE(r.fault);
    EXPECT_NE(r.fault->message.find("watchdog"), std::string::npos) << r.fault->message;
    // Unlimited by default: the same launch completes.
    f.opts.watchdog_warp_instructions = exec::ExecOptions{}.watchdog_warp_instructions;
    EXPECT_EQ(exec::ExecOptions{}.watchdog_seconds, 0.0);
    auto r2 = f.run("vadd", Dim3{4096}, Dim3{32}, a, b, c, n);
    EXPECT_EQ(r2.status, Status::Success) << (r2.fault ? r2.fault->message : "");
    EXPECT_GT(r2.warp_instructions, 50000u);
  }
}

TEST(Exec, ProgressLineShowsCtasAndIsCleared) {
  Fixture f;
  ASSERT_TRUE(f.prog);
  std::ostringstream progress;
  f.opts.progress_out = &progress;
  f.opts.progress_after_seconds = 0;
  f.opts.progress_period_seconds = 0.01;
  const int n = 4096 * 32;
  float* a = f.alloc<float>(n);
  float* b = f.alloc<float>(n);
  float* c = f.alloc<float>(n);
  auto r = f.run("vadd", Dim3{4096}, Dim3{32}, a, b, c, n);
  ASSERT_EQ(r.status, Status::Success);
  const std::string s = progress.str();
  EXPECT_NE(s.find("softgpu: kernel 'vadd': "), std::string::npos) << s;
  EXPECT_NE(s.find("/4096 CTAs done"), std::string::npos) << s;
  EXPECT_NE(s.find("warp instructions/s"), std::string::npos) << s;
  EXPECT_EQ(s.substr(s.size() - 4), "\r\033[K") << s;  // cleared at the end
  // Off: nothing written.
  std::ostringstream none;
  f.opts.progress_out = &none;
  f.opts.progress_after_seconds = -1;
  ASSERT_EQ(f.run("vadd", Dim3{4096}, Dim3{32}, a, b, c, n).status, Status::Success);
  EXPECT_TRUE(none.str().empty());
}
