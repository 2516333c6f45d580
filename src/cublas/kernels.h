// Launchers of softgpu cuBLAS's device kernels (kernels.cu, compiled by nvcc
// into the library's fatbinary). Arguments are already validated by the API
// layer (blas.cpp); each launcher only issues work on `stream` and returns
// the launch's error. A scalar comes either by value (host pointer mode) or
// as a device pointer read by the kernel (device pointer mode): when the
// pointer is non-null it wins.
#pragma once

#include <cstdint>
#include <cuda_runtime_api.h>

namespace softgpu::cublas {

// Level 1. x and y point at the element of the lowest address the BLAS
// convention gives for the increment (x + (1 - n) * incx for incx < 0).
template <typename T>
cudaError_t launch_axpy(cudaStream_t s, int n, T alpha, const T* alpha_dev, const T* x, int64_t incx, T* y,
                        int64_t incy);
template <typename T>
cudaError_t launch_scal(cudaStream_t s, int n, T alpha, const T* alpha_dev, T* x, int64_t incx);
template <typename T>
cudaError_t launch_copy(cudaStream_t s, int n, const T* x, int64_t incx, T* y, int64_t incy);

// Reductions write one value (T, or int for amax) to `out`, a device pointer.
template <typename T>
cudaError_t launch_dot(cudaStream_t s, int n, const T* x, int64_t incx, const T* y, int64_t incy, T* out);
template <typename T>
cudaError_t launch_nrm2(cudaStream_t s, int n, const T* x, int64_t incx, T* out);
template <typename T>
cudaError_t launch_asum(cudaStream_t s, int n, const T* x, int64_t incx, T* out);
template <typename T>
cudaError_t launch_amax(cudaStream_t s, int n, const T* x, int64_t incx, int* out);

// Level 3: C = alpha op(A) op(B) + beta C, column-major; trans_a/trans_b
// true for T or C (real types). beta == 0 (by value, or read on the device)
// never reads C.
template <typename T>
cudaError_t launch_gemm(cudaStream_t s, bool trans_a, bool trans_b, int m, int n, int k, T alpha, const T* alpha_dev,
                        const T* a, int64_t lda, const T* b, int64_t ldb, T beta, const T* beta_dev, T* c,
                        int64_t ldc);

}  // namespace softgpu::cublas
