// The tensor-core main loop shared by softgpu cuBLAS's gemm
// (kernels_tc.cu) and cuBLASLt's matmul (src/cublaslt/kernels.cu): a CTA of
// 4 warps accumulates a 64x64 tile of op(A) op(B); each warp a 32x32
// quarter as 2 x 4 mma tiles of 16x8. A and B go through shared memory
// 64x32 at a time, converted on the way to the mma operand type (f16, bf16,
// or tf32 by cvt.rna) and zero-filled outside the matrix, so any m, n, k
// works. The next tile is fetched into registers while the mma run on the
// current one (one shared-memory stage). Shared layout: as[row][k] and
// bs[col][k] (k contiguous), so an mma fragment's pair of k-adjacent f16 is
// one 32-bit word; rows padded so a fragment load hits 32 different banks.
// Include from a .cu file only.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace softgpu::gemm_tc {

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


// The shared tiles of one CTA.
template <Op O>
struct Tiles {
  static constexpr int kLd = kBK + OpTraits<O>::kPad;
  __align__(16) typename OpTraits<O>::S as[kBM * kLd];
  __align__(16) typename OpTraits<O>::S bs[kBN * kLd];
};

// acc = op(A) op(B) over the tile at (row0, col0); all threads of the CTA
// call it (it synchronizes). Not called when alpha == 0 (BLAS: A and B are
// not read then).
template <Op O, typename TI, bool kAcc16>
__device__ __forceinline__ void accumulate(Tiles<O>& sm, Acc<kAcc16> (&acc)[2][4], bool ta, bool tb, int m, int n,
                                           int k, const TI* a, int64_t lda, const TI* b, int64_t ldb, int row0,
                                           int col0) {
  using S = typename OpTraits<O>::S;
  constexpr int kLd = Tiles<O>::kLd;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int wm = (warp & 1) * 32, wn = (warp >> 1) * 32;
  for (auto& row : acc)
    for (auto& tile : row)
      for (auto& v : tile.v) v = 0;
  if (k <= 0) return;
  S ra[kPerThread], rb[kPerThread];
  fetch<O>(ra, a, lda, ta, row0, m, 0, k);
  fetch<O>(rb, b, ldb, !tb, col0, n, 0, k);
  for (int k0 = 0; k0 < k; k0 += kBK) {
    stash(sm.as, kLd, ta, ra);
    stash(sm.bs, kLd, !tb, rb);
    __syncthreads();
    if (k0 + kBK < k) {
      fetch<O>(ra, a, lda, ta, row0, m, k0 + kBK, k);
      fetch<O>(rb, b, ldb, !tb, col0, n, k0 + kBK, k);
    }
    for (int ks = 0; ks < kBK; ks += OpTraits<O>::kStep) {
      uint32_t af[2][4], bf[4][2];
      for (int mi = 0; mi < 2; ++mi) load_a<O>(af[mi], &sm.as[(wm + mi * 16 + g) * kLd + ks], kLd, t);
      for (int ni = 0; ni < 4; ++ni) load_b<O>(bf[ni], &sm.bs[(wn + ni * 8 + g) * kLd + ks], t);
      for (int mi = 0; mi < 2; ++mi)
        for (int ni = 0; ni < 4; ++ni) mma<O, kAcc16>(acc[mi][ni], af[mi], bf[ni]);
    }
    __syncthreads();
  }
}

// Calls f(r, c, value) for each accumulator element this thread holds
// (tile-relative row and column; element i of a 16x8 tile: row g + 8 (i / 2),
// column 2t + i % 2).
template <bool kAcc16, class F>
__device__ __forceinline__ void for_each(const Acc<kAcc16> (&acc)[2][4], F&& f) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int wm = (warp & 1) * 32, wn = (warp >> 1) * 32;
  for (int mi = 0; mi < 2; ++mi)
    for (int ni = 0; ni < 4; ++ni)
      for (int i = 0; i < 4; ++i)
        f(wm + mi * 16 + g + 8 * (i >> 1), wn + ni * 8 + 2 * t + (i & 1), acc_elem(acc[mi][ni], i));
}

}  // namespace softgpu::gemm_tc
