// The complex gemm kernel (kernels_complex.h): simple rather than fast, one
// thread per element of C and one product chain in increasing k.
#include <cuComplex.h>

#include "kernels_complex.h"

namespace softgpu::cublas {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 4096;
constexpr int kMaxBatchBlocks = 65535;

// Element (row, col) of op(X), X stored with leading dimension ld.
template <typename V>
__device__ V element(const V* x, int64_t ld, CxOp op, int row, int col) {
  V v = op == CxOp::n ? x[row + col * ld] : x[col + row * ld];
  if (op == CxOp::c) v.y = -v.y;
  return v;
}

template <typename R, typename V>
__global__ void gemm_complex_kernel(CxOp opa, CxOp opb, int m, int n, int k, V alpha, const V* alpha_dev, const V* a,
                                    int64_t lda, int64_t sa, const V* b, int64_t ldb, int64_t sb, V beta,
                                    const V* beta_dev, V* c, int64_t ldc, int64_t sc, int batch,
                                    const V* const* pa, const V* const* pb, V* const* pc) {
  if (alpha_dev) alpha = *alpha_dev;
  if (beta_dev) beta = *beta_dev;
  const bool use_ab = alpha.x != R(0) || alpha.y != R(0);
  const bool use_c = beta.x != R(0) || beta.y != R(0);
  const int64_t total = int64_t(m) * n;
  for (int bi = blockIdx.y; bi < batch; bi += gridDim.y) {
    const V* A = pa ? pa[bi] : a + bi * sa;
    const V* B = pb ? pb[bi] : b + bi * sb;
    V* C = pc ? pc[bi] : c + bi * sc;
    for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
         e += int64_t(gridDim.x) * blockDim.x) {
      const int i = int(e % m), j = int(e / m);
      R re = 0, im = 0;
      for (int p = 0; use_ab && p < k; ++p) {
        const V x = element(A, lda, opa, i, p), y = element(B, ldb, opb, p, j);
        re += x.x * y.x - x.y * y.y;
        im += x.x * y.y + x.y * y.x;
      }
      V r;
      r.x = use_ab ? alpha.x * re - alpha.y * im : R(0);
      r.y = use_ab ? alpha.x * im + alpha.y * re : R(0);
      V* out = C + i + j * ldc;
      if (use_c) {
        const V old = *out;
        r.x += beta.x * old.x - beta.y * old.y;
        r.y += beta.x * old.y + beta.y * old.x;
      }
      *out = r;
    }
  }
}

template <typename R, typename V>
cudaError_t launch(cudaStream_t s, CxOp opa, CxOp opb, int m, int n, int k, const void* alpha_host,
                   const void* alpha_dev, const void* a, int64_t lda, int64_t sa, const void* b, int64_t ldb,
                   int64_t sb, const void* beta_host, const void* beta_dev, void* c, int64_t ldc, int64_t sc,
                   int batch, const void* const* const* arrays) {
  V alpha{}, beta{};
  if (!alpha_dev) alpha = *static_cast<const V*>(alpha_host);
  if (!beta_dev) beta = *static_cast<const V*>(beta_host);
  const int64_t total = int64_t(m) * n;
  const int64_t want = (total + kThreads - 1) / kThreads;
  const dim3 grid(unsigned(want < kMaxBlocks ? want : kMaxBlocks),
                  unsigned(batch < kMaxBatchBlocks ? batch : kMaxBatchBlocks));
  gemm_complex_kernel<R, V><<<grid, kThreads, 0, s>>>(
      opa, opb, m, n, k, alpha, static_cast<const V*>(alpha_dev), static_cast<const V*>(a), lda, sa,
      static_cast<const V*>(b), ldb, sb, beta, static_cast<const V*>(beta_dev), static_cast<V*>(c), ldc, sc, batch,
      arrays ? reinterpret_cast<const V* const*>(arrays[0]) : nullptr,
      arrays ? reinterpret_cast<const V* const*>(arrays[1]) : nullptr,
      arrays ? reinterpret_cast<V* const*>(const_cast<void* const*>(arrays[2])) : nullptr);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_gemm_complex(cudaStream_t s, bool dbl, CxOp opa, CxOp opb, int m, int n, int k,
                                const void* alpha_host, const void* alpha_dev, const void* a, int64_t lda,
                                int64_t sa, const void* b, int64_t ldb, int64_t sb, const void* beta_host,
                                const void* beta_dev, void* c, int64_t ldc, int64_t sc, int batch,
                                const void* const* const* arrays) {
  if (dbl)
    return launch<double, cuDoubleComplex>(s, opa, opb, m, n, k, alpha_host, alpha_dev, a, lda, sa, b, ldb, sb,
                                           beta_host, beta_dev, c, ldc, sc, batch, arrays);
  return launch<float, cuFloatComplex>(s, opa, opb, m, n, k, alpha_host, alpha_dev, a, lda, sa, b, ldb, sb, beta_host,
                                       beta_dev, c, ldc, sc, batch, arrays);
}

}  // namespace softgpu::cublas
