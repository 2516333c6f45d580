// softgpu cuBLASLt's Hopper matmul: the TMA + wgmma warp-specialized
// kernel of src/cublas/gemm_sm90.cuh with the DEFAULT epilogue (D = alpha
// op(A) op(B) + beta C), for the calls NVIDIA's cuBLASLt runs on such
// kernels on an H100: f16 or bf16 in any layout, fp8 e4m3 with K-major A
// and B (op(A) = A^T, op(B) = B of column-major storage, the "TN" layout).
// Compiled for compute_80 (empty kernels, never launched) and compute_90a;
// launch_matmul_sm90 says whether it took the call.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cublas/gemm_sm90.cuh"
#include "kernels.h"

namespace softgpu::cublaslt {

bool fp8_matmul_available() { return gemm_sm90::on_sm90(); }

cudaError_t launch_matmul_sm90(cudaStream_t s, const MatmulArgs& m, bool& ran) {
  namespace g90 = gemm_sm90;
  ran = false;
  // A forced mma.sync kernel (SOFTGPU_CUBLAS_TC_TILE) does not apply to
  // FP8, which only this kernel runs.
  if ((g90::mma_sync_forced() && !cublas::is_fp8(m.combo)) || m.epilogue != CUBLASLT_EPILOGUE_DEFAULT ||
      !g90::on_sm90())
    return cudaSuccess;
  const g90::Call c{m.ta,
                    m.tb,
                    m.batch,
                    m.a,
                    m.lda,
                    m.sa,
                    m.b,
                    m.ldb,
                    m.sb,
                    {m.m, m.n, m.k, 0, m.c, m.c_rs, m.c_cs, m.sc, m.d, m.d_rs, m.d_cs, m.sd},
                    m.alpha_host,
                    m.alpha_dev,
                    m.beta_host,
                    m.beta_dev};
  using g90::In;
  using bf = __nv_bfloat16;
  switch (m.combo) {
    case GemmCombo::h_h_scale_h: return g90::launch<In::f16, __half, __half>(s, c, ran);
    case GemmCombo::h_h: return g90::launch<In::f16, __half, float>(s, c, ran);
    case GemmCombo::h_f: return g90::launch<In::f16, float, float>(s, c, ran);
    case GemmCombo::bf_bf: return g90::launch<In::bf16, bf, float>(s, c, ran);
    case GemmCombo::bf_f: return g90::launch<In::bf16, float, float>(s, c, ran);
    case GemmCombo::q8_h: return g90::launch<In::e4m3, __half, float>(s, c, ran);
    case GemmCombo::q8_bf: return g90::launch<In::e4m3, bf, float>(s, c, ran);
    case GemmCombo::q8_f: return g90::launch<In::e4m3, float, float>(s, c, ran);
    default: return cudaSuccess;
  }
}

}  // namespace softgpu::cublaslt
