// Conformance: conversions (cvt) in every rounding mode: float -> integer
// (NaN -> 0, +-inf and out-of-range saturate, per the PTX ISA cvt rules),
// integer -> float, f64 -> f32, f32/f64 -> f16, f32 -> bf16, f16/bf16 -> f32,
// float rounding to integral values, __saturatef and saturating integer
// narrowing. Reference: host nearbyint()/casts under fesetround() and an
// independent bit-level rounder for the 16-bit formats (conf.h round_small).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "conf.h"

enum Op : uint32_t {
  F2I, F2UI = F2I + 4, F2LL = F2UI + 4, F2ULL = F2LL + 4, D2I = F2ULL + 4, D2UI = D2I + 4, D2LL = D2UI + 4,
  D2ULL = D2LL + 4, I2F = D2ULL + 4, UI2F = I2F + 4, LL2F = UI2F + 4, ULL2D = LL2F + 4, LL2D = ULL2D + 4,
  D2F = LL2D + 4, F2H = D2F + 4, F2BF = F2H + 4, F2INTEGRAL = F2BF + 4, D2INTEGRAL = F2INTEGRAL + 4,
  D2H = D2INTEGRAL + 4, H2F, BF2F, SATF, SAT_S8_S32, SAT_U8_S32, SAT_S16_U32, SAT_U32_S32, SAT_S32_S64,
  SAT_U16_S64, NUM_OPS
};
// Forms with four rounding modes occupy op..op+3 (rn, rz, ru, rd).
struct Family { uint32_t base; const char* form; int in_w, out_w; char in_kind, out_kind; };
// kinds: f=f32 d=f64 h=f16 b=bf16 i=s32 u=u32 l=s64 q=u64
static const Family kFam[] = {
  {F2I, "cvt.%si.s32.f32", 32, 32, 'f', 'i'}, {F2UI, "cvt.%si.u32.f32", 32, 32, 'f', 'u'},
  {F2LL, "cvt.%si.s64.f32", 32, 64, 'f', 'l'}, {F2ULL, "cvt.%si.u64.f32", 32, 64, 'f', 'q'},
  {D2I, "cvt.%si.s32.f64", 64, 32, 'd', 'i'}, {D2UI, "cvt.%si.u32.f64", 64, 32, 'd', 'u'},
  {D2LL, "cvt.%si.s64.f64", 64, 64, 'd', 'l'}, {D2ULL, "cvt.%si.u64.f64", 64, 64, 'd', 'q'},
  {I2F, "cvt.%s.f32.s32", 32, 32, 'i', 'f'}, {UI2F, "cvt.%s.f32.u32", 32, 32, 'u', 'f'},
  {LL2F, "cvt.%s.f32.s64", 64, 32, 'l', 'f'}, {ULL2D, "cvt.%s.f64.u64", 64, 64, 'q', 'd'},
  {LL2D, "cvt.%s.f64.s64", 64, 64, 'l', 'd'}, {D2F, "cvt.%s.f32.f64", 64, 32, 'd', 'f'},
  {F2H, "cvt.%s.f16.f32", 32, 16, 'f', 'h'}, {F2BF, "cvt.%s.bf16.f32", 32, 16, 'f', 'b'},
  {F2INTEGRAL, "cvt.%si.f32.f32", 32, 32, 'f', 'f'}, {D2INTEGRAL, "cvt.%si.f64.f64", 64, 64, 'd', 'd'},
};

struct Rec { uint32_t op; uint64_t a; };

// Float -> integer in four modes; `cast` keeps the result's bits.
#define M4(base, cast, fn, a)                        \
  case base: r = cast fn##_rn(a); break;             \
  case base + 1: r = cast fn##_rz(a); break;         \
  case base + 2: r = cast fn##_ru(a); break;         \
  case base + 3: r = cast fn##_rd(a); break;

template <class T> __device__ uint64_t bits_of(T v) { uint64_t u = 0; memcpy(&u, &v, sizeof v); return u; }

__global__ void run(const Rec* recs, uint64_t* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Rec x = recs[i];
  float f = __uint_as_float((uint32_t)x.a);
  double d = __longlong_as_double((long long)x.a);
  uint32_t u = (uint32_t)x.a;
  uint64_t q = x.a;
  uint64_t r = 0;
  switch (x.op) {
    M4(F2I, (uint32_t), __float2int, f)
    M4(F2UI, , __float2uint, f)
    M4(F2LL, (uint64_t), __float2ll, f)
    M4(F2ULL, , __float2ull, f)
    M4(D2I, (uint32_t), __double2int, d)
    M4(D2UI, , __double2uint, d)
    M4(D2LL, (uint64_t), __double2ll, d)
    M4(D2ULL, , __double2ull, d)
    default: break;
  }
  switch (x.op) {
    case I2F: r = bits_of(__int2float_rn((int)u)); break;
    case I2F + 1: r = bits_of(__int2float_rz((int)u)); break;
    case I2F + 2: r = bits_of(__int2float_ru((int)u)); break;
    case I2F + 3: r = bits_of(__int2float_rd((int)u)); break;
    case UI2F: r = bits_of(__uint2float_rn(u)); break;
    case UI2F + 1: r = bits_of(__uint2float_rz(u)); break;
    case UI2F + 2: r = bits_of(__uint2float_ru(u)); break;
    case UI2F + 3: r = bits_of(__uint2float_rd(u)); break;
    case LL2F: r = bits_of(__ll2float_rn((long long)q)); break;
    case LL2F + 1: r = bits_of(__ll2float_rz((long long)q)); break;
    case LL2F + 2: r = bits_of(__ll2float_ru((long long)q)); break;
    case LL2F + 3: r = bits_of(__ll2float_rd((long long)q)); break;
    case ULL2D: r = bits_of(__ull2double_rn(q)); break;
    case ULL2D + 1: r = bits_of(__ull2double_rz(q)); break;
    case ULL2D + 2: r = bits_of(__ull2double_ru(q)); break;
    case ULL2D + 3: r = bits_of(__ull2double_rd(q)); break;
    case LL2D: r = bits_of(__ll2double_rn((long long)q)); break;
    case LL2D + 1: r = bits_of(__ll2double_rz((long long)q)); break;
    case LL2D + 2: r = bits_of(__ll2double_ru((long long)q)); break;
    case LL2D + 3: r = bits_of(__ll2double_rd((long long)q)); break;
    case D2F: r = bits_of(__double2float_rn(d)); break;
    case D2F + 1: r = bits_of(__double2float_rz(d)); break;
    case D2F + 2: r = bits_of(__double2float_ru(d)); break;
    case D2F + 3: r = bits_of(__double2float_rd(d)); break;
    case F2H: r = __half_as_ushort(__float2half_rn(f)); break;
    case F2H + 1: r = __half_as_ushort(__float2half_rz(f)); break;
    case F2H + 2: r = __half_as_ushort(__float2half_ru(f)); break;
    case F2H + 3: r = __half_as_ushort(__float2half_rd(f)); break;
    case F2BF: r = __bfloat16_as_ushort(__float2bfloat16_rn(f)); break;
    case F2BF + 1: r = __bfloat16_as_ushort(__float2bfloat16_rz(f)); break;
    case F2BF + 2: r = __bfloat16_as_ushort(__float2bfloat16_ru(f)); break;
    case F2BF + 3: r = __bfloat16_as_ushort(__float2bfloat16_rd(f)); break;
    case F2INTEGRAL: r = bits_of(rintf(f)); break;
    case F2INTEGRAL + 1: r = bits_of(truncf(f)); break;
    case F2INTEGRAL + 2: r = bits_of(ceilf(f)); break;
    case F2INTEGRAL + 3: r = bits_of(floorf(f)); break;
    case D2INTEGRAL: r = bits_of(rint(d)); break;
    case D2INTEGRAL + 1: r = bits_of(trunc(d)); break;
    case D2INTEGRAL + 2: r = bits_of(ceil(d)); break;
    case D2INTEGRAL + 3: r = bits_of(floor(d)); break;
    case D2H: r = __half_as_ushort(__double2half(d)); break;
    case H2F: r = bits_of(__half2float(__ushort_as_half((unsigned short)u))); break;
    case BF2F: r = bits_of(__bfloat162float(__ushort_as_bfloat16((unsigned short)u))); break;
    case SATF: r = bits_of(__saturatef(f)); break;
    case SAT_S8_S32: { uint32_t t; asm("cvt.sat.s8.s32 %0, %1;" : "=r"(t) : "r"(u)); r = t; break; }
    case SAT_U8_S32: { uint32_t t; asm("cvt.sat.u8.s32 %0, %1;" : "=r"(t) : "r"(u)); r = t; break; }
    case SAT_S16_U32: { uint32_t t; asm("cvt.sat.s16.u32 %0, %1;" : "=r"(t) : "r"(u)); r = t; break; }
    case SAT_U32_S32: { uint32_t t; asm("cvt.sat.u32.s32 %0, %1;" : "=r"(t) : "r"(u)); r = t; break; }
    case SAT_S32_S64: { uint32_t t; asm("cvt.sat.s32.s64 %0, %1;" : "=r"(t) : "l"(q)); r = t; break; }
    case SAT_U16_S64: { unsigned short t; asm("cvt.sat.u16.s64 %0, %1;" : "=h"(t) : "l"(q)); r = t; break; }
  }
  out[i] = r;
}

// --- host reference ------------------------------------------------------------
// Float -> integer: round in `mode`, NaN -> 0, saturate to the range (PTX cvt).
static uint64_t f2int(long double v, int mode, char kind) {
  if (std::isnan(v)) return 0;
  std::fesetround(kFeModes[mode]);
  long double r = std::nearbyintl(v);
  std::fesetround(FE_TONEAREST);
  long double lo, hi;
  switch (kind) {
    case 'i': lo = -2147483648.0L; hi = 2147483647.0L; break;
    case 'u': lo = 0; hi = 4294967295.0L; break;
    case 'l': lo = -9223372036854775808.0L; hi = 9223372036854775807.0L; break;
    default: lo = 0; hi = 18446744073709551615.0L; break;
  }
  if (r <= lo) r = lo;
  if (r >= hi) r = hi;
  switch (kind) {
    case 'i': return (uint32_t)(int32_t)r;
    case 'u': return (uint32_t)r;
    case 'l': return (uint64_t)(int64_t)r;
    default: return (uint64_t)r;
  }
}
static int64_t sx(uint64_t v, int w) { return w == 32 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v; }
static uint64_t clampi(int64_t v, int64_t lo, int64_t hi) { return (uint64_t)(v < lo ? lo : v > hi ? hi : v); }

// Returns the expected bits; `kind` tells the checker how to compare.
static uint64_t ref(uint32_t op, uint64_t a, char& kind, int& w) {
  for (const Family& f : kFam) {
    if (op < f.base || op >= f.base + 4) continue;
    int m = (int)(op - f.base);
    kind = f.out_kind;
    w = f.out_w;
    float fa = bitsf((uint32_t)a);
    double da = bitsd(a);
    if (f.in_kind == 'f' || f.in_kind == 'd') {
      long double v = f.in_kind == 'f' ? (long double)fa : (long double)da;
      if (f.out_kind == 'h') return round_small((double)v, 10, 5, m);
      if (f.out_kind == 'b') return round_small((double)v, 7, 8, m);
      if (f.out_kind == 'f' && f.in_kind == 'f') {  // round to integral, stays float
        std::fesetround(kFeModes[m]); volatile float r = std::nearbyintf(fa); std::fesetround(FE_TONEAREST);
        return fbits(r);
      }
      if (f.out_kind == 'd' && f.in_kind == 'd') {
        std::fesetround(kFeModes[m]); volatile double r = std::nearbyint(da); std::fesetround(FE_TONEAREST);
        return dbits(r);
      }
      if (f.out_kind == 'f') {  // f64 -> f32
        volatile double vd = da;
        std::fesetround(kFeModes[m]); volatile float r = (float)vd; std::fesetround(FE_TONEAREST);
        return fbits(r);
      }
      return f2int(v, m, f.out_kind);
    }
    // integer -> float
    volatile int64_t s = sx(a, f.in_w);
    volatile uint64_t uq = a;
    volatile uint32_t u32 = (uint32_t)a;
    std::fesetround(kFeModes[m]);
    uint64_t r;
    switch (op - m) {
      case I2F: { volatile float t = (float)(int32_t)s; r = fbits(t); break; }
      case UI2F: { volatile float t = (float)u32; r = fbits(t); break; }
      case LL2F: { volatile float t = (float)s; r = fbits(t); break; }
      case ULL2D: { volatile double t = (double)uq; r = dbits(t); break; }
      default: { volatile double t = (double)s; r = dbits(t); break; }
    }
    std::fesetround(FE_TONEAREST);
    return r;
  }
  w = 32;
  kind = 'u';
  int32_t s = (int32_t)(uint32_t)a;
  switch (op) {
    case D2H: kind = 'h'; w = 16; return round_small(bitsd(a), 10, 5, 0);
    case H2F: kind = 'f'; return fbits((float)small_to_double((uint32_t)a & 0xffff, 10, 5));
    case BF2F: kind = 'f'; return fbits((float)small_to_double((uint32_t)a & 0xffff, 7, 8));
    case SATF: {  // clamp to [0, 1]; NaN -> +0 (PTX cvt .sat)
      kind = 'f';
      float f = bitsf((uint32_t)a);
      return fbits(std::isnan(f) ? 0.0f : f < 0 ? 0.0f : f > 1 ? 1.0f : f + 0.0f);
    }
    // Narrowing .sat results are sign-/zero-extended into the 32-bit register
    // by the cvt's destination type.
    case SAT_S8_S32: return (uint32_t)(int32_t)(int64_t)clampi(s, -128, 127);
    case SAT_U8_S32: return clampi(s, 0, 255);
    case SAT_S16_U32: return (uint32_t)(int32_t)(int64_t)clampi((int64_t)(uint32_t)a, -32768, 32767);
    case SAT_U32_S32: return clampi(s, 0, UINT32_MAX);
    case SAT_S32_S64: return (uint32_t)(int32_t)(int64_t)clampi((int64_t)a, INT32_MIN, INT32_MAX);
    case SAT_U16_S64: w = 16; return clampi((int64_t)a, 0, 65535);
  }
  return 0;
}

int main(int argc, char** argv) {
  Conf conf("conf_convert", argc, argv, {
  });
  const uint32_t f32s[] = {0x00000000, 0x80000000, 0x3f000000, 0xbf000000, 0x3fc00000, 0xbfc00000, 0x40200000,
                           0xc0200000, 0x3f7fffff, 0x3f800001, 0x4effffff, 0x4f000000, 0xcf000000, 0xcf000001,
                           0x4f800000, 0x5effffff, 0x5f000000, 0xdf000000, 0x5f800000, 0x7f7fffff, 0xff7fffff,
                           0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7fa00000, 0x00000001, 0x80000001,
                           0x007fffff, 0x00800000, 0x477fe000, 0x477ff000, 0x477fefff, 0x47800000, 0x38800000,
                           0x387fc000, 0x33800000, 0x33000000, 0x33000001, 0x32ffffff, 0x3f801000, 0x3f801001,
                           0x3f808000, 0x3f818000, 0x4b7fffff, 0xc1c80000, 0x40490fdb, 0x7f7f8000, 0x7f7f7fff};
  const uint64_t f64s[] = {0x0ull, 0x8000000000000000ull, 0x3fe0000000000000ull, 0xbfe0000000000000ull,
                           0x3ff8000000000000ull, 0xc004000000000000ull, 0x41dfffffffc00000ull,
                           0x41dfffffffe00000ull, 0x41e0000000000000ull, 0xc1e0000000000000ull,
                           0xc1e0000000200000ull, 0x41efffffffe00000ull, 0x41f0000000000000ull,
                           0x43dfffffffffffffull, 0x43e0000000000000ull, 0xc3e0000000000000ull,
                           0x43f0000000000000ull, 0x7fefffffffffffffull, 0x7ff0000000000000ull,
                           0xfff0000000000000ull, 0x7ff8000000000000ull, 0x7ff4000000000001ull,
                           0x0000000000000001ull, 0x3690000000000000ull, 0x36a0000000000001ull,
                           0x47efffffe0000000ull, 0x47efffffefffffffull, 0x47effffff0000000ull,
                           0x3ff0000010000000ull, 0x3ff0000010000001ull, 0x40effc0000000000ull,
                           0x3e70000000000000ull, 0x400921fb54442d18ull, 0x3fefffffffffffffull};
  const uint64_t ints[] = {0ull, 1ull, 0x7fffffffull, 0x80000000ull, 0xffffffffull, 0x00ffffffull, 0x01000001ull,
                           0x01000003ull, 0x7fffffc0ull, 0x7fffffbfull, 0xffffff81ull, 0x00000100ull,
                           0x7fffffffffffffffull, 0x8000000000000000ull, 0xffffffffffffffffull,
                           0x0020000000000001ull, 0x0020000000000003ull, 0xfff0000000000001ull,
                           0x8000000000000401ull, 0xfffffffffffff800ull, 0x0000000100000000ull,
                           0xffffffff7fffffffull, 0xffffffffffff8000ull, 0x000000000000ff80ull};
  std::vector<Rec> recs;
  for (const Family& f : kFam)
    for (uint32_t m = 0; m < 4; ++m) {
      if (f.in_kind == 'f') for (uint32_t v : f32s) recs.push_back({f.base + m, v});
      else if (f.in_kind == 'd') for (uint64_t v : f64s) recs.push_back({f.base + m, v});
      else for (uint64_t v : ints) recs.push_back({f.base + m, v});
    }
  for (uint64_t v : f64s) recs.push_back({D2H, v});
  for (uint32_t h : {0x0000u, 0x8000u, 0x0001u, 0x03ffu, 0x0400u, 0x3c00u, 0x7bffu, 0xfbffu, 0x7c00u, 0xfc00u,
                     0x7e00u, 0x7d01u, 0xfe7fu, 0x3555u}) {
    recs.push_back({H2F, h});
    recs.push_back({BF2F, h});
  }
  for (uint32_t v : f32s) recs.push_back({SATF, v});
  for (uint32_t op = SAT_S8_S32; op < NUM_OPS; ++op)
    for (uint64_t v : ints) recs.push_back({op, v});

  int n = (int)recs.size();
  Rec* dr;
  uint64_t* dout;
  CONF_CHECK(cudaMalloc(&dr, n * sizeof(Rec)));
  CONF_CHECK(cudaMalloc(&dout, n * 8));
  CONF_CHECK(cudaMemcpy(dr, recs.data(), n * sizeof(Rec), cudaMemcpyHostToDevice));
  run<<<(n + 127) / 128, 128>>>(dr, dout, n);
  CONF_CHECK(cudaGetLastError());
  std::vector<uint64_t> out(n);
  CONF_CHECK(cudaMemcpy(out.data(), dout, n * 8, cudaMemcpyDeviceToHost));

  for (int i = 0; i < n; ++i) {
    const Rec& x = recs[i];
    char kind;
    int w;
    uint64_t e = ref(x.op, x.a, kind, w);
    char form[64];
    int in_w = 64;
    const char* fam = nullptr;
    for (const Family& f : kFam)
      if (x.op >= f.base && x.op < f.base + 4) {
        std::snprintf(form, sizeof form, f.form, kModeName[x.op - f.base]);
        fam = f.form;
        in_w = f.in_w;
      }
    if (!fam) {
      static const char* names[] = {"cvt.rn.f16.f64", "cvt.f32.f16", "cvt.f32.bf16", "cvt.sat.f32.f32",
                                    "cvt.sat.s8.s32", "cvt.sat.u8.s32", "cvt.sat.s16.u32", "cvt.sat.u32.s32",
                                    "cvt.sat.s32.s64", "cvt.sat.u16.s64"};
      std::snprintf(form, sizeof form, "%s", names[x.op - D2H]);
      in_w = (x.op == D2H || x.op == SAT_S32_S64 || x.op == SAT_U16_S64) ? 64 : (x.op == H2F || x.op == BF2F) ? 16 : 32;
    }
    std::string in = in1(in_w == 64 ? x.a : in_w == 16 ? (x.a & 0xffff) : (x.a & 0xffffffff), in_w);
    if (kind == 'f') conf.f32(form, in, bitsf((uint32_t)e), (uint32_t)out[i]);
    else if (kind == 'd') conf.f64(form, in, bitsd(e), out[i]);
    else if (kind == 'h' || kind == 'b') conf.f16(form, in, (uint16_t)e, (uint16_t)out[i], kind == 'b');
    else conf.bits(form, in, e, w == 64 ? out[i] : out[i] & (w == 16 ? 0xffff : 0xffffffffull), w);
  }
  cudaFree(dr);
  cudaFree(dout);
  return conf.finish();
}
