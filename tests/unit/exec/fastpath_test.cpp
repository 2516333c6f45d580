// The interpreter's all-lanes path for shared-memory and vector loads and
// stores (exec/ops_memory.cpp), on the kernels of data/fastpath.ptx: values
// against a CPU model of each kernel, partial masks, a listener (which keeps
// the per-lane checked path) and the faults the checked path reports.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "exec/engine.h"
#include "exec/listener.h"
#include "ptx/parser.h"

using namespace softgpu;

namespace {

struct Fixture {
  exec::DeviceMemory mem{Bytes{1ull << 30}};
  std::shared_ptr<exec::LoadedProgram> prog;
  exec::ExecOptions opts;

  Fixture() {
    const std::string path = std::string(SOFTGPU_EXEC_TEST_DATA) + "/fastpath.ptx";
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string text = ss.str();
    auto pr = ptx::parse(text, path);
    if (!pr.module) ADD_FAILURE() << ptx::render(pr.diagnostics, text);
    if (!pr.module) return;
    std::vector<ptx::Module> mods;
    mods.push_back(std::move(*pr.module));
    auto lr = exec::load_program(std::move(mods), mem);
    if (!lr.program) ADD_FAILURE() << ptx::render(lr.diagnostics, text);
    prog = lr.program;
  }
  template <class T>
  T* alloc(size_t n) {
    auto a = mem.allocate(Bytes{n * sizeof(T)}, exec::MemKind::Device);
    std::memset(reinterpret_cast<void*>(a->value), 0, n * sizeof(T));
    return reinterpret_cast<T*>(a->value);
  }
  template <class... A>
  exec::LaunchResult run(const std::string& k, Dim3 g, Dim3 b, A... args) {
    exec::LaunchConfig cfg;
    cfg.grid = g;
    cfg.block = b;
    const auto* ki = exec::find_kernel(*prog, k);
    EXPECT_NE(ki, nullptr);
    if (!ki) return {};
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

// Counts the shared-memory accesses a listener is shown, per lane.
struct CountingListener : exec::ExecutionListener {
  uint64_t shared_lane_accesses = 0;
  void* cta_begin(uint32_t, Dim3, uint32_t) override { return this; }  // non-null: trace this CTA
  void step(const exec::WarpStep& s) override {
    for (const auto& m : s.mem)
      if (m.space == ptx::Space::Shared) shared_lane_accesses += std::popcount(m.lanes);
  }
};

// The tiled product on the CPU, in the kernel's order of fused multiply-adds.
std::vector<float> sgemm_model(const float* a, const float* b, uint32_t n) {
  std::vector<float> c(size_t(n) * n);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      float acc = 0;
      for (uint32_t k = 0; k < n; ++k) acc = std::fma(a[i * n + k], b[k * n + j], acc);
      c[i * n + j] = acc;
    }
  return c;
}

void run_sgemm(Fixture& f, uint32_t n) {
  float* a = f.alloc<float>(n * n);
  float* b = f.alloc<float>(n * n);
  float* c = f.alloc<float>(n * n);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-1, 1);
  for (uint32_t i = 0; i < n * n; ++i) a[i] = d(rng), b[i] = d(rng);
  auto r = f.run("sgemm_tiled", Dim3{n / 16, n / 16}, Dim3{16, 16}, a, b, c, n);
  ASSERT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
  testing::Test::RecordProperty("warp_instructions", std::to_string(r.warp_instructions));
  const std::vector<float> want = sgemm_model(a, b, n);
  for (uint32_t i = 0; i < n * n; ++i) ASSERT_EQ(c[i], want[i]) << "element " << i;
}

TEST(FastPath, TiledSgemmMatchesTheModel) {
  Fixture f;
  ASSERT_TRUE(f.prog);
  run_sgemm(f, 64);
}

TEST(FastPath, TiledSgemmWithAListenerSeesEverySharedAccess) {
  Fixture f;
  ASSERT_TRUE(f.prog);
  CountingListener l;
  f.opts.listener = &l;
  run_sgemm(f, 32);
  // Per thread and tile: two scalar stores, four v4 loads and sixteen scalar loads.
  EXPECT_EQ(l.shared_lane_accesses, uint64_t(32 * 32) * 2 * (2 + 4 + 16));
}

uint64_t word(const uint8_t* p, size_t off, size_t bytes) {
  uint64_t v = 0;
  std::memcpy(&v, p + off, bytes);
  return v;
}

TEST(FastPath, ScalarVectorAndNarrowAccessesMatchTheModel) {
  Fixture f;
  ASSERT_TRUE(f.prog);
  constexpr uint32_t kThreads = 64;
  uint8_t* in = f.alloc<uint8_t>(kThreads * 16);
  uint8_t* out = f.alloc<uint8_t>(kThreads * 160);
  std::mt19937 rng(11);
  for (uint32_t i = 0; i < kThreads * 16; ++i) in[i] = uint8_t(rng());
  auto r = f.run("mixed", Dim3{1}, Dim3{kThreads}, in, out);
  ASSERT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
  // The model: shared memory as the kernel leaves it before its reads.
  std::vector<uint8_t> s(2048, 0);
  std::memcpy(s.data(), in, kThreads * 16);
  for (uint32_t t = 0; t < kThreads; ++t) {
    const uint16_t h = uint16_t(t * 3 + 32768);
    std::memcpy(&s[1024 + 2 * t], &h, 2);
    s[1280 + t] = uint8_t(t);
    const uint32_t g = t * 7;
    std::memcpy(&s[1536 + 4 * t], &g, 4);
  }
  auto sx = [](uint64_t v, int bits) { return uint64_t(int64_t(v << (64 - bits)) >> (64 - bits)); };
  for (uint32_t t = 0; t < kThreads; ++t) {
    const uint8_t* o = out + t * 160;
    const uint8_t* rec = &s[t * 16];
    SCOPED_TRACE("thread " + std::to_string(t));
    EXPECT_EQ(word(o, 0, 8), word(s.data(), ((t + 1) % 64) * 16 + 8, 8));
    EXPECT_EQ(word(o, 8, 8), sx(rec[3], 8));
    EXPECT_EQ(word(o, 16, 8), word(rec, 6, 2));
    EXPECT_EQ(word(o, 24, 8), sx(word(rec, 10, 2), 16));
    EXPECT_EQ(word(o, 32, 8), rec[15]);
    EXPECT_EQ(word(o, 40, 8), sx(word(rec, 4, 4), 32));
    EXPECT_EQ(word(o, 48, 8), word(s.data(), ((t + 3) % 64) * 16, 8));
    EXPECT_EQ(word(o, 56, 8), word(s.data(), ((t + 3) % 64) * 16 + 8, 8));
    EXPECT_EQ(word(o, 64, 4), word(s.data(), ((t + 5) % 64) * 4, 4));
    EXPECT_EQ(word(o, 68, 4), word(s.data(), 1024 + (t / 2) * 4, 4));
    EXPECT_EQ(word(o, 72, 4), word(s.data(), 1280 + (t / 4) * 4, 4));
    EXPECT_EQ(word(o, 76, 4), ((t + 9) % 64) * 7);
    EXPECT_EQ(word(o, 80, 8), word(in, ((t + 7) % 64) * 16, 8));
    EXPECT_EQ(word(o, 88, 8), word(in, ((t + 7) % 64) * 16 + 8, 8));
    EXPECT_EQ(word(o, 96, 8), word(rec, 8, 8));
    EXPECT_EQ(word(o, 104, 8), word(s.data(), ((t + 11) % 64) * 16, 8));
    for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(word(o, 112 + 4 * i, 4), word(in, t * 16 + 12 - 4 * i, 4));
    for (uint32_t i = 0; i < 4; ++i)
      EXPECT_EQ(word(o, 128 + 8 * i, 8), t < 8 ? word(in, ((t + 1) % 8) * 32 + 24 - 8 * i, 8) : 0);
  }
}

TEST(FastPath, PartialMasksTouchOnlyTheExecutingLanes) {
  Fixture f;
  ASSERT_TRUE(f.prog);
  uint32_t* out = f.alloc<uint32_t>(32 * 4);
  auto r = f.run("masked", Dim3{1}, Dim3{32}, out);
  ASSERT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
  for (uint32_t t = 0; t < 32; ++t) {
    SCOPED_TRACE("lane " + std::to_string(t));
    const bool odd = t & 1;
    EXPECT_EQ(out[t * 4 + 0], odd ? ((t + 1) % 32) * 5 + 1 : 57005u);
    EXPECT_EQ(out[t * 4 + 1], odd ? 0xffffffffu : t);
    EXPECT_EQ(out[t * 4 + 2], t < 5 ? (2 * t) * 5 + 1 : 7u);
    EXPECT_EQ(out[t * 4 + 3], t < 5 ? (2 * t + 1) * 5 + 1 : 7u);
  }
}

// A listener keeps every access on the per-lane checked path: the results
// must be the same bytes.
TEST(FastPath, TheCheckedPathUnderAListenerWritesTheSameBytes) {
  Fixture f;
  ASSERT_TRUE(f.prog);
  uint8_t* in = f.alloc<uint8_t>(64 * 16);
  std::mt19937 rng(5);
  for (uint32_t i = 0; i < 64 * 16; ++i) in[i] = uint8_t(rng());
  uint8_t* fast = f.alloc<uint8_t>(64 * 160);
  uint8_t* checked = f.alloc<uint8_t>(64 * 160);
  uint32_t* fast_m = f.alloc<uint32_t>(32 * 4);
  uint32_t* checked_m = f.alloc<uint32_t>(32 * 4);
  ASSERT_EQ(f.run("mixed", Dim3{1}, Dim3{64}, in, fast).status, Status::Success);
  ASSERT_EQ(f.run("masked", Dim3{1}, Dim3{32}, fast_m).status, Status::Success);
  CountingListener l;
  f.opts.listener = &l;
  ASSERT_EQ(f.run("mixed", Dim3{1}, Dim3{64}, in, checked).status, Status::Success);
  ASSERT_EQ(f.run("masked", Dim3{1}, Dim3{32}, checked_m).status, Status::Success);
  EXPECT_GT(l.shared_lane_accesses, 0u);
  EXPECT_EQ(std::memcmp(fast, checked, 64 * 160), 0);
  EXPECT_EQ(std::memcmp(fast_m, checked_m, 32 * 4 * 4), 0);
}

struct FaultCase {
  uint32_t mode;
  Status status;
  uint32_t thread;
  const char* what;
};

class FastPathFaults : public testing::TestWithParam<FaultCase> {};

TEST_P(FastPathFaults, TheCheckedPathReportsTheFirstBadLane) {
  const FaultCase& c = GetParam();
  Fixture f;
  ASSERT_TRUE(f.prog);
  auto r = f.run("faults", Dim3{1}, Dim3{32}, c.mode);
  EXPECT_EQ(r.status, c.status);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->thread.x, c.thread);
  EXPECT_NE(r.fault->message.find(c.what), std::string::npos) << r.fault->message;
}

// The module's shared variables share one layout: faults' s starts at 4608
// and its block has 4864 bytes.
INSTANTIATE_TEST_SUITE_P(
    Shared, FastPathFaults,
    testing::Values(
        FaultCase{0, Status::MisalignedAddress, 5, "): misaligned 16-byte read of shared memory at offset 4696 in"},
        FaultCase{1, Status::MisalignedAddress, 3, "): misaligned 16-byte write of shared memory at offset 4660 in"},
        FaultCase{2, Status::IllegalAddress, 16,
                  "): out-of-bounds 4-byte read of shared memory at offset 4864 (the block has 4864 bytes) in"},
        FaultCase{3, Status::IllegalAddress, 16,
                  "): out-of-bounds 8-byte write of shared memory at offset 4864 (the block has 4864 bytes) in"},
        FaultCase{4, Status::MisalignedAddress, 7, "): misaligned 4-byte read of shared memory at offset 4722 in"},
        FaultCase{5, Status::IllegalAddress, 9,
                  "): 4-byte write of distributed shared memory at 0x2001290: no CTA of rank 1 in the cluster "
                  "(it has 1) in"}));

}  // namespace
