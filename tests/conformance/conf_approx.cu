// Conformance: approximate f32 functions. Results are checked against the
// documented error bounds, not exact bits (every result's bits are printed on
// its OK line, so a run on hardware records them as data). Bounds, from the
// CUDA C++ Programming Guide, "Mathematical Functions" appendix (intrinsic
// functions table and single-precision standard functions table):
//   __fdividef(x,y)  2 ulp for 2^-126 <= |y| <= 2^126
//   __expf(x)        2 + floor(|1.173 x|) ulp
//   __exp10f(x)      2 + floor(|2.97 x|) ulp
//   __logf(x)        abs error 2^-21.41 for x in [0.5, 2], else 3 ulp
//   __log2f(x)       abs error 2^-22 for x in [0.5, 2], else 2 ulp
//   __sinf(x)        abs error 2^-21.41 for x in [-pi, pi]
//   __cosf(x)        abs error 2^-21.19 for x in [-pi, pi]
//   rsqrtf(x), exp2f(x)   2 ulp
// These intrinsics use the .approx.ftz PTX forms, so a result whose exact
// value is subnormal may be flushed to zero; that is accepted. Special values
// (PTX ISA special-case tables of ex2/lg2/sin/cos/rsqrt/rcp .approx) are exact
// checks: -inf->+0 and +inf->+inf for ex2, 0->-inf, negative->NaN and
// +inf->+inf for lg2, +-inf->NaN for sin/cos, +-0->+-inf and +inf->+0 for rsqrt.
#include "conf.h"

enum Fn : uint32_t { EXPF, EXP10F, LOGF, LOG2F, SINF, COSF, FDIVIDEF, RSQRTF, EXP2F, NUM_FNS };
static const char* kFnName[NUM_FNS] = {"__expf", "__exp10f", "__logf", "__log2f", "__sinf", "__cosf",
                                       "__fdividef", "rsqrtf", "exp2f"};

struct Rec { uint32_t fn; float a, b; };

__global__ void run(const Rec* r, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Rec x = r[i];
  float v;
  switch (x.fn) {
    case EXPF: v = __expf(x.a); break;
    case EXP10F: v = __exp10f(x.a); break;
    case LOGF: v = __logf(x.a); break;
    case LOG2F: v = __log2f(x.a); break;
    case SINF: v = __sinf(x.a); break;
    case COSF: v = __cosf(x.a); break;
    case FDIVIDEF: v = __fdividef(x.a, x.b); break;
    case RSQRTF: v = rsqrtf(x.a); break;
    default: v = exp2f(x.a); break;
  }
  out[i] = v;
}

static double ref(const Rec& r) {
  double a = r.a, b = r.b;
  switch (r.fn) {
    case EXPF: return std::exp(a);
    case EXP10F: return std::pow(10.0, a);
    case LOGF: return std::log(a);
    case LOG2F: return std::log2(a);
    case SINF: return std::sin(a);
    case COSF: return std::cos(a);
    case FDIVIDEF: return a / b;
    case RSQRTF: return 1.0 / std::sqrt(a);
    default: return std::exp2(a);
  }
}

// Distance in f32 ulps between `got` and the correctly rounded value of `exact`.
static double ulps(float got, double exact) {
  float cr = (float)exact;
  if (std::isinf(cr) || std::isinf(got)) return got == cr ? 0 : 1e30;
  int e;
  std::frexp(std::fabs((double)cr) > 0 ? (double)cr : 1e-45, &e);
  int q = std::max(e - 1, -126) - 23;
  return std::fabs((double)got - (double)cr) / std::ldexp(1.0, q);
}

int main(int argc, char** argv) {
  Conf conf("conf_approx", argc, argv, {
  });
  std::vector<Rec> recs;
  Lcg rng(7);
  auto sweep = [&](uint32_t fn, float lo, float hi, int count) {
    for (int i = 0; i < count; ++i) recs.push_back({fn, lo + (hi - lo) * (float)i / (float)(count - 1), 1.0f});
  };
  sweep(EXPF, -87.0f, 88.0f, 120);
  sweep(EXPF, -2.0f, 2.0f, 41);
  sweep(EXP10F, -37.0f, 38.0f, 101);
  sweep(LOGF, 0.5f, 2.0f, 61);
  sweep(LOG2F, 0.5f, 2.0f, 61);
  for (float x : {1e-30f, 1e-10f, 0.001f, 0.3f, 3.0f, 10.0f, 1000.0f, 1e10f, 3e38f, 1.17549435e-38f}) {
    recs.push_back({LOGF, x, 0});
    recs.push_back({LOG2F, x, 0});
    recs.push_back({RSQRTF, x, 0});
  }
  sweep(SINF, -3.14159f, 3.14159f, 101);
  sweep(COSF, -3.14159f, 3.14159f, 101);
  sweep(RSQRTF, 0.01f, 100.0f, 101);
  sweep(EXP2F, -126.0f, 127.0f, 101);
  sweep(EXP2F, -1.0f, 1.0f, 41);
  for (int i = 0; i < 120; ++i) {
    float a = rng.uniform(-1000.0f, 1000.0f), b = rng.uniform(-50.0f, 50.0f);
    if (i % 3 == 0) b = std::ldexp(b, (int)(rng.next() % 200) - 100);
    recs.push_back({FDIVIDEF, a, b});
  }
  size_t nbound = recs.size();
  // Special values, exact (PTX ISA special-case tables).
  const float inf = INFINITY, nan = NAN;
  struct Sp { uint32_t fn; float a, b, want; };
  const Sp sp[] = {
    {EXPF, -inf, 0, 0.0f}, {EXPF, inf, 0, inf}, {EXPF, nan, 0, nan}, {EXPF, 0.0f, 0, 1.0f},
    {EXPF, 100.0f, 0, inf}, {EXPF, -110.0f, 0, 0.0f},
    {EXP2F, -inf, 0, 0.0f}, {EXP2F, inf, 0, inf}, {EXP2F, nan, 0, nan}, {EXP2F, 0.0f, 0, 1.0f},
    {EXP2F, -0.0f, 0, 1.0f}, {EXP2F, 128.0f, 0, inf}, {EXP2F, 10.0f, 0, 1024.0f}, {EXP2F, -1.0f, 0, 0.5f},
    {LOGF, 0.0f, 0, -inf}, {LOGF, -0.0f, 0, -inf}, {LOGF, -1.0f, 0, nan}, {LOGF, inf, 0, inf},
    {LOGF, -inf, 0, nan}, {LOGF, nan, 0, nan}, {LOGF, 1.0f, 0, 0.0f},
    {LOG2F, 0.0f, 0, -inf}, {LOG2F, -2.0f, 0, nan}, {LOG2F, inf, 0, inf}, {LOG2F, 1.0f, 0, 0.0f},
    {LOG2F, 8.0f, 0, 3.0f},
    {SINF, inf, 0, nan}, {SINF, -inf, 0, nan}, {SINF, nan, 0, nan}, {SINF, 0.0f, 0, 0.0f}, {SINF, -0.0f, 0, -0.0f},
    {COSF, inf, 0, nan}, {COSF, nan, 0, nan}, {COSF, 0.0f, 0, 1.0f}, {COSF, -0.0f, 0, 1.0f},
    {RSQRTF, 0.0f, 0, inf}, {RSQRTF, -0.0f, 0, -inf}, {RSQRTF, inf, 0, 0.0f}, {RSQRTF, -1.0f, 0, nan},
    {RSQRTF, nan, 0, nan}, {RSQRTF, 4.0f, 0, 0.5f}, {RSQRTF, 0.25f, 0, 2.0f},
    {FDIVIDEF, 1.0f, 1e38f, 0.0f},  // documented: 2^126 < |y| < 2^128 gives 0
    {FDIVIDEF, inf, 1e38f, nan},    // documented: NaN (inf * 0)
    {FDIVIDEF, nan, 1.0f, nan}, {FDIVIDEF, 6.0f, 3.0f, 2.0f}, {FDIVIDEF, 1.0f, 0.0f, inf},
  };
  for (const Sp& s : sp) recs.push_back({s.fn, s.a, s.b});

  int n = (int)recs.size();
  Rec* dr;
  float* dout;
  CONF_CHECK(cudaMalloc(&dr, n * sizeof(Rec)));
  CONF_CHECK(cudaMalloc(&dout, n * 4));
  CONF_CHECK(cudaMemcpy(dr, recs.data(), n * sizeof(Rec), cudaMemcpyHostToDevice));
  run<<<(n + 127) / 128, 128>>>(dr, dout, n);
  CONF_CHECK(cudaGetLastError());
  std::vector<float> out(n);
  CONF_CHECK(cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost));

  for (size_t i = 0; i < nbound; ++i) {
    const Rec& r = recs[i];
    double e = ref(r);
    float g = out[i];
    std::string in = r.fn == FDIVIDEF ? in2(fbits(r.a), fbits(r.b), 32) : in1(fbits(r.a), 32);
    char want[96], got[64];
    bool ok;
    double ax = std::fabs((double)r.a);
    if ((r.fn == LOGF || r.fn == LOG2F) && r.a >= 0.5f && r.a <= 2.0f) {
      double lim = std::ldexp(1.0, r.fn == LOGF ? -21 : -22) * (r.fn == LOGF ? std::exp2(-0.41) : 1.0);
      ok = std::fabs((double)g - e) <= lim;
      std::snprintf(want, sizeof want, "|err|<=%.3g(ref=%.9g)", lim, e);
    } else if (r.fn == SINF || r.fn == COSF) {
      double lim = std::exp2(r.fn == SINF ? -21.41 : -21.19);
      ok = std::fabs((double)g - e) <= lim;
      std::snprintf(want, sizeof want, "|err|<=%.3g(ref=%.9g)", lim, e);
    } else {
      double lim = r.fn == EXPF ? 2 + std::floor(1.173 * ax) : r.fn == EXP10F ? 2 + std::floor(2.97 * ax)
                 : r.fn == LOGF ? 3 : 2;
      double u = ulps(g, e);
      // .ftz: an exact result in the subnormal range may come back as zero.
      ok = u <= lim || (std::fabs(e) < std::ldexp(1.0, -126) && g == 0.0f);
      std::snprintf(want, sizeof want, "<=%.0fulp(ref=%.9g,dist=%.3g)", lim, e, u);
    }
    std::snprintf(got, sizeof got, "0x%08x(%.9g)", fbits(g), (double)g);
    conf.bound(kFnName[r.fn], in, ok, want, got);
  }
  for (size_t i = 0; i < sizeof sp / sizeof sp[0]; ++i) {
    const Sp& s = sp[i];
    std::string in = s.fn == FDIVIDEF ? in2(fbits(s.a), fbits(s.b), 32) : in1(fbits(s.a), 32);
    conf.f32(std::string(kFnName[s.fn]) + "(special)", in, s.want, fbits(out[nbound + i]));
  }
  cudaFree(dr);
  cudaFree(dout);
  return conf.finish();
}
