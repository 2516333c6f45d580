// softgpu cuBLAS's tensor-core gemm (see kernels_tc.h): a main loop of
// gemm_tc.cuh per tile of C (the 64x64 one-stage loop, or the 128x128 / 128x64
// multistage cp.async / ldmatrix loop of gemm_tc::ms), then alpha acc +
// beta C written under predication. ms::use_multistage() (gemm_tc.cuh)
// picks between them.
#include "kernels_tc.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>

#include "gemm_tc.cuh"

namespace softgpu::cublas {
namespace {

using namespace gemm_tc;

// C(r, cl) = alpha v + beta C(r, cl) inside the m x n matrix (beta == 0: C
// is not read; alpha == 0: v is not used).
template <typename TO>
__device__ __forceinline__ void store_c(TO* c, int64_t ldc, int m, int n, int r, int cl, float al, float be,
                                        float v) {
  if (r >= m || cl >= n) return;
  TO* p = &c[r + cl * ldc];
  const float ab = al == 0.f ? 0.f : al * v;
  *p = narrow<TO>(be == 0.f ? ab : fmaf(be, widen(*p), ab));
}

// TI: A/B element type, TO: C, TS: scalars as passed. Accumulation and the
// epilogue (alpha acc + beta C, rounded once to TO) in f32; with kAcc16
// the mma itself accumulates in f16 (rounding after every k step of 16).
// blockIdx.z is the batch (the index into a_arr/b_arr/c_arr for
// gemmBatched).
template <Op O, typename TI, typename TO, typename TS, bool kAcc16>
__global__ void __launch_bounds__(kTcThreads)
    gemm_tc_kernel(bool ta, bool tb, int m, int n, int k, TS alpha, const TS* alpha_dev, const TI* a, int64_t lda,
                   int64_t stride_a, const TI* b, int64_t ldb, int64_t stride_b, TS beta, const TS* beta_dev, TO* c,
                   int64_t ldc, int64_t stride_c, const TI* const* a_arr, const TI* const* b_arr, TO* const* c_arr) {
  __shared__ Tiles<O> sm;
  if (a_arr) {  // gemmBatched: the z-th pointers of the arrays
    a = a_arr[blockIdx.z], b = b_arr[blockIdx.z], c = c_arr[blockIdx.z];
  } else {
    a += stride_a * blockIdx.z;
    b += stride_b * blockIdx.z;
    c += stride_c * blockIdx.z;
  }
  const int row0 = blockIdx.x * kBM, col0 = blockIdx.y * kBN;
  const float al = widen(scalar(alpha, alpha_dev)), be = widen(scalar(beta, beta_dev));
  Acc<kAcc16> acc[2][4];
  // alpha == 0: A and B are not read (BLAS); the branch is uniform.
  if (al != 0.f) accumulate<O, TI, kAcc16>(sm, acc, ta, tb, m, n, k, a, lda, b, ldb, row0, col0);
  else
    for (auto& row : acc)
      for (auto& tile : row)
        for (auto& v : tile.v) v = 0;

  for_each(acc, [&](int tr, int tc, float v) { store_c(c, ldc, m, n, row0 + tr, col0 + tc, al, be, v); });
}

// The multistage kernel (gemm_tc::ms): 128 x kBN tiles (ms::Tile), 8
// warps, kStages k tiles in flight, dynamic shared memory of
// Tile::shared_bytes<kStages>(). A and B 16-byte aligned with lda, ldb,
// stride_a, stride_b multiples of 8 (launch_as checks). blockIdx.z: the
// batch.
extern __shared__ __align__(16) unsigned char tc_ms_smem[];
template <Op O, int kStages, int kBN, bool kTa, bool kTb, typename TI, typename TO, typename TS, bool kAcc16>
__global__ void __launch_bounds__(ms::kThreads)
    gemm_tc_ms_kernel(int m, int n, int k, TS alpha, const TS* alpha_dev, const TI* a, int64_t lda,
                      int64_t stride_a, const TI* b, int64_t ldb, int64_t stride_b, TS beta, const TS* beta_dev,
                      TO* c, int64_t ldc, int64_t stride_c) {
  using S = ms::Tile<kBN>;
  a += stride_a * blockIdx.z;
  b += stride_b * blockIdx.z;
  c += stride_c * blockIdx.z;
  const int row0 = blockIdx.x * S::kBM, col0 = blockIdx.y * S::kBN;
  const float al = widen(scalar(alpha, alpha_dev)), be = widen(scalar(beta, beta_dev));
  Acc<kAcc16> acc[S::kMi][S::kNi];
  if (al != 0.f)
    ms::accumulate<O, kStages, kTa, kTb, TI, kAcc16, S>(tc_ms_smem, acc, m, n, k, a, lda, b, ldb, row0, col0);
  else
    for (auto& row : acc)
      for (auto& tile : row)
        for (auto& v : tile.v) v = 0;
  ms::for_each<S>(acc, [&](int tr, int tc, float v) { store_c(c, ldc, m, n, row0 + tr, col0 + tc, al, be, v); });
}

constexpr int kMsStages = ms::kPipeStages;

// The multistage kernel of a tile width for a transpose pair.
template <Op O, int kBN, typename TI, typename TO, typename TS, bool kAcc16>
auto* ms_kernel(bool ta, bool tb) {
  return ta ? (tb ? gemm_tc_ms_kernel<O, kMsStages, kBN, true, true, TI, TO, TS, kAcc16>
                  : gemm_tc_ms_kernel<O, kMsStages, kBN, true, false, TI, TO, TS, kAcc16>)
            : (tb ? gemm_tc_ms_kernel<O, kMsStages, kBN, false, true, TI, TO, TS, kAcc16>
                  : gemm_tc_ms_kernel<O, kMsStages, kBN, false, false, TI, TO, TS, kAcc16>);
}

// The multistage kernel's grid over every batch entry (z in chunks of the
// grid's limit).
template <int kBN, class K, typename TI, typename TO, typename TS>
cudaError_t launch_ms(cudaStream_t s, K kernel, int m, int n, int k, TS al, const TS* alpha_dev, const TI* a,
                      int64_t lda, int64_t sa, const TI* b, int64_t ldb, int64_t sb, TS be, const TS* beta_dev, TO* c,
                      int64_t ldc, int64_t sc, int batch) {
  using S = ms::Tile<kBN>;
  constexpr int kMaxZ = 65535;
  constexpr int kBytes = S::template shared_bytes<kMsStages>();
  for (int b0 = 0; b0 < batch; b0 += kMaxZ) {
    const int nb = batch - b0 < kMaxZ ? batch - b0 : kMaxZ;
    dim3 grid((m + S::kBM - 1) / S::kBM, (n + S::kBN - 1) / S::kBN, nb);
    kernel<<<grid, ms::kThreads, kBytes, s>>>(m, n, k, al, alpha_dev, a + sa * b0, lda, sa, b + sb * b0, ldb, sb, be,
                                              beta_dev, c + sc * b0, ldc, sc);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

template <Op O, typename TI, typename TO, typename TS, bool kAcc16>
cudaError_t launch_as(cudaStream_t s, bool ta, bool tb, int m, int n, int k, const void* alpha_host,
                      const void* alpha_dev, const void* a, int64_t lda, int64_t sa, const void* b, int64_t ldb,
                      int64_t sb, const void* beta_host, const void* beta_dev, void* c, int64_t ldc, int64_t sc,
                      int batch, const void* const* const* arrays) {
  TS al{}, be{};
  if (alpha_host) std::memcpy(&al, alpha_host, sizeof(TS));
  if (beta_host) std::memcpy(&be, beta_host, sizeof(TS));
  const auto* ai = static_cast<const TI*>(a);
  const auto* bi = static_cast<const TI*>(b);
  auto* co = static_cast<TO*>(c);
  const auto* aa = arrays ? reinterpret_cast<const TI* const*>(arrays[0]) : nullptr;
  const auto* ba = arrays ? reinterpret_cast<const TI* const*>(arrays[1]) : nullptr;
  auto* ca = arrays ? reinterpret_cast<TO* const*>(const_cast<void* const*>(arrays[2])) : nullptr;
  constexpr int kMaxZ = 65535;  // grid z limit: larger batches go in chunks
  if constexpr (sizeof(TI) == 2) {
    if (!arrays && ms::use_multistage(ms::aligned16(ai, lda, sa, batch) && ms::aligned16(bi, ldb, sb, batch))) {
      auto* k128 = ms_kernel<O, 128, TI, TO, TS, kAcc16>(ta, tb);
      auto* k64 = ms_kernel<O, 64, TI, TO, TS, kAcc16>(ta, tb);
      int bn = 128;
      if (cudaError_t e = ms::choose_tile_n(k128, k64, ms::Tile<128>::shared_bytes<kMsStages>(),
                                            ms::Tile<64>::shared_bytes<kMsStages>(), m, n, batch, bn);
          e != cudaSuccess)
        return e;
      const auto* ad = static_cast<const TS*>(alpha_dev);
      const auto* bd = static_cast<const TS*>(beta_dev);
      return bn == 64 ? launch_ms<64>(s, k64, m, n, k, al, ad, ai, lda, sa, bi, ldb, sb, be, bd, co, ldc, sc, batch)
                      : launch_ms<128>(s, k128, m, n, k, al, ad, ai, lda, sa, bi, ldb, sb, be, bd, co, ldc, sc, batch);
    }
  }
  for (int b0 = 0; b0 < batch; b0 += kMaxZ) {
    const int nb = batch - b0 < kMaxZ ? batch - b0 : kMaxZ;
    dim3 grid((m + kBM - 1) / kBM, (n + kBN - 1) / kBN, nb);
    gemm_tc_kernel<O, TI, TO, TS, kAcc16><<<grid, kTcThreads, 0, s>>>(
        ta, tb, m, n, k, al, static_cast<const TS*>(alpha_dev), arrays ? nullptr : ai + sa * b0, lda, sa,
        arrays ? nullptr : bi + sb * b0, ldb, sb, be, static_cast<const TS*>(beta_dev),
        arrays ? nullptr : co + sc * b0, ldc, sc, arrays ? aa + b0 : nullptr, arrays ? ba + b0 : nullptr,
        arrays ? ca + b0 : nullptr);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

}  // namespace

cudaError_t launch_gemm_tc(cudaStream_t s, TcGemm kind, bool ta, bool tb, int m, int n, int k,
                           const void* alpha_host, const void* alpha_dev, const void* a, int64_t lda, int64_t sa,
                           const void* b, int64_t ldb, int64_t sb, const void* beta_host, const void* beta_dev,
                           void* c, int64_t ldc, int64_t sc, int batch, const void* const* const* arrays) {
  if (!arrays) {
    bool ran = false;
    if (cudaError_t e = launch_gemm_sm90(s, kind, ta, tb, m, n, k, alpha_host, alpha_dev, a, lda, sa, b, ldb, sb,
                                         beta_host, beta_dev, c, ldc, sc, batch, ran);
        e != cudaSuccess || ran)
      return e;
  }
#define SG_TC(O, TI, TO, TS, ACC16)                                                                                 \
  launch_as<Op::O, TI, TO, TS, ACC16>(s, ta, tb, m, n, k, alpha_host, alpha_dev, a, lda, sa, b, ldb, sb, beta_host, \
                                      beta_dev, c, ldc, sc, batch, arrays)
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
