// Launchers of softgpu cuBLASLt's device kernels (kernels.cu, compiled by
// nvcc into the library's fatbinary). matmul.cpp validates everything first;
// the launchers only issue work on the stream and return the launch error.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cublas/gemm_types.h"

namespace softgpu::cublaslt {

using cublas::GemmCombo;

// One cublasLtMatmul, batch i at base + i*stride of each operand (A and B
// column-major, a row-major one already folded into ta / tb): D = epilogue(alpha op(A) op(B) + beta C [+ bias]). C and D have
// the same type (D may be C). Scalars: alpha_host / beta_host point at the
// host value, or alpha_dev / beta_dev at device memory (wins when
// non-null), of the combination's scale type. beta == 0 never reads C.
struct MatmulArgs {
  GemmCombo combo;
  bool ta, tb;
  int m, n, k, batch;
  const void* alpha_host;
  const void* alpha_dev;
  const void* beta_host;
  const void* beta_dev;
  const void* a;
  int64_t lda, sa;
  const void* b;
  int64_t ldb, sb;
  // C and D: element (r, c) at r*rs + c*cs (column-major: rs 1, cs ld;
  // row-major: rs ld, cs 1).
  const void* c;
  int64_t c_rs, c_cs, sc;
  void* d;
  int64_t d_rs, d_cs, sd;
  // cublasLtEpilogue_t; bias (D's type) is read for the BIAS forms and
  // written for the bias gradients (DRELU_BGRAD, DGELU_BGRAD: sums of D's
  // rows; BGRADA: sums of op(A)'s rows, BGRADB: of op(B)'s columns, over k).
  unsigned epilogue;
  void* bias;
  int64_t bias_stride;
  // RELU_AUX*, DRELU*: a bit mask, bit (r + c*aux_ld) of the bytes at aux,
  // LSB first (aux_ld and aux_stride in bits, multiples of 128). GELU_AUX*,
  // DGELU*: the GELU input, D's type (aux_ld, aux_stride in elements).
  void* aux;
  int64_t aux_ld, aux_stride;
};

cudaError_t launch_matmul(cudaStream_t s, const MatmulArgs& args);

// The Hopper kernel (kernels_sm90.cu: TMA + wgmma, warp-specialized) when
// the current device is sm_90 and the call is one it takes (f16 or bf16
// inputs in any layout, FP8 e4m3 with A and B K-major, i.e. op(A) = A^T and
// op(B) = B after the row-major folding; the DEFAULT epilogue; A and B
// 16-byte aligned with ld and batch strides multiples of 16 bytes;
// SOFTGPU_CUBLAS_TC_TILE not forcing an mma.sync kernel): launches it and
// sets ran. Otherwise ran is false and nothing is launched.
cudaError_t launch_matmul_sm90(cudaStream_t s, const MatmulArgs& args, bool& ran);
// Whether the current device runs FP8 matmuls (sm_90).
bool fp8_matmul_available();

}  // namespace softgpu::cublaslt
