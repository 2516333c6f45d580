// softgpu cuBLAS's device kernels. Compiled by nvcc into the library's own
// fatbinary, registered with softgpu's libcudart like a program's kernels and
// run on the software GPU.
#include "kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstring>

#include "gemm_tile.cuh"

namespace softgpu::cublas {
namespace {

constexpr int kThreads = 256;  // Level 1 block size (reductions: one block)

using gemm_tile::scalar;

int blocks_for(int n) {
  int b = (n + kThreads - 1) / kThreads;
  return b < 1 ? 1 : (b > 4096 ? 4096 : b);
}

template <typename T>
__global__ void axpy_kernel(int n, T alpha, const T* alpha_dev, const T* x, int64_t incx, T* y, int64_t incy) {
  T a = scalar(alpha, alpha_dev);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i * incy] = fma(a, x[i * incx], y[i * incy]);
}

template <typename T>
__global__ void scal_kernel(int n, T alpha, const T* alpha_dev, T* x, int64_t incx) {
  T a = scalar(alpha, alpha_dev);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i * incx] = a * x[i * incx];
}

template <typename T>
__global__ void copy_kernel(int n, const T* x, int64_t incx, T* y, int64_t incy) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i * incy] = x[i * incx];
}

// One block; each thread accumulates a strided slice, then a tree in shared
// memory. Deterministic for a given n.
// The one block's per-thread sums added pairwise in shared memory; thread 0
// writes the total.
template <typename T>
__device__ void block_sum_to(T acc, T* out) {
  __shared__ T part[kThreads];
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = part[0];
}

template <typename T>
__global__ void dot_kernel(int n, const T* x, int64_t incx, const T* y, int64_t incy, T* out) {
  T acc = 0;
  for (int i = threadIdx.x; i < n; i += kThreads) acc = fma(x[i * incx], y[i * incy], acc);
  block_sum_to(acc, out);
}

template <typename T>
__global__ void asum_kernel(int n, const T* x, int64_t incx, T* out) {
  T acc = 0;
  for (int i = threadIdx.x; i < n; i += kThreads) acc += fabs(x[i * incx]);
  block_sum_to(acc, out);
}

// Euclidean norm without overflow or underflow: LAPACK's scaled sum of
// squares (scale, ssq) with norm = scale * sqrt(ssq), merged pairwise.
template <typename T>
__device__ void ssq_add(T& scale, T& ssq, T s2, T q2) {
  if (s2 == T(0)) return;
  if (scale < s2) {
    T r = scale / s2;
    ssq = q2 + ssq * r * r;
    scale = s2;
  } else {
    T r = s2 / scale;
    ssq += q2 * r * r;
  }
}

template <typename T>
__global__ void nrm2_kernel(int n, const T* x, int64_t incx, T* out) {
  __shared__ T sc[kThreads];
  __shared__ T sq[kThreads];
  T scale = 0, ssq = 1;
  for (int i = threadIdx.x; i < n; i += kThreads) ssq_add(scale, ssq, T(fabs(x[i * incx])), T(1));
  sc[threadIdx.x] = scale;
  sq[threadIdx.x] = ssq;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      T s = sc[threadIdx.x], q = sq[threadIdx.x];
      ssq_add(s, q, sc[threadIdx.x + w], sq[threadIdx.x + w]);
      sc[threadIdx.x] = s;
      sq[threadIdx.x] = q;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = sc[0] == T(0) ? T(0) : sc[0] * sqrt(sq[0]);
}

// Index (1-based) of the first element of largest |x| (Min: smallest).
template <typename T, bool Min>
__global__ void amax_kernel(int n, const T* x, int64_t incx, int* out) {
  __shared__ T val[kThreads];
  __shared__ int idx[kThreads];
  T best = Min ? T(INFINITY) : T(-1);
  int at = 0;
  for (int i = threadIdx.x; i < n; i += kThreads) {
    T v = fabs(x[i * incx]);
    if (Min ? v < best : v > best) {  // increasing i per thread: the first one wins a tie
      best = v;
      at = i + 1;
    }
  }
  val[threadIdx.x] = best;
  idx[threadIdx.x] = at;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      T v2 = val[threadIdx.x + w];
      int i2 = idx[threadIdx.x + w];
      if (i2 != 0 && ((Min ? v2 < val[threadIdx.x] : v2 > val[threadIdx.x]) || (v2 == val[threadIdx.x] && (idx[threadIdx.x] == 0 || i2 < idx[threadIdx.x])))) {
        val[threadIdx.x] = v2;
        idx[threadIdx.x] = i2;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = idx[0] == 0 ? 1 : idx[0];  // all NaN: the first element
}

using gemm_tile::InputRound;
using gemm_tile::kDim;
using gemm_tile::kPer;
using gemm_tile::kTile;
using gemm_tile::narrow;
using gemm_tile::widen;

// Tiled GEMM (gemm_tile.cuh): a block of 16x16 threads computes a 64x64 tile
// of C. blockIdx.z is the batch index: batch z at a + z*stride_a etc.
// (strided batched gemm; strides 0 and one z for plain gemm), or, when
// a_arr is non-null, at a_arr[z], b_arr[z], c_arr[z] (arrays in device
// memory: gemmBatched).
// TI: A and B, TO: C, TA: accumulation (and alpha/beta when applied), TS:
// the scalars as the caller passes them. S/D gemm is <T, T, T, T, none>.
template <typename TI, typename TO, typename TA, typename TS, int R>
__global__ void __launch_bounds__(kDim* kDim)
    gemm_kernel(bool ta, bool tb, int m, int n, int k, TS alpha, const TS* alpha_dev, const TI* a, int64_t lda,
                int64_t stride_a, const TI* b, int64_t ldb, int64_t stride_b, TS beta, const TS* beta_dev, TO* c,
                int64_t ldc, int64_t stride_c, const TI* const* a_arr, const TI* const* b_arr, TO* const* c_arr) {
  if (a_arr) {
    a = a_arr[blockIdx.z];
    b = b_arr[blockIdx.z];
    c = c_arr[blockIdx.z];
  } else {
    a += stride_a * blockIdx.z;
    b += stride_b * blockIdx.z;
    c += stride_c * blockIdx.z;
  }
  __shared__ gemm_tile::Operands<TA> sm;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.x * kTile, col0 = blockIdx.y * kTile;
  TA acc[kPer][kPer];
  gemm_tile::accumulate<TI, TA, R>(sm, acc, ta, tb, m, n, k, a, lda, b, ldb, row0, col0);

  const TA al = widen(scalar(alpha, alpha_dev)), be = widen(scalar(beta, beta_dev));
  for (int i = 0; i < kPer; ++i) {
    int r = row0 + ty + kDim * i;
    if (r >= m) continue;
    for (int j = 0; j < kPer; ++j) {
      int cl = col0 + tx + kDim * j;
      if (cl >= n) continue;
      TO* p = &c[r + cl * ldc];
      // alpha == 0: A and B do not count (BLAS), beta == 0: C is not read.
      const TA ab = al == TA(0) ? TA(0) : al * acc[i][j];
      *p = narrow<TO>(be == TA(0) ? ab : fma(be, TA(widen(*p)), ab));
    }
  }
}

// Pointer arrays of a batched gemm (all null for a strided one).
template <typename TI, typename TO>
struct PtrArrays {
  const TI* const* a = nullptr;
  const TI* const* b = nullptr;
  TO* const* c = nullptr;
};

template <typename TI, typename TO, typename TA, typename TS, int R>
cudaError_t launch_gemm_typed(cudaStream_t s, bool trans_a, bool trans_b, int m, int n, int k, TS alpha,
                              const TS* alpha_dev, const TI* a, int64_t lda, int64_t stride_a, const TI* b,
                              int64_t ldb, int64_t stride_b, TS beta, const TS* beta_dev, TO* c, int64_t ldc,
                              int64_t stride_c, int batch, PtrArrays<TI, TO> arr = {}) {
  constexpr int kMaxZ = 65535;  // grid z limit: larger batches go in chunks
  for (int b0 = 0; b0 < batch; b0 += kMaxZ) {
    const int nb = batch - b0 < kMaxZ ? batch - b0 : kMaxZ;
    dim3 grid((m + kTile - 1) / kTile, (n + kTile - 1) / kTile, nb);
    if (arr.a) {
      gemm_kernel<TI, TO, TA, TS, R><<<grid, dim3(kDim, kDim), 0, s>>>(
          trans_a, trans_b, m, n, k, alpha, alpha_dev, nullptr, lda, 0, nullptr, ldb, 0, beta, beta_dev, nullptr,
          ldc, 0, arr.a + b0, arr.b + b0, arr.c + b0);
    } else {
      gemm_kernel<TI, TO, TA, TS, R><<<grid, dim3(kDim, kDim), 0, s>>>(
          trans_a, trans_b, m, n, k, alpha, alpha_dev, a + stride_a * b0, lda, stride_a, b + stride_b * b0, ldb,
          stride_b, beta, beta_dev, c + stride_c * b0, ldc, stride_c, nullptr, nullptr, nullptr);
    }
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

// gemmEx's combinations (see kernels.h): the host scalars are read as TS.
// `arrays` non-null: the batched form, arrays[0..2] the A, B, C pointer
// arrays (a, b, c are then unused).
template <typename TI, typename TO, typename TA, typename TS, int R>
cudaError_t gemm_ex_as(cudaStream_t s, bool ta, bool tb, int m, int n, int k, const void* alpha_host,
                       const void* alpha_dev, const void* a, int64_t lda, int64_t sa, const void* b, int64_t ldb,
                       int64_t sb, const void* beta_host, const void* beta_dev, void* c, int64_t ldc, int64_t sc,
                       int batch, const void* const* const* arrays) {
  TS al{}, be{};
  if (alpha_host) std::memcpy(&al, alpha_host, sizeof(TS));
  if (beta_host) std::memcpy(&be, beta_host, sizeof(TS));
  PtrArrays<TI, TO> arr;
  if (arrays) {
    arr.a = reinterpret_cast<const TI* const*>(arrays[0]);
    arr.b = reinterpret_cast<const TI* const*>(arrays[1]);
    arr.c = reinterpret_cast<TO* const*>(const_cast<void* const*>(arrays[2]));
  }
  return launch_gemm_typed<TI, TO, TA, TS, R>(s, ta, tb, m, n, k, al, static_cast<const TS*>(alpha_dev),
                                              static_cast<const TI*>(a), lda, sa, static_cast<const TI*>(b), ldb, sb,
                                              be, static_cast<const TS*>(beta_dev), static_cast<TO*>(c), ldc, sc,
                                              batch, arr);
}

// gemv: y = alpha op(A) x + beta y, one thread per element of y, each a fma
// chain over the other dimension in increasing order (N: rows, coalesced
// across the warp; T: columns). beta == 0 never reads y.
template <typename T>
__global__ void gemv_kernel(bool trans, int m, int n, T alpha, const T* alpha_dev, const T* a, int64_t lda,
                            const T* x, int64_t incx, T beta, const T* beta_dev, T* y, int64_t incy) {
  const T al = scalar(alpha, alpha_dev), be = scalar(beta, beta_dev);
  const int len = trans ? n : m, inner = trans ? m : n;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < len; i += gridDim.x * blockDim.x) {
    T acc = 0;
    if (al != T(0)) {
      if (trans)
        for (int j = 0; j < inner; ++j) acc = fma(a[j + i * lda], x[j * incx], acc);
      else
        for (int j = 0; j < inner; ++j) acc = fma(a[i + j * lda], x[j * incx], acc);
    }
    T* p = &y[i * incy];
    const T ab = al == T(0) ? T(0) : al * acc;
    *p = be == T(0) ? ab : fma(be, *p, ab);
  }
}

// geam: C = alpha op(A) + beta op(B), one thread per element of C (grid
// stride over m*n). A scalar of 0 does not read its matrix, so C may be
// reset with alpha = beta = 0; C == A (or B) with op N and the same ld is
// safe because each element is read before it is written by the same thread.
template <typename T>
__global__ void geam_kernel(bool ta, bool tb, int m, int n, T alpha, const T* alpha_dev, const T* a, int64_t lda,
                            T beta, const T* beta_dev, const T* b, int64_t ldb, T* c, int64_t ldc) {
  const T al = scalar(alpha, alpha_dev), be = scalar(beta, beta_dev);
  const int64_t total = int64_t(m) * n;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e % m, j = e / m;
    T v = 0;
    if (al != T(0)) v = al * (ta ? a[j + i * lda] : a[i + j * lda]);
    if (be != T(0)) v = fma(be, tb ? b[j + i * ldb] : b[i + j * ldb], v);
    c[i + j * ldc] = v;
  }
}

}  // namespace

template <typename T>
cudaError_t launch_axpy(cudaStream_t s, int n, T alpha, const T* alpha_dev, const T* x, int64_t incx, T* y,
                        int64_t incy) {
  axpy_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(n, alpha, alpha_dev, x, incx, y, incy);
  return cudaGetLastError();
}
template <typename T>
cudaError_t launch_scal(cudaStream_t s, int n, T alpha, const T* alpha_dev, T* x, int64_t incx) {
  scal_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(n, alpha, alpha_dev, x, incx);
  return cudaGetLastError();
}
template <typename T>
cudaError_t launch_copy(cudaStream_t s, int n, const T* x, int64_t incx, T* y, int64_t incy) {
  copy_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(n, x, incx, y, incy);
  return cudaGetLastError();
}
template <typename T>
cudaError_t launch_dot(cudaStream_t s, int n, const T* x, int64_t incx, const T* y, int64_t incy, T* out) {
  dot_kernel<T><<<1, kThreads, 0, s>>>(n, x, incx, y, incy, out);
  return cudaGetLastError();
}
template <typename T>
cudaError_t launch_nrm2(cudaStream_t s, int n, const T* x, int64_t incx, T* out) {
  nrm2_kernel<T><<<1, kThreads, 0, s>>>(n, x, incx, out);
  return cudaGetLastError();
}
template <typename T>
cudaError_t launch_asum(cudaStream_t s, int n, const T* x, int64_t incx, T* out) {
  asum_kernel<T><<<1, kThreads, 0, s>>>(n, x, incx, out);
  return cudaGetLastError();
}
template <typename T>
cudaError_t launch_amax(cudaStream_t s, int n, const T* x, int64_t incx, int* out, bool smallest) {
  if (smallest) amax_kernel<T, true><<<1, kThreads, 0, s>>>(n, x, incx, out);
  else amax_kernel<T, false><<<1, kThreads, 0, s>>>(n, x, incx, out);
  return cudaGetLastError();
}
template <typename T>
cudaError_t launch_gemm_strided_batched(cudaStream_t s, bool trans_a, bool trans_b, int m, int n, int k, T alpha,
                                        const T* alpha_dev, const T* a, int64_t lda, int64_t stride_a, const T* b,
                                        int64_t ldb, int64_t stride_b, T beta, const T* beta_dev, T* c, int64_t ldc,
                                        int64_t stride_c, int batch) {
  return launch_gemm_typed<T, T, T, T, int(InputRound::none)>(s, trans_a, trans_b, m, n, k, alpha, alpha_dev, a, lda,
                                                              stride_a, b, ldb, stride_b, beta, beta_dev, c, ldc,
                                                              stride_c, batch);
}
template <typename T>
cudaError_t launch_gemm(cudaStream_t s, bool trans_a, bool trans_b, int m, int n, int k, T alpha, const T* alpha_dev,
                        const T* a, int64_t lda, const T* b, int64_t ldb, T beta, const T* beta_dev, T* c,
                        int64_t ldc) {
  return launch_gemm_strided_batched<T>(s, trans_a, trans_b, m, n, k, alpha, alpha_dev, a, lda, 0, b, ldb, 0, beta,
                                        beta_dev, c, ldc, 0, 1);
}
template <typename T>
cudaError_t launch_gemv(cudaStream_t s, bool trans, int m, int n, T alpha, const T* alpha_dev, const T* a,
                        int64_t lda, const T* x, int64_t incx, T beta, const T* beta_dev, T* y, int64_t incy) {
  gemv_kernel<T><<<blocks_for(trans ? n : m), kThreads, 0, s>>>(trans, m, n, alpha, alpha_dev, a, lda, x, incx, beta,
                                                               beta_dev, y, incy);
  return cudaGetLastError();
}
template <typename T>
cudaError_t launch_geam(cudaStream_t s, bool trans_a, bool trans_b, int m, int n, T alpha, const T* alpha_dev,
                        const T* a, int64_t lda, T beta, const T* beta_dev, const T* b, int64_t ldb, T* c,
                        int64_t ldc) {
  const int64_t total = int64_t(m) * n;
  const int blocks = total > int64_t(4096) * kThreads ? 4096 : blocks_for(int(total));
  geam_kernel<T><<<blocks, kThreads, 0, s>>>(trans_a, trans_b, m, n, alpha, alpha_dev, a, lda, beta, beta_dev, b, ldb,
                                             c, ldc);
  return cudaGetLastError();
}

#define SG_INSTANTIATE(T)                                                                                    \
  template cudaError_t launch_axpy<T>(cudaStream_t, int, T, const T*, const T*, int64_t, T*, int64_t);       \
  template cudaError_t launch_scal<T>(cudaStream_t, int, T, const T*, T*, int64_t);                          \
  template cudaError_t launch_copy<T>(cudaStream_t, int, const T*, int64_t, T*, int64_t);                    \
  template cudaError_t launch_dot<T>(cudaStream_t, int, const T*, int64_t, const T*, int64_t, T*);           \
  template cudaError_t launch_nrm2<T>(cudaStream_t, int, const T*, int64_t, T*);                             \
  template cudaError_t launch_asum<T>(cudaStream_t, int, const T*, int64_t, T*);                             \
  template cudaError_t launch_amax<T>(cudaStream_t, int, const T*, int64_t, int*, bool);                     \
  template cudaError_t launch_gemm<T>(cudaStream_t, bool, bool, int, int, int, T, const T*, const T*, int64_t, \
                                      const T*, int64_t, T, const T*, T*, int64_t);               \
  template cudaError_t launch_gemm_strided_batched<T>(cudaStream_t, bool, bool, int, int, int, T, const T*,       \
                                                      const T*, int64_t, int64_t, const T*, int64_t, int64_t, T,  \
                                                      const T*, T*, int64_t, int64_t, int);                       \
  template cudaError_t launch_gemv<T>(cudaStream_t, bool, int, int, T, const T*, const T*, int64_t, const T*,     \
                                      int64_t, T, const T*, T*, int64_t);                                         \
  template cudaError_t launch_geam<T>(cudaStream_t, bool, bool, int, int, T, const T*, const T*, int64_t, T,      \
                                      const T*, const T*, int64_t, T*, int64_t);
SG_INSTANTIATE(float)
SG_INSTANTIATE(double)

namespace {
cudaError_t gemm_ex_dispatch(cudaStream_t s, GemmCombo combo, bool ta, bool tb, int m, int n, int k,
                             const void* alpha_host, const void* alpha_dev, const void* a, int64_t lda, int64_t sa,
                             const void* b, int64_t ldb, int64_t sb, const void* beta_host, const void* beta_dev,
                             void* c, int64_t ldc, int64_t sc, int batch, const void* const* const* arrays) {
#define SG_EX(TI, TO, TA, TS, R) \
  gemm_ex_as<TI, TO, TA, TS, int(InputRound::R)>(s, ta, tb, m, n, k, alpha_host, alpha_dev, a, lda, sa, b, ldb, sb, \
                                                 beta_host, beta_dev, c, ldc, sc, batch, arrays)
  using h = __half;
  using bf = __nv_bfloat16;
  switch (combo) {
    case GemmCombo::h_h_scale_h: return SG_EX(h, h, float, h, none);
    case GemmCombo::h_h: return SG_EX(h, h, float, float, none);
    case GemmCombo::bf_bf: return SG_EX(bf, bf, float, float, none);
    case GemmCombo::h_f: return SG_EX(h, float, float, float, none);
    case GemmCombo::bf_f: return SG_EX(bf, float, float, float, none);
    case GemmCombo::f_f: return SG_EX(float, float, float, float, none);
    case GemmCombo::f_f_tf32: return SG_EX(float, float, float, float, tf32);
    case GemmCombo::f_f_via_h: return SG_EX(float, float, float, float, f16);
    case GemmCombo::f_f_via_bf: return SG_EX(float, float, float, float, bf16);
    case GemmCombo::d_d: return SG_EX(double, double, double, double, none);
    case GemmCombo::q8_h:
    case GemmCombo::q8_bf:
    case GemmCombo::q8_f: return cudaErrorNotSupported;  // cuBLASLt only (gemm_combo never gives them here)
  }
#undef SG_EX
  return cudaErrorNotSupported;
}
}  // namespace

cudaError_t launch_gemm_ex(cudaStream_t s, GemmCombo combo, bool ta, bool tb, int m, int n, int k,
                           const void* alpha_host, const void* alpha_dev, const void* a, int64_t lda, int64_t sa,
                           const void* b, int64_t ldb, int64_t sb, const void* beta_host, const void* beta_dev,
                           void* c, int64_t ldc, int64_t sc, int batch) {
  return gemm_ex_dispatch(s, combo, ta, tb, m, n, k, alpha_host, alpha_dev, a, lda, sa, b, ldb, sb, beta_host,
                          beta_dev, c, ldc, sc, batch, nullptr);
}

cudaError_t launch_gemm_batched_ex(cudaStream_t s, GemmCombo combo, bool ta, bool tb, int m, int n, int k,
                                   const void* alpha_host, const void* alpha_dev, const void* const* a, int64_t lda,
                                   const void* const* b, int64_t ldb, const void* beta_host, const void* beta_dev,
                                   void* const* c, int64_t ldc, int batch) {
  const void* const* arrays[3] = {a, b, const_cast<const void* const*>(c)};
  return gemm_ex_dispatch(s, combo, ta, tb, m, n, k, alpha_host, alpha_dev, nullptr, lda, 0, nullptr, ldb, 0,
                          beta_host, beta_dev, nullptr, ldc, 0, batch, arrays);
}

}  // namespace softgpu::cublas
