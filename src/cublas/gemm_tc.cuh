// The tensor-core main loops of softgpu cuBLAS's gemm (kernels_tc.cu), both
// shared with cuBLASLt's matmul (src/cublaslt/kernels.cu): the multistage
// 128x128 / 128x64 one of namespace ms (below), and this 64x64 one: a CTA of
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
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "gemm_tile.cuh"  // widen, narrow, scalar

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

// The element conversions and the BLAS scalar, shared with the SIMT gemm.
using gemm_tile::narrow;
using gemm_tile::scalar;
using gemm_tile::widen;

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


// ---------------------------------------------------------------------------
// The multistage main loop (kernels_tc.cu's gemm_tc_ms_kernel), in the shape
// of the sm_80 GEMMs of cuBLAS and CUTLASS: a CTA of 8 warps accumulates a
// 128x128 tile of op(A) op(B) (2 x 4 warps, each 64 x 32 = 4 x 4 mma tiles
// of 16x8) or a 128x64 one (4 x 2 warps, each 32 x 32; ms::Tile), k 32 at
// a time. A and B (f16 or bf16 in memory) go to
// shared memory by cp.async.cg 16-byte copies, kStages tiles in flight
// (commit_group per k tile, wait_group kStages - 2 before using one), and
// from there to the mma operands by ldmatrix.x4: plain for an operand whose
// k is contiguous in memory (A transposed, B not), .trans for one whose
// rows / columns are. A chunk reaching past k or past the matrix's rows /
// columns copies only the bytes inside (src-size) and zero-fills the rest;
// one wholly outside copies none. Preconditions (kernels_tc.cu checks them
// and falls back to the 64x64 kernel otherwise): A, B 16-byte aligned, lda,
// ldb (and the batch strides) multiples of 8 elements.
//
// Shared layout per stage and operand, R x 32 elements (R = 128 for A, 128
// or 64 for B: 8 or 4 KB), in 16-byte chunks of 8 elements XOR-swizzled so
// that the 8 row addresses of one ldmatrix matrix fall in 8 different
// 16-byte bank groups:
//   k contiguous: row = m or n (R rows of 4 chunks), chunk c at c ^ ((row >> 1) & 3)
//   rows contiguous: row = k (32 rows of R / 8 chunks), chunk c at c ^ (row & 7)
namespace ms {

constexpr int kBK = 32;
constexpr int kThreads = 256;  // 8 warps

// The CTA tile: 128 x kBN_ of D, kBN_ 128 (2 x 4 warps, each 64 x 32) or
// 64 (4 x 2 warps, each 32 x 32: twice the CTAs for a grid that would
// leave SMs idle; pick_tile_n). A stage holds A's 128 x 32 and B's
// kBN_ x 32 elements.
template <int kBN_>
struct Tile {
  static_assert(kBN_ == 128 || kBN_ == 64, "128 x 128 or 128 x 64");
  static constexpr int kBM = 128, kBN = kBN_;
  static constexpr int kWarpsM = kBN == 128 ? 2 : 4;       // warps over the tile's rows
  static constexpr int kWarpM = kBM / kWarpsM, kWarpN = 32;  // one warp's share of the tile
  static constexpr int kMi = kWarpM / 16, kNi = kWarpN / 8;
  static_assert(kWarpsM * (kBN / kWarpN) * 32 == kThreads, "8 warps");
  static constexpr uint32_t kABytes = kBM * kBK * 2, kBBytes = kBN * kBK * 2;  // 2-byte elements
  static constexpr uint32_t kStageBytes = kABytes + kBBytes;
  template <int kStages>
  static constexpr int shared_bytes() {
    return kStages * kStageBytes;
  }
};
using Tile128 = Tile<128>;

__device__ __forceinline__ uint32_t shared_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
// 16 bytes from global to shared, of which the first `bytes` are read and
// the rest zero-filled.
__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(bytes) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory");
}
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// v, opaque to the compiler: a per-thread address worked out before the main
// loop stays in its register instead of being recomputed in the loop
// (softgpu runs the PTX, so what NVVM rematerializes costs every time).
__device__ __forceinline__ uint32_t pinned(uint32_t v) {
  uint32_t r;
  asm volatile("mov.b32 %0, %1;" : "=r"(r) : "r"(v));
  return r;
}

// Element offset of chunk c (8 elements) of shared row `row` in an
// operand's stage of kRows rows / columns (m or n) by 32 k.
template <int kRows>
__device__ __forceinline__ int chunk_at(bool k_contig, int row, int c) {
  return k_contig ? row * kBK + ((c ^ ((row >> 1) & 3)) << 3) : row * kRows + ((c ^ (row & 7)) << 3);
}

// This thread's cp.async copies of one operand's kRows x 32 tiles: rows /
// columns rc0.. (of rc_end) by k k0.. (of k) of the stored matrix p (ld its
// leading dimension; k contiguous when kKContig). What does not change from
// one k tile to the next is worked out once: where each chunk lands in a
// stage, where it comes from (advanced by one tile per issue), and for k
// contiguous whether its row is inside, else how many of its bytes are.
template <typename T, bool kKContig, int kRows>
struct TileCopier {
  static constexpr int kChunksPerThread = kRows * kBK / 8 / kThreads;
  static constexpr int kRowChunks = kRows / 8;  // rows contiguous: chunks per k
  const T* base;                     // the unread source of an empty copy
  const T* src[kChunksPerThread];
  uint32_t dst[kChunksPerThread];    // byte offset in the operand's stage
  int inside[kChunksPerThread];      // k contiguous: row inside (0/1); else bytes inside the row (0..16)
  int kpos[kChunksPerThread];        // the chunk's k in the tile
  int64_t step;                      // elements per k tile

  __device__ __forceinline__ TileCopier(const T* p, int64_t ld, int rc0, int rc_end) : base(p) {
    step = kKContig ? kBK : kBK * ld;
#pragma unroll
    for (int i = 0; i < kChunksPerThread; ++i) {
      const int e = threadIdx.x + kThreads * i;
      if (kKContig) {
        const int row = e >> 2, c = e & 3, grc = rc0 + row;  // row: m or n
        src[i] = p + grc * ld + 8 * c;
        dst[i] = 2 * chunk_at<kRows>(true, row, c);
        inside[i] = grc < rc_end;
        kpos[i] = 8 * c;
      } else {
        const int row = e / kRowChunks, c = e % kRowChunks, grc = rc0 + 8 * c;  // row: k
        src[i] = p + row * ld + grc;
        dst[i] = 2 * chunk_at<kRows>(false, row, c);
        const int left = rc_end - grc;
        inside[i] = 2 * (left <= 0 ? 0 : left < 8 ? left : 8);
        kpos[i] = row;
      }
    }
  }
  // The copies of the tile at k0 into the stage at shared address `stage`;
  // then the sources move on by one tile.
  __device__ __forceinline__ void issue(uint32_t stage, int k0, int k) {
#pragma unroll
    for (int i = 0; i < kChunksPerThread; ++i) {
      int bytes;
      if (kKContig) {
        const int left = k - k0 - kpos[i];
        bytes = inside[i] ? 2 * (left <= 0 ? 0 : left < 8 ? left : 8) : 0;
      } else {
        bytes = k0 + kpos[i] < k ? inside[i] : 0;
      }
      cp_async16(stage + dst[i], bytes ? src[i] : base, bytes);
      src[i] += step;
    }
  }
};

// acc = op(A) op(B) over the S tile at (row0, col0); all threads of the
// CTA call it (it synchronizes). smem: S::shared_bytes<kStages>() bytes.
// Not called when alpha == 0. kTa / kTb: A / B transposed.
template <Op O, int kStages, bool kTa, bool kTb, typename TI, bool kAcc16, class S = Tile128>
__device__ __forceinline__ void accumulate(unsigned char* smem, Acc<kAcc16> (&acc)[S::kMi][S::kNi], int m, int n,
                                           int k, const TI* a, int64_t lda, const TI* b, int64_t ldb, int row0,
                                           int col0) {
  constexpr int kMi = S::kMi, kNi = S::kNi;
  static_assert(sizeof(TI) == 2 && kStages >= 2, "f16 / bf16 in memory, at least double buffered");
  constexpr bool kAK = kTa, kBK_ = !kTb;  // k contiguous in memory
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, q = lane >> 3, r = lane & 7;
  const int wm = (warp % S::kWarpsM) * S::kWarpM, wn = (warp / S::kWarpsM) * S::kWarpN;
  for (auto& row : acc)
    for (auto& tile : row)
      for (auto& v : tile.v) v = 0;
  if (k <= 0) return;
  constexpr uint32_t kOperandBytes = S::kABytes, kStageBytes = S::kStageBytes;  // B after A in a stage
  const uint32_t base = shared_addr(smem);
  TileCopier<TI, kAK, S::kBM> ca(a, lda, row0, m);
  TileCopier<TI, kBK_, S::kBN> cb(b, ldb, col0, n);
  // ldmatrix addresses in a stage (lane: row r of matrix q of the x4). A:
  // matrices rows 0-7 / 8-15 (q & 1) by k 0-7 / 8-15 (q >> 1) = a0..a3. B:
  // k 0-7 / 8-15 (q & 1) by columns 0-7 / 8-15 (q >> 1) = b[2j][0],
  // b[2j][1], b[2j+1][0], b[2j+1][1].
  uint32_t a_off[2][kMi], b_off[2][kNi / 2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
#pragma unroll
    for (int mi = 0; mi < kMi; ++mi) {
      const int mm = wm + mi * 16 + 8 * (q & 1), kk = 16 * h + 8 * (q >> 1);
      a_off[h][mi] =
          pinned(2 * (kAK ? chunk_at<S::kBM>(true, mm + r, kk >> 3) : chunk_at<S::kBM>(false, kk + r, mm >> 3)));
    }
#pragma unroll
    for (int j = 0; j < kNi / 2; ++j) {
      const int nn = wn + j * 16 + 8 * (q >> 1), kk = 16 * h + 8 * (q & 1);
      b_off[h][j] =
          pinned(kOperandBytes +
                 2 * (kBK_ ? chunk_at<S::kBN>(true, nn + r, kk >> 3) : chunk_at<S::kBN>(false, kk + r, nn >> 3)));
    }
  }
  const int ktiles = (k + kBK - 1) / kBK;
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < ktiles) {
      ca.issue(base + s * kStageBytes, s * kBK, k);
      cb.issue(base + s * kStageBytes + kOperandBytes, s * kBK, k);
    }
    cp_async_commit();  // possibly empty: one group per k tile keeps the count
  }
  int read = 0, write = kStages - 1;  // stages of tile kt and of tile kt + kStages - 1
  for (int kt = 0; kt < ktiles; ++kt) {
    cp_async_wait<kStages - 2>();  // this thread's copies of tile kt are done
    __syncthreads();               // everyone's; and tile kt - 1's stage is free
    if (kt + kStages - 1 < ktiles) {
      const int k0 = (kt + kStages - 1) * kBK;
      ca.issue(base + write * kStageBytes, k0, k);
      cb.issue(base + write * kStageBytes + kOperandBytes, k0, k);
    }
    cp_async_commit();
    const uint32_t st = base + read * kStageBytes;
    // Both k halves' fragments first, then their mma: the second half's
    // ldmatrix are in flight while the first half's mma issue (CUTLASS's
    // warp-level fragment double buffering; ptxas's scheduling would do the
    // same for a SASS build, but softgpu runs the PTX in program order).
    // Issuing the copies above after the fragments too needs more registers
    // (154 for 128 x 128 on sm_80: one CTA per SM instead of two).
    uint32_t af[2][kMi][4], bf[2][kNi][2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
#pragma unroll
      for (int mi = 0; mi < kMi; ++mi) {
        if (kAK) ldmatrix_x4(af[h][mi], st + a_off[h][mi]);
        else ldmatrix_x4_trans(af[h][mi], st + a_off[h][mi]);
      }
#pragma unroll
      for (int j = 0; j < kNi / 2; ++j) {
        uint32_t f[4];
        if (kBK_) ldmatrix_x4(f, st + b_off[h][j]);
        else ldmatrix_x4_trans(f, st + b_off[h][j]);
        bf[h][2 * j][0] = f[0], bf[h][2 * j][1] = f[1], bf[h][2 * j + 1][0] = f[2], bf[h][2 * j + 1][1] = f[3];
      }
    }
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int mi = 0; mi < kMi; ++mi)
#pragma unroll
        for (int ni = 0; ni < kNi; ++ni) mma<O, kAcc16>(acc[mi][ni], af[h][mi], bf[h][ni]);
    read = read == kStages - 1 ? 0 : read + 1;
    write = write == kStages - 1 ? 0 : write + 1;
  }
  cp_async_wait<0>();  // only empty groups are left
}

// f(r, c, value) for each accumulator element this thread holds
// (tile-relative row and column), as gemm_tc::for_each.
template <class S = Tile128, bool kAcc16, class F>
__device__ __forceinline__ void for_each(const Acc<kAcc16> (&acc)[S::kMi][S::kNi], F&& f) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int wm = (warp % S::kWarpsM) * S::kWarpM, wn = (warp / S::kWarpsM) * S::kWarpN;
#pragma unroll
  for (int mi = 0; mi < S::kMi; ++mi)
#pragma unroll
    for (int ni = 0; ni < S::kNi; ++ni)
#pragma unroll
      for (int i = 0; i < 4; ++i)
        f(wm + mi * 16 + g + 8 * (i >> 1), wn + ni * 8 + 2 * t + (i & 1), acc_elem(acc[mi][ni], i));
}

// The pipeline depth cuBLAS's gemm and cuBLASLt's matmul run it with.
constexpr int kPipeStages = 4;

// Host side, for the launchers of both libraries: whether a call may run on
// the multistage kernel. Its copies need A and B 16-byte aligned with the
// leading dimensions and batch strides multiples of 8 elements (`aligned`,
// from aligned16 for each operand); SOFTGPU_CUBLAS_TC_TILE=64 forces the
// 64x64 kernel. No shape keeps the 64x64 kernel: under the timing model the
// multistage one is faster at every shape tried, down to one partly used
// CTA (docs/status.md, Tensor cores).
template <typename T>
inline bool aligned16(const T* p, int64_t ld, int64_t stride, int batch) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0 && ld % 8 == 0 && (batch == 1 || stride % 8 == 0);
}
inline bool use_multistage(bool aligned) {
  if (!aligned) return false;
  const char* f = std::getenv("SOFTGPU_CUBLAS_TC_TILE");
  return !(f && !std::strcmp(f, "64"));
}

// The multistage tile's width for an m x n x batch call, 128 or 64, given
// each kernel's CTAs per SM (`per_sm128`, `per_sm64`, from the occupancy
// API) and the GPU's SMs: the one whose grid takes less time if an SM's
// throughput is the same with either tile, i.e. the smaller
// waves x (CTAs per SM x tile width), waves = ceil(CTAs / (CTAs per SM x
// SMs)); ties keep 128 x 128. The narrow tile wins where the wide one
// leaves SMs idle or a last wave nearly empty (A100: 1024^3 has 64 CTAs of
// 128 x 128 for 108 SMs), the wide one where both fill their waves (its
// CTA reuses each A and B element twice as often). Under the timing model
// this picked the faster tile at each of ten shapes tried (A100, 512^3 to
// 3456 x 3456 x 1024, docs/status.md). SOFTGPU_CUBLAS_TC_TILE=128x128 or
// 128x64 forces one.
inline int pick_tile_n(int m, int n, int batch, int per_sm128, int per_sm64, int sms) {
  if (const char* f = std::getenv("SOFTGPU_CUBLAS_TC_TILE")) {
    if (!std::strcmp(f, "128x128")) return 128;
    if (!std::strcmp(f, "128x64")) return 64;
  }
  if (per_sm64 <= 0 || sms <= 0) return 128;
  if (per_sm128 <= 0) return 64;
  const double rows = double((m + 127) / 128) * batch;
  auto cost = [&](int bn, int per_sm) {
    const double ctas = rows * double((n + bn - 1) / bn), slots = double(per_sm) * sms;
    return std::ceil(ctas / slots) * per_sm * bn;
  };
  return cost(64, per_sm64) < cost(128, per_sm128) ? 64 : 128;
}

// CTAs of `kernel` (256 threads, `bytes` of dynamic shared memory) per SM,
// after allowing it those bytes.
template <class K>
inline cudaError_t ctas_per_sm(K kernel, int bytes, int& per_sm) {
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
      e != cudaSuccess)
    return e;
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, bytes);
}

// The tile width for a call given both kernels (pick_tile_n), or an error.
template <class K128, class K64>
inline cudaError_t choose_tile_n(K128 k128, K64 k64, int bytes128, int bytes64, int m, int n, int batch, int& bn) {
  int dev = 0, sms = 0, per128 = 0, per64 = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (e == cudaSuccess) e = ctas_per_sm(k128, bytes128, per128);
  if (e == cudaSuccess) e = ctas_per_sm(k64, bytes64, per64);
  if (e == cudaSuccess) bn = pick_tile_n(m, n, batch, per128, per64, sms);
  return e;
}

}  // namespace ms

}  // namespace softgpu::gemm_tc
