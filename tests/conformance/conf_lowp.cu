// Conformance (sm_90): fp8 conversions and the operand order of the packed
// conversions. f32 -> e4m3/e5m2 with .satfinite (cvt.rn.satfinite.e4m3x2.f32:
// NaN -> NaN, |x| beyond the largest finite value, infinities included ->
// signed MAX_NORM; e4m3 has no infinity, MAX_NORM 448; e5m2 MAX_NORM 57344),
// e4m3/e5m2 -> f16 (exact), and the lane order of __floats2half2_rn,
// __floats2bfloat162_rn and __float22half2_rn (.x is the low half; the PTX
// cvt.rn.f16x2.f32 d, a, b puts a in the upper half, so nvcc swaps them).
// Reference: an independent bit-level fp8 encoder/decoder.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include "conf.h"

enum Op : uint32_t { F2E4M3, F2E5M2, E4M3_2H, E5M2_2H, F22H2, F22BF2, F2H2_VEC, F2E4M3X2, NUM_OPS };
static const char* kOpName[NUM_OPS] = {"cvt.rn.satfinite.e4m3x2.f32", "cvt.rn.satfinite.e5m2x2.f32",
                                       "cvt.rn.f16x2.e4m3x2", "cvt.rn.f16x2.e5m2x2", "__floats2half2_rn",
                                       "__floats2bfloat162_rn", "__float22half2_rn", "__nv_cvt_float2_to_fp8x2(e4m3)"};
struct Rec { uint32_t op, a, b; };

__global__ void run(const Rec* r, uint32_t* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Rec x = r[i];
  float a = __uint_as_float(x.a), b = __uint_as_float(x.b);
  uint32_t d = 0;
  switch (x.op) {
    case F2E4M3: d = __nv_cvt_float_to_fp8(a, __NV_SATFINITE, __NV_E4M3); break;
    case F2E5M2: d = __nv_cvt_float_to_fp8(a, __NV_SATFINITE, __NV_E5M2); break;
    case E4M3_2H: { __half_raw h = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)x.a, __NV_E4M3); d = h.x; break; }
    case E5M2_2H: { __half_raw h = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)x.a, __NV_E5M2); d = h.x; break; }
    case F22H2: { __half2 h = __floats2half2_rn(a, b); memcpy(&d, &h, 4); break; }
    case F22BF2: { __nv_bfloat162 h = __floats2bfloat162_rn(a, b); memcpy(&d, &h, 4); break; }
    case F2H2_VEC: { __half2 h = __float22half2_rn(make_float2(a, b)); memcpy(&d, &h, 4); break; }
    default: d = __nv_cvt_float2_to_fp8x2(make_float2(a, b), __NV_SATFINITE, __NV_E4M3); break;
  }
  out[i] = d;
}

// --- host reference ------------------------------------------------------------
// Rounds |x| to `mbits` fraction bits, round-to-nearest-even, with the
// subnormal quantum fixed by `emin`; no upper exponent limit.
static double round_prec(double a, int mbits, int emin) {
  if (a == 0) return 0;
  int e;
  std::frexp(a, &e);
  int q = std::max(e - 1, emin) - mbits;
  return std::ldexp(std::nearbyint(std::ldexp(a, -q)), q);  // host default mode is rn
}
// fp8 with `ebits`/`mbits`, bias = 2^(ebits-1)-1, .satfinite, canonical NaN 0x7f.
static uint32_t to_fp8(float x, bool e4m3) {
  int mbits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  double maxn = e4m3 ? 448.0 : 57344.0;
  uint32_t s = std::signbit(x) ? 0x80u : 0u;
  if (std::isnan(x)) return 0x7f;
  double v = std::isinf(x) ? maxn : round_prec(std::fabs((double)x), mbits, 1 - bias);
  if (v > maxn) v = maxn;
  if (v == 0) return s;
  int e;
  std::frexp(v, &e);
  int exp = e - 1;
  if (exp < 1 - bias) return s | (uint32_t)std::ldexp(v, bias - 1 + mbits);  // subnormal
  uint32_t frac = (uint32_t)(std::ldexp(v, mbits - exp) - std::ldexp(1.0, mbits));
  return s | (uint32_t)(exp + bias) << mbits | frac;
}
static double from_fp8(uint32_t b, bool e4m3) {
  int mbits = e4m3 ? 3 : 2, ebits = e4m3 ? 4 : 5, bias = e4m3 ? 7 : 15;
  bool neg = b & 0x80;
  uint32_t e = (b >> mbits) & ((1u << ebits) - 1), f = b & ((1u << mbits) - 1);
  double v;
  if (e4m3 && e == 15 && f == 7) v = NAN;
  else if (!e4m3 && e == 31) v = f ? NAN : INFINITY;
  else if (e == 0) v = std::ldexp((double)f, 1 - bias - mbits);
  else v = std::ldexp((double)(f | (1u << mbits)), (int)e - bias - mbits);
  return neg ? -v : v;
}

int main(int argc, char** argv) {
  Conf conf("conf_lowp", argc, argv, {
  });
  const uint32_t f[] = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x43e00000 /*448*/, 0x43e80000 /*464*/,
                        0x43e7ffff, 0x43f00000 /*480*/, 0x44000000, 0x7f800000, 0xff800000, 0x7fc00000,
                        0x3b000000 /*2^-9*/, 0x3a800000 /*2^-10: tie to 0*/, 0x3a800001, 0x3c000000 /*2^-7*/,
                        0x3f880000 /*1.0625: tie*/, 0x3f980000 /*1.1875: tie*/, 0x47600000 /*57344*/,
                        0x47700000 /*61440*/, 0x476fffff, 0x37800000 /*2^-16*/, 0x37000000, 0x37000001,
                        0x3fa00000, 0xc2c80000, 0x00000001, 0x7f7fffff, 0x3eaaaaab, 0x41300000};
  std::vector<Rec> recs;
  for (uint32_t a : f) {
    recs.push_back({F2E4M3, a, 0});
    recs.push_back({F2E5M2, a, 0});
  }
  for (uint32_t b = 0; b < 256; ++b) {
    recs.push_back({E4M3_2H, b, 0});
    recs.push_back({E5M2_2H, b, 0});
  }
  const uint32_t pairs[][2] = {{0x3f800000, 0x40000000}, {0xc0400000, 0x3e800000}, {0x7f800000, 0x00000000},
                               {0x3dcccccd, 0x477fe000}, {0x33000001, 0x80000000}};
  for (auto& p : pairs)
    for (uint32_t op : {F22H2, F22BF2, F2H2_VEC, F2E4M3X2}) recs.push_back({op, p[0], p[1]});

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
  for (int i = 0; i < n; ++i) {
    const Rec& x = recs[i];
    uint32_t got = out[i];
    float a = bitsf(x.a), b = bitsf(x.b);
    switch (x.op) {
      case F2E4M3: case F2E5M2: {
        uint32_t want = to_fp8(a, x.op == F2E4M3);
        // A NaN source: any fp8 NaN passes (e4m3 S.1111.111; e5m2 S.11111.xx, xx != 0).
        bool nan_ok = std::isnan(a) && (x.op == F2E4M3 ? (got & 0x7f) == 0x7f : (got & 0x7c) == 0x7c && (got & 3));
        if (nan_ok) conf.bound(kOpName[x.op], in1(x.a, 32), true, "NaN", Conf::hex(got & 0xff, 8));
        else conf.bits(kOpName[x.op], in1(x.a, 32), want, got & 0xff, 8);
        break;
      }
      case E4M3_2H: case E5M2_2H: {
        double v = from_fp8(x.a, x.op == E4M3_2H);
        conf.f16(kOpName[x.op], in1(x.a, 8), (uint16_t)round_small(v, 10, 5, 0), (uint16_t)got, false);
        break;
      }
      case F22H2: case F2H2_VEC: case F22BF2: {
        bool bf = x.op == F22BF2;
        int mb = bf ? 7 : 10, eb = bf ? 8 : 5;
        uint32_t want = round_small(a, mb, eb, 0) | round_small(b, mb, eb, 0) << 16;  // .x low, .y high
        conf.bits(kOpName[x.op], in2(x.a, x.b, 32), want, got, 32);
        break;
      }
      default: {
        uint32_t want = to_fp8(a, true) | to_fp8(b, true) << 8;  // .x in the low byte
        conf.bits(kOpName[x.op], in2(x.a, x.b, 32), want, got & 0xffff, 16);
        break;
      }
    }
  }
  cudaFree(dr);
  cudaFree(dout);
  return conf.finish();
}
