// trmv (Level 2) and symm, trmm, syr2k (Level 3), S and D, each with its
// _64 entry point: the argument checks cuBLAS documents, then
// kernels_level3.cu's kernels on the handle's stream.
#include <cstdint>

#include "blas_args.h"
#include "handle.h"
#include "kernels_level3.h"

namespace softgpu::cublas {
namespace {

// trmv: INVALID_VALUE for a bad fill mode, operation or diagonal type,
// n < 0, lda < max(1, n) or a zero increment.
template <typename T>
cublasStatus_t trmv(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans, cublasDiagType_t diag, int n,
                    const T* a, int64_t lda, T* x, int64_t incx) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool upper, ok, unit;
  const bool t = transposed(trans, ok);
  if (!fill_mode(uplo, upper) || !ok || !diag_type(diag, unit) || n < 0 || !at_least(lda, n) || incx == 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (n == 0) return CUBLAS_STATUS_SUCCESS;
  return from_cuda(launch_trmv<T>(h->stream, upper, t, unit, n, a, lda, base(x, n, incx), incx));
}

// symm: INVALID_VALUE for a bad side or fill mode, m or n < 0, lda <
// max(1, m) (left) or max(1, n) (right), ldb or ldc < max(1, m), or a null
// scalar.
template <typename T>
cublasStatus_t symm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, int m, int n, const T* alpha,
                    const T* a, int64_t lda, const T* b, int64_t ldb, const T* beta, T* c, int64_t ldc) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool left, upper;
  if (!side_mode(side, left) || !fill_mode(uplo, upper) || m < 0 || n < 0 || !at_least(lda, left ? m : n) ||
      !at_least(ldb, m) || !at_least(ldc, m) || !alpha || !beta)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  auto al = scalar(h, alpha), be = scalar(h, beta);
  return from_cuda(
      launch_symm<T>(h->stream, left, upper, m, n, al.value, al.dev, a, lda, b, ldb, be.value, be.dev, c, ldc));
}

// trmm (out of place, as cuBLAS defines it: C = alpha op(A) B or alpha B
// op(A); C == B gives BLAS's in-place trmm): INVALID_VALUE for a bad side,
// fill mode, operation or diagonal type, m or n < 0, lda < max(1, m)
// (left) or max(1, n) (right), ldb or ldc < max(1, m), a null alpha, or C
// == B with ldc != ldb (no other overlap is supported).
template <typename T>
cublasStatus_t trmm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans,
                    cublasDiagType_t diag, int m, int n, const T* alpha, const T* a, int64_t lda, const T* b,
                    int64_t ldb, T* c, int64_t ldc) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool left, upper, ok, unit;
  const bool t = transposed(trans, ok);
  if (!side_mode(side, left) || !fill_mode(uplo, upper) || !ok || !diag_type(diag, unit) || m < 0 || n < 0 ||
      !at_least(lda, left ? m : n) || !at_least(ldb, m) || !at_least(ldc, m) || !alpha || (c == b && ldc != ldb))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  auto al = scalar(h, alpha);
  return from_cuda(launch_trmm<T>(h->stream, left, upper, t, unit, m, n, al.value, al.dev, a, lda, b, ldb, c, ldc));
}

// syr2k: INVALID_VALUE for a bad fill mode or operation, n or k < 0, lda
// or ldb below the rows of the stored A and B (n for N, k for T), ldc <
// max(1, n), or a null scalar.
template <typename T>
cublasStatus_t syr2k(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans, int n, int k, const T* alpha,
                     const T* a, int64_t lda, const T* b, int64_t ldb, const T* beta, T* c, int64_t ldc) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool upper, ok;
  const bool t = transposed(trans, ok);
  if (!fill_mode(uplo, upper) || !ok || n < 0 || k < 0 || !at_least(lda, t ? k : n) || !at_least(ldb, t ? k : n) ||
      !at_least(ldc, n) || !alpha || !beta)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (n == 0) return CUBLAS_STATUS_SUCCESS;
  auto al = scalar(h, alpha), be = scalar(h, beta);
  return from_cuda(
      launch_syr2k<T>(h->stream, upper, t, n, k, al.value, al.dev, a, lda, b, ldb, be.value, be.dev, c, ldc));
}

}  // namespace
}  // namespace softgpu::cublas

namespace sc = softgpu::cublas;

// Each entry point for both index types (I; suffix X: _64 for int64_t), as in blas.cpp.
extern "C" {

#define SG_LEVEL3(P, T, I, X)                                                                                      \
  cublasStatus_t cublas##P##trmv_v2##X(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,          \
                                       cublasDiagType_t diag, I n, const T* a, I lda, T* x, I incx) {             \
    SG_FIT(h, n);                                                                                                 \
    return sc::trmv(h, uplo, trans, diag, sc::dim(n), a, lda, x, incx);                                           \
  }                                                                                                               \
  cublasStatus_t cublas##P##symm_v2##X(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, I m, I n,  \
                                       const T* alpha, const T* a, I lda, const T* b, I ldb, const T* beta, T* c, \
                                       I ldc) {                                                                   \
    SG_FIT(h, m, n);                                                                                              \
    return sc::symm(h, side, uplo, sc::dim(m), sc::dim(n), alpha, a, lda, b, ldb, beta, c, ldc);                  \
  }                                                                                                               \
  cublasStatus_t cublas##P##trmm_v2##X(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,            \
                                       cublasOperation_t trans, cublasDiagType_t diag, I m, I n, const T* alpha,  \
                                       const T* a, I lda, const T* b, I ldb, T* c, I ldc) {                       \
    SG_FIT(h, m, n);                                                                                              \
    return sc::trmm(h, side, uplo, trans, diag, sc::dim(m), sc::dim(n), alpha, a, lda, b, ldb, c, ldc);           \
  }                                                                                                               \
  cublasStatus_t cublas##P##syr2k_v2##X(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans, I n,    \
                                        I k, const T* alpha, const T* a, I lda, const T* b, I ldb, const T* beta, \
                                        T* c, I ldc) {                                                            \
    SG_FIT(h, n, k);                                                                                              \
    return sc::syr2k(h, uplo, trans, sc::dim(n), sc::dim(k), alpha, a, lda, b, ldb, beta, c, ldc);                \
  }

SG_LEVEL3(S, float, int, )
SG_LEVEL3(D, double, int, )
SG_LEVEL3(S, float, int64_t, _64)
SG_LEVEL3(D, double, int64_t, _64)

}  // extern "C"
