// More of Level 1 (swap, rot, iamin), Level 2 (ger, symv, trsv) and Level 3 (syrk,
// trsm) and the dgmm extension, S and D: the argument checks cuBLAS
// documents, then kernels_more.cu's kernels on the handle's stream.
#include <cstdint>

#include "blas_args.h"
#include "handle.h"
#include "kernels.h"
#include "kernels_more.h"

namespace softgpu::cublas {
namespace {

bool fill_mode(cublasFillMode_t uplo, bool& upper) {
  upper = uplo == CUBLAS_FILL_MODE_UPPER;
  return uplo == CUBLAS_FILL_MODE_LOWER || upper;
}

template <typename T>
cublasStatus_t swap(cublasHandle_t h, int n, T* x, int incx, T* y, int incy) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  return from_cuda(launch_swap<T>(h->stream, n, base(x, n, incx), incx, base(y, n, incy), incy));
}

template <typename T>
cublasStatus_t rot(cublasHandle_t h, int n, T* x, int incx, T* y, int incy, const T* c, const T* s) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!c || !s) return CUBLAS_STATUS_INVALID_VALUE;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  auto cc = scalar(h, c), ss = scalar(h, s);
  return from_cuda(
      launch_rot<T>(h->stream, n, base(x, n, incx), incx, base(y, n, incy), incy, cc.value, cc.dev, ss.value, ss.dev));
}

template <typename T>
cublasStatus_t amin(cublasHandle_t h, int n, const T* x, int incx, int* result) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!result) return CUBLAS_STATUS_INVALID_VALUE;
  return reduce(h, result, n <= 0 || incx <= 0,
                [&](int* out) { return launch_amax<T>(h->stream, n, x, incx, out, true); });
}

// ger: INVALID_VALUE for m or n < 0, a zero increment, lda < max(1, m) or
// a null alpha.
template <typename T>
cublasStatus_t ger(cublasHandle_t h, int m, int n, const T* alpha, const T* x, int incx, const T* y, int incy, T* a,
                   int lda) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || incx == 0 || incy == 0 || !at_least(lda, m) || !alpha) return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  auto al = scalar(h, alpha);
  return from_cuda(launch_ger<T>(h->stream, m, n, al.value, al.dev, base(x, m, incx), incx, base(y, n, incy), incy, a,
                                 lda));
}

// symv: INVALID_VALUE for a bad fill mode, n < 0, lda < max(1, n), a zero
// increment or a null scalar.
template <typename T>
cublasStatus_t symv(cublasHandle_t h, cublasFillMode_t uplo, int n, const T* alpha, const T* a, int lda, const T* x,
                    int incx, const T* beta, T* y, int incy) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool upper;
  if (!fill_mode(uplo, upper) || n < 0 || !at_least(lda, n) || incx == 0 || incy == 0 || !alpha || !beta)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (n == 0) return CUBLAS_STATUS_SUCCESS;
  auto al = scalar(h, alpha), be = scalar(h, beta);
  return from_cuda(launch_symv<T>(h->stream, upper, n, al.value, al.dev, a, lda, base(x, n, incx), incx, be.value,
                                  be.dev, base(y, n, incy), incy));
}

// trsv: INVALID_VALUE for a bad fill mode, operation or diagonal type,
// n < 0, lda < max(1, n) or a zero increment.
template <typename T>
cublasStatus_t trsv(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans, cublasDiagType_t diag, int n,
                    const T* a, int lda, T* x, int incx) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool upper, ok;
  const bool t = transposed(trans, ok);
  if (!fill_mode(uplo, upper) || !ok || (diag != CUBLAS_DIAG_UNIT && diag != CUBLAS_DIAG_NON_UNIT) || n < 0 ||
      !at_least(lda, n) || incx == 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (n == 0) return CUBLAS_STATUS_SUCCESS;
  return from_cuda(launch_trsv<T>(h->stream, upper, t, diag == CUBLAS_DIAG_UNIT, n, a, lda, base(x, n, incx), incx));
}

// dgmm: INVALID_VALUE for a bad side, m or n < 0, lda or ldc < max(1, m),
// or C aliasing A with another leading dimension. x has n elements (right)
// or m (left); a negative increment walks it backwards, 0 repeats x[0].
template <typename T>
cublasStatus_t dgmm(cublasHandle_t h, cublasSideMode_t mode, int m, int n, const T* a, int lda, const T* x, int incx,
                    T* c, int ldc) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if ((mode != CUBLAS_SIDE_LEFT && mode != CUBLAS_SIDE_RIGHT) || m < 0 || n < 0 || !at_least(lda, m) ||
      !at_least(ldc, m) || (c == a && lda != ldc))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  const bool left = mode == CUBLAS_SIDE_LEFT;
  return from_cuda(launch_dgmm<T>(h->stream, left, m, n, a, lda, base(x, left ? m : n, incx), incx, c, ldc));
}

// syrk: INVALID_VALUE for a bad fill mode or operation, n or k < 0, lda
// below the rows of the stored A (n for N, k for T), ldc < max(1, n), or a
// null scalar.
template <typename T>
cublasStatus_t syrk(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans, int n, int k, const T* alpha,
                    const T* a, int lda, const T* beta, T* c, int ldc) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool upper, ok;
  const bool t = transposed(trans, ok);
  if (!fill_mode(uplo, upper) || !ok || n < 0 || k < 0 || !at_least(lda, t ? k : n) || !at_least(ldc, n) || !alpha ||
      !beta)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (n == 0) return CUBLAS_STATUS_SUCCESS;
  auto al = scalar(h, alpha), be = scalar(h, beta);
  return from_cuda(launch_syrk<T>(h->stream, upper, t, n, k, al.value, al.dev, a, lda, be.value, be.dev, c, ldc));
}

// trsm: INVALID_VALUE for a bad side, fill mode, operation or diagonal
// type, m or n < 0, lda < max(1, m) (left) or max(1, n) (right), ldb <
// max(1, m), or a null alpha. B is overwritten with the solution.
template <typename T>
cublasStatus_t trsm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans,
                    cublasDiagType_t diag, int m, int n, const T* alpha, const T* a, int lda, T* b, int ldb) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool upper, ok;
  const bool t = transposed(trans, ok);
  const bool left = side == CUBLAS_SIDE_LEFT;
  if ((!left && side != CUBLAS_SIDE_RIGHT) || !fill_mode(uplo, upper) || !ok ||
      (diag != CUBLAS_DIAG_UNIT && diag != CUBLAS_DIAG_NON_UNIT) || m < 0 || n < 0 || !at_least(lda, left ? m : n) ||
      !at_least(ldb, m) || !alpha)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  auto al = scalar(h, alpha);
  return from_cuda(launch_trsm<T>(h->stream, left, upper, t, diag == CUBLAS_DIAG_UNIT, m, n, al.value, al.dev, a, lda,
                                  b, ldb));
}

}  // namespace
}  // namespace softgpu::cublas

namespace sc = softgpu::cublas;

extern "C" {

#define SG_MORE(P, p, T)                                                                                          \
  cublasStatus_t cublas##P##swap_v2(cublasHandle_t h, int n, T* x, int incx, T* y, int incy) {                  \
    return sc::swap(h, n, x, incx, y, incy);                                                                     \
  }                                                                                                              \
  cublasStatus_t cublas##P##rot_v2(cublasHandle_t h, int n, T* x, int incx, T* y, int incy, const T* c,          \
                                   const T* s) {                                                                 \
    return sc::rot(h, n, x, incx, y, incy, c, s);                                                                \
  }                                                                                                              \
  cublasStatus_t cublasI##p##amin_v2(cublasHandle_t h, int n, const T* x, int incx, int* result) {              \
    return sc::amin<T>(h, n, x, incx, result);                                                                   \
  }                                                                                                              \
  cublasStatus_t cublas##P##ger_v2(cublasHandle_t h, int m, int n, const T* alpha, const T* x, int incx,        \
                                   const T* y, int incy, T* a, int lda) {                                        \
    return sc::ger(h, m, n, alpha, x, incx, y, incy, a, lda);                                                    \
  }                                                                                                              \
  cublasStatus_t cublas##P##symv_v2(cublasHandle_t h, cublasFillMode_t uplo, int n, const T* alpha,         \
                                    const T* a, int lda, const T* x, int incx, const T* beta, T* y, int incy) { \
    return sc::symv(h, uplo, n, alpha, a, lda, x, incx, beta, y, incy);                                          \
  }                                                                                                              \
  cublasStatus_t cublas##P##trsv_v2(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,           \
                                    cublasDiagType_t diag, int n, const T* a, int lda, T* x, int incx) {        \
    return sc::trsv(h, uplo, trans, diag, n, a, lda, x, incx);                                                   \
  }                                                                                                              \
  cublasStatus_t cublas##P##dgmm(cublasHandle_t h, cublasSideMode_t mode, int m, int n, const T* a, int lda,    \
                                 const T* x, int incx, T* c, int ldc) {                                          \
    return sc::dgmm(h, mode, m, n, a, lda, x, incx, c, ldc);                                                     \
  }                                                                                                              \
  cublasStatus_t cublas##P##syrk_v2(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans, int n,    \
                                    int k, const T* alpha, const T* a, int lda, const T* beta, T* c, int ldc) { \
    return sc::syrk(h, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);                                          \
  }                                                                                                              \
  cublasStatus_t cublas##P##trsm_v2(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,             \
                                    cublasOperation_t trans, cublasDiagType_t diag, int m, int n,               \
                                    const T* alpha, const T* a, int lda, T* b, int ldb) {                       \
    return sc::trsm(h, side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb);                                    \
  }

SG_MORE(S, s, float)
SG_MORE(D, d, double)

}  // extern "C"
