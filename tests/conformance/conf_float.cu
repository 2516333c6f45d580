// Conformance: f32 and f64 arithmetic in every rounding mode (__fadd_r*,
// __fsub_r*, __fmul_r*, __fmaf_r*, __fdiv_r*, __frcp_r*, __fsqrt_r*, the
// __d* equivalents), __frsqrt_rn, fmin/fmax with NaN and signed zero,
// comparisons with NaN, abs/neg/copysign and testp (every class). Built
// twice: plain (conf_float) and with -ftz=true (conf_float_ftz, where the f32
// forms become .ftz and subnormal f32 inputs and results flush to
// sign-preserving zero; f64 has no .ftz and must not change).
// Reference: the host's IEEE arithmetic under fesetround() (x86-64 SSE honours
// the dynamic rounding mode; volatile operands keep it from being folded).
#include "conf.h"

#ifdef CONF_FTZ
static const bool kFtz = true;
static const char* kName = "conf_float_ftz";
#else
static const bool kFtz = false;
static const char* kName = "conf_float";
#endif

enum Op : uint32_t { ADD, SUB, MUL, FMA, DIV, RCP, SQRT, RSQRT, MIN, MAX, LT, EQ, NEU, GE, ABS, NEG, COPYSIGN,
                     T_FINITE, T_INF, T_NUMBER, T_NAN, T_NORMAL, T_SUBNORMAL, NUM_OPS };
static const char* kOpName[NUM_OPS] = {"add", "sub", "mul", "fma", "div", "rcp", "sqrt", "rsqrt",
                                       "min", "max", "setp.lt", "setp.eq", "setp.neu", "setp.ge", "abs",
                                       "neg", "copysign", "testp.finite", "testp.infinite", "testp.number",
                                       "testp.notanumber", "testp.normal", "testp.subnormal"};
static bool is_testp(uint32_t op) { return op >= T_FINITE; }
static bool is_unary(uint32_t op) { return op == RCP || op == SQRT || op == RSQRT || op == ABS || op == NEG || is_testp(op); }
static bool has_modes(uint32_t op) { return op <= SQRT; }

struct Rec {
  uint32_t op, mode;  // mode 0..3 = rn rz ru rd
  uint64_t a, b, c;   // operand bits (f32 in the low word)
};

#define MODES(fn, ...)                                                          \
  switch (m) {                                                                  \
    case 0: return fn##_rn(__VA_ARGS__);                                        \
    case 1: return fn##_rz(__VA_ARGS__);                                        \
    case 2: return fn##_ru(__VA_ARGS__);                                        \
    default: return fn##_rd(__VA_ARGS__);                                       \
  }

#define TESTP(kind, ty, reg, x)                                                              \
  {                                                                                          \
    uint32_t r_;                                                                             \
    asm("{.reg .pred %%tp; testp." kind "." ty " %%tp, %1; selp.u32 %0, 1, 0, %%tp;}"         \
        : "=r"(r_) : reg(x));                                                                \
    return r_;                                                                               \
  }
__device__ float op32(uint32_t op, int m, float a, float b, float c) {
  switch (op) {
    case ADD: MODES(__fadd, a, b)
    case SUB: MODES(__fsub, a, b)
    case MUL: MODES(__fmul, a, b)
    case FMA: MODES(__fmaf, a, b, c)
    case DIV: MODES(__fdiv, a, b)
    case RCP: MODES(__frcp, a)
    case SQRT: MODES(__fsqrt, a)
    case RSQRT: return __frsqrt_rn(a);
    case MIN: return fminf(a, b);
    case MAX: return fmaxf(a, b);
    case LT: return a < b;
    case EQ: return a == b;
    case NEU: return a != b;
    case GE: return a >= b;
    case ABS: return fabsf(a);
    case NEG: return -a;
    case COPYSIGN: return copysignf(a, b);
    case T_FINITE: TESTP("finite", "f32", "f", a)
    case T_INF: TESTP("infinite", "f32", "f", a)
    case T_NUMBER: TESTP("number", "f32", "f", a)
    case T_NAN: TESTP("notanumber", "f32", "f", a)
    case T_NORMAL: TESTP("normal", "f32", "f", a)
    default: TESTP("subnormal", "f32", "f", a)
  }
}
__device__ double op64(uint32_t op, int m, double a, double b, double c) {
  switch (op) {
    case ADD: MODES(__dadd, a, b)
    case SUB: MODES(__dsub, a, b)
    case MUL: MODES(__dmul, a, b)
    case FMA: MODES(__fma, a, b, c)
    case DIV: MODES(__ddiv, a, b)
    case RCP: MODES(__drcp, a)
    case SQRT: MODES(__dsqrt, a)
    case RSQRT: return rsqrt(a);  // not correctly rounded: excluded from the f64 checks
    case MIN: return fmin(a, b);
    case MAX: return fmax(a, b);
    case LT: return a < b;
    case EQ: return a == b;
    case NEU: return a != b;
    case GE: return a >= b;
    case ABS: return fabs(a);
    case NEG: return -a;
    case COPYSIGN: return copysign(a, b);
    case T_FINITE: TESTP("finite", "f64", "d", a)
    case T_INF: TESTP("infinite", "f64", "d", a)
    case T_NUMBER: TESTP("number", "f64", "d", a)
    case T_NAN: TESTP("notanumber", "f64", "d", a)
    case T_NORMAL: TESTP("normal", "f64", "d", a)
    default: TESTP("subnormal", "f64", "d", a)
  }
}

__global__ void run32(const Rec* r, uint32_t* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Rec x = r[i];
  out[i] = __float_as_uint(op32(x.op, x.mode, __uint_as_float((uint32_t)x.a), __uint_as_float((uint32_t)x.b),
                                __uint_as_float((uint32_t)x.c)));
}
__global__ void run64(const Rec* r, uint64_t* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Rec x = r[i];
  out[i] = (uint64_t)__double_as_longlong(op64(x.op, x.mode, __longlong_as_double((long long)x.a),
                                               __longlong_as_double((long long)x.b),
                                               __longlong_as_double((long long)x.c)));
}

// --- host reference ------------------------------------------------------------
template <class T> static T flush(T v) {
  if (kFtz && sizeof(T) == 4 && std::fpclassify(v) == FP_SUBNORMAL) return std::signbit(v) ? -T(0) : T(0);
  return v;
}
// IEEE 754-2019 minimumNumber/maximumNumber: NaN loses to a number, -0 < +0.
template <class T> static T ref_minmax(T a, T b, bool mx) {
  if (std::isnan(a) && std::isnan(b)) return NAN;
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b) return (std::signbit(a) != mx) ? a : b;
  return (a < b) != mx ? a : b;
}
template <class T> static T ref(uint32_t op, int mode, T a, T b, T c) {
  // copysign is bit manipulation and testp has no .ftz: their inputs are not flushed.
  if (op == COPYSIGN || is_testp(op)) {
    int cls = std::fpclassify(a);
    switch (op) {
      case COPYSIGN: return std::copysign(a, b);
      case T_FINITE: return std::isfinite(a);
      case T_INF: return std::isinf(a);
      case T_NUMBER: return !std::isnan(a);
      case T_NAN: return std::isnan(a);
      case T_NORMAL: return cls == FP_NORMAL;
      default: return cls == FP_SUBNORMAL;
    }
  }
  a = flush(a); b = flush(b); c = flush(c);
  volatile T va = a, vb = b, vc = c;
  T r;
  std::fesetround(kFeModes[mode]);
  switch (op) {
    case ADD: r = va + vb; break;
    case SUB: r = va - vb; break;
    case MUL: r = va * vb; break;
    case FMA: r = sizeof(T) == 4 ? (T)std::fmaf((float)va, (float)vb, (float)vc) : (T)std::fma((double)va, (double)vb, (double)vc); break;
    case DIV: r = va / vb; break;
    case RCP: r = T(1) / va; break;
    case SQRT: r = std::sqrt(va); break;
    case RSQRT: {  // correctly rounded 1/sqrt(a) via double (exact enough for f32)
      double s = std::sqrt((double)va);
      r = (T)(1.0 / s);
      break;
    }
    case MIN: r = ref_minmax<T>(va, vb, false); break;
    case MAX: r = ref_minmax<T>(va, vb, true); break;
    case LT: r = va < vb; break;
    case EQ: r = va == vb; break;
    case NEU: r = va != vb; break;
    case ABS: r = std::fabs(va); break;
    case NEG: r = -va; break;
    default: r = va >= vb; break;
  }
  volatile T vr = r;
  std::fesetround(FE_TONEAREST);
  return flush((T)vr);
}

int main(int argc, char** argv) {
  Conf conf(kName, argc, argv, {
  });
  const uint32_t s32[] = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3fc00000, 0x3dcccccd, 0x40400000,
                          0x00800000, 0x80800000, 0x00000001, 0x80000001, 0x007fffff, 0x00400000, 0x7f7fffff,
                          0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0x7fa12345, 0xffc00001, 0x3f800001,
                          0x00000003, 0x7149f2ca, 0x0da24260, 0x4b000001, 0x5f000000, 0x3effffff, 0x40a00000};
  const uint64_t s64[] = {0x0ull, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
                          0x3ff8000000000000ull, 0x3fb999999999999aull, 0x4008000000000000ull,
                          0x0010000000000000ull, 0x8010000000000000ull, 0x0000000000000001ull,
                          0x000fffffffffffffull, 0x0008000000000000ull, 0x7fefffffffffffffull,
                          0xffefffffffffffffull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                          0x7ff8000000000000ull, 0x7ff4000000000123ull, 0x3ff0000000000001ull,
                          0x4330000000000001ull, 0x7e37e43c8800759cull, 0x01a56e1fc2f8f359ull,
                          0x3fdfffffffffffffull, 0x4014000000000000ull};
  std::vector<Rec> r32, r64;
  const size_t n32 = sizeof s32 / 4, n64 = sizeof s64 / 8;
  for (uint32_t op = 0; op < NUM_OPS; ++op) {
    int modes = has_modes(op) ? 4 : 1;
    bool unary = is_unary(op);
    for (int m = 0; m < modes; ++m) {
      for (size_t i = 0; i < n32; ++i)
        for (size_t j = 0; j < (unary ? 1 : n32); ++j) {
          if (op == FMA) {
            for (size_t k = 0; k < n32; k += 3) r32.push_back({op, (uint32_t)m, s32[i], s32[j], s32[k]});
          } else {
            r32.push_back({op, (uint32_t)m, s32[i], s32[j], 0});
          }
        }
      if (op == RSQRT) continue;  // f64 rsqrt is approximate (see op64)
      for (size_t i = 0; i < n64; ++i)
        for (size_t j = 0; j < (unary ? 1 : n64); ++j) {
          if (op == FMA) {
            for (size_t k = 0; k < n64; k += 3) r64.push_back({op, (uint32_t)m, s64[i], s64[j], s64[k]});
          } else {
            r64.push_back({op, (uint32_t)m, s64[i], s64[j], 0});
          }
        }
    }
  }
  // FTZ boundary cases: products that land just below/at the smallest normal.
  for (int m = 0; m < 4; ++m) {
    r32.push_back({MUL, (uint32_t)m, 0x3f7fffff, 0x00800000, 0});  // (1-2^-24)*2^-126: rounds to 2^-126 in rn/ru
    r32.push_back({MUL, (uint32_t)m, 0x3f000000, 0x00800001, 0});
    r32.push_back({FMA, (uint32_t)m, 0x00800000, 0x3f800000, 0x80000001});
  }

  Rec* d;
  uint32_t* o32;
  uint64_t* o64;
  size_t nmax = std::max(r32.size(), r64.size());
  CONF_CHECK(cudaMalloc(&d, nmax * sizeof(Rec)));
  CONF_CHECK(cudaMalloc(&o32, r32.size() * 4));
  CONF_CHECK(cudaMalloc(&o64, r64.size() * 8));
  std::vector<uint32_t> g32(r32.size());
  std::vector<uint64_t> g64(r64.size());
  CONF_CHECK(cudaMemcpy(d, r32.data(), r32.size() * sizeof(Rec), cudaMemcpyHostToDevice));
  run32<<<(unsigned)(r32.size() + 127) / 128, 128>>>(d, o32, (int)r32.size());
  CONF_CHECK(cudaGetLastError());
  CONF_CHECK(cudaMemcpy(g32.data(), o32, r32.size() * 4, cudaMemcpyDeviceToHost));
  CONF_CHECK(cudaMemcpy(d, r64.data(), r64.size() * sizeof(Rec), cudaMemcpyHostToDevice));
  run64<<<(unsigned)(r64.size() + 127) / 128, 128>>>(d, o64, (int)r64.size());
  CONF_CHECK(cudaGetLastError());
  CONF_CHECK(cudaMemcpy(g64.data(), o64, r64.size() * 8, cudaMemcpyDeviceToHost));

  const char* ftz = kFtz ? ".ftz" : "";
  for (size_t i = 0; i < r32.size(); ++i) {
    const Rec& x = r32[i];
    std::string form = std::string(kOpName[x.op]) + (has_modes(x.op) ? std::string(".") + kModeName[x.mode] : "") +
                       (x.op == RSQRT ? ".rn" : "") + (is_testp(x.op) || x.op == COPYSIGN ? "" : ftz) + ".f32";
    bool unary = is_unary(x.op);
    std::string in = unary ? in1(x.a, 32) : x.op == FMA ? in3(x.a, x.b, x.c, 32) : in2(x.a, x.b, 32);
    float e = ref<float>(x.op, x.mode, bitsf((uint32_t)x.a), bitsf((uint32_t)x.b), bitsf((uint32_t)x.c));
    if ((x.op >= LT && x.op <= GE) || is_testp(x.op)) conf.bits(form, in, e != 0 ? 0x3f800000u : 0u, g32[i], 32);
    else conf.f32(form, in, e, g32[i]);
  }
  for (size_t i = 0; i < r64.size(); ++i) {
    const Rec& x = r64[i];
    std::string form = std::string(kOpName[x.op]) + (has_modes(x.op) ? std::string(".") + kModeName[x.mode] : "") + ".f64";
    bool unary = is_unary(x.op);
    std::string in = unary ? in1(x.a, 64) : x.op == FMA ? in3(x.a, x.b, x.c, 64) : in2(x.a, x.b, 64);
    double e = ref<double>(x.op, x.mode, bitsd(x.a), bitsd(x.b), bitsd(x.c));
    if ((x.op >= LT && x.op <= GE) || is_testp(x.op)) conf.bits(form, in, e != 0 ? 0x3ff0000000000000ull : 0u, g64[i], 64);
    else conf.f64(form, in, e, g64[i]);
  }
  cudaFree(d);
  cudaFree(o32);
  cudaFree(o64);
  return conf.finish();
}
