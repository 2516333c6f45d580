// Level 1 (S, D), Level 2 gemv (S, D), Level 3 gemm and gemmStridedBatched
// (S, D), and the geam extension (S, D): argument checks, pointer modes, then
// the kernels of kernels.cu on the handle's stream.
#include <cstdint>

#include "handle.h"
#include "kernels.h"

namespace softgpu::cublas {
namespace {

// Increments are BLAS-style: a negative one walks the vector backwards from
// its last element, so the kernels get the lowest address.
template <typename T>
T* base(T* p, int n, int inc) {
  return inc < 0 ? p + static_cast<int64_t>(1 - n) * inc : p;
}

// A scalar argument: by value in host pointer mode, a device pointer in
// device pointer mode.
template <typename T>
struct Scalar {
  T value = 0;
  const T* dev = nullptr;
};
template <typename T>
Scalar<T> scalar(cublasHandle_t h, const T* p) {
  if (h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE) return {T(0), p};
  return {*p, nullptr};
}

// Where a reduction's kernel writes, and how the result reaches the caller:
// straight to `result` in device pointer mode; through the handle's scratch
// word and a synchronous copy in host pointer mode (the call blocks, as in
// cuBLAS).
template <typename R, typename Launch>
cublasStatus_t reduce(cublasHandle_t h, R* result, bool empty, Launch launch) {
  const bool host = h->pointer_mode == CUBLAS_POINTER_MODE_HOST;
  if (empty) {
    if (host) {
      *result = R(0);
      return CUBLAS_STATUS_SUCCESS;
    }
    return from_cuda(cudaMemsetAsync(result, 0, sizeof(R), h->stream));
  }
  R* out = host ? static_cast<R*>(h->scratch) : result;
  if (cudaError_t e = launch(out); e != cudaSuccess) return from_cuda(e);
  if (!host) return CUBLAS_STATUS_SUCCESS;
  if (cudaMemcpyAsync(result, out, sizeof(R), cudaMemcpyDeviceToHost, h->stream) != cudaSuccess ||
      cudaStreamSynchronize(h->stream) != cudaSuccess)
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return CUBLAS_STATUS_SUCCESS;
}

template <typename T>
cublasStatus_t axpy(cublasHandle_t h, int n, const T* alpha, const T* x, int incx, T* y, int incy) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!alpha) return CUBLAS_STATUS_INVALID_VALUE;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  auto a = scalar(h, alpha);
  return from_cuda(launch_axpy<T>(h->stream, n, a.value, a.dev, base(x, n, incx), incx, base(y, n, incy), incy));
}

template <typename T>
cublasStatus_t scal(cublasHandle_t h, int n, const T* alpha, T* x, int incx) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!alpha) return CUBLAS_STATUS_INVALID_VALUE;
  if (n <= 0 || incx <= 0) return CUBLAS_STATUS_SUCCESS;  // reference BLAS: nothing to do
  auto a = scalar(h, alpha);
  return from_cuda(launch_scal<T>(h->stream, n, a.value, a.dev, x, incx));
}

template <typename T>
cublasStatus_t copy(cublasHandle_t h, int n, const T* x, int incx, T* y, int incy) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  return from_cuda(launch_copy<T>(h->stream, n, base(x, n, incx), incx, base(y, n, incy), incy));
}

template <typename T>
cublasStatus_t dot(cublasHandle_t h, int n, const T* x, int incx, const T* y, int incy, T* result) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!result) return CUBLAS_STATUS_INVALID_VALUE;
  return reduce(h, result, n <= 0, [&](T* out) {
    return launch_dot<T>(h->stream, n, base(x, n, incx), incx, base(y, n, incy), incy, out);
  });
}

template <typename T>
cublasStatus_t nrm2(cublasHandle_t h, int n, const T* x, int incx, T* result) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!result) return CUBLAS_STATUS_INVALID_VALUE;
  return reduce(h, result, n <= 0 || incx <= 0, [&](T* out) { return launch_nrm2<T>(h->stream, n, x, incx, out); });
}

template <typename T>
cublasStatus_t asum(cublasHandle_t h, int n, const T* x, int incx, T* result) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!result) return CUBLAS_STATUS_INVALID_VALUE;
  return reduce(h, result, n <= 0 || incx <= 0, [&](T* out) { return launch_asum<T>(h->stream, n, x, incx, out); });
}

template <typename T>
cublasStatus_t amax(cublasHandle_t h, int n, const T* x, int incx, int* result) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!result) return CUBLAS_STATUS_INVALID_VALUE;
  return reduce(h, result, n <= 0 || incx <= 0,
                [&](int* out) { return launch_amax<T>(h->stream, n, x, incx, out); });
}

bool transposed(cublasOperation_t op, bool& ok) {
  ok = op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
  return op != CUBLAS_OP_N;  // real types: C is T
}

bool at_least(int ld, int rows) { return ld >= (rows > 1 ? rows : 1); }

// The checks gemm and gemmStridedBatched share: INVALID_VALUE for a bad
// operation, negative size or too small leading dimension.
cublasStatus_t gemm_args(cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, int lda, int ldb,
                         int ldc, bool& ta, bool& tb) {
  bool ok_a, ok_b;
  ta = transposed(transa, ok_a);
  tb = transposed(transb, ok_b);
  if (!ok_a || !ok_b || m < 0 || n < 0 || k < 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (!at_least(lda, ta ? k : m) || !at_least(ldb, tb ? n : k) || !at_least(ldc, m))
    return CUBLAS_STATUS_INVALID_VALUE;
  return CUBLAS_STATUS_SUCCESS;
}

template <typename T>
cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                    const T* alpha, const T* a, int lda, const T* b, int ldb, const T* beta, T* c, int ldc) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool ta, tb;
  if (auto st = gemm_args(transa, transb, m, n, k, lda, ldb, ldc, ta, tb); st != CUBLAS_STATUS_SUCCESS) return st;
  if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  auto al = scalar(h, alpha), be = scalar(h, beta);
  return from_cuda(launch_gemm<T>(h->stream, ta, tb, m, n, k, al.value, al.dev, a, lda, b, ldb, be.value, be.dev, c,
                                  ldc));
}

template <typename T>
cublasStatus_t gemm_strided_batched(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, int m,
                                    int n, int k, const T* alpha, const T* a, int lda, long long stride_a,
                                    const T* b, int ldb, long long stride_b, const T* beta, T* c, int ldc,
                                    long long stride_c, int batch) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool ta, tb;
  if (auto st = gemm_args(transa, transb, m, n, k, lda, ldb, ldc, ta, tb); st != CUBLAS_STATUS_SUCCESS) return st;
  if (batch < 0 || !alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0 || batch == 0) return CUBLAS_STATUS_SUCCESS;
  auto al = scalar(h, alpha), be = scalar(h, beta);
  return from_cuda(launch_gemm_strided_batched<T>(h->stream, ta, tb, m, n, k, al.value, al.dev, a, lda, stride_a, b,
                                                  ldb, stride_b, be.value, be.dev, c, ldc, stride_c, batch));
}

// gemv: INVALID_VALUE for a bad operation, m or n < 0, lda < max(1, m), a
// zero increment or a null scalar; m == 0 or n == 0 leaves y as it is
// (reference BLAS quick return).
template <typename T>
cublasStatus_t gemv(cublasHandle_t h, cublasOperation_t trans, int m, int n, const T* alpha, const T* a, int lda,
                    const T* x, int incx, const T* beta, T* y, int incy) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool ok;
  const bool t = transposed(trans, ok);
  if (!ok || m < 0 || n < 0 || !at_least(lda, m) || incx == 0 || incy == 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  const int lx = t ? m : n, ly = t ? n : m;
  auto al = scalar(h, alpha), be = scalar(h, beta);
  return from_cuda(launch_gemv<T>(h->stream, t, m, n, al.value, al.dev, a, lda, base(x, lx, incx), incx, be.value,
                                  be.dev, base(y, ly, incy), incy));
}

// geam: INVALID_VALUE for a bad operation, m or n < 0, a leading dimension
// below max(1, rows of the stored matrix), a null scalar, or C aliasing A
// (B) other than in place (op N and the same leading dimension).
template <typename T>
cublasStatus_t geam(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                    const T* alpha, const T* a, int lda, const T* beta, const T* b, int ldb, T* c, int ldc) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool ok_a, ok_b;
  const bool ta = transposed(transa, ok_a), tb = transposed(transb, ok_b);
  if (!ok_a || !ok_b || m < 0 || n < 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (!at_least(lda, ta ? n : m) || !at_least(ldb, tb ? n : m) || !at_least(ldc, m))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  if (c == a && (ta || lda != ldc)) return CUBLAS_STATUS_INVALID_VALUE;
  if (c == b && (tb || ldb != ldc)) return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  auto al = scalar(h, alpha), be = scalar(h, beta);
  return from_cuda(launch_geam<T>(h->stream, ta, tb, m, n, al.value, al.dev, a, lda, be.value, be.dev, b, ldb, c,
                                  ldc));
}

}  // namespace
}  // namespace softgpu::cublas

namespace sc = softgpu::cublas;

extern "C" {

#define SG_LEVEL1(P, p, T)                                                                                        \
  cublasStatus_t cublas##P##axpy_v2(cublasHandle_t h, int n, const T* alpha, const T* x, int incx, T* y,     \
                                    int incy) {                                                                \
    return sc::axpy(h, n, alpha, x, incx, y, incy);                                                            \
  }                                                                                                            \
  cublasStatus_t cublas##P##scal_v2(cublasHandle_t h, int n, const T* alpha, T* x, int incx) {                \
    return sc::scal(h, n, alpha, x, incx);                                                                     \
  }                                                                                                            \
  cublasStatus_t cublas##P##copy_v2(cublasHandle_t h, int n, const T* x, int incx, T* y, int incy) {          \
    return sc::copy(h, n, x, incx, y, incy);                                                                   \
  }                                                                                                            \
  cublasStatus_t cublas##P##dot_v2(cublasHandle_t h, int n, const T* x, int incx, const T* y, int incy,       \
                                   T* result) {                                                                \
    return sc::dot(h, n, x, incx, y, incy, result);                                                            \
  }                                                                                                            \
  cublasStatus_t cublas##P##nrm2_v2(cublasHandle_t h, int n, const T* x, int incx, T* result) {               \
    return sc::nrm2(h, n, x, incx, result);                                                                    \
  }                                                                                                            \
  cublasStatus_t cublas##P##asum_v2(cublasHandle_t h, int n, const T* x, int incx, T* result) {               \
    return sc::asum(h, n, x, incx, result);                                                                    \
  }                                                                                                            \
  cublasStatus_t cublasI##p##amax_v2(cublasHandle_t h, int n, const T* x, int incx, int* result) {            \
    return sc::amax<T>(h, n, x, incx, result);                                                                 \
  }                                                                                                            \
  cublasStatus_t cublas##P##gemm_v2(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb,     \
                                    int m, int n, int k, const T* alpha, const T* a, int lda, const T* b,     \
                                    int ldb, const T* beta, T* c, int ldc) {                                  \
    return sc::gemm(h, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                          \
  }                                                                                                            \
  cublasStatus_t cublas##P##gemmStridedBatched(cublasHandle_t h, cublasOperation_t transa,                    \
                                               cublasOperation_t transb, int m, int n, int k, const T* alpha,  \
                                               const T* a, int lda, long long stride_a, const T* b, int ldb,   \
                                               long long stride_b, const T* beta, T* c, int ldc,               \
                                               long long stride_c, int batch) {                                \
    return sc::gemm_strided_batched(h, transa, transb, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b,     \
                                    beta, c, ldc, stride_c, batch);                                            \
  }                                                                                                            \
  cublasStatus_t cublas##P##gemv_v2(cublasHandle_t h, cublasOperation_t trans, int m, int n, const T* alpha,  \
                                    const T* a, int lda, const T* x, int incx, const T* beta, T* y,           \
                                    int incy) {                                                                \
    return sc::gemv(h, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);                                    \
  }                                                                                                            \
  cublasStatus_t cublas##P##geam(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, int m, \
                                 int n, const T* alpha, const T* a, int lda, const T* beta, const T* b,       \
                                 int ldb, T* c, int ldc) {                                                     \
    return sc::geam(h, transa, transb, m, n, alpha, a, lda, beta, b, ldb, c, ldc);                             \
  }

SG_LEVEL1(S, s, float)
SG_LEVEL1(D, d, double)

}  // extern "C"
