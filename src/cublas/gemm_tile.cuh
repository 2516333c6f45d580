// The tiled gemm main loop the device kernels of libcublas (kernels.cu) and
// libcublasLt (src/cublaslt/kernels.cu) share, and the element conversions
// of the typed gemm. Device code; each library compiles its own copy.
//
// A block of kDim x kDim threads computes a kTile x kTile tile of the
// product, each thread a kPer x kPer sub-block (rows ty + kDim*i, columns
// tx + kDim*j of the tile); A and B go through shared memory kTile x kKTile /
// kKTile x kTile at a time. Each element is one fma chain over k in
// increasing order.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace softgpu::gemm_tile {

constexpr int kTile = 64;
constexpr int kKTile = 16;
constexpr int kDim = 16;
constexpr int kPer = kTile / kDim;

// What an f32 input is rounded to before the product (CUBLAS_COMPUTE_32F_FAST_*).
enum class InputRound { none, tf32, f16, bf16 };

// Inputs and C are widened to the accumulation type, the result narrowed
// once (round to nearest even).
__device__ __forceinline__ float widen(__half v) { return __half2float(v); }
__device__ __forceinline__ float widen(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float widen(float v) { return v; }
__device__ __forceinline__ double widen(double v) { return v; }
template <typename T> __device__ __forceinline__ T narrow(float v);
template <> __device__ __forceinline__ __half narrow<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 narrow<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __forceinline__ float narrow<float>(float v) { return v; }
template <typename T> __device__ __forceinline__ T narrow(double v) { return v; }

// A BLAS scalar: the value from the device pointer (device pointer mode)
// when there is one, else the host value passed by value.
template <typename T>
__device__ __forceinline__ T scalar(T value, const T* dev) {
  return dev ? *dev : value;
}

// tf32 as the tensor cores round it (10 explicit mantissa bits, nearest with
// ties away from zero: cvt.rna.tf32.f32), or a round trip through f16 / bf16.
template <int R>
__device__ __forceinline__ float round_input(float v) {
  if constexpr (R == int(InputRound::tf32)) {
    unsigned u = __float_as_uint(v);
    if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;  // inf and NaN as they are
    return __uint_as_float(u);
  } else if constexpr (R == int(InputRound::f16)) {
    return __half2float(__float2half_rn(v));
  } else if constexpr (R == int(InputRound::bf16)) {
    return __bfloat162float(__float2bfloat16_rn(v));
  } else {
    return v;
  }
}
template <int R>
__device__ __forceinline__ double round_input(double v) {
  return v;
}

// The operand tiles in shared memory: as[kk][row], bs[kk][col].
template <typename TA>
struct Operands {
  TA as[kKTile][kTile + 1];
  TA bs[kKTile][kTile + 1];
};

// acc = op(A) op(B) over the tile at (row0, col0) of the m x n product, in
// the accumulation type TA, inputs of type TI rounded by R first. Every
// thread of the block must call it (it synchronizes); entries outside m x n
// come out 0.
template <typename TI, typename TA, int R>
__device__ void accumulate(Operands<TA>& sm, TA (&acc)[kPer][kPer], bool ta, bool tb, int m, int n, int k,
                           const TI* a, int64_t lda, const TI* b, int64_t ldb, int row0, int col0) {
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kDim + tx;
  for (int i = 0; i < kPer; ++i)
    for (int j = 0; j < kPer; ++j) acc[i][j] = 0;
  for (int k0 = 0; k0 < k; k0 += kKTile) {
    // kTile*kKTile elements of each operand, kTile*kKTile/(kDim*kDim) per thread.
    for (int e = tid; e < kTile * kKTile; e += kDim * kDim) {
      int r, kk;
      if (ta) { kk = e % kKTile; r = e / kKTile; } else { r = e % kTile; kk = e / kTile; }
      int gr = row0 + r, gk = k0 + kk;
      TA v = 0;
      if (gr < m && gk < k) v = round_input<R>(widen(ta ? a[gk + gr * lda] : a[gr + gk * lda]));  // op(A)(gr, gk)
      sm.as[kk][r] = v;
      int cc;
      if (tb) { cc = e % kTile; kk = e / kTile; } else { kk = e % kKTile; cc = e / kKTile; }
      int gc = col0 + cc;
      gk = k0 + kk;
      v = 0;
      if (gc < n && gk < k) v = round_input<R>(widen(tb ? b[gc + gk * ldb] : b[gk + gc * ldb]));  // op(B)(gk, gc)
      sm.bs[kk][cc] = v;
    }
    __syncthreads();
    const int kn = k - k0 < kKTile ? k - k0 : kKTile;
    for (int kk = 0; kk < kn; ++kk) {
      TA av[kPer], bv[kPer];
      for (int i = 0; i < kPer; ++i) av[i] = sm.as[kk][ty + kDim * i];
      for (int j = 0; j < kPer; ++j) bv[j] = sm.bs[kk][tx + kDim * j];
      for (int i = 0; i < kPer; ++i)
        for (int j = 0; j < kPer; ++j) acc[i][j] = fma(av[i], bv[j], acc[i][j]);
    }
    __syncthreads();
  }
}

}  // namespace softgpu::gemm_tile
