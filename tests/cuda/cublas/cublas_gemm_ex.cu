// cublasGemmEx, cublasGemmStridedBatchedEx and cublasHgemm against a CPU loop
// in double, for every type combination softgpu implements (A/B 16F, 16BF,
// 32F, 64F; C and compute types as cuBLAS's table allows; FAST_TF32,
// FAST_16F, FAST_16BF round f32 inputs first): shapes m, n, k from
// {1, 17, 129} (at most one 129), transposes rotated over the shapes plus all
// 9 pairs at 17^3, leading dimensions larger than the matrix (padding must
// stay untouched), host and device pointer modes (scalars typed by the
// compute type), beta = 0 over C full of NaN, batches of 2 with gaps, every
// algo value; then combinations softgpu does not implement
// (NOT_SUPPORTED, one line on stderr) and the invalid-argument statuses.
//
// The reference uses the inputs as the kernel sees them (f32 inputs of the
// FAST modes rounded on the host: tf32 to nearest, ties away, as
// cvt.rna.tf32.f32; f16 / bf16 to nearest even), so the rounding itself is
// checked. Tolerance: |got - ref| <= (max(k, 4) * u_acc + u_out) * sum of
// |terms| (|alpha a_ik b_kj| and |beta c_ij|), u_acc = 2^-24 (f32
// accumulation) or 2^-53 (f64), u_out the unit roundoff of C's type (2^-11
// f16, 2^-8 bf16, 2^-24 f32, 2^-53 f64), plus 2^-25 absolute for f16 C
// (half its subnormal spacing). For f16/bf16 this is within
// K * eps(input type) * sum |terms|: softgpu accumulates f16/bf16 in f32
// and rounds once to C's type, except Hgemm and CUBLAS_COMPUTE_16F, which
// run on the tensor cores accumulating in f16 as cuBLAS does (one rounding
// to f16 per k step of 16): there u_acc = 2 * 2^-11 per step instead, and
// the floor 2^-24 per step.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>
#include <limits>
#include <vector>

#include "common.cuh"
#include "typed.cuh"

struct Combo {
  const char* name;
  cudaDataType ab, c, scale;
  cublasComputeType_t comp;
  Round round;
};
static const Combo kCombos[] = {
    {"16F/16F/COMPUTE_16F", CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F, kNone},
    {"16F/16F/COMPUTE_16F_PEDANTIC", CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F_PEDANTIC, kNone},
    {"16F/16F/COMPUTE_32F", CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, kNone},
    {"16F/32F/COMPUTE_32F", CUDA_R_16F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, kNone},
    {"16BF/16BF/COMPUTE_32F", CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, kNone},
    {"16BF/32F/COMPUTE_32F", CUDA_R_16BF, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, kNone},
    {"32F/32F/COMPUTE_32F", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, kNone},
    {"32F/32F/COMPUTE_32F_PEDANTIC", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC, kNone},
    {"32F/32F/COMPUTE_32F_FAST_TF32", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, kTf32},
    {"32F/32F/COMPUTE_32F_FAST_16F", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_16F, kF16},
    {"32F/32F/COMPUTE_32F_FAST_16BF", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_16BF, kBf16},
    {"64F/64F/COMPUTE_64F", CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, kNone},
};

static long checks = 0;
static const cublasGemmAlgo_t kAlgos[] = {CUBLAS_GEMM_DEFAULT, CUBLAS_GEMM_DEFAULT_TENSOR_OP, CUBLAS_GEMM_ALGO0,
                                          CUBLAS_GEMM_ALGO5_TENSOR_OP, CUBLAS_GEMM_ALGO23,
                                          CUBLAS_GEMM_ALGO15_TENSOR_OP};

// hgemm: call cublasHgemm instead of GemmEx (Combo must be 16F/16F/16F).
static int ex_case(cublasHandle_t h, const Combo& cb, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                   int batch, bool device, bool beta_zero, int variant, bool hgemm = false) {
  const bool tra = ta != CUBLAS_OP_N, trb = tb != CUBLAS_OP_N;
  const int ar = tra ? k : m, ac = tra ? m : k, br = trb ? n : k, bc = trb ? k : n;
  const int lda = ar + 1, ldb = br + 2, ldc = m + 3;
  const long sa = (long)lda * ac + 5, sb = (long)ldb * bc + 7, sc = (long)ldc * n + 11;
  const size_t ea = tsize(cb.ab), ec = tsize(cb.c);
  std::vector<unsigned char> a(sa * batch * ea), b(sb * batch * ea), c(sc * batch * ec);
  for (long i = 0; i < sa * batch; ++i) put(cb.ab, a.data(), i, urand());
  for (long i = 0; i < sb * batch; ++i) put(cb.ab, b.data(), i, urand());
  const double sentinel = 1152;  // 2^10 + 2^7: exact in every type
  for (long i = 0; i < sc * batch; ++i) put(cb.c, c.data(), i, sentinel);
  for (int q = 0; q < batch; ++q)
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < m; ++i)
        put(cb.c, c.data(), q * sc + i + j * ldc, beta_zero ? std::numeric_limits<double>::quiet_NaN() : urand());
  const double alpha_v = 0.75, beta_v = beta_zero ? 0 : 1.5;
  unsigned char alpha_h[8], beta_h[8];
  put(cb.scale, alpha_h, 0, alpha_v);
  put(cb.scale, beta_h, 0, beta_v);
  void *da, *db, *dc, *dal, *dbe;
  CHECK(cudaMalloc(&da, a.size()));
  CHECK(cudaMalloc(&db, b.size()));
  CHECK(cudaMalloc(&dc, c.size()));
  CHECK(cudaMalloc(&dal, 8));
  CHECK(cudaMalloc(&dbe, 8));
  CHECK(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, c.data(), c.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dal, alpha_h, 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dbe, beta_h, 8, cudaMemcpyHostToDevice));
  CHECK_BLAS(cublasSetPointerMode(h, device ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST));
  const void* al = device ? dal : (const void*)alpha_h;
  const void* be = device ? dbe : (const void*)beta_h;
  const cublasGemmAlgo_t algo = kAlgos[variant % 6];
  if (hgemm)
    CHECK_BLAS(cublasHgemm(h, ta, tb, m, n, k, (const __half*)al, (const __half*)da, lda, (const __half*)db, ldb,
                           (const __half*)be, (__half*)dc, ldc));
  else if (batch == 1)
    CHECK_BLAS(cublasGemmEx(h, ta, tb, m, n, k, al, da, cb.ab, lda, db, cb.ab, ldb, be, dc, cb.c, ldc, cb.comp, algo));
  else
    CHECK_BLAS(cublasGemmStridedBatchedEx(h, ta, tb, m, n, k, al, da, cb.ab, lda, sa, db, cb.ab, ldb, sb, be, dc,
                                          cb.c, ldc, sc, batch, cb.comp, algo));
  std::vector<unsigned char> got(c.size());
  CHECK(cudaMemcpy(got.data(), dc, got.size(), cudaMemcpyDeviceToHost));
  const double u_acc = cb.ab == CUDA_R_64F ? 0x1p-53 : 0x1p-24;
  const bool acc16 = cb.comp == CUBLAS_COMPUTE_16F;  // tensor cores, f16 accumulator
  const int steps16 = (k + 15) / 16;
  const double tol = acc16 ? 2 * steps16 * 0x1p-11 + unit(cb.c) : (k > 4 ? k : 4) * u_acc + unit(cb.c);
  // Results below f16's normal range round to its subnormal spacing 2^-24.
  const double floor_abs = acc16 ? (steps16 + 1) * 0x1p-24 : cb.c == CUDA_R_16F ? 0x1p-25 : 1e-300;
  long bad = 0;
  for (int q = 0; q < batch; ++q) {
    for (long e = 0; e < sc; ++e) {
      const long i = e % ldc, j = e / ldc;
      const double g = get(cb.c, got.data(), q * sc + e);
      const double orig = get(cb.c, c.data(), q * sc + e);
      if (i >= m || j >= n) {
        if (!(g == sentinel) && bad++ < 4)
          std::fprintf(stderr, "  batch %d C[%ld] outside the matrix overwritten: %g\n", q, e, g);
        continue;
      }
      double ref = 0, mag = 0;
      for (int p = 0; p < k; ++p) {
        const long ia = q * sa + (tra ? p + i * lda : i + (long)p * lda);
        const long ib = q * sb + (trb ? j + (long)p * ldb : p + j * ldb);
        const double av = round_in(cb.round, get(cb.ab, a.data(), ia));
        const double bv = round_in(cb.round, get(cb.ab, b.data(), ib));
        ref += av * bv;
        mag += std::fabs(av * bv);
      }
      ref *= alpha_v;
      mag *= alpha_v;
      if (!beta_zero) {
        ref += beta_v * orig;
        mag += std::fabs(beta_v * orig);
      }
      if (!(std::fabs(g - ref) <= tol * mag + floor_abs) && bad++ < 4)
        std::fprintf(stderr, "  batch %d C(%ld,%ld) = %.17g, expected %.17g (tol %.3g)\n", q, i, j, g, ref, tol * mag);
    }
  }
  REQUIRE(bad == 0, "%s %s %s%s m=%d n=%d k=%d batch=%d device=%d beta0=%d algo=%d: %ld bad", hgemm ? "Hgemm" : "GemmEx",
          cb.name, op_name(ta), op_name(tb), m, n, k, batch, device, beta_zero, (int)algo, bad);
  ++checks;
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  CHECK(cudaFree(dal));
  CHECK(cudaFree(dbe));
  return 0;
}

static const cublasOperation_t kOps[] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};

// Every shape once per combination (transposes, pointer mode, beta = 0 and
// algo rotating), all 9 transposes at 17^3, and a batch of 2 at a few shapes.
static int combo_all(cublasHandle_t h, const Combo& cb, bool hgemm) {
  int v = 0;
  for (int m : {1, 17, 129})
    for (int n : {1, 17, 129})
      for (int k : {1, 17, 129}) {
        if ((m == 129) + (n == 129) + (k == 129) > 1) continue;
        ++v;
        if (ex_case(h, cb, kOps[v % 3], kOps[(v / 3) % 3], m, n, k, 1, v % 2 == 1, v % 4 >= 2, v, hgemm)) return 1;
      }
  for (auto ta : kOps)
    for (auto tb : kOps) {
      ++v;
      if (ex_case(h, cb, ta, tb, 17, 17, 17, 1, v % 2 == 0, v % 3 == 0, v, hgemm)) return 1;
    }
  if (!hgemm) {
    if (ex_case(h, cb, CUBLAS_OP_N, CUBLAS_OP_T, 17, 129, 17, 2, false, true, 0)) return 1;
    if (ex_case(h, cb, CUBLAS_OP_T, CUBLAS_OP_N, 129, 1, 129, 2, true, false, 1)) return 1;
    if (ex_case(h, cb, CUBLAS_OP_T, CUBLAS_OP_T, 17, 17, 1, 2, false, false, 2)) return 1;
  }
  return 0;
}

static int types(cublasHandle_t h) {
  for (const Combo& cb : kCombos)
    if (combo_all(h, cb, false)) return 1;
  if (combo_all(h, kCombos[0], true)) return 1;  // Hgemm
  CHECK_BLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  return 0;
}

static int unsupported(cublasHandle_t h) {
  void* p;
  CHECK(cudaMalloc(&p, 4096));
  const float one = 1.0f;
  const double oned = 1.0;
  const auto N = CUBLAS_OP_N;
  // Not in cuBLAS's table, or in it but not implemented here (8I; complex: cublas_complex.cu).
  EXPECT_STATUS(cublasGemmEx(h, N, N, 4, 4, 4, &one, p, CUDA_R_16F, 4, p, CUDA_R_16F, 4, &one, p, CUDA_R_64F, 4,
                             CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_STATUS(cublasGemmEx(h, N, N, 4, 4, 4, &one, p, CUDA_R_16F, 4, p, CUDA_R_16BF, 4, &one, p, CUDA_R_32F, 4,
                             CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_STATUS(cublasGemmEx(h, N, N, 4, 4, 4, &one, p, CUDA_R_16BF, 4, p, CUDA_R_16BF, 4, &one, p, CUDA_R_16BF, 4,
                             CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT), CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_STATUS(cublasGemmEx(h, N, N, 4, 4, 4, &one, p, CUDA_R_16F, 4, p, CUDA_R_16F, 4, &one, p, CUDA_R_16F, 4,
                             CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT), CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_STATUS(cublasGemmEx(h, N, N, 4, 4, 4, &oned, p, CUDA_R_32F, 4, p, CUDA_R_32F, 4, &oned, p, CUDA_R_32F, 4,
                             CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT), CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_STATUS(cublasGemmEx(h, N, N, 4, 4, 4, &one, p, CUDA_R_8I, 4, p, CUDA_R_8I, 4, &one, p, CUDA_R_32F, 4,
                             CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_STATUS(cublasGemmStridedBatchedEx(h, N, N, 4, 4, 4, &one, p, CUDA_C_32F, 4, 16, p, CUDA_C_32F, 4, 16, &one,
                                           p, CUDA_C_64F, 4, 16, 2, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_STATUS(cublasGemmEx(h, N, N, 4, 4, 4, &one, p, CUDA_R_32F, 4, p, CUDA_R_32F, 4, &one, p, CUDA_R_32F, 4,
                             CUBLAS_COMPUTE_32F, (cublasGemmAlgo_t)50), CUBLAS_STATUS_NOT_SUPPORTED);
  // Invalid arguments come first, as for gemm.
  EXPECT_STATUS(cublasGemmEx(nullptr, N, N, 4, 4, 4, &one, p, CUDA_R_32F, 4, p, CUDA_R_32F, 4, &one, p, CUDA_R_32F, 4,
                             CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_STATUS(cublasGemmEx(h, N, N, -1, 4, 4, &one, p, CUDA_R_32F, 4, p, CUDA_R_32F, 4, &one, p, CUDA_R_32F, 4,
                             CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasGemmEx(h, N, N, 4, 4, 4, &one, p, CUDA_R_32F, 3, p, CUDA_R_32F, 4, &one, p, CUDA_R_32F, 4,
                             CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasGemmEx(h, (cublasOperation_t)7, N, 4, 4, 4, &one, p, CUDA_R_32F, 4, p, CUDA_R_32F, 4, &one, p,
                             CUDA_R_32F, 4, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasGemmStridedBatchedEx(h, N, N, 4, 4, 4, &one, p, CUDA_R_32F, 4, 16, p, CUDA_R_32F, 4, 16, &one,
                                           p, CUDA_R_32F, 4, 16, -1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasHgemm(nullptr, N, N, 4, 4, 4, nullptr, nullptr, 4, nullptr, 4, nullptr, nullptr, 4),
                CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_STATUS(cublasHgemm(h, N, N, 4, 4, 4, nullptr, (const __half*)p, 4, (const __half*)p, 4, nullptr, (__half*)p, 4),
                CUBLAS_STATUS_INVALID_VALUE);
  checks += 15;
  CHECK(cudaFree(p));
  return 0;
}

int main(int argc, char** argv) {
  const char* part = argc > 1 ? argv[1] : "all";
  const bool all = !std::strcmp(part, "all");
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  if ((all || !std::strcmp(part, "types")) && types(h)) return 1;
  if ((all || !std::strcmp(part, "unsupported")) && unsupported(h)) return 1;
  CHECK_BLAS(cublasDestroy(h));
  CHECK(cudaDeviceSynchronize());
  std::printf("PASS cublas_gemm_ex %s (%ld checks)\n", part, checks);
  return 0;
}
