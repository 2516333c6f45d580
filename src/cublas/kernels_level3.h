// Launchers of the kernels for trmv, trmm, symm and syr2k (kernels_level3.cu),
// and of the widening of a _64 amax/amin index,
// as kernels_more.h's: arguments validated by blas_level3.cpp, vectors at
// the lowest address of their BLAS increment, a scalar by value or
// (non-null wins) as a device pointer the kernel reads.
#pragma once

#include <cstdint>
#include <cuda_runtime_api.h>

namespace softgpu::cublas {

// *to = *from on the device: the index a 64-bit amax/amin returns, from the
// amax kernel's int (blas_args.h's reduce_index).
cudaError_t launch_widen_index(cudaStream_t s, const int* from, int64_t* to);

// x = op(A) x, A n x n triangular (`upper`, `unit` diagonal never read).
template <typename T>
cudaError_t launch_trmv(cudaStream_t s, bool upper, bool trans, bool unit, int n, const T* a, int64_t lda, T* x,
                        int64_t incx);
// C = alpha op(A) B (left) or alpha B op(A) (right), A triangular, B and C
// m x n; C may be B (same ld). alpha == 0 reads neither A nor B.
template <typename T>
cudaError_t launch_trmm(cudaStream_t s, bool left, bool upper, bool trans, bool unit, int m, int n, T alpha,
                        const T* alpha_dev, const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc);
// C = alpha A B + beta C (left) or alpha B A + beta C (right), A symmetric
// with its `upper` (else lower) triangle stored; beta == 0 never reads C,
// alpha == 0 neither A nor B.
template <typename T>
cudaError_t launch_symm(cudaStream_t s, bool left, bool upper, int m, int n, T alpha, const T* alpha_dev, const T* a,
                        int64_t lda, const T* b, int64_t ldb, T beta, const T* beta_dev, T* c, int64_t ldc);
// The `upper` (else lower) triangle of C = alpha (op(A) op(B)^T + op(B)
// op(A)^T) + beta C, C n x n, op(A) and op(B) n x k.
template <typename T>
cudaError_t launch_syr2k(cudaStream_t s, bool upper, bool trans, int n, int k, T alpha, const T* alpha_dev, const T* a,
                         int64_t lda, const T* b, int64_t ldb, T beta, const T* beta_dev, T* c, int64_t ldc);

}  // namespace softgpu::cublas
