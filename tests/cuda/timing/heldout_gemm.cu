// The held-out set's GEMM figures (tests/timing/heldout.json, group "gemm")
// as one ordinary CUDA program: cublasLtMatmul in the shape of the program
// that measured them, superbenchmark's cublaslt_gemm as the Azure
// AI-benchmarking-guide runs it: D = op(A) op(B) with A transposed (TN),
// f32 scale (alpha 1, beta 0), D written over C, lda = ldb = k, ldd = m,
// one batch entry described as a strided batch, the first algo of the
// heuristic. Types as the benchmark's `-t fp16` (A100 rows: A, B, C and D
// CUDA_R_16F) or `-t fp8e4m3` (H200 rows: A and B CUDA_R_8F_E4M3, C and D
// CUDA_R_16F). The benchmark passes CUBLAS_COMPUTE_32F_FAST_TF32 for fp16,
// which only changes f32 inputs; this program passes CUBLAS_COMPUTE_32F,
// the same arithmetic for f16 inputs (f32 accumulation), and for fp8 as
// the benchmark does. Its data are random in [-1, 1] (the benchmark fills
// constants; no result depends on the values' timing).
//
// Usage: heldout_gemm [--type fp16|fp8] [--iters I] [--warmup W] M N K [M N K ...]
// For each shape: W warm-up calls, then I calls timed together by
// cudaEvents, as the benchmark times them; prints
//   "kernel=gemm.TYPE.tn.MxNxK us=T value=V unit=TFLOP/s"
// (T per call, V = m n (2k - 1) / T, the benchmark's count), checks 64
// sampled elements of D against a double-precision dot product of the same
// inputs, and ends with "PASS heldout_gemm". Run natively it measures,
// under `softgpu run --timing --gpu KEY` it predicts (timing_validate --only
// heldout runs it so).
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../cublaslt/common_lt.cuh"  // CHECK_LT, urand, upload, download

namespace {

// A random index in [0, n).
int pick(int n) { return std::min(n - 1, int((urand() + 1) / 2 * n)); }

// The inputs' element type: f16 or fp8 e4m3 (D is f16 either way).
template <typename TI>
int run_shape(cublasLtHandle_t lt, int m, int n, int k, int warmup, int iters) {
  constexpr bool fp8 = sizeof(TI) == 1;
  const cudaDataType in = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16F;
  const size_t na = size_t(m) * k, nb = size_t(k) * n, nd = size_t(m) * n;
  std::vector<TI> a(na), b(nb);
  std::vector<__half> d(nd);
  for (auto& x : a) x = TI(float(urand()));
  for (auto& x : b) x = TI(float(urand()));
  TI *da, *db;
  __half* dd;
  if (upload(a, &da) || upload(b, &db)) return 1;
  CHECK(cudaMalloc(&dd, nd * sizeof(__half)));

  const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  cublasLtMatmulDesc_t op;
  CHECK_LT(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  CHECK_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  CHECK_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  cublasLtMatrixLayout_t la, lb, lc, ld;
  CHECK_LT(cublasLtMatrixLayoutCreate(&la, in, k, m, k));  // A stored k x m, used transposed
  CHECK_LT(cublasLtMatrixLayoutCreate(&lb, in, k, n, k));
  CHECK_LT(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16F, m, n, m));
  CHECK_LT(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16F, m, n, m));
  const int batch = 1;
  const int64_t strides[] = {int64_t(m) * k, int64_t(k) * n, int64_t(m) * n, int64_t(m) * n};
  const cublasLtMatrixLayout_t lays[] = {la, lb, lc, ld};
  for (int i = 0; i < 4; ++i) {
    CHECK_LT(cublasLtMatrixLayoutSetAttribute(lays[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch));
    CHECK_LT(cublasLtMatrixLayoutSetAttribute(lays[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strides[i],
                                              sizeof strides[i]));
  }
  cublasLtMatmulPreference_t pref;
  CHECK_LT(cublasLtMatmulPreferenceCreate(&pref));
  const size_t ws_max = 2 * nd;  // the benchmark's workspace limit
  CHECK_LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_max,
                                                sizeof ws_max));
  cublasLtMatmulHeuristicResult_t heur{};
  int found = 0;
  CHECK_LT(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, ld, pref, 1, &heur, &found));
  if (found < 1) {
    std::fprintf(stderr, "FAIL no algorithm for %dx%dx%d\n", m, n, k);
    return 1;
  }
  void* ws = nullptr;
  if (heur.workspaceSize) CHECK(cudaMalloc(&ws, heur.workspaceSize));
  const float alpha = 1, beta = 0;
  auto call = [&] {
    return cublasLtMatmul(lt, op, &alpha, da, la, db, lb, &beta, dd, lc, dd, ld, &heur.algo, ws,
                          heur.workspaceSize, 0);
  };
  for (int i = 0; i < warmup; ++i) CHECK_LT(call());
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  CHECK(cudaEventRecord(e0, 0));
  for (int i = 0; i < iters; ++i) CHECK_LT(call());
  CHECK(cudaEventRecord(e1, 0));
  CHECK(cudaEventSynchronize(e1));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, e0, e1));
  const double us = 1e3 * ms / iters;
  const double tflops = double(m) * n * (2.0 * k - 1) / us / 1e6;
  std::printf("kernel=gemm.%s.tn.%dx%dx%d us=%.3f value=%.2f unit=TFLOP/s\n", fp8 ? "fp8" : "f16", m, n, k, us,
              tflops);

  if (download(d, dd)) return 1;
  for (int s = 0; s < 64; ++s) {  // D(i, j) = sum_p A(p, i) B(p, j), the last corner first
    const int i = s == 0 ? m - 1 : pick(m), j = s == 0 ? n - 1 : pick(n);
    double ref = 0, mag = 0;
    for (int p = 0; p < k; ++p) {
      const double t = double(float(a[size_t(i) * k + p])) * double(float(b[size_t(j) * k + p]));
      ref += t, mag += std::fabs(t);
    }
    const double got = __half2float(d[size_t(i) + size_t(j) * m]);
    // f16 rounding of the result, f32 accumulation of k products.
    const double tol = std::ldexp(std::fabs(ref), -10) + k * std::ldexp(mag, -24) + 1e-6;
    if (!(std::fabs(got - ref) <= tol)) {
      std::fprintf(stderr, "FAIL %dx%dx%d D(%d, %d) = %.6g, expected %.6g (tol %.3g)\n", m, n, k, i, j, got, ref,
                   tol);
      return 1;
    }
  }
  for (auto l : lays) CHECK_LT(cublasLtMatrixLayoutDestroy(l));
  CHECK_LT(cublasLtMatmulPreferenceDestroy(pref));
  CHECK_LT(cublasLtMatmulDescDestroy(op));
  CHECK(cudaEventDestroy(e0));
  CHECK(cudaEventDestroy(e1));
  for (void* p : {(void*)da, (void*)db, (void*)dd, ws}) CHECK(cudaFree(p));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int warmup = 1, iters = 1;
  bool fp8 = false;
  std::vector<int> dims;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--type") && i + 1 < argc) {
      const char* t = argv[++i];
      if (std::strcmp(t, "fp16") && std::strcmp(t, "fp8")) {
        std::fprintf(stderr, "heldout_gemm: --type is fp16 or fp8, not %s\n", t);
        return 2;
      }
      fp8 = !std::strcmp(t, "fp8");
    } else if (!std::strcmp(argv[i], "--iters") && i + 1 < argc) iters = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--warmup") && i + 1 < argc) warmup = std::atoi(argv[++i]);
    else dims.push_back(std::atoi(argv[i]));
  }
  if (dims.empty() || dims.size() % 3 || iters < 1 || warmup < 0) {
    std::fprintf(stderr, "usage: heldout_gemm [--type fp16|fp8] [--iters I] [--warmup W] M N K [M N K ...]\n");
    return 2;
  }
  for (int x : dims)
    if (x < 1) {
      std::fprintf(stderr, "heldout_gemm: sizes must be positive\n");
      return 2;
    }
  cublasLtHandle_t lt;
  CHECK_LT(cublasLtCreate(&lt));
  for (size_t i = 0; i < dims.size(); i += 3)
    if (fp8 ? run_shape<__nv_fp8_e4m3>(lt, dims[i], dims[i + 1], dims[i + 2], warmup, iters)
            : run_shape<__half>(lt, dims[i], dims[i + 1], dims[i + 2], warmup, iters))
      return 1;
  CHECK_LT(cublasLtDestroy(lt));
  std::printf("PASS heldout_gemm\n");
  return 0;
}
