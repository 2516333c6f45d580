// softgpu cuBLAS's tensor-core gemm (see kernels_tc.h). One kernel template:
// a CTA of 4 warps computes a 64x64 tile of C; each warp a 32x32 quarter as
// 2 x 4 mma tiles of 16x8. A and B go through shared memory 64x32 at a time,
// converted on the way to the mma operand type (f16, bf16, or tf32 by
// cvt.rna) and zero-filled outside the matrix, so any m, n, k works; C is
// written under predication. The next tile is fetched into registers while
// the mma run on the current one (one shared-memory stage). Shared layout: as[row][k] and bs[col][k] (k
// contiguous), so an mma fragment's pair of k-adjacent f16 is one 32-bit
// word; rows padded so a fragment load hits 32 different banks.
#include "kernels_tc.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstring>
#include <type_traits>

namespace softgpu::cublas {
namespace {

constexpr int kBM = 64, kBN = 64, kBK = 32;
constexpr int kTcThreads = 128;  // 4 warps, 2 x 2 over the tile

enum class Op { f16, bf16, tf32 };
template <Op O> struct OpTraits;
template <> struct OpTraits<Op::f16> {
  using S = __half;
  static constexpr int kStep = 16, kPad = 8;
};
template <> struct OpTraits<Op::bf16> {
  using S = __nv_bfloat16;
  static constexpr int kStep = 16, kPad = 8;
};
template <> struct OpTraits<Op::tf32> {
  using S = uint32_t;  // the f32 bit pattern, rounded to tf32
  static constexpr int kStep = 8, kPad = 4;
};

// An input element as the mma operand (f32 inputs rounded to nearest: even
// for f16/bf16, ties away for tf32 as cuBLAS's cvt.rna).
template <Op O>
__device__ __forceinline__ typename OpTraits<O>::S from_f32(float v) {
  if constexpr (O == Op::f16) {
    return __float2half_rn(v);
  } else if constexpr (O == Op::bf16) {
    return __float2bfloat16_rn(v);
  } else {
    uint32_t u;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(u) : "f"(v));
    return u;
  }
}
template <Op O, typename TI>
__device__ __forceinline__ typename OpTraits<O>::S convert(TI v) {
  if constexpr (std::is_same_v<TI, float>) return from_f32<O>(v);
  else return v;  // f16 / bf16 inputs are already the operand type
}
template <Op O>
__device__ __forceinline__ typename OpTraits<O>::S zero() {
  if constexpr (O == Op::f16) return __ushort_as_half(0);
  else if constexpr (O == Op::bf16) return __ushort_as_bfloat16(0);
  else return 0u;
}

__device__ __forceinline__ float widen(__half v) { return __half2float(v); }
__device__ __forceinline__ float widen(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float widen(float v) { return v; }
template <typename T> __device__ __forceinline__ T narrow(float v);
template <> __device__ __forceinline__ __half narrow<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 narrow<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __forceinline__ float narrow<float>(float v) { return v; }

template <typename T>
__device__ __forceinline__ T scalar_of(T value, const T* dev) {
  return dev ? *dev : value;
}

// Accumulators of one 16x8 tile: four f32, or two f16x2 (f16 accumulation).
template <bool kAcc16> struct Acc { float v[4]; };
template <> struct Acc<true> { uint32_t v[2]; };

template <bool kAcc16>
__device__ __forceinline__ float acc_elem(const Acc<kAcc16>& c, int i) {
  if constexpr (kAcc16) {
    const uint32_t w = c.v[i >> 1];
    return __half2float(__ushort_as_half(static_cast<unsigned short>((i & 1) ? w >> 16 : w & 0xffffu)));
  } else {
    return c.v[i];
  }
}

// D = A B + D for one 16x8 tile.
template <Op O, bool kAcc16>
__device__ __forceinline__ void mma(Acc<kAcc16>& d, const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  if constexpr (kAcc16) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
                 : "+r"(d.v[0]), "+r"(d.v[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else if constexpr (O == Op::f16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d.v[0]), "+f"(d.v[1]), "+f"(d.v[2]), "+f"(d.v[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else if constexpr (O == Op::bf16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d.v[0]), "+f"(d.v[1]), "+f"(d.v[2]), "+f"(d.v[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d.v[0]), "+f"(d.v[1]), "+f"(d.v[2]), "+f"(d.v[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
}

template <typename S>
__device__ __forceinline__ uint32_t word(const S* p) {
  uint32_t w;
  memcpy(&w, p, 4);
  return w;
}

// Fragments of one k step (PTX ISA "Matrix Fragments for mma.m16n8k16 /
// m16n8k8"; g = lane / 4, t = lane % 4): f16/bf16 A holds rows g, g+8 x
// columns 2t..2t+1, 2t+8..2t+9, B columns... k 2t..2t+1, 2t+8..2t+9 of
// column g; tf32 A rows g, g+8 x columns t, t+4, B k t, t+4 of column g.
template <Op O>
__device__ __forceinline__ void load_a(uint32_t (&f)[4], const typename OpTraits<O>::S* p, int ld, int t) {
  if constexpr (O == Op::tf32) {
    p += t;
    f[0] = p[0], f[1] = p[8 * ld], f[2] = p[4], f[3] = p[8 * ld + 4];
  } else {
    p += 2 * t;
    f[0] = word(p), f[1] = word(p + 8 * ld), f[2] = word(p + 8), f[3] = word(p + 8 * ld + 8);
  }
}
template <Op O>
__device__ __forceinline__ void load_b(uint32_t (&f)[2], const typename OpTraits<O>::S* p, int t) {
  if constexpr (O == Op::tf32) {
    f[0] = p[t], f[1] = p[t + 4];
  } else {
    f[0] = word(p + 2 * t), f[1] = word(p + 2 * t + 8);
  }
}

// A thread's share of a 64 x 32 tile of op(A) (rows x k) or op(B)^T
// (columns x k): elements tid + 128 i. Consecutive threads walk the stored
// matrix's contiguous dimension: k when `k_contig` (A transposed, B not),
// else rows / columns. Outside the matrix: zero.
constexpr int kPerThread = kBM * kBK / kTcThreads;
__device__ __forceinline__ void tile_pos(bool k_contig, int e, int& rc, int& kk) {
  if (k_contig) kk = e % kBK, rc = e / kBK;
  else rc = e % kBM, kk = e / kBM;
}
template <Op O, typename TI>
__device__ __forceinline__ void fetch(typename OpTraits<O>::S (&reg)[kPerThread], const TI* p, int64_t ld,
                                      bool k_contig, int rc0, int rc_end, int k0, int k) {
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    int rc, kk;
    tile_pos(k_contig, threadIdx.x + kTcThreads * i, rc, kk);
    const int grc = rc0 + rc, gk = k0 + kk;
    reg[i] = zero<O>();
    if (grc < rc_end && gk < k) reg[i] = convert<O>(k_contig ? p[gk + grc * ld] : p[grc + gk * ld]);
  }
}
template <typename S>
__device__ __forceinline__ void stash(S* tile, int ld, bool k_contig, const S (&reg)[kPerThread]) {
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    int rc, kk;
    tile_pos(k_contig, threadIdx.x + kTcThreads * i, rc, kk);
    tile[rc * ld + kk] = reg[i];
  }
}

// TI: A/B element type, TO: C, TS: scalars as passed. Accumulation and the
// epilogue (alpha acc + beta C, rounded once to TO) in f32; with kAcc16
// the mma itself accumulates in f16 (rounding after every k step of 16).
// blockIdx.z is the batch.
template <Op O, typename TI, typename TO, typename TS, bool kAcc16>
__global__ void __launch_bounds__(kTcThreads)
    gemm_tc_kernel(bool ta, bool tb, int m, int n, int k, TS alpha, const TS* alpha_dev, const TI* a, int64_t lda,
                   int64_t stride_a, const TI* b, int64_t ldb, int64_t stride_b, TS beta, const TS* beta_dev, TO* c,
                   int64_t ldc, int64_t stride_c) {
  using S = typename OpTraits<O>::S;
  constexpr int kLd = kBK + OpTraits<O>::kPad;
  __shared__ __align__(16) S as[kBM * kLd];
  __shared__ __align__(16) S bs[kBN * kLd];
  a += stride_a * blockIdx.z;
  b += stride_b * blockIdx.z;
  c += stride_c * blockIdx.z;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int wm = (warp & 1) * 32, wn = (warp >> 1) * 32;
  const int row0 = blockIdx.x * kBM, col0 = blockIdx.y * kBN;
  const float al = widen(scalar_of(alpha, alpha_dev)), be = widen(scalar_of(beta, beta_dev));

  Acc<kAcc16> acc[2][4];
  for (auto& row : acc)
    for (auto& tile : row)
      for (auto& v : tile.v) v = 0;

  // alpha == 0: A and B are not read (BLAS); the branch is uniform. The
  // next tiles' elements are fetched into registers while the mma work on
  // the current ones, then stored to shared memory.
  if (al != 0.f && k > 0) {
    S ra[kPerThread], rb[kPerThread];
    fetch<O>(ra, a, lda, ta, row0, m, 0, k);
    fetch<O>(rb, b, ldb, !tb, col0, n, 0, k);
    for (int k0 = 0; k0 < k; k0 += kBK) {
      stash(as, kLd, ta, ra);
      stash(bs, kLd, !tb, rb);
      __syncthreads();
      if (k0 + kBK < k) {
        fetch<O>(ra, a, lda, ta, row0, m, k0 + kBK, k);
        fetch<O>(rb, b, ldb, !tb, col0, n, k0 + kBK, k);
      }
      for (int ks = 0; ks < kBK; ks += OpTraits<O>::kStep) {
        uint32_t af[2][4], bf[4][2];
        for (int mi = 0; mi < 2; ++mi) load_a<O>(af[mi], &as[(wm + mi * 16 + g) * kLd + ks], kLd, t);
        for (int ni = 0; ni < 4; ++ni) load_b<O>(bf[ni], &bs[(wn + ni * 8 + g) * kLd + ks], t);
        for (int mi = 0; mi < 2; ++mi)
          for (int ni = 0; ni < 4; ++ni) mma<O, kAcc16>(acc[mi][ni], af[mi], bf[ni]);
      }
      __syncthreads();
    }
  }

  // Accumulator element i of a tile: row g + 8 (i / 2), column 2t + i % 2.
  for (int mi = 0; mi < 2; ++mi)
    for (int ni = 0; ni < 4; ++ni)
      for (int i = 0; i < 4; ++i) {
        const int r = row0 + wm + mi * 16 + g + 8 * (i >> 1);
        const int cl = col0 + wn + ni * 8 + 2 * t + (i & 1);
        if (r >= m || cl >= n) continue;
        TO* p = &c[r + cl * ldc];
        const float ab = al == 0.f ? 0.f : al * acc_elem(acc[mi][ni], i);
        *p = narrow<TO>(be == 0.f ? ab : fmaf(be, widen(*p), ab));  // beta == 0: C is not read
      }
}

template <Op O, typename TI, typename TO, typename TS, bool kAcc16>
cudaError_t launch_as(cudaStream_t s, bool ta, bool tb, int m, int n, int k, const void* alpha_host,
                      const void* alpha_dev, const void* a, int64_t lda, int64_t sa, const void* b, int64_t ldb,
                      int64_t sb, const void* beta_host, const void* beta_dev, void* c, int64_t ldc, int64_t sc,
                      int batch) {
  TS al{}, be{};
  if (alpha_host) std::memcpy(&al, alpha_host, sizeof(TS));
  if (beta_host) std::memcpy(&be, beta_host, sizeof(TS));
  const auto* ai = static_cast<const TI*>(a);
  const auto* bi = static_cast<const TI*>(b);
  auto* co = static_cast<TO*>(c);
  constexpr int kMaxZ = 65535;  // grid z limit: larger batches go in chunks
  for (int b0 = 0; b0 < batch; b0 += kMaxZ) {
    const int nb = batch - b0 < kMaxZ ? batch - b0 : kMaxZ;
    dim3 grid((m + kBM - 1) / kBM, (n + kBN - 1) / kBN, nb);
    gemm_tc_kernel<O, TI, TO, TS, kAcc16><<<grid, kTcThreads, 0, s>>>(
        ta, tb, m, n, k, al, static_cast<const TS*>(alpha_dev), ai + sa * b0, lda, sa, bi + sb * b0, ldb, sb, be,
        static_cast<const TS*>(beta_dev), co + sc * b0, ldc, sc);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

}  // namespace

cudaError_t launch_gemm_tc(cudaStream_t s, TcGemm kind, bool ta, bool tb, int m, int n, int k,
                           const void* alpha_host, const void* alpha_dev, const void* a, int64_t lda, int64_t sa,
                           const void* b, int64_t ldb, int64_t sb, const void* beta_host, const void* beta_dev,
                           void* c, int64_t ldc, int64_t sc, int batch) {
#define SG_TC(O, TI, TO, TS, ACC16)                                                                                 \
  launch_as<Op::O, TI, TO, TS, ACC16>(s, ta, tb, m, n, k, alpha_host, alpha_dev, a, lda, sa, b, ldb, sb, beta_host, \
                                      beta_dev, c, ldc, sc, batch)
  using h = __half;
  using bf = __nv_bfloat16;
  switch (kind) {
    case TcGemm::f16_acc16: return SG_TC(f16, h, h, h, true);
    case TcGemm::f16_h: return SG_TC(f16, h, h, float, false);
    case TcGemm::f16_f: return SG_TC(f16, h, float, float, false);
    case TcGemm::bf16_bf: return SG_TC(bf16, bf, bf, float, false);
    case TcGemm::bf16_f: return SG_TC(bf16, bf, float, float, false);
    case TcGemm::tf32: return SG_TC(tf32, float, float, float, false);
    case TcGemm::via_f16: return SG_TC(f16, float, float, float, false);
    case TcGemm::via_bf16: return SG_TC(bf16, float, float, float, false);
  }
#undef SG_TC
  return cudaErrorNotSupported;
}

}  // namespace softgpu::cublas
