// The wgmma test machinery shared by hopper/wgmma_gemm.cu and the
// conformance corpus (tests/conformance/conf_wgmma.cu): the shared-memory
// layouts, the kernels, the host reference and fragment layouts.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <climits>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>
#include "wgmma_asm.cuh"

// A runtime call that must succeed (else the enclosing function returns 1).
#define WG_CHECK(call)                                                                                   \
  do {                                                                                                   \
    cudaError_t e_ = (call);                                                                             \
    if (e_ != cudaSuccess) {                                                                             \
      std::printf("FAIL %s:%d: %s returned %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_));      \
      return 1;                                                                                          \
    }                                                                                                    \
  } while (0)

enum Kind { F16, BF16, TF32, E4M3, E5M2, S8, U8, F32, S32 };
static int bytes_of(Kind k) { return k == F16 || k == BF16 ? 2 : k == TF32 || k == F32 || k == S32 ? 4 : 1; }

// A shared-memory tile of MN rows x KT elements (e bytes each).
// mn_major: MN-major (imm-trans 1); swz: 0, 32, 64, 128; alt: which of the
// two natural arrangements of core matrices (no swizzle only).
// shift: the tile starts this many bytes (a multiple of 128) after a
// 1024-byte boundary, so a swizzle pattern may start off its alignment and
// the descriptor carries a base offset.
struct Lay {
  int mn_major, swz, alt, mn, kt, e;
  int shift = 0;
};

__host__ __device__ static uint32_t lbo(Lay l) {
  if (l.swz == 0) {
    if (!l.mn_major) return l.alt ? 128 * (l.mn / 8) : 128;
    return l.alt ? 128 : 128 * (l.mn * l.e / 16);
  }
  return l.mn_major ? 8 * l.swz * (l.kt / 8) : 16;  // K-major swizzled: unused
}
__host__ __device__ static uint32_t sbo(Lay l) {
  if (l.swz == 0) {
    if (!l.mn_major) return l.alt ? 128 : 128 * (l.kt * l.e / 16);
    return l.alt ? 128 * (l.kt / 8) : 128;
  }
  return 8 * l.swz;
}
// Byte offset of element (mn, k) from the tile's start, before the swizzle.
__host__ __device__ static uint32_t tile_off(Lay l, int mn, int k) {
  const uint32_t W = l.swz, L = lbo(l), S = sbo(l);
  if (!l.mn_major) {
    const uint32_t kb = k * l.e;
    if (!W) return (mn % 8) * 16 + kb % 16 + (mn / 8) * S + (kb / 16) * L;
    return (mn % 8) * W + (mn / 8) * S + kb % W + (kb / W) * (l.mn * W);
  }
  const uint32_t mb = mn * l.e;
  if (!W) return mb % 16 + (mb / 16) * S + (k % 8) * 16 + (k / 8) * L;
  return mb % W + (mb / W) * L + (k % 8) * W + (k / 8) * S;
}
// Where k-step s (32 bytes of K) starts.
__host__ __device__ static uint32_t step_off(Lay l, int s) {
  if (!l.mn_major) {
    if (!l.swz) return 2 * s * lbo(l);
    return (32 * s) % l.swz + (32 * s) / l.swz * (l.mn * l.swz);
  }
  return 2 * s * (l.swz ? sbo(l) : lbo(l));  // 16 k = two groups of 8 rows
}
// Bytes the tile spans (a swizzled one whole rows of W bytes).
__host__ __device__ static uint32_t tile_bytes(Lay l) {
  const uint32_t W = l.swz, ext = l.mn_major ? l.mn * l.e : l.kt * l.e;
  return W ? (ext + W - 1) / W * W * (l.mn_major ? l.kt : l.mn) : l.mn * l.kt * l.e;
}
// The ISA's swizzle: 16-byte units of a row XORed with the row's place in
// the pattern, which starts at `start` (the tile's first byte).
__device__ static uint32_t swizzle(uint32_t addr, int w, uint32_t start) {
  const uint32_t mask = w == 128 ? 7 : w == 64 ? 3 : w == 32 ? 1 : 0;
  return addr ^ ((((addr - start) >> 7) & mask) << 4);
}
// The descriptor of a k-step at addr of a tile starting at `start`; the base
// offset as the ISA gives it: 0 when the pattern starts at a multiple of its
// size (8 rows of W bytes), else (start >> 7) & 7.
__device__ static uint64_t make_desc(uint32_t addr, Lay l, uint32_t start) {
  const uint64_t mode = l.swz == 128 ? 1 : l.swz == 64 ? 2 : l.swz == 32 ? 3 : 0;
  const uint64_t base = l.swz && start % (8 * l.swz) ? (start >> 7) & 7 : 0;
  return uint64_t((addr & 0x3ffff) >> 4) | uint64_t(lbo(l) >> 4) << 16 | uint64_t(sbo(l) >> 4) << 32 | base << 49 |
         mode << 62;
}
// Shared memory a tile takes, with its shift, in whole KB.
__host__ __device__ static uint32_t tile_kb(Lay l) { return (tile_bytes(l) + l.shift + 1023) & ~1023u; }

// Writes the A and B tiles (threads t = 0..nt-1 of the block) and, from a
// lane elect.sync picks in the first warp, the descriptor table. Returns it.
__device__ static uint64_t* stage(const uint8_t* A, const uint8_t* B, Lay la, Lay lb, int ksteps, int* elected,
                                  int t, int nt) {
  extern __shared__ uint8_t smem_raw[];
  const uint32_t raw = uint32_t(__cvta_generic_to_shared(smem_raw));
  const uint32_t base = (raw + 1023) & ~1023u;
  const uint32_t a_bytes = tile_kb(la), b_bytes = tile_kb(lb);
  const uint32_t a_at = base + la.shift, b_at = base + a_bytes + lb.shift;
  uint64_t* tab = reinterpret_cast<uint64_t*>(smem_raw + (base + a_bytes + b_bytes - raw));
  for (int i = t; i < 64 * la.kt; i += nt)
    memcpy(smem_raw + (swizzle(a_at + tile_off(la, i / la.kt, i % la.kt), la.swz, a_at) - raw), A + i * la.e, la.e);
  for (int i = t; i < lb.mn * lb.kt; i += nt)
    memcpy(smem_raw + (swizzle(b_at + tile_off(lb, i / lb.kt, i % lb.kt), lb.swz, b_at) - raw), B + i * lb.e, lb.e);
  if (t < 32) {
    uint32_t lane, leader;
    asm volatile("{\n.reg .pred p;\nelect.sync %0|p, 0xffffffff;\nselp.u32 %1, 1, 0, p;\n}"
                 : "=r"(lane), "=r"(leader));
    if (leader) {
      for (int s = 0; s < ksteps; ++s) {
        tab[2 * s] = make_desc(a_at + step_off(la, s), la, a_at);
        tab[2 * s + 1] = make_desc(b_at + step_off(lb, s), lb, b_at);
      }
      elected[0] = int(lane);
      atomicAdd(&elected[1], 1);
    }
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic-proxy writes, seen by wgmma
  return tab;
}

template <class Op, int SA, int SB, int TA, int TB>
__global__ void wg_gemm(const uint8_t* A, const uint8_t* B, uint32_t* D, const uint32_t* afrag, Lay la, Lay lb,
                        int ksteps, int scale_d, int* elected) {
  const int tid = threadIdx.x;
  uint64_t* tab = stage(A, B, la, lb, ksteps, elected, tid, blockDim.x);
  __syncthreads();
  Op::template run<SA, SB, TA, TB>(D + tid * Op::kRegs, tab, ksteps, scale_d, afrag + tid * 4 * ksteps);
}

// Warp-specialized, as Hopper GEMMs are written: warpgroup 0 (the producer)
// gives up registers and stages the tiles, warpgroup 1 (warps 4-7, the
// consumer) takes registers and multiplies once a named barrier says the
// tiles are there.
template <class Op, int SA, int SB, int TA, int TB>
__global__ void __launch_bounds__(256, 1) ws_gemm(const uint8_t* A, const uint8_t* B, uint32_t* D,
                                                  const uint32_t* afrag, Lay la, Lay lb, int ksteps, int scale_d,
                                                  int* elected) {
  const int tid = threadIdx.x;
  if (tid < 128) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    stage(A, B, la, lb, ksteps, elected, tid, 128);
    asm volatile("bar.arrive 1, 256;" ::: "memory");
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  asm volatile("bar.sync 1, 256;" ::: "memory");
  extern __shared__ uint8_t smem_raw[];
  const uint32_t raw = uint32_t(__cvta_generic_to_shared(smem_raw)), base = (raw + 1023) & ~1023u;
  uint64_t* tab = reinterpret_cast<uint64_t*>(
      smem_raw + (base + tile_kb(la) + tile_kb(lb) - raw));
  const int t = tid - 128;
  Op::template run<SA, SB, TA, TB>(D + t * Op::kRegs, tab, ksteps, scale_d, afrag + t * 4 * ksteps);
}

// ---- host: values, the CPU reference, the fragment layouts ----
static uint32_t encode(Kind k, double v) {
  switch (k) {
    case F16: { __half h = __float2half(float(v)); uint16_t b; memcpy(&b, &h, 2); return b; }
    case BF16: { __nv_bfloat16 h = __float2bfloat16(float(v)); uint16_t b; memcpy(&b, &h, 2); return b; }
    case TF32: case F32: { float f = float(v); uint32_t b; memcpy(&b, &f, 4); return b; }
    case E4M3: return __nv_fp8_e4m3(float(v)).__x;
    case E5M2: return __nv_fp8_e5m2(float(v)).__x;
    case S8: case U8: return uint8_t(int(v));
    case S32: return uint32_t(int32_t(int64_t(v)));
  }
  return 0;
}
static bool is_int(Kind k) { return k == S8 || k == U8; }
// The value an encoded multiplicand stands for.
static double decode_in(Kind k, uint32_t b) {
  switch (k) {
    case F16: { __half h; uint16_t x = uint16_t(b); memcpy(&h, &x, 2); return __half2float(h); }
    case BF16: { __nv_bfloat16 h; uint16_t x = uint16_t(b); memcpy(&h, &x, 2); return __bfloat162float(h); }
    case TF32: case F32: { float f; memcpy(&f, &b, 4); return f; }
    case E4M3: { __nv_fp8_e4m3 x; x.__x = uint8_t(b); return float(x); }
    case E5M2: { __nv_fp8_e5m2 x; x.__x = uint8_t(b); return float(x); }
    default: return 0;
  }
}
static double decode(Kind k, uint32_t b) {
  if (k == F32) { float f; memcpy(&f, &b, 4); return f; }
  if (k == F16) { __half h; uint16_t x = uint16_t(b); memcpy(&h, &x, 2); return __half2float(h); }
  return int32_t(b);
}
static uint32_t hash(uint32_t x) { x = x * 2654435761u + 12345; return x ^ (x >> 13); }
// Small values exact in every type: multiples of 1/2 in [-2, 2], or integers;
// `big`: integers over their whole range, floats of every magnitude in
// [-8, 8] that the type holds (sums that round).
static double value(Kind k, uint32_t i, bool big) {
  const uint32_t h = hash(i) >> 8;
  if (big && !is_int(k)) return decode_in(k, encode(k, (int(h % 16001) - 8000) / 1000.0));
  if (k == U8) return big ? h % 256 : h % 9;
  if (k == S8) return big ? int(h % 256) - 128 : int(h % 9) - 4;
  return (int(h % 9) - 4) * 0.5;
}

struct Case {
  const char* name;
  Kind d, a, b;
  int n, ksteps, scale_d;
  Lay la, lb;    // mn, kt, e filled in by run()
  bool big = false;        // integers over their whole range
  int64_t cbase = 0;       // integer C near a limit (wrap/saturation)
  bool sat = false;
  bool ws = false;         // the warp-specialized kernel (two warpgroups)
};

// Row and column of accumulator element j of thread t (ISA "Register Fragments", matrix D).
static void d_rc(int t, int j, int& r, int& c) {
  const int w = t / 32, l = t % 32;
  r = 16 * w + l / 4 + 8 * ((j >> 1) & 1);
  c = 2 * (l % 4) + (j & 1) + 8 * (j >> 2);
}
// Row and column (within the k-step) of A fragment element i of thread t.
static void a_rc(int t, int i, int e, int& r, int& c) {
  const int w = t / 32, l = t % 32;
  if (e == 2) r = l / 4 + 8 * ((i >> 1) & 1), c = 2 * (l % 4) + (i & 1) + 8 * (i >> 2);
  else if (e == 4) r = l / 4 + 8 * (i & 1), c = l % 4 + 4 * (i >> 1);
  else r = l / 4 + 8 * ((i >> 2) & 1), c = 4 * (l % 4) + (i & 3) + 16 * (i >> 3);
  r += 16 * w;
}

// Runs case c and calls check(row, col, got, want) for every element of D
// (got: its bits; want: the reference value). Returns 1 after a CUDA error
// or when elect.sync did not pick exactly lane 0.
template <class Op, int SA, int SB, int TA, int TB, bool REGS, class Check>
static int run_case(Case c, Check&& check) {
  const int e = bytes_of(c.a), kstep = 32 / e, kt = kstep * c.ksteps, N = c.n;
  c.la.mn = 64, c.la.kt = kt, c.la.e = e;
  c.lb.mn = N, c.lb.kt = kt, c.lb.e = bytes_of(c.b);
  c.la.mn_major = TA, c.lb.mn_major = TB;
  std::vector<uint8_t> a(64 * kt * e), b(N * kt * e);
  std::vector<double> av(64 * kt), bv(N * kt);
  for (int i = 0; i < 64 * kt; ++i) {
    av[i] = value(c.a, 2 * i, c.big);
    const uint32_t bits = encode(c.a, av[i]);
    memcpy(&a[i * e], &bits, e);
  }
  for (int i = 0; i < N * kt; ++i) {
    bv[i] = value(c.b, 2 * i + 1, c.big);
    const uint32_t bits = encode(c.b, bv[i]);
    memcpy(&b[i * e], &bits, e);
  }
  // A fragments for the register forms: 4 words per thread and k-step.
  std::vector<uint32_t> af(128 * 4 * c.ksteps, 0);
  const int per = 4 / e;
  for (int t = 0; t < 128; ++t)
    for (int s = 0; s < c.ksteps; ++s)
      for (int i = 0; i < 4 * per; ++i) {
        int r, col;
        a_rc(t, i, e, r, col);
        uint32_t bits = 0;
        memcpy(&bits, &a[(r * kt + s * kstep + col) * e], e);
        af[(t * c.ksteps + s) * 4 + i / per] |= bits << (8 * e * (i % per));
      }
  // C, laid out in the accumulator fragments; the reference.
  const int R = Op::kRegs, per_d = c.d == F16 ? 2 : 1;
  std::vector<uint32_t> dbuf(128 * R, 0);
  std::vector<double> ref(64 * N);
  for (int i = 0; i < 64 * N; ++i)
    ref[i] = is_int(c.a) ? double(c.cbase + int64_t(hash(7 * i) % 2001) - 1000) : (int(hash(7 * i) % 17) - 8) * 0.25;
  for (int t = 0; t < 128; ++t)
    for (int j = 0; j < R * per_d; ++j) {
      int r, col;
      d_rc(t, j, r, col);
      const uint32_t bits = encode(c.d, ref[r * N + col]);
      dbuf[t * R + j / per_d] |= per_d == 2 ? (bits & 0xffff) << (16 * (j % 2)) : bits;
    }
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < N; ++n) {
      double acc = c.scale_d ? ref[m * N + n] : 0;
      for (int s = 0; s < c.ksteps; ++s) {
        double sum = 0;
        for (int k = s * kstep; k < (s + 1) * kstep; ++k) sum += SA * av[m * kt + k] * SB * bv[n * kt + k];
        acc += sum;
        if (c.sat) acc = acc > INT_MAX ? INT_MAX : acc < INT_MIN ? INT_MIN : acc;  // per instruction
      }
      if (is_int(c.a) && !c.sat) acc = double(int32_t(uint32_t(int64_t(acc))));  // wraps
      ref[m * N + n] = acc;
    }
  uint8_t *da, *db;
  uint32_t *dd, *dfrag;
  int* del;
  WG_CHECK(cudaMalloc(&da, a.size()));
  WG_CHECK(cudaMalloc(&db, b.size()));
  WG_CHECK(cudaMalloc(&dd, dbuf.size() * 4));
  WG_CHECK(cudaMalloc(&dfrag, af.size() * 4));
  WG_CHECK(cudaMalloc(&del, 8));
  WG_CHECK(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice));
  WG_CHECK(cudaMemcpy(db, b.data(), b.size(), cudaMemcpyHostToDevice));
  WG_CHECK(cudaMemcpy(dd, dbuf.data(), dbuf.size() * 4, cudaMemcpyHostToDevice));
  WG_CHECK(cudaMemcpy(dfrag, af.data(), af.size() * 4, cudaMemcpyHostToDevice));
  WG_CHECK(cudaMemset(del, 0xff, 4));
  WG_CHECK(cudaMemset(del + 1, 0, 4));
  const size_t smem = 1024 + tile_kb(c.la) + tile_kb(c.lb) + 16 * c.ksteps;
  if (c.ws)
    ws_gemm<Op, SA, SB, TA, TB><<<1, 256, smem>>>(da, db, dd, dfrag, c.la, c.lb, c.ksteps, c.scale_d, del);
  else
    wg_gemm<Op, SA, SB, TA, TB><<<1, 128, smem>>>(da, db, dd, dfrag, c.la, c.lb, c.ksteps, c.scale_d, del);
  WG_CHECK(cudaGetLastError());
  WG_CHECK(cudaDeviceSynchronize());
  WG_CHECK(cudaMemcpy(dbuf.data(), dd, dbuf.size() * 4, cudaMemcpyDeviceToHost));
  int el[2];
  WG_CHECK(cudaMemcpy(el, del, 8, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int t = 0; t < 128; ++t)
    for (int j = 0; j < R * per_d; ++j) {
      int r, col;
      d_rc(t, j, r, col);
      const uint32_t w = dbuf[t * R + j / per_d];
      check(r, col, per_d == 2 ? (w >> (16 * (j % 2))) & 0xffff : w, ref[r * N + col]);
    }
  if (el[0] != 0 || el[1] != 1) {
    std::printf("  %s: elect.sync chose lane %d, %d leaders\n", c.name, el[0], el[1]);
    bad = 1;
  }
  WG_CHECK(cudaFree(da));
  WG_CHECK(cudaFree(db));
  WG_CHECK(cudaFree(dd));
  WG_CHECK(cudaFree(dfrag));
  WG_CHECK(cudaFree(del));
  return bad;
}

#define WG(x) "wgmma.mma_async.sync.aligned." x
WG_OP(F16F32_N8, WG("m64n8k16.f32.f16.f16"), 4, SS, WG_TAIL_SS_T)
WG_OP(F16F32_N64, WG("m64n64k16.f32.f16.f16"), 32, SS, WG_TAIL_SS_T)
WG_OP(F16F32_N128, WG("m64n128k16.f32.f16.f16"), 64, SS, WG_TAIL_SS_T)
WG_OP(F16F32_N256, WG("m64n256k16.f32.f16.f16"), 128, SS, WG_TAIL_SS_T)
WG_OP(F16F32_N64_RS, WG("m64n64k16.f32.f16.f16"), 32, RS, WG_TAIL_RS_T)
WG_OP(F16F16_N64, WG("m64n64k16.f16.f16.f16"), 16, SS, WG_TAIL_SS_T)
WG_OP(F16F16_N256, WG("m64n256k16.f16.f16.f16"), 64, SS, WG_TAIL_SS_T)
WG_OP(BF16_N128, WG("m64n128k16.f32.bf16.bf16"), 64, SS, WG_TAIL_SS_T)
WG_OP(BF16_N8_RS, WG("m64n8k16.f32.bf16.bf16"), 4, RS, WG_TAIL_RS_T)
WG_OP(TF32_N64, WG("m64n64k8.f32.tf32.tf32"), 32, SS, WG_TAIL_SS)
WG_OP(TF32_N128_RS, WG("m64n128k8.f32.tf32.tf32"), 64, RS, WG_TAIL_RS)
WG_OP(E4M3_N128, WG("m64n128k32.f32.e4m3.e4m3"), 64, SS, WG_TAIL_SS)
WG_OP(E4M3E5M2F16_N64, WG("m64n64k32.f16.e4m3.e5m2"), 16, SS, WG_TAIL_SS)
WG_OP(E5M2_N256_RS, WG("m64n256k32.f32.e5m2.e5m2"), 128, RS, WG_TAIL_RS)
WG_OP(S8_N8, WG("m64n8k32.s32.s8.s8"), 4, SS, WG_TAIL_SS_I)
WG_OP(S8_N64, WG("m64n64k32.s32.s8.s8"), 32, SS, WG_TAIL_SS_I)
WG_OP(S8_N256, WG("m64n256k32.s32.s8.s8"), 128, SS, WG_TAIL_SS_I)
WG_OP(S8_N64_RS, WG("m64n64k32.s32.s8.s8"), 32, RS, WG_TAIL_RS_I)
WG_OP(S8U8_N64_RS, WG("m64n64k32.s32.s8.u8"), 32, RS, WG_TAIL_RS_I)
WG_OP(U8_N128_SAT, WG("m64n128k32.s32.u8.u8.satfinite"), 64, SS, WG_TAIL_SS_I)

