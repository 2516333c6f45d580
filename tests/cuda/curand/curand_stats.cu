// Distributions of softgpu's libcurand at n = 1e6 against their laws:
// moments, a 100-bin chi-square and the Kolmogorov-Smirnov distance
// (bounds several standard deviations wide: a fixed seed never flakes, a
// wrong distribution fails), Poisson means and variances, log-normal
// moments; the same seed repeats, other seeds and offsets differ; a host
// generator equals a device one (bits exactly, doubles within 1e-12).
#include "common.cuh"

#include <algorithm>
#include <cstdlib>

static int fails = 0;
static void expect(bool ok, const char* what, double got, double lo, double hi) {
  if (!ok || !(got >= lo && got <= hi)) {
    ++fails;
    std::fprintf(stderr, "FAIL %s: %.6g not in [%.6g, %.6g]\n", what, got, lo, hi);
  }
}

template <typename T, typename G>
static std::vector<T> device_run(curandGenerator_t g, size_t n, G gen) {
  std::vector<T> out(n);
  T* d = nullptr;
  cudaMalloc(&d, n * sizeof(T));
  if (gen(g, d, n) != CURAND_STATUS_SUCCESS) ++fails;
  cudaMemcpy(out.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return out;
}

static void moments(const std::vector<double>& x, double& mean, double& var) {
  double s = 0, q = 0;
  for (double v : x) s += v;
  mean = s / x.size();
  for (double v : x) q += (v - mean) * (v - mean);
  var = q / (x.size() - 1);
}

// Chi-square over 100 equiprobable bins of cdf(x) and the KS distance.
template <typename C>
static void fit(const char* name, std::vector<double> x, C cdf) {
  std::vector<double> bins(100, 0.0);
  for (double v : x) bins[std::min(99, int(cdf(v) * 100))] += 1;
  double chi = 0, e = x.size() / 100.0;
  for (double b : bins) chi += (b - e) * (b - e) / e;
  std::sort(x.begin(), x.end());
  double d = 0, n = double(x.size());
  for (size_t i = 0; i < x.size(); ++i) d = std::max({d, std::fabs(cdf(x[i]) - i / n), std::fabs(cdf(x[i]) - (i + 1) / n)});
  char what[64];
  std::snprintf(what, sizeof what, "%s chi-square (99 dof)", name);
  expect(true, what, chi, 40, 200);  // mean 99, sd 14
  std::snprintf(what, sizeof what, "%s KS distance", name);
  if (std::getenv("CURAND_STATS_VERBOSE")) std::printf("%s: chi2 %.1f KS %.3f\n", name, chi, d * std::sqrt(n));
  expect(true, what, d * std::sqrt(n), 0, 2.5);  // P(> 2.5) ~ 1.5e-5
}

int main() {
  const size_t n = 1000000;
  curandGenerator_t g;
  CHECK_R(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_XORWOW));
  CHECK_R(curandSetPseudoRandomGeneratorSeed(g, 42));
  for (curandRngType_t type : {CURAND_RNG_PSEUDO_XORWOW, CURAND_RNG_PSEUDO_PHILOX4_32_10, CURAND_RNG_PSEUDO_MRG32K3A}) {
    CHECK_R(curandDestroyGenerator(g));
    CHECK_R(curandCreateGenerator(&g, type));
    CHECK_R(curandSetPseudoRandomGeneratorSeed(g, 42 + type));
    std::vector<float> uf = device_run<float>(g, n, curandGenerateUniform);
    std::vector<double> u(uf.begin(), uf.end()), m;
    double mean, var, lo = 1, hi = 0;
    for (double v : u) lo = std::min(lo, v), hi = std::max(hi, v);
    expect(lo > 0 && hi <= 1, "uniform in (0, 1]", lo, 0, 1);
    moments(u, mean, var);
    expect(true, "uniform mean", mean, 0.5 - 0.002, 0.5 + 0.002);      // sd 2.9e-4
    expect(true, "uniform variance", var, 1 / 12.0 - 0.0006, 1 / 12.0 + 0.0006);  // sd 7.5e-5
    fit("uniform", u, [](double v) { return v; });
    u = device_run<double>(g, n, curandGenerateUniformDouble);
    moments(u, mean, var);
    expect(true, "uniform double mean", mean, 0.498, 0.502);
    fit("uniform double", u, [](double v) { return v; });
    auto phi = [](double v) { return 0.5 * std::erfc(-(v - 2.0) / (3.0 * std::sqrt(2.0))); };
    auto normal = [](curandGenerator_t g, float* p, size_t n) { return curandGenerateNormal(g, p, n, 2.0f, 3.0f); };
    std::vector<float> nf = device_run<float>(g, n, normal);
    u.assign(nf.begin(), nf.end());
    moments(u, mean, var);
    expect(true, "normal mean", mean, 2 - 0.02, 2 + 0.02);  // sd 0.003
    expect(true, "normal variance", var, 9 - 0.12, 9 + 0.12);  // sd 0.013
    fit("normal", u, phi);
    auto normald = [](curandGenerator_t g, double* p, size_t n) { return curandGenerateNormalDouble(g, p, n, 2.0, 3.0); };
    u = device_run<double>(g, n, normald);
    moments(u, mean, var);
    expect(true, "normal double mean", mean, 1.98, 2.02);
    fit("normal double", u, phi);
    auto lognormal = [](curandGenerator_t g, double* p, size_t n) { return curandGenerateLogNormalDouble(g, p, n, 0.5, 0.25); };
    u = device_run<double>(g, n, lognormal);
    moments(u, mean, var);
    double lm = std::exp(0.5 + 0.03125);  // 1.70, sd 0.43
    expect(true, "log-normal mean", mean, lm - 0.005, lm + 0.005);
    for (double lambda : {0.5, 4.0, 100.0, 5000.0}) {
      auto poisson = [lambda](curandGenerator_t g, unsigned* p, size_t n) { return curandGeneratePoisson(g, p, n, lambda); };
      std::vector<unsigned> k = device_run<unsigned>(g, n / 4, poisson);
      u.assign(k.begin(), k.end());
      moments(u, mean, var);
      double sd = std::sqrt(lambda / (n / 4));
      expect(true, "Poisson mean", mean, lambda - 8 * sd, lambda + 8 * sd);
      expect(true, "Poisson variance / lambda", var / lambda, 0.97, 1.03);  // sd 0.003 (0.0045 at 0.5)
    }
  }
  // Repeats and differences (Philox, whose states are still g's).
  auto bits = [](curandGenerator_t g, unsigned* p, size_t n) { return curandGenerate(g, p, n); };
  CHECK_R(curandSetPseudoRandomGeneratorSeed(g, 7));
  std::vector<unsigned> a = device_run<unsigned>(g, 10000, bits);
  CHECK_R(curandSetPseudoRandomGeneratorSeed(g, 7));
  std::vector<unsigned> b = device_run<unsigned>(g, 10000, bits);
  expect(a == b, "same seed repeats", 0, 0, 0);
  CHECK_R(curandSetPseudoRandomGeneratorSeed(g, 8));
  b = device_run<unsigned>(g, 10000, bits);
  size_t same = 0;
  for (size_t i = 0; i < a.size(); ++i) same += a[i] == b[i];
  expect(true, "equal values of seeds 7 and 8", double(same), 0, 3);
  CHECK_R(curandSetPseudoRandomGeneratorSeed(g, 7));
  CHECK_R(curandSetGeneratorOffset(g, 123));
  b = device_run<unsigned>(g, 10000 - 123, bits);
  expect(std::equal(b.begin(), b.end(), a.begin() + 123), "offset 123 continues seed 7 at 123", 0, 0, 0);
  expect(!std::equal(b.begin(), b.end(), a.begin()), "offset 123 differs from offset 0", 0, 0, 0);
  CHECK_R(curandDestroyGenerator(g));
  // Host generator equals device generator.
  for (curandRngType_t type : {CURAND_RNG_PSEUDO_DEFAULT, CURAND_RNG_PSEUDO_PHILOX4_32_10, CURAND_RNG_PSEUDO_MRG32K3A}) {
    curandGenerator_t h;
    CHECK_R(curandCreateGenerator(&g, type));
    CHECK_R(curandCreateGeneratorHost(&h, type));
    for (curandGenerator_t x : {g, h}) {
      CHECK_R(curandSetPseudoRandomGeneratorSeed(x, 99));
      CHECK_R(curandSetGeneratorOffset(x, 3));
    }
    std::vector<unsigned> hb(n / 10);
    std::vector<double> hd(n / 10);
    CHECK_R(curandGenerate(h, hb.data(), hb.size()));
    CHECK_R(curandGenerateNormalDouble(h, hd.data(), hd.size(), 0.0, 1.0));
    std::vector<unsigned> db = device_run<unsigned>(g, hb.size(), bits);
    auto nd = [](curandGenerator_t g, double* p, size_t n) { return curandGenerateNormalDouble(g, p, n, 0.0, 1.0); };
    std::vector<double> dd = device_run<double>(g, hd.size(), nd);
    expect(db == hb, "host bits equal device bits", 0, 0, 0);
    double worst = 0;
    for (size_t i = 0; i < hd.size(); ++i) worst = std::max(worst, std::fabs(hd[i] - dd[i]));
    expect(true, "host normal doubles vs device", worst, 0, 1e-12);
    CHECK_R(curandDestroyGenerator(g));
    CHECK_R(curandDestroyGenerator(h));
  }
  if (fails) {
    std::printf("FAIL curand_stats (%d)\n", fails);
    return 1;
  }
  std::printf("PASS curand_stats\n");
  return 0;
}
