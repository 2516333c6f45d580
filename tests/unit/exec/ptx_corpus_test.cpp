// Runs the committed PTX fixtures in tests/ptx (no nvcc needed) through the
// parser, decoder and executor, and checks each result against a CPU
// implementation of the kernel's algorithm (see tests/ptx/README.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "exec/compiled.h"
#include "exec/engine.h"
#include "jit/jit.h"
#include "ptx/parser.h"

using namespace softgpu;

namespace {

// SOFTGPU_EXEC=jit (ctest's jit.PtxCorpus.* run) compiles the kernels.
exec::CodeCompiler* corpus_jit() {
  static std::unique_ptr<exec::CodeCompiler> jit = [] {
    const char* e = std::getenv("SOFTGPU_EXEC");
    std::unique_ptr<exec::CodeCompiler> j;
    if (e && std::string(e) == "jit") {
      std::string why;
      j = jit::make_compiler({}, &why);
      if (!j) ADD_FAILURE() << "SOFTGPU_EXEC=jit but the JIT did not start: " << why;
    }
    return j;
  }();
  return jit.get();
}

class Corpus {
 public:
  explicit Corpus(const std::string& name) {
    std::string path = std::string(SOFTGPU_PTX_CORPUS) + "/" + name + ".ptx";
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    text_ = ss.str();
    auto pr = ptx::parse(text_, path);
    if (!pr.module) {
      ADD_FAILURE() << ptx::render(pr.diagnostics, text_);
      return;
    }
    std::vector<ptx::Module> mods;
    mods.push_back(std::move(*pr.module));
    auto lr = exec::load_program(std::move(mods), mem_);
    if (!lr.program) ADD_FAILURE() << ptx::render(lr.diagnostics, text_);
    prog_ = lr.program;
    opts.compiler = corpus_jit();
  }
  bool ok() const { return prog_ != nullptr; }
  template <class T>
  T* alloc(size_t n) {
    return reinterpret_cast<T*>(mem_.allocate(Bytes{n * sizeof(T)}, exec::MemKind::Device)->value);
  }
  template <class... A>
  exec::LaunchResult run(const std::string& k, Dim3 g, Dim3 b, A... args) {
    const auto* ki = exec::find_kernel(*prog_, k);
    if (!ki) { ADD_FAILURE() << "no kernel " << k; return {}; }
    exec::LaunchConfig cfg;
    cfg.grid = g;
    cfg.block = b;
    cfg.params.resize(ki->param_bytes);
    size_t i = 0;
    ((std::memcpy(cfg.params.data() + ki->params[i++].offset, &args, sizeof args)), ...);
    return exec::launch(*prog_, k, cfg, mem_, opts);
  }
  exec::ExecOptions opts;

 private:
  std::string text_;
  exec::DeviceMemory mem_{Bytes{1ull << 30}};
  std::shared_ptr<exec::LoadedProgram> prog_;
};

#define EXPECT_OK(r) ASSERT_EQ((r).status, Status::Success) << ((r).fault ? (r).fault->message : "")

TEST(PtxCorpus, VaddLeavesTailUntouched) {
  Corpus c("vadd");
  ASSERT_TRUE(c.ok());
  const int n = 1000;
  float *a = c.alloc<float>(1024), *b = c.alloc<float>(1024), *out = c.alloc<float>(1024);
  for (int i = 0; i < 1024; ++i) { a[i] = std::ldexp(float(i), -3); b[i] = 1.0f / float(i + 1); out[i] = -7.0f; }
  EXPECT_OK(c.run("vadd", Dim3{8}, Dim3{128}, a, b, out, n));
  for (int i = 0; i < 1024; ++i) ASSERT_EQ(out[i], i < n ? a[i] + b[i] : -7.0f) << i;
}

TEST(PtxCorpus, BlockReduction) {
  Corpus c("reduce");
  ASSERT_TRUE(c.ok());
  const int n = 1000;
  int *in = c.alloc<int>(n), *sums = c.alloc<int>(4);
  for (int i = 0; i < n; ++i) in[i] = i;
  EXPECT_OK(c.run("reduce_sum", Dim3{4}, Dim3{256}, in, sums, n));
  for (int b = 0; b < 4; ++b) {
    int want = 0;
    for (int t = 0; t < 256 && b * 256 + t < n; ++t) want += in[b * 256 + t];
    EXPECT_EQ(sums[b], want) << b;
  }
}

int branches_ref(int v) {
  if (v < 0) return -1;
  int r = 0;
  for (int k = 0; k < std::min(v % 8, 5); ++k) r += (k & 1) ? k : 2 * k;
  if (v & 1) r += 100;
  else if (v % 3 == 0) r += 200;
  return r;
}

TEST(PtxCorpus, DivergentBranches) {
  Corpus c("branches");
  ASSERT_TRUE(c.ok());
  const int n = 46;
  int *in = c.alloc<int>(n), *out = c.alloc<int>(n);
  for (int i = 0; i < n; ++i) in[i] = i - 5;
  EXPECT_OK(c.run("branches", Dim3{2}, Dim3{32}, in, out, n));
  for (int i = 0; i < n; ++i) EXPECT_EQ(out[i], branches_ref(in[i])) << "v=" << in[i];
}

int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

TEST(PtxCorpus, RecursiveFunction) {
  Corpus c("recursion");
  ASSERT_TRUE(c.ok());
  const int n = 40;
  int *ns = c.alloc<int>(n), *out = c.alloc<int>(n);
  for (int i = 0; i < n; ++i) ns[i] = (i * 7) % 21;
  EXPECT_OK(c.run("fib_kernel", Dim3{2}, Dim3{32}, ns, out, n));
  for (int i = 0; i < n; ++i) EXPECT_EQ(out[i], fib(ns[i])) << ns[i];
}

TEST(PtxCorpus, GlobalAndSharedAtomics) {
  for (unsigned threads : {1u, 2u}) {
    Corpus c("atomics");
    ASSERT_TRUE(c.ok());
    c.opts.threads = threads;
    const int n = 1000;
    int *cnt = c.alloc<int>(6), *vals = c.alloc<int>(n);
    int init[6] = {0, 0, INT_MIN, INT_MAX, 0, -1};
    std::memcpy(cnt, init, sizeof init);
    long long sum = 0;
    int mx = INT_MIN, mn = INT_MAX, even = 0;
    for (int i = 0; i < n; ++i) {
      vals[i] = (i * 7919) % 2001 - 1000;
      sum += vals[i];
      mx = std::max(mx, vals[i]);
      mn = std::min(mn, vals[i]);
      even += vals[i] % 2 == 0;
    }
    EXPECT_OK(c.run("atomics", Dim3{8}, Dim3{128}, cnt, vals, n));
    EXPECT_EQ(cnt[0], n);
    EXPECT_EQ(cnt[1], sum);
    EXPECT_EQ(cnt[2], mx);
    EXPECT_EQ(cnt[3], mn);
    EXPECT_EQ(cnt[4], even);
    EXPECT_TRUE(cnt[5] >= 0 && cnt[5] < n) << cnt[5];
  }
}

TEST(PtxCorpus, LocalArrayIndexedByData) {
  Corpus c("local_array");
  ASSERT_TRUE(c.ok());
  const int n = 300;
  int *in = c.alloc<int>(n), *out = c.alloc<int>(n);
  for (int i = 0; i < n; ++i) in[i] = i;
  EXPECT_OK(c.run("local_array", Dim3{3}, Dim3{128}, in, out, n));
  for (int i = 0; i < n; ++i) {
    int v = in[i];
    auto a = [&](int k) { return v * k + k * k; };
    EXPECT_EQ(out[i], a(v & 15) + a((v >> 4) & 15)) << v;
  }
}

TEST(PtxCorpus, Printf) {
  Corpus c("printf");
  ASSERT_TRUE(c.ok());
  std::ostringstream os;
  c.opts.printf_out = &os;
  EXPECT_OK(c.run("hello", Dim3{2}, Dim3{4}, 7, 2.5f));
  std::multiset<std::string> got, want;
  std::istringstream is(os.str());
  for (std::string line; std::getline(is, line);) got.insert(line);
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 2; ++t)
      want.insert("hello block " + std::to_string(b) + " thread " + std::to_string(t) + " x=7 f=2.50 s=ptx");
  EXPECT_EQ(got, want) << os.str();
}

// Distance in units in the last place between two doubles of the same sign.
int64_t ulps(double a, double b) {
  int64_t x, y;
  std::memcpy(&x, &a, 8);
  std::memcpy(&y, &b, 8);
  return x > y ? x - y : y - x;
}

TEST(PtxCorpus, DoubleMathWithinCudaBounds) {
  Corpus c("double_math");
  ASSERT_TRUE(c.ok());
  const int n = 100;
  double *in = c.alloc<double>(n), *out = c.alloc<double>(4 * n);
  for (int i = 0; i < n; ++i) in[i] = 0.5 + 0.4975 * i;  // 0.5 ... 49.75
  EXPECT_OK(c.run("dmath", Dim3{1}, Dim3{128}, in, out, n));
  for (int i = 0; i < n; ++i) {
    const double x = in[i];
    EXPECT_EQ(out[4 * i], std::sqrt(x)) << x;                      // sqrt.rn is exact
    EXPECT_LE(ulps(out[4 * i + 1], std::exp(x)), 2) << x;           // CUDA exp: 1 ulp, +1 for the host
    EXPECT_LE(ulps(out[4 * i + 2], std::sin(x)), 3) << x;           // CUDA sin: 2 ulp, +1 for the host
    EXPECT_LE(ulps(out[4 * i + 3], std::fma(x, x, 1.0 / x)), 1) << x;  // contraction may differ by 1
  }
}

}  // namespace
