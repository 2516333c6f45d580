// Tensor-core gemm of softgpu cuBLAS (kernels_tc.cu, compiled by nvcc into
// the library's fatbinary like kernels.cu): mma.sync kernels for the
// combinations cuBLAS runs on tensor cores, and the rule that picks them
// (tensor_core.cpp). Column-major C = alpha op(A) op(B) + beta C, any m, n,
// k, leading dimensions and strided batches; arguments already validated.
// f16/bf16 inputs laid out for 16-byte copies run on the multistage
// 128x128 / 128x64 cp.async / ldmatrix kernel, the rest on the 64x64 one
// (kernels_tc.cu, use_multistage); on sm_90 the f32-accumulating f16/bf16
// calls first try the TMA + wgmma kernel (kernels_sm90.cu).
#pragma once

#include <cstdint>
#include <cuda_runtime_api.h>

#include "kernels.h"

namespace softgpu::cublas {

// What runs on the tensor cores. Operand type of the mma, accumulator,
// then A/B type -> C type; scalars f32 except f16_acc16 (f16 scalars).
//   f16_acc16:  A/B f16 -> C f16, m16n8k16 accumulating in f16 (COMPUTE_16F, Hgemm)
//   f16_h/f16_f, bf16_bf/bf16_f: A/B f16/bf16 -> C f16/bf16 or f32, m16n8k16, f32 accumulation
//   tf32:       A/B f32 -> C f32, inputs rounded to tf32 (cvt.rna), m16n8k8, f32 accumulation
//   via_f16/via_bf16: A/B f32 -> C f32, inputs rounded to f16 / bf16, m16n8k16, f32 accumulation
enum class TcGemm { f16_acc16, f16_h, f16_f, bf16_bf, bf16_f, tf32, via_f16, via_bf16 };

// Scalars as for launch_gemm_ex: host pointers (host pointer mode) or
// device pointers (device pointer mode, win when non-null). Batch i at
// a + i*sa, b + i*sb, c + i*sc (elements), or with `arrays` (gemmBatched)
// at arrays[0][i], arrays[1][i], arrays[2][i] (device arrays of pointers;
// a, b, c unused).
cudaError_t launch_gemm_tc(cudaStream_t s, TcGemm kind, bool ta, bool tb, int m, int n, int k,
                           const void* alpha_host, const void* alpha_dev, const void* a, int64_t lda, int64_t sa,
                           const void* b, int64_t ldb, int64_t sb, const void* beta_host, const void* beta_dev,
                           void* c, int64_t ldc, int64_t sc, int batch,
                           const void* const* const* arrays = nullptr);

// On an sm_90 GPU (kernels_sm90.cu), the f16 / bf16 calls accumulating in
// f32, any transposes, TMA-describable (16-byte aligned A, B, ld and batch
// strides) run on the TMA + wgmma kernel of
// gemm_sm90.cuh: launches it and sets ran; otherwise ran is false and
// nothing is launched. launch_gemm_tc tries it first (not for gemmBatched's
// pointer arrays).
cudaError_t launch_gemm_sm90(cudaStream_t s, TcGemm kind, bool ta, bool tb, int m, int n, int k,
                             const void* alpha_host, const void* alpha_dev, const void* a, int64_t lda, int64_t sa,
                             const void* b, int64_t ldb, int64_t sb, const void* beta_host, const void* beta_dev,
                             void* c, int64_t ldc, int64_t sc, int batch, bool& ran);

}  // namespace softgpu::cublas
