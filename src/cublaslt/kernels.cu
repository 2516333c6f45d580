// softgpu cuBLASLt's device kernels: the matmul with its epilogue (the tiled
// main loop of src/cublas/gemm_tile.cuh), and the bias-gradient reductions.
// Compiled by nvcc into the library's own fatbinary, registered with
// softgpu's libcudart and run on the software GPU.
#include "kernels.h"

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstring>

#include "cublas/gemm_tile.cuh"

namespace softgpu::cublaslt {
namespace {

using gemm_tile::InputRound;
using gemm_tile::kDim;
using gemm_tile::kPer;
using gemm_tile::kTile;
using gemm_tile::narrow;
using gemm_tile::widen;

constexpr unsigned kBias = CUBLASLT_EPILOGUE_BIAS;  // the bit every *_BIAS form carries
constexpr int kThreads = 256;                       // reductions' block size

// The operands of one launch (kernel parameter; the typed pointers are cast
// in the kernel).
struct Dev {
  bool ta, tb;
  int m, n, k, z0;
  const void* a;
  int64_t lda, sa;
  const void* b;
  int64_t ldb, sb;
  const void* c;
  int64_t c_rs, c_cs, sc;
  void* d;
  int64_t d_rs, d_cs, sd;
  unsigned epi;
  const void* bias;
  int64_t bias_stride;
  void* aux;
  int64_t aux_ld, aux_stride;
};

template <typename T>
__device__ __forceinline__ T scalar(T value, const T* dev) {
  return dev ? *dev : value;
}

// GELU, the tanh approximation cuBLAS uses, and its derivative.
template <typename TA>
__device__ __forceinline__ TA gelu(TA x) {
  const TA k0 = TA(0.7978845608028654), k1 = TA(0.044715);
  return TA(0.5) * x * (TA(1) + tanh(k0 * (x + k1 * x * x * x)));
}
template <typename TA>
__device__ __forceinline__ TA gelu_grad(TA x) {
  const TA k0 = TA(0.7978845608028654), k1 = TA(0.044715);
  const TA t = tanh(k0 * (x + k1 * x * x * x));
  return TA(0.5) * (TA(1) + t) + TA(0.5) * x * (TA(1) - t * t) * k0 * (TA(1) + TA(3) * k1 * x * x);
}

// One 64x64 tile of D per block; the epilogue per element in TA. The ReLU
// bit mask (RELU_AUX*) goes through shared memory so that each byte of it is
// written whole by one thread.
template <typename TI, typename TO, typename TA, typename TS, int R>
__global__ void __launch_bounds__(kDim* kDim) matmul_kernel(Dev p, TS alpha, const TS* alpha_dev, TS beta,
                                                            const TS* beta_dev) {
  const int64_t z = p.z0 + blockIdx.z;
  const TI* a = static_cast<const TI*>(p.a) + p.sa * z;
  const TI* b = static_cast<const TI*>(p.b) + p.sb * z;
  const TO* c = static_cast<const TO*>(p.c) + p.sc * z;
  TO* d = static_cast<TO*>(p.d) + p.sd * z;
  __shared__ gemm_tile::Operands<TA> sm;
  __shared__ unsigned char positive[kTile][kTile];  // [col][row] of the tile, RELU_AUX* only
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.x * kTile, col0 = blockIdx.y * kTile;
  TA acc[kPer][kPer];
  gemm_tile::accumulate<TI, TA, R>(sm, acc, p.ta, p.tb, p.m, p.n, p.k, a, p.lda, b, p.ldb, row0, col0);

  const unsigned epi = p.epi;
  const bool mask_out = epi == CUBLASLT_EPILOGUE_RELU_AUX || epi == CUBLASLT_EPILOGUE_RELU_AUX_BIAS;
  const bool mask_in = epi == CUBLASLT_EPILOGUE_DRELU || epi == CUBLASLT_EPILOGUE_DRELU_BGRAD;
  const bool gelu_out = epi == CUBLASLT_EPILOGUE_GELU_AUX || epi == CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
  const bool gelu_in = epi == CUBLASLT_EPILOGUE_DGELU || epi == CUBLASLT_EPILOGUE_DGELU_BGRAD;
  const bool relu = epi == CUBLASLT_EPILOGUE_RELU || epi == CUBLASLT_EPILOGUE_RELU_BIAS || mask_out;
  const bool gelu_act = epi == CUBLASLT_EPILOGUE_GELU || epi == CUBLASLT_EPILOGUE_GELU_BIAS || gelu_out;
  const bool add_bias = (epi & kBias) != 0 && epi < CUBLASLT_EPILOGUE_BGRADA;
  const TO* bias = add_bias ? static_cast<const TO*>(p.bias) + p.bias_stride * z : nullptr;
  unsigned char* mask = static_cast<unsigned char*>(p.aux) + (mask_out || mask_in ? p.aux_stride * z / 8 : 0);
  TO* gaux = static_cast<TO*>(p.aux) + (gelu_out || gelu_in ? p.aux_stride * z : 0);

  const TA al = widen(scalar(alpha, alpha_dev)), be = widen(scalar(beta, beta_dev));
  for (int i = 0; i < kPer; ++i) {
    const int r = row0 + ty + kDim * i;
    for (int j = 0; j < kPer; ++j) {
      const int cl = col0 + tx + kDim * j;
      const bool in = r < p.m && cl < p.n;
      TA x = 0;
      if (in) {
        // alpha == 0: A and B do not count, beta == 0: C is not read.
        const TA ab = al == TA(0) ? TA(0) : al * acc[i][j];
        x = be == TA(0) ? ab : fma(be, TA(widen(c[r * p.c_rs + cl * p.c_cs])), ab);
        if (bias) x += TA(widen(bias[r]));
        TA y = x;
        const int64_t at = r + cl * p.aux_ld;
        if (relu) y = x > TA(0) ? x : TA(0);
        if (gelu_act) y = gelu(x);
        if (gelu_out) gaux[at] = narrow<TO>(x);
        if (mask_in) y = (mask[at / 8] >> (at % 8)) & 1 ? x : TA(0);
        if (gelu_in) y = x * gelu_grad(TA(widen(gaux[at])));
        d[r * p.d_rs + cl * p.d_cs] = narrow<TO>(y);
      }
      if (mask_out) positive[tx + kDim * j][ty + kDim * i] = in && x > TA(0);
    }
  }
  if (!mask_out) return;  // uniform across the block
  __syncthreads();
  // The tile's bytes of the mask: 8 rows of one column each (row0 and
  // aux_ld are multiples of 8, so bytes never straddle tiles).
  for (int e = ty * kDim + tx; e < kTile * kTile / 8; e += kDim * kDim) {
    const int col = e / (kTile / 8), byte = e % (kTile / 8);
    const int gc = col0 + col, gr = row0 + byte * 8;
    if (gc >= p.n || gr >= p.m) continue;
    unsigned bits = 0;
    for (int t = 0; t < 8; ++t) bits |= unsigned(positive[col][byte * 8 + t]) << t;
    mask[(gr + gc * p.aux_ld) / 8] = static_cast<unsigned char>(bits);
  }
}

// bias[i] = sum over j < len of x[i*si + j*sj] (batch z at x + z*sx, bias +
// z*sb), one thread per i, in increasing j: the bias gradients (rows of D,
// rows of op(A), columns of op(B)).
template <typename TX, typename TO, typename TA>
__global__ void row_sum_kernel(int count, int len, const TX* x, int64_t si, int64_t sj, int64_t sx, TO* bias,
                               int64_t sb) {
  const int64_t z = blockIdx.y;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const TX* row = x + sx * z + si * i;
  TA acc = 0;
  for (int j = 0; j < len; ++j) acc += TA(widen(row[sj * j]));
  bias[sb * z + i] = narrow<TO>(acc);
}

template <typename TX, typename TO, typename TA>
cudaError_t launch_row_sum(cudaStream_t s, int count, int len, const void* x, int64_t si, int64_t sj, int64_t sx,
                           void* bias, int64_t sb, int batch) {
  constexpr int kMaxY = 65535;
  for (int b0 = 0; b0 < batch; b0 += kMaxY) {
    const int nb = batch - b0 < kMaxY ? batch - b0 : kMaxY;
    dim3 grid((count + kThreads - 1) / kThreads, nb);
    row_sum_kernel<TX, TO, TA><<<grid, kThreads, 0, s>>>(count, len, static_cast<const TX*>(x) + sx * b0, si, sj, sx,
                                                         static_cast<TO*>(bias) + sb * b0, sb);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

template <typename TI, typename TO, typename TA, typename TS, int R>
cudaError_t matmul_as(cudaStream_t s, const MatmulArgs& m) {
  TS al{}, be{};
  if (m.alpha_host) std::memcpy(&al, m.alpha_host, sizeof(TS));
  if (m.beta_host) std::memcpy(&be, m.beta_host, sizeof(TS));
  Dev p{m.ta, m.tb, m.m, m.n, m.k, 0, m.a, m.lda, m.sa, m.b, m.ldb, m.sb, m.c, m.c_rs, m.c_cs, m.sc,
        m.d, m.d_rs, m.d_cs, m.sd, m.epilogue, m.bias, m.bias_stride, m.aux, m.aux_ld, m.aux_stride};
  constexpr int kMaxZ = 65535;  // grid z limit: larger batches go in chunks
  for (int b0 = 0; b0 < m.batch; b0 += kMaxZ) {
    const int nb = m.batch - b0 < kMaxZ ? m.batch - b0 : kMaxZ;
    p.z0 = b0;
    dim3 grid((m.m + kTile - 1) / kTile, (m.n + kTile - 1) / kTile, nb);
    matmul_kernel<TI, TO, TA, TS, R><<<grid, dim3(kDim, kDim), 0, s>>>(
        p, al, static_cast<const TS*>(m.alpha_dev), be, static_cast<const TS*>(m.beta_dev));
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  }
  switch (m.epilogue) {
    case CUBLASLT_EPILOGUE_DRELU_BGRAD:
    case CUBLASLT_EPILOGUE_DGELU_BGRAD:  // rows of D
      return launch_row_sum<TO, TO, TA>(s, m.m, m.n, m.d, m.d_rs, m.d_cs, m.sd, m.bias, m.bias_stride, m.batch);
    case CUBLASLT_EPILOGUE_BGRADA:  // rows of op(A): A(i, kk), or A(kk, i) transposed
      return launch_row_sum<TI, TO, TA>(s, m.m, m.k, m.a, m.ta ? m.lda : 1, m.ta ? 1 : m.lda, m.sa, m.bias,
                                        m.bias_stride, m.batch);
    case CUBLASLT_EPILOGUE_BGRADB:  // columns of op(B): B(kk, j), or B(j, kk) transposed
      return launch_row_sum<TI, TO, TA>(s, m.n, m.k, m.b, m.tb ? 1 : m.ldb, m.tb ? m.ldb : 1, m.sb, m.bias,
                                        m.bias_stride, m.batch);
    default: return cudaSuccess;
  }
}

}  // namespace

cudaError_t launch_matmul(cudaStream_t s, const MatmulArgs& args) {
#define SG_LT(TI, TO, TA, TS, R) matmul_as<TI, TO, TA, TS, int(InputRound::R)>(s, args)
  using h = __half;
  using bf = __nv_bfloat16;
  switch (args.combo) {
    case GemmCombo::h_h_scale_h: return SG_LT(h, h, float, h, none);
    case GemmCombo::h_h: return SG_LT(h, h, float, float, none);
    case GemmCombo::bf_bf: return SG_LT(bf, bf, float, float, none);
    case GemmCombo::h_f: return SG_LT(h, float, float, float, none);
    case GemmCombo::bf_f: return SG_LT(bf, float, float, float, none);
    case GemmCombo::f_f: return SG_LT(float, float, float, float, none);
    case GemmCombo::f_f_tf32: return SG_LT(float, float, float, float, tf32);
    case GemmCombo::f_f_via_h: return SG_LT(float, float, float, float, f16);
    case GemmCombo::f_f_via_bf: return SG_LT(float, float, float, float, bf16);
    case GemmCombo::d_d: return SG_LT(double, double, double, double, none);
  }
#undef SG_LT
  return cudaErrorNotSupported;
}

}  // namespace softgpu::cublaslt
