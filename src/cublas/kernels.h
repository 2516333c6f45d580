// Launchers of softgpu cuBLAS's device kernels (kernels.cu, compiled by nvcc
// into the library's fatbinary). Arguments are already validated by the API
// layer (blas.cpp); each launcher only issues work on `stream` and returns
// the launch's error. A scalar comes either by value (host pointer mode) or
// as a device pointer read by the kernel (device pointer mode): when the
// pointer is non-null it wins.
#pragma once

#include <cstdint>
#include <cuda_runtime_api.h>

#include "gemm_types.h"

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
// amax: the 1-based index of the first largest |x| (smallest: iamin's).
template <typename T>
cudaError_t launch_dot(cudaStream_t s, int n, const T* x, int64_t incx, const T* y, int64_t incy, T* out);
template <typename T>
cudaError_t launch_nrm2(cudaStream_t s, int n, const T* x, int64_t incx, T* out);
template <typename T>
cudaError_t launch_asum(cudaStream_t s, int n, const T* x, int64_t incx, T* out);
template <typename T>
cudaError_t launch_amax(cudaStream_t s, int n, const T* x, int64_t incx, int* out, bool smallest = false);

// Level 3: C = alpha op(A) op(B) + beta C, column-major; trans_a/trans_b
// true for T or C (real types). beta == 0 (by value, or read on the device)
// never reads C.
template <typename T>
cudaError_t launch_gemm(cudaStream_t s, bool trans_a, bool trans_b, int m, int n, int k, T alpha, const T* alpha_dev,
                        const T* a, int64_t lda, const T* b, int64_t ldb, T beta, const T* beta_dev, T* c,
                        int64_t ldc);
// Strided batched gemm: batch i uses a + i*stride_a, b + i*stride_b,
// c + i*stride_c (the gemm kernel with a batch grid dimension).
template <typename T>
cudaError_t launch_gemm_strided_batched(cudaStream_t s, bool trans_a, bool trans_b, int m, int n, int k, T alpha,
                                        const T* alpha_dev, const T* a, int64_t lda, int64_t stride_a, const T* b,
                                        int64_t ldb, int64_t stride_b, T beta, const T* beta_dev, T* c, int64_t ldc,
                                        int64_t stride_c, int batch);

// Typed gemm (gemmEx, gemmStridedBatchedEx, Hgemm) on the SIMT cores, for
// the calls tensor_core.h does not send to the tensor cores (kernels_tc.h):
// the combinations of A/B type, C type and scalar type blas.cpp accepts,
// each the tiled gemm kernel with inputs widened to the accumulation type
// (f32 for f16/bf16/f32 inputs, f64 for f64), one fma chain per element of
// C in increasing k, and the result rounded once to C's type (GemmCombo:
// gemm_types.h; f16 scalars of h_h_scale_h, here only the _PEDANTIC or
// PEDANTIC_MATH calls, still accumulate in f32).
// Scalars: alpha_host / beta_host point at the host value (host pointer
// mode) or alpha_dev / beta_dev at device memory (device pointer mode; wins
// when non-null), of the scalar type. Batch i at a + i*sa etc.
cudaError_t launch_gemm_ex(cudaStream_t s, GemmCombo combo, bool ta, bool tb, int m, int n, int k,
                           const void* alpha_host, const void* alpha_dev, const void* a, int64_t lda, int64_t sa,
                           const void* b, int64_t ldb, int64_t sb, const void* beta_host, const void* beta_dev,
                           void* c, int64_t ldc, int64_t sc, int batch);

// Batched typed gemm (gemmBatchedEx, S/D/HgemmBatched): batch i uses the
// device pointers a[i], b[i], c[i]; a, b and c are arrays in device memory.
cudaError_t launch_gemm_batched_ex(cudaStream_t s, GemmCombo combo, bool ta, bool tb, int m, int n, int k,
                                   const void* alpha_host, const void* alpha_dev, const void* const* a, int64_t lda,
                                   const void* const* b, int64_t ldb, const void* beta_host, const void* beta_dev,
                                   void* const* c, int64_t ldc, int batch);

// Level 2: y = alpha op(A) x + beta y (A is m x n; x, y as for Level 1).
// beta == 0 never reads y.
template <typename T>
cudaError_t launch_gemv(cudaStream_t s, bool trans, int m, int n, T alpha, const T* alpha_dev, const T* a,
                        int64_t lda, const T* x, int64_t incx, T beta, const T* beta_dev, T* y, int64_t incy);

// geam: C = alpha op(A) + beta op(B), C m x n. A scalar of 0 does not read
// its matrix.
template <typename T>
cudaError_t launch_geam(cudaStream_t s, bool trans_a, bool trans_b, int m, int n, T alpha, const T* alpha_dev,
                        const T* a, int64_t lda, T beta, const T* beta_dev, const T* b, int64_t ldb, T* c,
                        int64_t ldc);

}  // namespace softgpu::cublas
