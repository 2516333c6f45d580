// softgpu's libcurand against a CPU reference of its documented order
// (common.cuh) for XORWOW, Philox4_32_10 and MRG32k3a: bits (exact, split
// over calls, after an offset), float/double uniforms, normals and
// log-normals (float within the device's approximate sincos, double within
// 1e-12); the host generator equals the device generator.
#include "common.cuh"

static int fails = 0;
template <typename T>
static void expect_near(const char* what, size_t i, T got, T want, double tol) {
  if (!(std::fabs(double(got) - double(want)) <= tol * (1.0 + std::fabs(double(want))))) {
    if (fails++ < 10) std::fprintf(stderr, "FAIL %s [%zu]: %.9g, want %.9g\n", what, i, double(got), double(want));
  }
}

// Generates `n` values of T with `gen` into device memory (host memory for a
// host generator) and returns them.
template <typename T, typename G>
static std::vector<T> run(curandGenerator_t g, bool host, size_t n, G gen) {
  std::vector<T> out(n);
  if (host) {
    if (gen(g, out.data(), n) != CURAND_STATUS_SUCCESS) ++fails;
    return out;
  }
  T* d = nullptr;
  cudaMalloc(&d, n * sizeof(T) + 1);
  if (gen(g, d, n) != CURAND_STATUS_SUCCESS) ++fails;
  cudaMemcpy(out.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return out;
}

template <typename S>
static int check_type(curandRngType_t type, const char* name, bool host) {
  const unsigned long long seed = 20261207ull, offset = 5000;
  curandGenerator_t g;
  CHECK_R(host ? curandCreateGeneratorHost(&g, type) : curandCreateGenerator(&g, type));
  CHECK_R(curandSetPseudoRandomGeneratorSeed(g, seed));
  CHECK_R(curandSetGeneratorOffset(g, offset));
  // Bits over two calls (3001 + 9000), then floats, doubles, normals: the
  // states persist, so the reference continues its steps.
  auto bits = [](curandGenerator_t g, unsigned* p, size_t n) { return curandGenerate(g, p, n); };
  std::vector<unsigned> a = run<unsigned>(g, host, 3001, bits), b = run<unsigned>(g, host, 9000, bits);
  std::vector<float> uf = run<float>(g, host, 10000, curandGenerateUniform);
  std::vector<double> ud = run<double>(g, host, 10000, curandGenerateUniformDouble);
  auto normal = [](curandGenerator_t g, float* p, size_t n) { return curandGenerateNormal(g, p, n, 2.0f, 3.0f); };
  auto normald = [](curandGenerator_t g, double* p, size_t n) { return curandGenerateNormalDouble(g, p, n, -1.0, 0.5); };
  auto lognorm = [](curandGenerator_t g, float* p, size_t n) { return curandGenerateLogNormal(g, p, n, 0.5f, 0.25f); };
  auto lognormd = [](curandGenerator_t g, double* p, size_t n) { return curandGenerateLogNormalDouble(g, p, n, 0.5, 0.25); };
  std::vector<float> nf = run<float>(g, host, 10000, normal), lf = run<float>(g, host, 8000, lognorm);
  std::vector<double> nd = run<double>(g, host, 10000, normald), ld = run<double>(g, host, 8000, lognormd);
  CHECK(cudaDeviceSynchronize());
  CHECK_R(curandDestroyGenerator(g));

  std::vector<S> st = ref_states<S>(seed, offset);
  unsigned long long pos = offset;
  char what[96];
  std::snprintf(what, sizeof what, "%s %s bits", name, host ? "host" : "device");
  ref_run(st, pos, a.size(), [&](S* s, size_t j) { unsigned w = curand(s); if (a[j] != w) expect_near(what, j, a[j], w, 0); });
  pos += a.size();
  ref_run(st, pos, b.size(), [&](S* s, size_t j) { unsigned w = curand(s); if (b[j] != w) expect_near(what, j, b[j], w, 0); });
  pos += b.size();
  std::snprintf(what, sizeof what, "%s %s uniform", name, host ? "host" : "device");
  ref_run(st, pos, uf.size(), [&](S* s, size_t j) { expect_near(what, j, uf[j], curand_uniform(s), 1.2e-7); });
  pos += uf.size();
  ref_run(st, pos, ud.size(), [&](S* s, size_t j) { expect_near(what, j, ud[j], curand_uniform_double(s), 1e-15); });
  pos += ud.size();
  std::snprintf(what, sizeof what, "%s %s normal", name, host ? "host" : "device");
  ref_run(st, pos, nf.size() / 2, [&](S* s, size_t j) {
    float2 v = curand_normal2(s);
    expect_near(what, 2 * j, nf[2 * j], 2.0f + 3.0f * v.x, 1e-4);
    expect_near(what, 2 * j + 1, nf[2 * j + 1], 2.0f + 3.0f * v.y, 1e-4);
  });
  pos += nf.size() / 2;
  ref_run(st, pos, lf.size() / 2, [&](S* s, size_t j) {
    float2 v = curand_log_normal2(s, 0.5f, 0.25f);
    expect_near(what, 2 * j, lf[2 * j], v.x, 1e-4);
    expect_near(what, 2 * j + 1, lf[2 * j + 1], v.y, 1e-4);
  });
  pos += lf.size() / 2;
  ref_run(st, pos, nd.size() / 2, [&](S* s, size_t j) {
    double2 v = curand_normal2_double(s);
    expect_near(what, 2 * j, nd[2 * j], -1.0 + 0.5 * v.x, 1e-12);
    expect_near(what, 2 * j + 1, nd[2 * j + 1], -1.0 + 0.5 * v.y, 1e-12);
  });
  pos += nd.size() / 2;
  ref_run(st, pos, ld.size() / 2, [&](S* s, size_t j) {
    double2 v = curand_log_normal2_double(s, 0.5, 0.25);
    expect_near(what, 2 * j, ld[2 * j], v.x, 1e-12);
    expect_near(what, 2 * j + 1, ld[2 * j + 1], v.y, 1e-12);
  });
  return fails ? 1 : 0;
}

int main() {
  for (bool host : {false, true}) {
    if (check_type<curandStateXORWOW_t>(CURAND_RNG_PSEUDO_DEFAULT, "default", host) ||
        check_type<curandStateXORWOW_t>(CURAND_RNG_PSEUDO_XORWOW, "xorwow", host) ||
        check_type<curandStatePhilox4_32_10_t>(CURAND_RNG_PSEUDO_PHILOX4_32_10, "philox", host) ||
        check_type<curandStateMRG32k3a_t>(CURAND_RNG_PSEUDO_MRG32K3A, "mrg32k3a", host)) {
      std::printf("FAIL curand_sequence (%d mismatches)\n", fails);
      return 1;
    }
  }
  std::printf("PASS curand_sequence\n");
  return 0;
}
