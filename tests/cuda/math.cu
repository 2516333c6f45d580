// Single- and double-precision math library functions on the device, compared
// with a host reference within the maximum ulp errors documented in the CUDA
// C++ Programming Guide, appendix "Mathematical Functions" (tables "Single-
// Precision Mathematical Standard Library Functions with Maximum ULP Error" and
// the double-precision table). Built without -use_fast_math, so the defaults
// -prec-div=true, -prec-sqrt=true and -ftz=false apply.
//
// Reference: the function evaluated in long double (x86 80-bit, 64-bit
// significand) and rounded to float/double. That is the correctly rounded value
// except in rare near-halfway cases where it can be 1 ulp off, so each
// tolerance below is the documented bound plus 1 ulp. Operations that are
// IEEE-exact (x/y, sqrt, fma) are compared exactly against the host's IEEE
// operation.
#include "check.cuh"
#include <cmath>
#include <vector>

enum FloatFn { F_EXP, F_LOG, F_SIN, F_COS, F_POW, F_ERF, F_TANH, F_SQRT, F_EXP2, F_LOG2, F_ATAN2, F_DIV, F_FMA, F_RSQRT, F_COUNT };
enum DoubleFn { D_EXP, D_LOG, D_SIN, D_COS, D_POW, D_ERF, D_TANH, D_SQRT, D_ATAN, D_DIV, D_FMA, D_COUNT };

struct FnInfo { const char* name; int max_ulp; double lo, hi; bool log_scale; double ylo, yhi; };

// Documented max ulp error (Programming Guide, single-precision table):
//   expf 2, logf 1, sinf 2, cosf 2, powf 4, erff 2, tanhf 2, sqrtf 0 (with
//   -prec-sqrt=true), exp2f 2, log2f 1, atan2f 3, x/y 0 (with -prec-div=true),
//   fmaf 0, rsqrtf 2.
static const FnInfo kFloat[F_COUNT] = {
    {"expf", 2, -80, 80, false, 0, 0},     {"logf", 1, 1e-30, 1e30, true, 0, 0},
    {"sinf", 2, -1000, 1000, false, 0, 0}, {"cosf", 2, -1000, 1000, false, 0, 0},
    {"powf", 4, 0.1, 10, false, -20, 20},  {"erff", 2, -4, 4, false, 0, 0},
    {"tanhf", 2, -10, 10, false, 0, 0},    {"sqrtf", 0, 1e-30, 1e30, true, 0, 0},
    {"exp2f", 2, -120, 120, false, 0, 0},  {"log2f", 1, 1e-30, 1e30, true, 0, 0},
    {"atan2f", 3, -100, 100, false, -100, 100}, {"x/y (float)", 0, -1e6, 1e6, false, 0.001, 1000},
    {"fmaf", 0, -100, 100, false, -100, 100}, {"rsqrtf", 2, 1e-30, 1e30, true, 0, 0},
};
// Documented max ulp error (Programming Guide, double-precision table):
//   exp 1, log 1, sin 2, cos 2, pow 2, erf 2, tanh 1, sqrt 0, atan 2,
//   x/y 0, fma 0.
static const FnInfo kDouble[D_COUNT] = {
    {"exp", 1, -700, 700, false, 0, 0},      {"log", 1, 1e-300, 1e300, true, 0, 0},
    {"sin", 2, -1e4, 1e4, false, 0, 0},      {"cos", 2, -1e4, 1e4, false, 0, 0},
    {"pow", 2, 0.1, 10, false, -100, 100},   {"erf", 2, -6, 6, false, 0, 0},
    {"tanh", 1, -20, 20, false, 0, 0},       {"sqrt", 0, 1e-300, 1e300, true, 0, 0},
    {"atan", 2, -1e3, 1e3, false, 0, 0},     {"x/y (double)", 0, -1e100, 1e100, false, 1e-50, 1e50},
    {"fma", 0, -1e10, 1e10, false, -1e10, 1e10},
};

__global__ void float_fns(const float* x, const float* y, float* out, int per_fn) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= per_fn * F_COUNT) return;
  float a = x[i], b = y[i], r;
  switch (i / per_fn) {
    case F_EXP: r = expf(a); break;
    case F_LOG: r = logf(a); break;
    case F_SIN: r = sinf(a); break;
    case F_COS: r = cosf(a); break;
    case F_POW: r = powf(a, b); break;
    case F_ERF: r = erff(a); break;
    case F_TANH: r = tanhf(a); break;
    case F_SQRT: r = sqrtf(a); break;
    case F_EXP2: r = exp2f(a); break;
    case F_LOG2: r = log2f(a); break;
    case F_ATAN2: r = atan2f(a, b); break;
    case F_DIV: r = a / b; break;
    case F_FMA: r = fmaf(a, b, a * 0.37f); break;
    default: r = rsqrtf(a); break;
  }
  out[i] = r;
}

__global__ void double_fns(const double* x, const double* y, double* out, int per_fn) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= per_fn * D_COUNT) return;
  double a = x[i], b = y[i], r;
  switch (i / per_fn) {
    case D_EXP: r = exp(a); break;
    case D_LOG: r = log(a); break;
    case D_SIN: r = sin(a); break;
    case D_COS: r = cos(a); break;
    case D_POW: r = pow(a, b); break;
    case D_ERF: r = erf(a); break;
    case D_TANH: r = tanh(a); break;
    case D_SQRT: r = sqrt(a); break;
    case D_ATAN: r = atan(a); break;
    case D_DIV: r = a / b; break;
    default: r = fma(a, b, a * 0.37); break;
  }
  out[i] = r;
}

static long double ref_float(int f, float a, float b) {
  long double x = a, y = b;
  switch (f) {
    case F_EXP: return expl(x);
    case F_LOG: return logl(x);
    case F_SIN: return sinl(x);
    case F_COS: return cosl(x);
    case F_POW: return powl(x, y);
    case F_ERF: return erfl(x);
    case F_TANH: return tanhl(x);
    case F_SQRT: return std::sqrt(a);  // IEEE exact
    case F_EXP2: return exp2l(x);
    case F_LOG2: return log2l(x);
    case F_ATAN2: return atan2l(x, y);
    case F_DIV: return a / b;                     // IEEE exact
    case F_FMA: return std::fma(a, b, a * 0.37f);  // IEEE exact
    default: return 1.0L / sqrtl(x);
  }
}

static long double ref_double(int f, double a, double b) {
  long double x = a, y = b;
  switch (f) {
    case D_EXP: return expl(x);
    case D_LOG: return logl(x);
    case D_SIN: return sinl(x);
    case D_COS: return cosl(x);
    case D_POW: return powl(x, y);
    case D_ERF: return erfl(x);
    case D_TANH: return tanhl(x);
    case D_SQRT: return std::sqrt(a);
    case D_ATAN: return atanl(x);
    case D_DIV: return a / b;
    default: return std::fma(a, b, a * 0.37);
  }
}

// Distance in ulps between two finite values of the same format, through the
// monotone mapping of the IEEE bit patterns onto integers.
static long long ulp_dist_f(float a, float b) {
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  long long la = ia < 0 ? (long long)INT32_MIN - ia : ia, lb = ib < 0 ? (long long)INT32_MIN - ib : ib;
  return la > lb ? la - lb : lb - la;
}
static long long ulp_dist_d(double a, double b) {
  int64_t ia, ib;
  std::memcpy(&ia, &a, 8);
  std::memcpy(&ib, &b, 8);
  __int128 la = ia < 0 ? (__int128)INT64_MIN - ia : ia, lb = ib < 0 ? (__int128)INT64_MIN - ib : ib;
  __int128 d = la > lb ? la - lb : lb - la;
  return d > (__int128)INT64_MAX ? INT64_MAX : (long long)d;
}

static double sample(Lcg& rng, const FnInfo& f, bool second) {
  double lo = second ? f.ylo : f.lo, hi = second ? f.yhi : f.hi;
  double u = (double)(rng.next() & 0xFFFFFF) / 16777216.0;
  if (f.log_scale && !second) return std::exp(std::log(lo) + u * (std::log(hi) - std::log(lo)));
  if (second && lo == 0 && hi == 0) return 0;
  return lo + u * (hi - lo);
}

int main() {
  const int per_fn = 2048;
  // Float functions.
  const int nf = per_fn * F_COUNT;
  std::vector<float> fx(nf), fy(nf), fo(nf);
  Lcg rng(2024);
  for (int i = 0; i < nf; ++i) {
    const FnInfo& f = kFloat[i / per_fn];
    fx[i] = (float)sample(rng, f, false);
    fy[i] = (float)sample(rng, f, true);
  }
  // A few exact special cases at the start of some ranges.
  fx[F_EXP * per_fn] = 0.0f;
  fx[F_LOG * per_fn] = 1.0f;
  fx[F_POW * per_fn] = 2.0f;
  fy[F_POW * per_fn] = 10.0f;
  fx[F_SQRT * per_fn] = 16.0f;
  float *dfx, *dfy, *dfo;
  CHECK(cudaMalloc(&dfx, nf * sizeof(float)));
  CHECK(cudaMalloc(&dfy, nf * sizeof(float)));
  CHECK(cudaMalloc(&dfo, nf * sizeof(float)));
  CHECK(cudaMemcpy(dfx, fx.data(), nf * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dfy, fy.data(), nf * sizeof(float), cudaMemcpyHostToDevice));
  float_fns<<<(nf + 127) / 128, 128>>>(dfx, dfy, dfo, per_fn);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(fo.data(), dfo, nf * sizeof(float), cudaMemcpyDeviceToHost));

  int failed = 0;
  for (int f = 0; f < F_COUNT; ++f) {
    long long worst = 0, bad = 0;
    for (int k = 0; k < per_fn; ++k) {
      int i = f * per_fn + k;
      float want = (float)ref_float(f, fx[i], fy[i]);
      long long d = (std::isfinite(want) && std::isfinite(fo[i])) ? ulp_dist_f(fo[i], want)
                    : (want == fo[i] ? 0 : INT32_MAX);
      if (d > worst) worst = d;
      if (d > kFloat[f].max_ulp + 1) {
        if (bad < 3)
          std::fprintf(stderr, "MISMATCH %s(%.9g, %.9g): got %.9g expected %.9g (%lld ulp > %d+1)\n",
                       kFloat[f].name, fx[i], fy[i], fo[i], want, d, kFloat[f].max_ulp);
        ++bad;
      }
    }
    if (bad) ++failed;
    std::printf("%-14s max %lld ulp (bound %d+1)%s\n", kFloat[f].name, worst, kFloat[f].max_ulp, bad ? "  FAIL" : "");
  }
  // Exact special values.
  REQUIRE(fo[F_EXP * per_fn] == 1.0f && fo[F_LOG * per_fn] == 0.0f && fo[F_POW * per_fn] == 1024.0f &&
              fo[F_SQRT * per_fn] == 4.0f,
          "special values expf(0)=%g logf(1)=%g powf(2,10)=%g sqrtf(16)=%g", fo[F_EXP * per_fn],
          fo[F_LOG * per_fn], fo[F_POW * per_fn], fo[F_SQRT * per_fn]);

  // Double functions.
  const int nd = per_fn * D_COUNT;
  std::vector<double> dx(nd), dy(nd), dout(nd);
  for (int i = 0; i < nd; ++i) {
    const FnInfo& f = kDouble[i / per_fn];
    dx[i] = sample(rng, f, false);
    dy[i] = sample(rng, f, true);
  }
  double *ddx, *ddy, *ddo;
  CHECK(cudaMalloc(&ddx, nd * sizeof(double)));
  CHECK(cudaMalloc(&ddy, nd * sizeof(double)));
  CHECK(cudaMalloc(&ddo, nd * sizeof(double)));
  CHECK(cudaMemcpy(ddx, dx.data(), nd * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(ddy, dy.data(), nd * sizeof(double), cudaMemcpyHostToDevice));
  double_fns<<<(nd + 127) / 128, 128>>>(ddx, ddy, ddo, per_fn);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(dout.data(), ddo, nd * sizeof(double), cudaMemcpyDeviceToHost));
  for (int f = 0; f < D_COUNT; ++f) {
    long long worst = 0, bad = 0;
    for (int k = 0; k < per_fn; ++k) {
      int i = f * per_fn + k;
      double want = (double)ref_double(f, dx[i], dy[i]);
      long long d = (std::isfinite(want) && std::isfinite(dout[i])) ? ulp_dist_d(dout[i], want)
                    : (want == dout[i] ? 0 : INT64_MAX);
      if (d > worst) worst = d;
      if (d > kDouble[f].max_ulp + 1) {
        if (bad < 3)
          std::fprintf(stderr, "MISMATCH %s(%.17g, %.17g): got %.17g expected %.17g (%lld ulp > %d+1)\n",
                       kDouble[f].name, dx[i], dy[i], dout[i], want, d, kDouble[f].max_ulp);
        ++bad;
      }
    }
    if (bad) ++failed;
    std::printf("%-14s max %lld ulp (bound %d+1)%s\n", kDouble[f].name, worst, kDouble[f].max_ulp, bad ? "  FAIL" : "");
  }
  CHECK(cudaFree(dfx));
  CHECK(cudaFree(dfy));
  CHECK(cudaFree(dfo));
  CHECK(cudaFree(ddx));
  CHECK(cudaFree(ddy));
  CHECK(cudaFree(ddo));
  if (failed) {
    std::fprintf(stderr, "FAIL math: %d functions outside their ulp bound\n", failed);
    return 1;
  }
  std::printf("PASS math\n");
  return 0;
}
