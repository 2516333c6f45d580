// The tensor-core routing rule of tensor_core.h.
#include "tensor_core.h"

namespace softgpu::cublas {

bool tensor_core_route(cublasMath_t mode, cublasComputeType_t comp, GemmCombo combo, TcGemm& out) {
  // CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION is a flag on top of a
  // mode; the kernels never reduce in less than the compute type anyway.
  const int base = int(mode) & ~int(CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
  const bool pedantic = base == CUBLAS_PEDANTIC_MATH;
  switch (combo) {
    case GemmCombo::h_h_scale_h:
      if (pedantic || comp != CUBLAS_COMPUTE_16F) return false;
      return out = TcGemm::f16_acc16, true;
    case GemmCombo::h_h:
    case GemmCombo::h_f:
    case GemmCombo::bf_bf:
    case GemmCombo::bf_f:
      if (pedantic || comp != CUBLAS_COMPUTE_32F) return false;
      out = combo == GemmCombo::h_h   ? TcGemm::f16_h
            : combo == GemmCombo::h_f ? TcGemm::f16_f
            : combo == GemmCombo::bf_bf ? TcGemm::bf16_bf
                                        : TcGemm::bf16_f;
      return true;
    case GemmCombo::f_f:
      if (comp != CUBLAS_COMPUTE_32F) return false;
      if (base == CUBLAS_TF32_TENSOR_OP_MATH) return out = TcGemm::tf32, true;
      if (base == CUBLAS_TENSOR_OP_MATH) return out = TcGemm::via_f16, true;
      return false;
    case GemmCombo::f_f_tf32: return out = TcGemm::tf32, true;
    case GemmCombo::f_f_via_h: return out = TcGemm::via_f16, true;
    case GemmCombo::f_f_via_bf: return out = TcGemm::via_bf16, true;
    case GemmCombo::d_d:
    case GemmCombo::q8_h:
    case GemmCombo::q8_bf:
    case GemmCombo::q8_f: return false;
  }
  return false;
}

}  // namespace softgpu::cublas
