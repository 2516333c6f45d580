// The gemm type combinations softgpu implements (GemmCombo), shared by
// libcublas (gemmEx and friends) and libcublasLt (cublasLtMatmul): which
// A/B, C and compute types map to which typed kernel, and the names the
// NOT_SUPPORTED messages print. Host code only.
#pragma once

#include <cublas_api.h>
#include <library_types.h>

namespace softgpu::cublas {

// Names: inputs_output; h f16, bf bf16, f f32, d f64; scalars f32 (f64 for
// d_d) except h_h_scale_h: f16 scalars (CUBLAS_COMPUTE_16F and Hgemm).
// f_f_tf32 / f_f_via_h / f_f_via_bf round the f32 inputs to tf32 / f16 /
// bf16 first (CUBLAS_COMPUTE_32F_FAST_*). q8_*: fp8 e4m3 A and B (cuBLASLt
// only, on sm_90: gemm_combo's fp8 argument).
enum class GemmCombo { h_h_scale_h, h_h, bf_bf, h_f, bf_f, f_f, f_f_tf32, f_f_via_h, f_f_via_bf, d_d, q8_h, q8_bf, q8_f };
inline bool is_fp8(GemmCombo c) { return c == GemmCombo::q8_h || c == GemmCombo::q8_bf || c == GemmCombo::q8_f; }

// The scalar (alpha, beta) type of a combination.
inline cudaDataType scale_type(GemmCombo c) {
  return c == GemmCombo::h_h_scale_h ? CUDA_R_16F : c == GemmCombo::d_d ? CUDA_R_64F : CUDA_R_32F;
}

inline const char* type_name(cudaDataType t) {
  switch (t) {
    case CUDA_R_16F: return "CUDA_R_16F";
    case CUDA_R_16BF: return "CUDA_R_16BF";
    case CUDA_R_32F: return "CUDA_R_32F";
    case CUDA_R_64F: return "CUDA_R_64F";
    case CUDA_R_8I: return "CUDA_R_8I";
    case CUDA_R_8F_E4M3: return "CUDA_R_8F_E4M3";
    case CUDA_R_8F_E5M2: return "CUDA_R_8F_E5M2";
    case CUDA_R_32I: return "CUDA_R_32I";
    case CUDA_C_32F: return "CUDA_C_32F";
    case CUDA_C_64F: return "CUDA_C_64F";
    default: return "cudaDataType(?)";
  }
}
inline const char* compute_name(cublasComputeType_t t) {
  switch (t) {
    case CUBLAS_COMPUTE_16F: return "CUBLAS_COMPUTE_16F";
    case CUBLAS_COMPUTE_16F_PEDANTIC: return "CUBLAS_COMPUTE_16F_PEDANTIC";
    case CUBLAS_COMPUTE_32F: return "CUBLAS_COMPUTE_32F";
    case CUBLAS_COMPUTE_32F_PEDANTIC: return "CUBLAS_COMPUTE_32F_PEDANTIC";
    case CUBLAS_COMPUTE_32F_FAST_16F: return "CUBLAS_COMPUTE_32F_FAST_16F";
    case CUBLAS_COMPUTE_32F_FAST_16BF: return "CUBLAS_COMPUTE_32F_FAST_16BF";
    case CUBLAS_COMPUTE_32F_FAST_TF32: return "CUBLAS_COMPUTE_32F_FAST_TF32";
    case CUBLAS_COMPUTE_64F: return "CUBLAS_COMPUTE_64F";
    case CUBLAS_COMPUTE_64F_PEDANTIC: return "CUBLAS_COMPUTE_64F_PEDANTIC";
    case CUBLAS_COMPUTE_32I: return "CUBLAS_COMPUTE_32I";
    case CUBLAS_COMPUTE_32I_PEDANTIC: return "CUBLAS_COMPUTE_32I_PEDANTIC";
    default: return "cublasComputeType_t(?)";
  }
}

// The rows of cuBLAS's table of gemmEx type combinations that softgpu
// implements (real types; complex: blas_complex.h; 8I is not implemented):
//   16F, 16F_PEDANTIC:        A/B 16F,  C 16F,        scalars f16
//   32F, 32F_PEDANTIC:        A/B 16F,  C 16F or 32F; A/B 16BF, C 16BF or
//                             32F; A/B 32F, C 32F;     scalars f32
//   32F_FAST_16F/16BF/TF32:   A/B 32F,  C 32F (inputs rounded to f16 /
//                             bf16 / tf32 first),     scalars f32
//   64F, 64F_PEDANTIC:        A/B 64F,  C 64F,        scalars f64
// and, with fp8 (cuBLASLt's FP8 table, its e4m3 x e4m3 rows with a 16- or
// 32-bit D):
//   32F:                      A/B 8F_E4M3, C 16F, 16BF or 32F, scalars f32
inline bool gemm_combo(cudaDataType at, cudaDataType bt, cudaDataType ct, cublasComputeType_t comp, GemmCombo& out,
                       bool fp8 = false) {
  if (at != bt) return false;
  if (at == CUDA_R_8F_E4M3) {
    if (!fp8 || comp != CUBLAS_COMPUTE_32F) return false;
    if (ct == CUDA_R_16F) return out = GemmCombo::q8_h, true;
    if (ct == CUDA_R_16BF) return out = GemmCombo::q8_bf, true;
    if (ct == CUDA_R_32F) return out = GemmCombo::q8_f, true;
    return false;
  }
  switch (comp) {
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC:
      if (at == CUDA_R_16F && ct == CUDA_R_16F) return out = GemmCombo::h_h_scale_h, true;
      return false;
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
      if (at == CUDA_R_16F && ct == CUDA_R_16F) return out = GemmCombo::h_h, true;
      if (at == CUDA_R_16F && ct == CUDA_R_32F) return out = GemmCombo::h_f, true;
      if (at == CUDA_R_16BF && ct == CUDA_R_16BF) return out = GemmCombo::bf_bf, true;
      if (at == CUDA_R_16BF && ct == CUDA_R_32F) return out = GemmCombo::bf_f, true;
      if (at == CUDA_R_32F && ct == CUDA_R_32F) return out = GemmCombo::f_f, true;
      return false;
    case CUBLAS_COMPUTE_32F_FAST_TF32:
      if (at == CUDA_R_32F && ct == CUDA_R_32F) return out = GemmCombo::f_f_tf32, true;
      return false;
    case CUBLAS_COMPUTE_32F_FAST_16F:
      if (at == CUDA_R_32F && ct == CUDA_R_32F) return out = GemmCombo::f_f_via_h, true;
      return false;
    case CUBLAS_COMPUTE_32F_FAST_16BF:
      if (at == CUDA_R_32F && ct == CUDA_R_32F) return out = GemmCombo::f_f_via_bf, true;
      return false;
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC:
      if (at == CUDA_R_64F && ct == CUDA_R_64F) return out = GemmCombo::d_d, true;
      return false;
    default: return false;
  }
}

}  // namespace softgpu::cublas
