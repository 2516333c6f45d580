// Conformance: f16 and bf16 arithmetic (__hadd/__hsub/__hmul/__hfma/__hdiv,
// __hadd_sat, __hfma_relu, __hmin/__hmax and their .NaN forms, __hneg/__habs)
// scalar and packed (half2/bfloat162, each lane checked). Reference: operands
// decoded exactly to double, the operation evaluated round-to-odd (so the one
// rounding to 16 bits is correct) and rounded by conf.h round_small().
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "conf.h"

enum Op : uint32_t { ADD, SUB, MUL, FMA, DIV, ADD_SAT, FMA_RELU, MIN, MAX, MIN_NAN, MAX_NAN, NEG, ABS, NUM_OPS };
static const char* kOpName[NUM_OPS] = {"add.rn", "sub.rn", "mul.rn", "fma.rn", "div(__hdiv)", "add.rn.sat",
                                       "fma.rn.relu", "min", "max", "min.NaN", "max.NaN", "neg", "abs"};

struct Rec { uint32_t op, fmt; uint32_t a, b, c; };  // fmt: 0 f16, 1 bf16, 2 f16x2, 3 bf16x2

template <class T> __device__ T hop(uint32_t op, T a, T b, T c) {
  switch (op) {
    case ADD: return __hadd(a, b);
    case SUB: return __hsub(a, b);
    case MUL: return __hmul(a, b);
    case FMA: return __hfma(a, b, c);
    case DIV: return __hdiv(a, b);
    case ADD_SAT: return __hadd_sat(a, b);
    case FMA_RELU: return __hfma_relu(a, b, c);
    case MIN: return __hmin(a, b);
    case MAX: return __hmax(a, b);
    case MIN_NAN: return __hmin_nan(a, b);
    case MAX_NAN: return __hmax_nan(a, b);
    case NEG: return __hneg(a);
    default: return __habs(a);
  }
}
template <class T2> __device__ T2 hop2(uint32_t op, T2 a, T2 b, T2 c) {
  switch (op) {
    case ADD: return __hadd2(a, b);
    case SUB: return __hsub2(a, b);
    case MUL: return __hmul2(a, b);
    case FMA: return __hfma2(a, b, c);
    case DIV: return __h2div(a, b);
    case ADD_SAT: return __hadd2_sat(a, b);
    case FMA_RELU: return __hfma2_relu(a, b, c);
    case MIN: return __hmin2(a, b);
    case MAX: return __hmax2(a, b);
    case MIN_NAN: return __hmin2_nan(a, b);
    case MAX_NAN: return __hmax2_nan(a, b);
    case NEG: return __hneg2(a);
    default: return __habs2(a);
  }
}
template <class T> __device__ T as(uint32_t v) { T t; memcpy(&t, &v, sizeof t); return t; }
template <class T> __device__ uint32_t bits(T v) { uint32_t u = 0; memcpy(&u, &v, sizeof v); return u; }

__global__ void run(const Rec* r, uint32_t* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Rec x = r[i];
  uint32_t d;
  switch (x.fmt) {
    case 0: d = bits(hop(x.op, as<__half>(x.a), as<__half>(x.b), as<__half>(x.c))); break;
    case 1: d = bits(hop(x.op, as<__nv_bfloat16>(x.a), as<__nv_bfloat16>(x.b), as<__nv_bfloat16>(x.c))); break;
    case 2: d = bits(hop2(x.op, as<__half2>(x.a), as<__half2>(x.b), as<__half2>(x.c))); break;
    default: d = bits(hop2(x.op, as<__nv_bfloat162>(x.a), as<__nv_bfloat162>(x.b), as<__nv_bfloat162>(x.c))); break;
  }
  out[i] = d;
}

// --- host reference ------------------------------------------------------------
static uint16_t ref(uint32_t op, bool bf, uint16_t ha, uint16_t hb, uint16_t hc, bool& open) {
  int mb = bf ? 7 : 10, eb = bf ? 8 : 5;
  uint16_t canon = bf ? 0x7fff : 0x7fff;  // canonical NaN of both formats (PTX: min/max .NaN)
  double a = small_to_double(ha, mb, eb), b = small_to_double(hb, mb, eb), c = small_to_double(hc, mb, eb);
  volatile double va = a, vb = b, vc = c;
  auto rnd = [&](double v) { return (uint16_t)round_small(v, mb, eb, 0); };
  auto isnan16 = [&](uint16_t h) { return std::isnan(small_to_double(h, mb, eb)); };
  uint16_t sign = 0x8000;
  switch (op) {
    case ADD: return rnd(round_to_odd([&] { return va + vb; }));
    case SUB: return rnd(round_to_odd([&] { return va - vb; }));
    case MUL: return rnd(round_to_odd([&] { return va * vb; }));
    case FMA: return rnd(round_to_odd([&] { return std::fma((double)va, (double)vb, (double)vc); }));
    case DIV: return rnd(round_to_odd([&] { return va / vb; }));
    case ADD_SAT: {  // clamp to [0, 1]; NaN -> +0
      double s = small_to_double(rnd(round_to_odd([&] { return va + vb; })), mb, eb);
      if (std::isnan(s) || s <= 0) return 0;
      return s >= 1 ? rnd(1.0) : rnd(s);
    }
    case FMA_RELU: {  // negative -> +0, NaN -> canonical NaN (PTX fma.relu)
      uint16_t r = rnd(round_to_odd([&] { return std::fma((double)va, (double)vb, (double)vc); }));
      if (isnan16(r)) return canon;
      // "Clamps the result to 0 if negative": whether -0 counts is not
      // stated, so a -0 result is recorded, not checked.
      if (r == sign) open = true;
      return (r & sign) ? 0 : r;
    }
    case MIN: case MAX: case MIN_NAN: case MAX_NAN: {
      bool mx = op == MAX || op == MAX_NAN;
      bool na = isnan16(ha), nb = isnan16(hb);
      if (na || nb) {
        if (op == MIN_NAN || op == MAX_NAN || (na && nb)) return canon;
        return na ? hb : ha;
      }
      if (a == b) return ((ha & sign) != 0) != mx ? ha : hb;  // -0 < +0
      return (a < b) != mx ? ha : hb;
    }
    case NEG: return ha ^ sign;
    default: return ha & 0x7fff;
  }
}

int main(int argc, char** argv) {
  Conf conf("conf_half", argc, argv, {
  });
  const uint16_t h16[] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x3555, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff,
                          0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7d01, 0x3c01, 0x5640, 0xc900, 0x3800, 0x1400};
  const uint16_t b16[] = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x3eab, 0x0001, 0x8001, 0x007f, 0x0080, 0x7f7f,
                          0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x7fa1, 0x3f81, 0x42c8, 0xc120, 0x3f00, 0x0d80};
  const size_t nv = 20;
  std::vector<Rec> recs;
  for (uint32_t op = 0; op < NUM_OPS; ++op)
    for (uint32_t fmt = 0; fmt < 4; ++fmt) {
      const uint16_t* v = (fmt & 1) ? b16 : h16;
      bool three = op == FMA || op == FMA_RELU, unary = op == NEG || op == ABS;
      for (size_t i = 0; i < nv; ++i)
        for (size_t j = 0; j < (unary ? 1 : nv); ++j)
          for (size_t k : {0, 1, 4, 9, 13, 16}) {  // c: 0, -0 and a spread of values
            if (!three && k) break;
            if (fmt < 2) {
              recs.push_back({op, fmt, v[i], v[j], v[k]});
            } else {  // packed: lanes get different operand pairs
              uint32_t a = v[i] | (uint32_t)v[(i + 7) % nv] << 16, b = v[j] | (uint32_t)v[(j + 3) % nv] << 16;
              uint32_t c = v[k] | (uint32_t)v[(k + 5) % nv] << 16;
              recs.push_back({op, fmt, a, b, c});
            }
          }
    }
  int n = (int)recs.size();
  Rec* dr;
  uint32_t* dout;
  CONF_CHECK(cudaMalloc(&dr, n * sizeof(Rec)));
  CONF_CHECK(cudaMalloc(&dout, n * 4));
  CONF_CHECK(cudaMemcpy(dr, recs.data(), n * sizeof(Rec), cudaMemcpyHostToDevice));
  run<<<(n + 127) / 128, 128>>>(dr, dout, n);
  CONF_CHECK(cudaGetLastError());
  std::vector<uint32_t> out(n);
  CONF_CHECK(cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost));
  static const char* kFmt[] = {".f16", ".bf16", ".f16x2", ".bf16x2"};
  for (int i = 0; i < n; ++i) {
    const Rec& x = recs[i];
    bool bf = x.fmt & 1, packed = x.fmt >= 2;
    bool three = x.op == FMA || x.op == FMA_RELU, unary = x.op == NEG || x.op == ABS;
    for (int lane = 0; lane < (packed ? 2 : 1); ++lane) {
      int sh = 16 * lane;
      uint16_t a = x.a >> sh, b = x.b >> sh, c = x.c >> sh, got = (uint16_t)(out[i] >> sh);
      std::string form = std::string(kOpName[x.op]) + kFmt[x.fmt] + (packed ? (lane ? "[hi]" : "[lo]") : "");
      std::string in = unary ? in1(a, 16) : three ? in3(a, b, c, 16) : in2(a, b, 16);
      bool open = false;
      uint16_t want = ref(x.op, bf, a, b, c, open);
      if (open) conf.data(form, in, got, 16);
      else conf.f16(form, in, want, got, bf);
    }
  }
  cudaFree(dr);
  cudaFree(dout);
  return conf.finish();
}
