// softgpu cuBLASLt's device kernels: the matmul with its epilogue (on the
// tensor cores with a main loop of src/cublas/gemm_tc.cuh, the multistage
// 128x128 / 128x64 one or the 64x64 one, or SIMT with that of
// gemm_tile.cuh), and the bias-gradient reductions.
// Compiled by nvcc into the library's own fatbinary, registered with
// softgpu's libcudart and run on the software GPU.
#include "kernels.h"

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstring>

#include "cublas/gemm_tc.cuh"
#include "cublas/gemm_tile.cuh"

namespace softgpu::cublaslt {
namespace {

using gemm_tile::InputRound;
using gemm_tile::kDim;
using gemm_tile::kPer;
using gemm_tile::kTile;
using gemm_tile::narrow;
using gemm_tile::scalar;
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

// The epilogue of one batch entry, applied to each accumulator by both
// matmul kernels: x = alpha acc + beta C (+ bias), then the activation or
// its gradient, aux written or read; returns x (the ReLU mask's input).
template <typename TO, typename TA>
struct Epilogue {
  bool mask_out, mask_in, gelu_out, gelu_in, relu, gelu_act;
  const TO* bias;
  unsigned char* mask;
  TO* gaux;
  const TO* c;
  TO* d;
  TA al, be;

  template <typename TS>
  __device__ Epilogue(const Dev& p, int64_t z, TS alpha, const TS* alpha_dev, TS beta, const TS* beta_dev) {
    const unsigned epi = p.epi;
    mask_out = epi == CUBLASLT_EPILOGUE_RELU_AUX || epi == CUBLASLT_EPILOGUE_RELU_AUX_BIAS;
    mask_in = epi == CUBLASLT_EPILOGUE_DRELU || epi == CUBLASLT_EPILOGUE_DRELU_BGRAD;
    gelu_out = epi == CUBLASLT_EPILOGUE_GELU_AUX || epi == CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
    gelu_in = epi == CUBLASLT_EPILOGUE_DGELU || epi == CUBLASLT_EPILOGUE_DGELU_BGRAD;
    relu = epi == CUBLASLT_EPILOGUE_RELU || epi == CUBLASLT_EPILOGUE_RELU_BIAS || mask_out;
    gelu_act = epi == CUBLASLT_EPILOGUE_GELU || epi == CUBLASLT_EPILOGUE_GELU_BIAS || gelu_out;
    const bool add_bias = (epi & kBias) != 0 && epi < CUBLASLT_EPILOGUE_BGRADA;
    bias = add_bias ? static_cast<const TO*>(p.bias) + p.bias_stride * z : nullptr;
    mask = static_cast<unsigned char*>(p.aux) + (mask_out || mask_in ? p.aux_stride * z / 8 : 0);
    gaux = static_cast<TO*>(p.aux) + (gelu_out || gelu_in ? p.aux_stride * z : 0);
    c = static_cast<const TO*>(p.c) + p.sc * z;
    d = static_cast<TO*>(p.d) + p.sd * z;
    al = widen(scalar(alpha, alpha_dev));
    be = widen(scalar(beta, beta_dev));
  }

  __device__ TA apply(const Dev& p, int r, int cl, TA acc) const {
    // alpha == 0: A and B do not count, beta == 0: C is not read.
    const TA ab = al == TA(0) ? TA(0) : al * acc;
    TA x = be == TA(0) ? ab : fma(be, TA(widen(c[r * p.c_rs + cl * p.c_cs])), ab);
    if (bias) x += TA(widen(bias[r]));
    TA y = x;
    const int64_t at = r + cl * p.aux_ld;
    if (relu) y = x > TA(0) ? x : TA(0);
    if (gelu_act) y = gelu(x);
    if (gelu_out) gaux[at] = narrow<TO>(x);
    if (mask_in) y = (mask[at / 8] >> (at % 8)) & 1 ? x : TA(0);
    if (gelu_in) y = x * gelu_grad(TA(widen(gaux[at])));
    d[r * p.d_rs + cl * p.d_cs] = narrow<TO>(y);
    return x;
  }
};

// The tile's bytes of the ReLU mask from positive[col][row] (RELU_AUX*): 8
// rows of one column each (row0 and aux_ld are multiples of 8, so bytes
// never straddle tiles), each byte written whole by one thread.
__device__ void write_mask(const Dev& p, unsigned char* mask, const unsigned char (&positive)[kTile][kTile], int row0,
                           int col0, int tid, int nthreads) {
  for (int e = tid; e < kTile * kTile / 8; e += nthreads) {
    const int col = e / (kTile / 8), byte = e % (kTile / 8);
    const int gc = col0 + col, gr = row0 + byte * 8;
    if (gc >= p.n || gr >= p.m) continue;
    unsigned bits = 0;
    for (int t = 0; t < 8; ++t) bits |= unsigned(positive[col][byte * 8 + t]) << t;
    mask[(gr + gc * p.aux_ld) / 8] = static_cast<unsigned char>(bits);
  }
}

// SIMT: one 64x64 tile of D per block (the fma main loop of gemm_tile.cuh);
// f32 x f32 in FP32 and f64.
template <typename TI, typename TO, typename TA, typename TS, int R>
__global__ void __launch_bounds__(kDim* kDim) matmul_kernel(Dev p, TS alpha, const TS* alpha_dev, TS beta,
                                                            const TS* beta_dev) {
  const int64_t z = p.z0 + blockIdx.z;
  const TI* a = static_cast<const TI*>(p.a) + p.sa * z;
  const TI* b = static_cast<const TI*>(p.b) + p.sb * z;
  __shared__ gemm_tile::Operands<TA> sm;
  __shared__ unsigned char positive[kTile][kTile];  // [col][row] of the tile, RELU_AUX* only
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.x * kTile, col0 = blockIdx.y * kTile;
  TA acc[kPer][kPer];
  gemm_tile::accumulate<TI, TA, R>(sm, acc, p.ta, p.tb, p.m, p.n, p.k, a, p.lda, b, p.ldb, row0, col0);
  const Epilogue<TO, TA> e(p, z, alpha, alpha_dev, beta, beta_dev);
  for (int i = 0; i < kPer; ++i) {
    const int r = row0 + ty + kDim * i;
    for (int j = 0; j < kPer; ++j) {
      const int cl = col0 + tx + kDim * j;
      const bool in = r < p.m && cl < p.n;
      const TA x = in ? e.apply(p, r, cl, acc[i][j]) : TA(0);
      if (e.mask_out) positive[tx + kDim * j][ty + kDim * i] = in && x > TA(0);
    }
  }
  if (!e.mask_out) return;  // uniform across the block
  __syncthreads();
  write_mask(p, e.mask, positive, row0, col0, ty * kDim + tx, kDim * kDim);
}

// Tensor cores: the mma.sync main loop of gemm_tc.cuh (as cuBLAS's gemm
// uses it) per 64x64 tile of D, f32 accumulation, the same epilogue.
template <gemm_tc::Op O, typename TI, typename TO, typename TS>
__global__ void __launch_bounds__(gemm_tc::kTcThreads) matmul_tc_kernel(Dev p, TS alpha, const TS* alpha_dev, TS beta,
                                                                       const TS* beta_dev) {
  static_assert(gemm_tc::kBM == kTile && gemm_tc::kBN == kTile, "one tile size for the ReLU mask");
  const int64_t z = p.z0 + blockIdx.z;
  const TI* a = static_cast<const TI*>(p.a) + p.sa * z;
  const TI* b = static_cast<const TI*>(p.b) + p.sb * z;
  __shared__ gemm_tc::Tiles<O> sm;
  __shared__ unsigned char positive[kTile][kTile];  // [col][row] of the tile, RELU_AUX* only
  const int row0 = blockIdx.x * kTile, col0 = blockIdx.y * kTile;
  const Epilogue<TO, float> e(p, z, alpha, alpha_dev, beta, beta_dev);
  gemm_tc::Acc<false> acc[2][4];
  if (e.al != 0.f) {  // alpha == 0: A and B are not read; uniform
    gemm_tc::accumulate<O, TI, false>(sm, acc, p.ta, p.tb, p.m, p.n, p.k, a, p.lda, b, p.ldb, row0, col0);
  } else {
    for (auto& row : acc)
      for (auto& tile : row)
        for (auto& v : tile.v) v = 0;
  }
  gemm_tc::for_each(acc, [&](int tr, int tc, float v) {
    const int r = row0 + tr, cl = col0 + tc;
    const bool in = r < p.m && cl < p.n;
    const float x = in ? e.apply(p, r, cl, v) : 0.f;
    if (e.mask_out) positive[tc][tr] = in && x > 0.f;
  });
  if (!e.mask_out) return;
  __syncthreads();
  write_mask(p, e.mask, positive, row0, col0, threadIdx.x, gemm_tc::kTcThreads);
}

// Tensor cores, multistage: the 128x128 / 128x64 cp.async / ldmatrix main loop of
// gemm_tc::ms (as cuBLAS's gemm runs it) for f16 / bf16 A and B laid out
// for 16-byte copies, then the epilogue, for every epilogue but the ReLU
// masks (their bytes come from a 64x64 tile: matmul_tc_kernel). kPlain
// (CUBLASLT_EPILOGUE_DEFAULT): D = alpha acc + beta C alone, without the
// other epilogues' tests per element, as cuBLASLt's kernels carry only
// their own epilogue. The epilogue's state is made after the main loop, so
// that it holds no registers there: 120-126 per thread at 128x128, two CTAs
// per SM as cuBLAS's gemm (made before it, 154-216: one CTA).
extern __shared__ __align__(16) unsigned char lt_ms_smem[];
template <gemm_tc::Op O, int kBN, bool kTa, bool kTb, bool kPlain, typename TI, typename TO, typename TS>
__global__ void __launch_bounds__(gemm_tc::ms::kThreads)
    matmul_tc_ms_kernel(Dev p, TS alpha, const TS* alpha_dev, TS beta, const TS* beta_dev) {
  namespace ms = gemm_tc::ms;
  using S = ms::Tile<kBN>;
  const int64_t z = p.z0 + blockIdx.z;
  const TI* a = static_cast<const TI*>(p.a) + p.sa * z;
  const TI* b = static_cast<const TI*>(p.b) + p.sb * z;
  const int row0 = blockIdx.x * S::kBM, col0 = blockIdx.y * S::kBN;
  const float al = widen(scalar(alpha, alpha_dev));
  gemm_tc::Acc<false> acc[S::kMi][S::kNi];
  if (al != 0.f) {  // alpha == 0: A and B are not read; uniform
    ms::accumulate<O, ms::kPipeStages, kTa, kTb, TI, false, S>(lt_ms_smem, acc, p.m, p.n, p.k, a, p.lda, b, p.ldb,
                                                               row0, col0);
  } else {
    for (auto& row : acc)
      for (auto& tile : row)
        for (auto& v : tile.v) v = 0;
  }
  if constexpr (kPlain) {
    const TO* c = static_cast<const TO*>(p.c) + p.sc * z;
    TO* d = static_cast<TO*>(p.d) + p.sd * z;
    const float be = widen(scalar(beta, beta_dev));
    ms::for_each<S>(acc, [&](int tr, int tc, float v) {
      const int r = row0 + tr, cl = col0 + tc;
      if (r >= p.m || cl >= p.n) return;
      const float ab = al == 0.f ? 0.f : al * v;  // beta == 0: C is not read
      d[r * p.d_rs + cl * p.d_cs] = narrow<TO>(be == 0.f ? ab : fmaf(be, widen(c[r * p.c_rs + cl * p.c_cs]), ab));
    });
  } else {
    const Epilogue<TO, float> e(p, z, alpha, alpha_dev, beta, beta_dev);
    ms::for_each<S>(acc, [&](int tr, int tc, float v) {
      const int r = row0 + tr, cl = col0 + tc;
      if (r < p.m && cl < p.n) e.apply(p, r, cl, v);
    });
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

// The bias gradients that follow the matmul (row sums of D, op(A), op(B)).
template <typename TI, typename TO, typename TA>
cudaError_t bias_gradients(cudaStream_t s, const MatmulArgs& m) {
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

// Launches `kernel` over the tiles of every batch entry (`tile_m` x
// `tile_n` each, `smem` bytes of dynamic shared memory; grid z in chunks
// of the 65535 limit), then the bias gradients.
template <typename TI, typename TO, typename TA, typename TS, class K>
cudaError_t run_matmul(cudaStream_t s, const MatmulArgs& m, K kernel, dim3 block, int tile_m = kTile,
                       int tile_n = kTile, int smem = 0) {
  TS al{}, be{};
  if (m.alpha_host) std::memcpy(&al, m.alpha_host, sizeof(TS));
  if (m.beta_host) std::memcpy(&be, m.beta_host, sizeof(TS));
  Dev p{m.ta, m.tb, m.m, m.n, m.k, 0, m.a, m.lda, m.sa, m.b, m.ldb, m.sb, m.c, m.c_rs, m.c_cs, m.sc,
        m.d, m.d_rs, m.d_cs, m.sd, m.epilogue, m.bias, m.bias_stride, m.aux, m.aux_ld, m.aux_stride};
  constexpr int kMaxZ = 65535;
  for (int b0 = 0; b0 < m.batch; b0 += kMaxZ) {
    const int nb = m.batch - b0 < kMaxZ ? m.batch - b0 : kMaxZ;
    p.z0 = b0;
    dim3 grid((m.m + tile_m - 1) / tile_m, (m.n + tile_n - 1) / tile_n, nb);
    kernel<<<grid, block, smem, s>>>(p, al, static_cast<const TS*>(m.alpha_dev), be, static_cast<const TS*>(m.beta_dev));
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  }
  return bias_gradients<TI, TO, TA>(s, m);
}

template <typename TI, typename TO, typename TA, typename TS, int R>
cudaError_t matmul_as(cudaStream_t s, const MatmulArgs& m) {
  return run_matmul<TI, TO, TA, TS>(s, m, matmul_kernel<TI, TO, TA, TS, R>, dim3(kDim, kDim));
}

template <gemm_tc::Op O, int kBN, bool kPlain, typename TI, typename TO, typename TS>
auto* ms_kernel(bool ta, bool tb) {
  return ta ? (tb ? matmul_tc_ms_kernel<O, kBN, true, true, kPlain, TI, TO, TS>
                  : matmul_tc_ms_kernel<O, kBN, true, false, kPlain, TI, TO, TS>)
            : (tb ? matmul_tc_ms_kernel<O, kBN, false, true, kPlain, TI, TO, TS>
                  : matmul_tc_ms_kernel<O, kBN, false, false, kPlain, TI, TO, TS>);
}

// The multistage kernel at the tile width gemm_tc::ms::pick_tile_n gives.
template <gemm_tc::Op O, bool kPlain, typename TI, typename TO, typename TS>
cudaError_t matmul_tc_ms_as(cudaStream_t s, const MatmulArgs& m) {
  namespace ms = gemm_tc::ms;
  constexpr int kBytes128 = ms::Tile<128>::shared_bytes<ms::kPipeStages>();
  constexpr int kBytes64 = ms::Tile<64>::shared_bytes<ms::kPipeStages>();
  auto* k128 = ms_kernel<O, 128, kPlain, TI, TO, TS>(m.ta, m.tb);
  auto* k64 = ms_kernel<O, 64, kPlain, TI, TO, TS>(m.ta, m.tb);
  int bn = 128;
  if (cudaError_t e = ms::choose_tile_n(k128, k64, kBytes128, kBytes64, m.m, m.n, m.batch, bn); e != cudaSuccess)
    return e;
  return bn == 64 ? run_matmul<TI, TO, float, TS>(s, m, k64, dim3(ms::kThreads), 128, 64, kBytes64)
                  : run_matmul<TI, TO, float, TS>(s, m, k128, dim3(ms::kThreads), 128, 128, kBytes128);
}

// 16-bit inputs laid out for 16-byte copies (and no ReLU mask) run on the
// multistage kernel, as in cuBLAS's gemm (gemm_tc::ms::use_multistage);
// the rest on the 64x64 one.
template <gemm_tc::Op O, typename TI, typename TO, typename TS>
cudaError_t matmul_tc_as(cudaStream_t s, const MatmulArgs& m) {
  namespace ms = gemm_tc::ms;
  if constexpr (sizeof(TI) == 2) {
    const bool mask = m.epilogue == CUBLASLT_EPILOGUE_RELU_AUX || m.epilogue == CUBLASLT_EPILOGUE_RELU_AUX_BIAS;
    const auto *a = static_cast<const TI*>(m.a), *b = static_cast<const TI*>(m.b);
    if (!mask && ms::use_multistage(ms::aligned16(a, m.lda, m.sa, m.batch) && ms::aligned16(b, m.ldb, m.sb, m.batch))) {
      return m.epilogue == CUBLASLT_EPILOGUE_DEFAULT ? matmul_tc_ms_as<O, true, TI, TO, TS>(s, m)
                                                     : matmul_tc_ms_as<O, false, TI, TO, TS>(s, m);
    }
  }
  return run_matmul<TI, TO, float, TS>(s, m, matmul_tc_kernel<O, TI, TO, TS>, dim3(gemm_tc::kTcThreads));
}

}  // namespace

cudaError_t launch_matmul(cudaStream_t s, const MatmulArgs& args) {
  // On an sm_90 GPU, the TN calls the Hopper kernel takes (kernels_sm90.cu).
  bool ran = false;
  if (cudaError_t e = launch_matmul_sm90(s, args, ran); e != cudaSuccess || ran) return e;
  // On the tensor cores, as cuBLASLt runs them: 16-bit inputs (COMPUTE_16F
  // accumulating in f32 here too) and f32 inputs with a FAST_* compute
  // type; FP32 and f64 on the SIMT kernel.
#define SG_TC(O, TI, TO, TS) matmul_tc_as<gemm_tc::Op::O, TI, TO, TS>(s, args)
#define SG_LT(TI, TO, TA, TS, R) matmul_as<TI, TO, TA, TS, int(InputRound::R)>(s, args)
  using h = __half;
  using bf = __nv_bfloat16;
  switch (args.combo) {
    case GemmCombo::h_h_scale_h: return SG_TC(f16, h, h, h);
    case GemmCombo::h_h: return SG_TC(f16, h, h, float);
    case GemmCombo::bf_bf: return SG_TC(bf16, bf, bf, float);
    case GemmCombo::h_f: return SG_TC(f16, h, float, float);
    case GemmCombo::bf_f: return SG_TC(bf16, bf, float, float);
    case GemmCombo::f_f_tf32: return SG_TC(tf32, float, float, float);
    case GemmCombo::f_f_via_h: return SG_TC(f16, float, float, float);
    case GemmCombo::f_f_via_bf: return SG_TC(bf16, float, float, float);
    case GemmCombo::f_f: return SG_LT(float, float, float, float, none);
    case GemmCombo::d_d: return SG_LT(double, double, double, double, none);
    case GemmCombo::q8_h:
    case GemmCombo::q8_bf:
    case GemmCombo::q8_f: return cudaErrorNotSupported;  // the Hopper kernel only (matmul.cpp checked it applies)
  }
#undef SG_TC
#undef SG_LT
  return cudaErrorNotSupported;
}

}  // namespace softgpu::cublaslt
