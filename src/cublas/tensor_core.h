// Which gemm calls softgpu cuBLAS runs on the tensor cores (kernels_tc.h),
// as cuBLAS chooses: f16 and bf16 inputs (CUBLAS_COMPUTE_16F and
// CUBLAS_COMPUTE_32F; Hgemm), f32 inputs with CUBLAS_COMPUTE_32F_FAST_TF32 /
// FAST_16F / FAST_16BF, and f32 with CUBLAS_COMPUTE_32F under the math modes
// CUBLAS_TF32_TENSOR_OP_MATH (tf32) or the deprecated CUBLAS_TENSOR_OP_MATH
// (f16, as cuBLAS documents it). The *_PEDANTIC compute types, f64, and
// CUBLAS_PEDANTIC_MATH (except the explicit FAST_* compute types) keep the
// SIMT kernels of kernels.cu.
#pragma once

#include <cublas_api.h>

#include "kernels_tc.h"

namespace softgpu::cublas {

// True, with the tensor-core kernel in `out`, when the call goes to the
// tensor cores; false for the SIMT path.
bool tensor_core_route(cublasMath_t mode, cublasComputeType_t comp, GemmCombo combo, TcGemm& out);

}  // namespace softgpu::cublas
