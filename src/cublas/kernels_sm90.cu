// softgpu cuBLAS's Hopper gemm: the TMA + wgmma warp-specialized kernel of
// gemm_sm90.cuh for the tensor-core calls (cublasGemmEx, Hgemm-free: f16 or
// bf16 inputs accumulating in f32), any transposes, on an sm_90 GPU. Compiled for compute_80 (empty kernels, never
// launched) and compute_90a.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gemm_sm90.cuh"
#include "kernels_tc.h"

namespace softgpu::cublas {

cudaError_t launch_gemm_sm90(cudaStream_t s, TcGemm kind, bool ta, bool tb, int m, int n, int k,
                             const void* alpha_host, const void* alpha_dev, const void* a, int64_t lda, int64_t sa,
                             const void* b, int64_t ldb, int64_t sb, const void* beta_host, const void* beta_dev,
                             void* c, int64_t ldc, int64_t sc, int batch, bool& ran) {
  namespace g90 = gemm_sm90;
  ran = false;
  if (g90::mma_sync_forced() || !g90::on_sm90()) return cudaSuccess;
  const g90::Call call{ta, tb, batch, a, lda, sa, b, ldb, sb, {m, n, k, 0, c, 1, ldc, sc, c, 1, ldc, sc},
                       alpha_host, alpha_dev, beta_host, beta_dev};
  using g90::In;
  using bf = __nv_bfloat16;
  switch (kind) {
    case TcGemm::f16_h: return g90::launch<In::f16, __half, float>(s, call, ran);
    case TcGemm::f16_f: return g90::launch<In::f16, float, float>(s, call, ran);
    case TcGemm::bf16_bf: return g90::launch<In::bf16, bf, float>(s, call, ran);
    case TcGemm::bf16_f: return g90::launch<In::bf16, float, float>(s, call, ran);
    default: return cudaSuccess;  // f16 accumulation, f32 inputs: the mma.sync kernels
  }
}

}  // namespace softgpu::cublas
