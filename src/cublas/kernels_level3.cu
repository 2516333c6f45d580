// Kernels of trmv, trmm, symm and syr2k (kernels_level3.h), and the widening
// of a _64 amax/amin index (blas_args.h), compiled by nvcc into softgpu
// cuBLAS's fatbinary like kernels_more.cu. Each element of a result is one
// thread's fma chain in increasing order of the summed index, so results do
// not depend on the launch shape (nor, for trmm, on C being B).
#include "kernels_level3.h"

#include <cuda_runtime.h>

namespace softgpu::cublas {
namespace {

constexpr int kThreads = 256;
constexpr int kVectorThreads = 128;  // trmv/trmm: one block per vector
constexpr int kMaxBlocks = 4096;

template <typename T>
__device__ __forceinline__ T read_scalar(T v, const T* dev) {
  return dev ? *dev : v;
}

int grid_for(int64_t items, int per_block) {
  const int64_t b = (items + per_block - 1) / per_block;
  return b < 1 ? 1 : (b > kMaxBlocks ? kMaxBlocks : int(b));
}

// out = alpha M in for `vectors` vectors of `len` elements (element e of
// vector v at in[e * in_es + v * in_vs], likewise out), M the len x len
// triangle of A (M = A^T when `trans`; `upper` says which triangle of A is
// stored; a `unit` diagonal is 1, not read). out may be in: a block takes
// its vector in chunks of blockDim.x elements, ordered so that every
// element a chunk reads is written by it or by a later chunk (M upper:
// first to last; lower: last to first), with a barrier between a chunk's
// reads and its writes. alpha == 0 reads neither A nor in.
template <typename T>
__global__ void triangle_times_kernel(bool upper, bool trans, bool unit, int len, int64_t vectors, T alpha,
                                      const T* alpha_dev, const T* a, int64_t lda, const T* in, int64_t in_es,
                                      int64_t in_vs, T* out, int64_t out_es, int64_t out_vs) {
  const T al = read_scalar(alpha, alpha_dev);
  const bool m_upper = upper != trans;  // M(r, p) != 0 only for p >= r
  const int chunks = (len + blockDim.x - 1) / blockDim.x;
  for (int64_t v = blockIdx.x; v < vectors; v += gridDim.x) {
    const T* x = in + v * in_vs;
    T* y = out + v * out_vs;
    for (int c = 0; c < chunks; ++c) {
      const int r = (m_upper ? c : chunks - 1 - c) * blockDim.x + threadIdx.x;
      T sum = 0;
      if (r < len && al != T(0)) {
        const int lo = m_upper ? r : 0, hi = m_upper ? len - 1 : r;
        for (int p = lo; p <= hi; ++p) {
          const T mrp = p == r && unit ? T(1) : trans ? a[p + int64_t(r) * lda] : a[r + int64_t(p) * lda];
          sum = fma(mrp, x[p * in_es], sum);
        }
      }
      __syncthreads();
      if (r < len) y[r * out_es] = al * sum;
    }
  }
}

// Element (r, p) of the symmetric matrix whose `upper` (else lower) triangle A holds.
template <typename T>
__device__ __forceinline__ T symmetric(const T* a, int64_t lda, bool upper, int64_t r, int64_t p) {
  const bool stored = upper ? r <= p : r >= p;
  return stored ? a[r + p * lda] : a[p + r * lda];
}

template <typename T>
__global__ void symm_kernel(bool left, bool upper, int m, int n, T alpha, const T* alpha_dev, const T* a, int64_t lda,
                            const T* b, int64_t ldb, T beta, const T* beta_dev, T* c, int64_t ldc) {
  const T al = read_scalar(alpha, alpha_dev), be = read_scalar(beta, beta_dev);
  const int len = left ? m : n;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < int64_t(m) * n;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e % m, j = e / m;
    T sum = 0;
    if (al != T(0))
      for (int64_t p = 0; p < len; ++p)
        sum = left ? fma(symmetric(a, lda, upper, i, p), b[p + j * ldb], sum)
                   : fma(b[i + p * ldb], symmetric(a, lda, upper, p, j), sum);
    T v = al * sum;
    if (be != T(0)) v = fma(be, c[i + j * ldc], v);
    c[i + j * ldc] = v;
  }
}

template <typename T>
__global__ void syr2k_kernel(bool upper, bool trans, int n, int k, T alpha, const T* alpha_dev, const T* a,
                             int64_t lda, const T* b, int64_t ldb, T beta, const T* beta_dev, T* c, int64_t ldc) {
  const T al = read_scalar(alpha, alpha_dev), be = read_scalar(beta, beta_dev);
  // op(X)(i, p) of an n x k operand stored n x k (N) or k x n (T).
  auto op = [trans](const T* x, int64_t ld, int64_t i, int64_t p) { return trans ? x[p + i * ld] : x[i + p * ld]; };
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < int64_t(n) * n;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e % n, j = e / n;
    if (upper ? i > j : i < j) continue;  // the other triangle stays as it is
    T sum = 0;
    if (al != T(0))
      for (int64_t p = 0; p < k; ++p) {
        sum = fma(op(a, lda, i, p), op(b, ldb, j, p), sum);
        sum = fma(op(b, ldb, i, p), op(a, lda, j, p), sum);
      }
    T v = al * sum;
    if (be != T(0)) v = fma(be, c[i + j * ldc], v);
    c[i + j * ldc] = v;
  }
}

__global__ void widen_index_kernel(const int* from, int64_t* to) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *to = *from;
}

}  // namespace

cudaError_t launch_widen_index(cudaStream_t s, const int* from, int64_t* to) {
  widen_index_kernel<<<1, 32, 0, s>>>(from, to);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_trmv(cudaStream_t s, bool upper, bool trans, bool unit, int n, const T* a, int64_t lda, T* x,
                        int64_t incx) {
  triangle_times_kernel<T><<<1, kVectorThreads, 0, s>>>(upper, trans, unit, n, 1, T(1), nullptr, a, lda, x, incx, 0, x,
                                                        incx, 0);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_trmm(cudaStream_t s, bool left, bool upper, bool trans, bool unit, int m, int n, T alpha,
                        const T* alpha_dev, const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc) {
  // Left: column j of C is op(A) times column j of B. Right: row i of C is
  // row i of B times op(A), i.e. op(A)^T times that row.
  if (left)
    triangle_times_kernel<T><<<grid_for(n, 1), kVectorThreads, 0, s>>>(upper, trans, unit, m, n, alpha, alpha_dev, a,
                                                                       lda, b, 1, ldb, c, 1, ldc);
  else
    triangle_times_kernel<T><<<grid_for(m, 1), kVectorThreads, 0, s>>>(upper, !trans, unit, n, m, alpha, alpha_dev, a,
                                                                       lda, b, ldb, 1, c, ldc, 1);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_symm(cudaStream_t s, bool left, bool upper, int m, int n, T alpha, const T* alpha_dev, const T* a,
                        int64_t lda, const T* b, int64_t ldb, T beta, const T* beta_dev, T* c, int64_t ldc) {
  symm_kernel<T><<<grid_for(int64_t(m) * n, kThreads), kThreads, 0, s>>>(left, upper, m, n, alpha, alpha_dev, a, lda,
                                                                          b, ldb, beta, beta_dev, c, ldc);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_syr2k(cudaStream_t s, bool upper, bool trans, int n, int k, T alpha, const T* alpha_dev, const T* a,
                         int64_t lda, const T* b, int64_t ldb, T beta, const T* beta_dev, T* c, int64_t ldc) {
  syr2k_kernel<T><<<grid_for(int64_t(n) * n, kThreads), kThreads, 0, s>>>(upper, trans, n, k, alpha, alpha_dev, a,
                                                                           lda, b, ldb, beta, beta_dev, c, ldc);
  return cudaGetLastError();
}

#define SG_INSTANTIATE_LEVEL3(T)                                                                                    \
  template cudaError_t launch_trmv<T>(cudaStream_t, bool, bool, bool, int, const T*, int64_t, T*, int64_t);        \
  template cudaError_t launch_trmm<T>(cudaStream_t, bool, bool, bool, bool, int, int, T, const T*, const T*,       \
                                      int64_t, const T*, int64_t, T*, int64_t);                                    \
  template cudaError_t launch_symm<T>(cudaStream_t, bool, bool, int, int, T, const T*, const T*, int64_t,          \
                                      const T*, int64_t, T, const T*, T*, int64_t);                                \
  template cudaError_t launch_syr2k<T>(cudaStream_t, bool, bool, int, int, T, const T*, const T*, int64_t,         \
                                       const T*, int64_t, T, const T*, T*, int64_t);
SG_INSTANTIATE_LEVEL3(float)
SG_INSTANTIATE_LEVEL3(double)

}  // namespace softgpu::cublas
