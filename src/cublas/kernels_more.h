// Launchers of the kernels for swap, rot, ger, symv, trsv, dgmm, syrk and trsm
// (kernels_more.cu), as kernels.h's: arguments validated by blas_more.cpp,
// vectors at the lowest address of their BLAS increment, a scalar by value
// or (non-null wins) as a device pointer the kernel reads.
#pragma once

#include <cstdint>
#include <cuda_runtime_api.h>

namespace softgpu::cublas {

template <typename T>
cudaError_t launch_swap(cudaStream_t s, int n, T* x, int64_t incx, T* y, int64_t incy);
// x = c x + s y, y = c y - s x.
template <typename T>
cudaError_t launch_rot(cudaStream_t s, int n, T* x, int64_t incx, T* y, int64_t incy, T c, const T* c_dev, T sn,
                       const T* s_dev);
// A += alpha x y^T (A m x n).
template <typename T>
cudaError_t launch_ger(cudaStream_t s, int m, int n, T alpha, const T* alpha_dev, const T* x, int64_t incx, const T* y,
                       int64_t incy, T* a, int64_t lda);
// y = alpha A x + beta y, A n x n symmetric with its `upper` (else lower)
// triangle stored; beta == 0 never reads y.
template <typename T>
cudaError_t launch_symv(cudaStream_t s, bool upper, int n, T alpha, const T* alpha_dev, const T* a, int64_t lda,
                        const T* x, int64_t incx, T beta, const T* beta_dev, T* y, int64_t incy);
// x = the solution of op(A) x = x, A n x n triangular.
template <typename T>
cudaError_t launch_trsv(cudaStream_t s, bool upper, bool trans, bool unit, int n, const T* a, int64_t lda, T* x,
                        int64_t incx);
// C = A diag(x) (right) or diag(x) A (left); C may be A (same ld).
template <typename T>
cudaError_t launch_dgmm(cudaStream_t s, bool left, int m, int n, const T* a, int64_t lda, const T* x, int64_t incx,
                        T* c, int64_t ldc);
// The `upper` (else lower) triangle of C = alpha op(A) op(A)^T + beta C,
// C n x n, op(A) n x k; beta == 0 never reads C.
template <typename T>
cudaError_t launch_syrk(cudaStream_t s, bool upper, bool trans, int n, int k, T alpha, const T* alpha_dev, const T* a,
                        int64_t lda, T beta, const T* beta_dev, T* c, int64_t ldc);
// B = X with op(A) X = alpha B (left) or X op(A) = alpha B (right), A
// triangular (`upper`, `unit` diagonal), B m x n.
template <typename T>
cudaError_t launch_trsm(cudaStream_t s, bool left, bool upper, bool trans, bool unit, int m, int n, T alpha,
                        const T* alpha_dev, const T* a, int64_t lda, T* b, int64_t ldb);

}  // namespace softgpu::cublas
