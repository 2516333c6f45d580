// Complex gemm (Cgemm, Zgemm, gemmEx with CUDA_C_32F / CUDA_C_64F): which
// calls are complex, and the gemmEx body blas.cpp shares with the C/Z entry
// points of blas_complex.cpp.
#pragma once

#include <cstdint>

#include "handle.h"
#include "kernels_complex.h"

namespace softgpu::cublas {

// The complex rows of cuBLAS's gemmEx table softgpu implements: A/B/C
// CUDA_C_32F with CUBLAS_COMPUTE_32F(_PEDANTIC) (cuComplex scalars), and
// CUDA_C_64F with CUBLAS_COMPUTE_64F(_PEDANTIC) (cuDoubleComplex scalars).
// (C_32F with the 32F_FAST_* types, and C_8I, are not implemented.)
inline bool complex_combo(cudaDataType at, cudaDataType bt, cudaDataType ct, cublasComputeType_t comp, bool& dbl) {
  if (at != bt || at != ct) return false;
  dbl = at == CUDA_C_64F;
  if (at == CUDA_C_32F) return comp == CUBLAS_COMPUTE_32F || comp == CUBLAS_COMPUTE_32F_PEDANTIC;
  if (at == CUDA_C_64F) return comp == CUBLAS_COMPUTE_64F || comp == CUBLAS_COMPUTE_64F_PEDANTIC;
  return false;
}

// After the operation was checked valid.
inline CxOp complex_op(cublasOperation_t op) {
  return op == CUBLAS_OP_N ? CxOp::n : op == CUBLAS_OP_T ? CxOp::t : CxOp::c;
}

// gemmEx (blas.cpp) with the default algorithm: every status of gemmEx;
// `arrays` non-null for the pointer-array batched form.
cublasStatus_t gemm_ex_call(const char* name, cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb,
                            int m, int n, int k, const void* alpha, const void* a, cudaDataType at, int64_t lda,
                            long long sa, const void* b, cudaDataType bt, int64_t ldb, long long sb,
                            const void* beta, void* c, cudaDataType ct, int64_t ldc, long long sc, int batch,
                            cublasComputeType_t comp, const void* const* const* arrays = nullptr);

}  // namespace softgpu::cublas
