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

template <typename T>
cublasStatus_t swap(cublasHandle_t h, int n, T* x, int64_t incx, T* y, int64_t incy) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  return from_cuda(launch_swap<T>(h->stream, n, base(x, n, incx), incx, base(y, n, incy), incy));
}

template <typename T>
cublasStatus_t rot(cublasHandle_t h, int n, T* x, int64_t incx, T* y, int64_t incy, const T* c, const T* s) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!c || !s) return CUBLAS_STATUS_INVALID_VALUE;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  auto cc = scalar(h, c), ss = scalar(h, s);
  return from_cuda(
      launch_rot<T>(h->stream, n, base(x, n, incx), incx, base(y, n, incy), incy, cc.value, cc.dev, ss.value, ss.dev));
}

// R: int, or int64_t for the _64 entry point.
template <typename T, typename R>
cublasStatus_t amin(cublasHandle_t h, int n, const T* x, int64_t incx, R* result) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!result) return CUBLAS_STATUS_INVALID_VALUE;
  return reduce_index(h, result, n <= 0 || incx <= 0,
                      [&](int* out) { return launch_amax<T>(h->stream, n, x, incx, out, true); });
}

// ger: INVALID_VALUE for m or n < 0, a zero increment, lda < max(1, m) or
// a null alpha.
template <typename T>
cublasStatus_t ger(cublasHandle_t h, int m, int n, const T* alpha, const T* x, int64_t incx, const T* y, int64_t incy,
                   T* a, int64_t lda) {
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
cublasStatus_t symv(cublasHandle_t h, cublasFillMode_t uplo, int n, const T* alpha, const T* a, int64_t lda, const T* x,
                    int64_t incx, const T* beta, T* y, int64_t incy) {
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
                    const T* a, int64_t lda, T* x, int64_t incx) {
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
cublasStatus_t dgmm(cublasHandle_t h, cublasSideMode_t mode, int m, int n, const T* a, int64_t lda, const T* x,
                    int64_t incx, T* c, int64_t ldc) {
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
                    const T* a, int64_t lda, const T* beta, T* c, int64_t ldc) {
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
                    cublasDiagType_t diag, int m, int n, const T* alpha, const T* a, int64_t lda, T* b, int64_t ldb) {
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

// Each entry point for both index types (I; suffix X: _64 for int64_t), as in blas.cpp.
extern "C" {

#define SG_MORE(P, p, T, I, X)                                                                                     \
  cublasStatus_t cublas##P##swap_v2##X(cublasHandle_t h, I n, T* x, I incx, T* y, I incy) {                       \
    SG_FIT(h, n);                                                                                                 \
    return sc::swap(h, sc::dim(n), x, incx, y, incy);                                                             \
  }                                                                                                               \
  cublasStatus_t cublas##P##rot_v2##X(cublasHandle_t h, I n, T* x, I incx, T* y, I incy, const T* c,              \
                                      const T* s) {                                                               \
    SG_FIT(h, n);                                                                                                 \
    return sc::rot(h, sc::dim(n), x, incx, y, incy, c, s);                                                        \
  }                                                                                                               \
  cublasStatus_t cublasI##p##amin_v2##X(cublasHandle_t h, I n, const T* x, I incx, I* result) {                   \
    SG_FIT(h, n);                                                                                                 \
    return sc::amin<T>(h, sc::dim(n), x, incx, result);                                                           \
  }                                                                                                               \
  cublasStatus_t cublas##P##ger_v2##X(cublasHandle_t h, I m, I n, const T* alpha, const T* x, I incx, const T* y, \
                                      I incy, T* a, I lda) {                                                      \
    SG_FIT(h, m, n);                                                                                              \
    return sc::ger(h, sc::dim(m), sc::dim(n), alpha, x, incx, y, incy, a, lda);                                   \
  }                                                                                                               \
  cublasStatus_t cublas##P##symv_v2##X(cublasHandle_t h, cublasFillMode_t uplo, I n, const T* alpha, const T* a,  \
                                       I lda, const T* x, I incx, const T* beta, T* y, I incy) {                  \
    SG_FIT(h, n);                                                                                                 \
    return sc::symv(h, uplo, sc::dim(n), alpha, a, lda, x, incx, beta, y, incy);                                  \
  }                                                                                                               \
  cublasStatus_t cublas##P##trsv_v2##X(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,          \
                                       cublasDiagType_t diag, I n, const T* a, I lda, T* x, I incx) {             \
    SG_FIT(h, n);                                                                                                 \
    return sc::trsv(h, uplo, trans, diag, sc::dim(n), a, lda, x, incx);                                           \
  }                                                                                                               \
  cublasStatus_t cublas##P##dgmm##X(cublasHandle_t h, cublasSideMode_t mode, I m, I n, const T* a, I lda,         \
                                    const T* x, I incx, T* c, I ldc) {                                            \
    SG_FIT(h, m, n);                                                                                              \
    return sc::dgmm(h, mode, sc::dim(m), sc::dim(n), a, lda, x, incx, c, ldc);                                    \
  }                                                                                                               \
  cublasStatus_t cublas##P##syrk_v2##X(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans, I n,     \
                                       I k, const T* alpha, const T* a, I lda, const T* beta, T* c, I ldc) {      \
    SG_FIT(h, n, k);                                                                                              \
    return sc::syrk(h, uplo, trans, sc::dim(n), sc::dim(k), alpha, a, lda, beta, c, ldc);                         \
  }                                                                                                               \
  cublasStatus_t cublas##P##trsm_v2##X(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,            \
                                       cublasOperation_t trans, cublasDiagType_t diag, I m, I n, const T* alpha,  \
                                       const T* a, I lda, T* b, I ldb) {                                          \
    SG_FIT(h, m, n);                                                                                              \
    return sc::trsm(h, side, uplo, trans, diag, sc::dim(m), sc::dim(n), alpha, a, lda, b, ldb);                   \
  }

SG_MORE(S, s, float, int, )
SG_MORE(D, d, double, int, )
SG_MORE(S, s, float, int64_t, _64)
SG_MORE(D, d, double, int64_t, _64)

}  // extern "C"
