// Cgemm / Zgemm and their strided and pointer-array batched forms, each for
// both index types: gemmEx with CUDA_C_32F / CUDA_C_64F (blas_complex.h),
// run by the complex kernel of kernels_complex.cu.
#include <cuComplex.h>

#include "blas_args.h"
#include "blas_complex.h"

namespace sc = softgpu::cublas;

extern "C" {

#define SG_CGEMM(P, T, type, comp, I, X)                                                                           \
  cublasStatus_t cublas##P##gemm_v2##X(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, I m,  \
                                       I n, I k, const T* alpha, const T* a, I lda, const T* b, I ldb,             \
                                       const T* beta, T* c, I ldc) {                                               \
    SG_FIT(h, m, n, k);                                                                                            \
    return sc::gemm_ex_call(__func__, h, transa, transb, sc::dim(m), sc::dim(n), sc::dim(k), alpha, a, type, lda, \
                            0, b, type, ldb, 0, beta, c, type, ldc, 0, 1, comp);                                   \
  }                                                                                                                \
  cublasStatus_t cublas##P##gemmStridedBatched##X(cublasHandle_t h, cublasOperation_t transa,                      \
                                                  cublasOperation_t transb, I m, I n, I k, const T* alpha,         \
                                                  const T* a, I lda, long long stride_a, const T* b, I ldb,        \
                                                  long long stride_b, const T* beta, T* c, I ldc,                  \
                                                  long long stride_c, I batch) {                                   \
    SG_FIT(h, m, n, k, batch);                                                                                     \
    return sc::gemm_ex_call(__func__, h, transa, transb, sc::dim(m), sc::dim(n), sc::dim(k), alpha, a, type, lda, \
                            stride_a, b, type, ldb, stride_b, beta, c, type, ldc, stride_c, sc::dim(batch), comp); \
  }                                                                                                                \
  cublasStatus_t cublas##P##gemmBatched##X(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb,   \
                                           I m, I n, I k, const T* alpha, const T* const a[], I lda,               \
                                           const T* const b[], I ldb, const T* beta, T* const c[], I ldc,          \
                                           I batch) {                                                              \
    SG_FIT(h, m, n, k, batch);                                                                                     \
    const void* const* arrays[3] = {reinterpret_cast<const void* const*>(a),                                      \
                                    reinterpret_cast<const void* const*>(b),                                      \
                                    reinterpret_cast<const void* const*>(c)};                                     \
    return sc::gemm_ex_call(__func__, h, transa, transb, sc::dim(m), sc::dim(n), sc::dim(k), alpha, nullptr, type, \
                            lda, 0, nullptr, type, ldb, 0, beta, nullptr, type, ldc, 0, sc::dim(batch), comp,      \
                            arrays);                                                                               \
  }

SG_CGEMM(C, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F, int, )
SG_CGEMM(Z, cuDoubleComplex, CUDA_C_64F, CUBLAS_COMPUTE_64F, int, )
SG_CGEMM(C, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F, int64_t, _64)
SG_CGEMM(Z, cuDoubleComplex, CUDA_C_64F, CUBLAS_COMPUTE_64F, int64_t, _64)

}  // extern "C"
