// Launcher of softgpu cuBLAS's complex gemm kernel (kernels_complex.cu):
// Cgemm / Zgemm and their strided and pointer-array batched forms, and
// gemmEx with CUDA_C_32F / CUDA_C_64F. Arguments are validated by the API
// layer (blas.cpp).
#pragma once

#include <cstdint>
#include <cuda_runtime_api.h>

namespace softgpu::cublas {

// The operation on A or B: N, T, or C (conjugate transpose).
enum class CxOp { n, t, c };

// C = alpha op(A) op(B) + beta C, column-major, one thread per element of
// C accumulating in the element type's precision (f32 parts for
// cuComplex, f64 for cuDoubleComplex: `dbl`). Scalars are complex of the
// element type: alpha_host / beta_host point at host values, or alpha_dev /
// beta_dev (non-null wins) at device memory. beta == 0 never reads C; alpha
// == 0 never reads A or B. Batch i at a + i*sa etc., or, when `arrays` is
// non-null, at the device pointers arrays[0..2][i].
cudaError_t launch_gemm_complex(cudaStream_t s, bool dbl, CxOp opa, CxOp opb, int m, int n, int k,
                                const void* alpha_host, const void* alpha_dev, const void* a, int64_t lda,
                                int64_t sa, const void* b, int64_t ldb, int64_t sb, const void* beta_host,
                                const void* beta_dev, void* c, int64_t ldc, int64_t sc, int batch,
                                const void* const* const* arrays);

}  // namespace softgpu::cublas
