// Kernels of swap, rot, ger, symv, trsv, dgmm, syrk and trsm (kernels_more.h), compiled
// by nvcc into softgpu cuBLAS's fatbinary like kernels.cu. Each element of
// a result is computed by one thread in a fixed order (sums in increasing
// k), so results do not depend on the launch shape.
#include "kernels_more.h"

#include <cuda_runtime.h>

namespace softgpu::cublas {
namespace {

constexpr int kThreads = 256;

template <typename T>
__device__ __forceinline__ T value(T v, const T* dev) {
  return dev ? *dev : v;
}

int blocks_for(int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  return b < 1 ? 1 : (b > 4096 ? 4096 : int(b));
}

__device__ __forceinline__ int64_t first_index() { return int64_t(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ __forceinline__ int64_t grid_stride() { return int64_t(gridDim.x) * blockDim.x; }

template <typename T>
__global__ void swap_kernel(int n, T* x, int64_t incx, T* y, int64_t incy) {
  for (int64_t i = first_index(); i < n; i += grid_stride()) {
    const T t = x[i * incx];
    x[i * incx] = y[i * incy];
    y[i * incy] = t;
  }
}

template <typename T>
__global__ void rot_kernel(int n, T* x, int64_t incx, T* y, int64_t incy, T c, const T* c_dev, T s, const T* s_dev) {
  const T cc = value(c, c_dev), ss = value(s, s_dev);
  for (int64_t i = first_index(); i < n; i += grid_stride()) {
    const T xi = x[i * incx], yi = y[i * incy];
    x[i * incx] = cc * xi + ss * yi;
    y[i * incy] = cc * yi - ss * xi;
  }
}

template <typename T>
__global__ void ger_kernel(int m, int n, T alpha, const T* alpha_dev, const T* x, int64_t incx, const T* y,
                           int64_t incy, T* a, int64_t lda) {
  const T al = value(alpha, alpha_dev);
  for (int64_t e = first_index(); e < int64_t(m) * n; e += grid_stride()) {
    const int64_t i = e % m, j = e / m;
    a[i + j * lda] = fma(al * x[i * incx], y[j * incy], a[i + j * lda]);
  }
}

template <typename T>
__global__ void symv_kernel(bool upper, int n, T alpha, const T* alpha_dev, const T* a, int64_t lda, const T* x,
                            int64_t incx, T beta, const T* beta_dev, T* y, int64_t incy) {
  const T al = value(alpha, alpha_dev), be = value(beta, beta_dev);
  for (int64_t i = first_index(); i < n; i += grid_stride()) {
    T sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      const bool stored = upper ? i <= j : i >= j;  // else its mirror is
      sum = fma(stored ? a[i + j * lda] : a[j + i * lda], x[j * incx], sum);
    }
    T v = al * sum;
    if (be != T(0)) v = fma(be, y[i * incy], v);
    y[i * incy] = v;
  }
}

template <typename T>
__global__ void dgmm_kernel(bool left, int m, int n, const T* a, int64_t lda, const T* x, int64_t incx, T* c,
                            int64_t ldc) {
  for (int64_t e = first_index(); e < int64_t(m) * n; e += grid_stride()) {
    const int64_t i = e % m, j = e / m;
    c[i + j * ldc] = a[i + j * lda] * x[(left ? i : j) * incx];
  }
}

template <typename T>
__global__ void syrk_kernel(bool upper, bool trans, int n, int k, T alpha, const T* alpha_dev, const T* a,
                            int64_t lda, T beta, const T* beta_dev, T* c, int64_t ldc) {
  const T al = value(alpha, alpha_dev), be = value(beta, beta_dev);
  for (int64_t e = first_index(); e < int64_t(n) * n; e += grid_stride()) {
    const int64_t i = e % n, j = e / n;
    if (upper ? i > j : i < j) continue;  // the other triangle stays as it is
    T sum = 0;
    if (al != T(0))
      for (int p = 0; p < k; ++p) {
        const T ai = trans ? a[p + i * lda] : a[i + p * lda];
        const T aj = trans ? a[p + j * lda] : a[j + p * lda];
        sum = fma(ai, aj, sum);
      }
    T v = al * sum;
    if (be != T(0)) v = fma(be, c[i + j * ldc], v);
    c[i + j * ldc] = v;
  }
}

// Solves M v = alpha v in place for one vector v of `len` elements `stride`
// apart, M the len x len triangle of A (op(A), or its transpose when `flip`).
template <typename T>
__device__ void solve(T* v, int64_t stride, int len, const T* a, int64_t lda, bool upper, bool trans, bool unit,
                      T alpha) {
  // m(r, c) = op(A)[r][c]; the system is lower triangular when op(A) is.
  auto m = [&](int r, int col) { return trans ? a[col + int64_t(r) * lda] : a[r + int64_t(col) * lda]; };
  const bool lower = upper == trans;
  for (int s = 0; s < len; ++s) {
    const int r = lower ? s : len - 1 - s;
    T x = alpha * v[r * stride];
    if (lower)
      for (int q = 0; q < r; ++q) x = fma(-m(r, q), v[q * stride], x);
    else
      for (int q = len - 1; q > r; --q) x = fma(-m(r, q), v[q * stride], x);
    v[r * stride] = unit ? x : x / m(r, r);
  }
}

template <typename T>
__global__ void trsm_kernel(bool left, bool upper, bool trans, bool unit, int m, int n, T alpha, const T* alpha_dev,
                            const T* a, int64_t lda, T* b, int64_t ldb) {
  const T al = value(alpha, alpha_dev);
  // Left: each column of B is solved on its own (op(A) x = alpha b). Right:
  // each row x^T of X solves x^T op(A) = alpha b^T, i.e. op(A)^T x = alpha b.
  const int vectors = left ? n : m;
  for (int64_t j = first_index(); j < vectors; j += grid_stride()) {
    if (left) solve(b + j * ldb, 1, m, a, lda, upper, trans, unit, al);
    else solve(b + j, ldb, n, a, lda, upper, !trans, unit, al);
  }
}

template <typename T>
__global__ void trsv_kernel(bool upper, bool trans, bool unit, int n, const T* a, int64_t lda, T* x, int64_t incx) {
  if (blockIdx.x == 0 && threadIdx.x == 0) solve(x, incx, n, a, lda, upper, trans, unit, T(1));
}

}  // namespace

template <typename T>
cudaError_t launch_symv(cudaStream_t s, bool upper, int n, T alpha, const T* alpha_dev, const T* a, int64_t lda,
                        const T* x, int64_t incx, T beta, const T* beta_dev, T* y, int64_t incy) {
  symv_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(upper, n, alpha, alpha_dev, a, lda, x, incx, beta, beta_dev, y,
                                                    incy);
  return cudaGetLastError();
}
template <typename T>
cudaError_t launch_trsv(cudaStream_t s, bool upper, bool trans, bool unit, int n, const T* a, int64_t lda, T* x,
                        int64_t incx) {
  trsv_kernel<T><<<1, 32, 0, s>>>(upper, trans, unit, n, a, lda, x, incx);  // one substitution: one thread
  return cudaGetLastError();
}
template <typename T>
cudaError_t launch_swap(cudaStream_t s, int n, T* x, int64_t incx, T* y, int64_t incy) {
  swap_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(n, x, incx, y, incy);
  return cudaGetLastError();
}
template <typename T>
cudaError_t launch_rot(cudaStream_t s, int n, T* x, int64_t incx, T* y, int64_t incy, T c, const T* c_dev, T sn,
                       const T* s_dev) {
  rot_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(n, x, incx, y, incy, c, c_dev, sn, s_dev);
  return cudaGetLastError();
}
template <typename T>
cudaError_t launch_ger(cudaStream_t s, int m, int n, T alpha, const T* alpha_dev, const T* x, int64_t incx, const T* y,
                       int64_t incy, T* a, int64_t lda) {
  ger_kernel<T><<<blocks_for(int64_t(m) * n), kThreads, 0, s>>>(m, n, alpha, alpha_dev, x, incx, y, incy, a, lda);
  return cudaGetLastError();
}
template <typename T>
cudaError_t launch_dgmm(cudaStream_t s, bool left, int m, int n, const T* a, int64_t lda, const T* x, int64_t incx,
                        T* c, int64_t ldc) {
  dgmm_kernel<T><<<blocks_for(int64_t(m) * n), kThreads, 0, s>>>(left, m, n, a, lda, x, incx, c, ldc);
  return cudaGetLastError();
}
template <typename T>
cudaError_t launch_syrk(cudaStream_t s, bool upper, bool trans, int n, int k, T alpha, const T* alpha_dev, const T* a,
                        int64_t lda, T beta, const T* beta_dev, T* c, int64_t ldc) {
  syrk_kernel<T><<<blocks_for(int64_t(n) * n), kThreads, 0, s>>>(upper, trans, n, k, alpha, alpha_dev, a, lda, beta,
                                                                 beta_dev, c, ldc);
  return cudaGetLastError();
}
template <typename T>
cudaError_t launch_trsm(cudaStream_t s, bool left, bool upper, bool trans, bool unit, int m, int n, T alpha,
                        const T* alpha_dev, const T* a, int64_t lda, T* b, int64_t ldb) {
  // One thread per vector, in blocks of 32 so that a few vectors still spread over SMs.
  const int vectors = left ? n : m;
  trsm_kernel<T><<<(vectors + 31) / 32, 32, 0, s>>>(left, upper, trans, unit, m, n, alpha, alpha_dev, a, lda, b, ldb);
  return cudaGetLastError();
}

#define SG_INSTANTIATE_MORE(T)                                                                                   \
  template cudaError_t launch_swap<T>(cudaStream_t, int, T*, int64_t, T*, int64_t);                              \
  template cudaError_t launch_rot<T>(cudaStream_t, int, T*, int64_t, T*, int64_t, T, const T*, T, const T*);     \
  template cudaError_t launch_ger<T>(cudaStream_t, int, int, T, const T*, const T*, int64_t, const T*, int64_t,   \
                                     T*, int64_t);                                                               \
  template cudaError_t launch_symv<T>(cudaStream_t, bool, int, T, const T*, const T*, int64_t, const T*, int64_t, \
                                      T, const T*, T*, int64_t);                                                 \
  template cudaError_t launch_trsv<T>(cudaStream_t, bool, bool, bool, int, const T*, int64_t, T*, int64_t);       \
  template cudaError_t launch_dgmm<T>(cudaStream_t, bool, int, int, const T*, int64_t, const T*, int64_t, T*,    \
                                      int64_t);                                                                  \
  template cudaError_t launch_syrk<T>(cudaStream_t, bool, bool, int, int, T, const T*, const T*, int64_t, T,     \
                                      const T*, T*, int64_t);                                                    \
  template cudaError_t launch_trsm<T>(cudaStream_t, bool, bool, bool, bool, int, int, T, const T*, const T*,      \
                                      int64_t, T*, int64_t);
SG_INSTANTIATE_MORE(float)
SG_INSTANTIATE_MORE(double)

}  // namespace softgpu::cublas
