// cublasSgemmStridedBatched/cublasDgemmStridedBatched against a plain-loop
// CPU reference per batch: all 9 transpose pairs, shapes from {1, 17, 129}
// (every m, n, k combination with at most one 129, plus 129^3 once),
// leading dimensions larger than the matrix, batch counts 1 and 3, strides
// larger than a matrix (gaps between batches that must stay untouched) and
// stride 0 for A (one A shared by the batch), host and device pointer modes,
// beta = 0 over C full of NaN; batchCount = 0 and the documented statuses.
//
// Tolerance as for gemm (cublas_routines.cu): |got - ref| <= tol (|alpha|
// sum_k |a_ik b_kj| + |beta c_ij|), tol = 1e-5 for float, 1e-13 for double.
#include <cublas_v2.h>

#include <cstring>
#include <limits>
#include <vector>

#include "common.cuh"

template <typename T> struct Sb;
template <> struct Sb<float> {
  static constexpr const char* name = "S";
  static constexpr double tol = 1e-5;
  static cublasStatus_t call(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const float* al, const float* a, int lda, long long sa, const float* b, int ldb, long long sb, const float* be, float* c, int ldc, long long sc, int batch) { return cublasSgemmStridedBatched(h, ta, tb, m, n, k, al, a, lda, sa, b, ldb, sb, be, c, ldc, sc, batch); }
};
template <> struct Sb<double> {
  static constexpr const char* name = "D";
  static constexpr double tol = 1e-13;
  static cublasStatus_t call(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const double* al, const double* a, int lda, long long sa, const double* b, int ldb, long long sb, const double* be, double* c, int ldc, long long sc, int batch) { return cublasDgemmStridedBatched(h, ta, tb, m, n, k, al, a, lda, sa, b, ldb, sb, be, c, ldc, sc, batch); }
};

static long checks = 0;

template <typename T>
static int sb_case(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, int batch,
                   bool shared_a, bool device, bool beta_zero) {
  using S = Sb<T>;
  const bool tra = ta != CUBLAS_OP_N, trb = tb != CUBLAS_OP_N;
  const int ar = tra ? k : m, ac = tra ? m : k, br = trb ? n : k, bc = trb ? k : n;
  const int lda = ar + 1, ldb = br + 2, ldc = m + 3;
  const long long sa = shared_a ? 0 : (long long)lda * ac + 5, sb = (long long)ldb * bc + 7,
                  sc = (long long)ldc * n + 11;
  const T sentinel = (T)1234.5;
  std::vector<T> a(shared_a ? (long)lda * ac : sa * batch), b(sb * batch), c(sc * batch, sentinel);
  for (auto& v : a) v = (T)urand();
  for (auto& v : b) v = (T)urand();
  for (int q = 0; q < batch; ++q)
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < m; ++i)
        c[q * sc + i + j * ldc] = beta_zero ? std::numeric_limits<T>::quiet_NaN() : (T)urand();
  const T alpha_v = (T)0.75, beta_v = beta_zero ? (T)0 : (T)1.5;
  T *da, *db, *dc;
  if (upload(a, &da) || upload(b, &db) || upload(c, &dc)) return 1;
  Arg<T> alpha, beta;
  if (make_arg(alpha, alpha_v) || make_arg(beta, beta_v)) return 1;
  CHECK_BLAS(cublasSetPointerMode(h, device ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST));
  CHECK_BLAS(S::call(h, ta, tb, m, n, k, alpha.get(device), da, lda, sa, db, ldb, sb, beta.get(device), dc, ldc, sc,
                     batch));
  std::vector<T> got(c.size());
  if (download(got, dc)) return 1;
  long bad = 0;
  for (int q = 0; q < batch; ++q) {
    const T* A = a.data() + q * sa;
    const T* B = b.data() + q * sb;
    for (long e = 0; e < sc; ++e) {
      const long i = e % ldc, j = e / ldc;
      const T g = got[q * sc + e];
      const T orig = c[q * sc + e];
      if (i >= m || j >= n) {  // padding rows and the gap after the matrix
        if (!(g == sentinel) && bad++ < 4) std::fprintf(stderr, "  batch %d C[%ld] outside the matrix overwritten: %g\n", q, e, (double)g);
        continue;
      }
      double ref = 0, mag = 0;
      for (int p = 0; p < k; ++p) {
        const double av = tra ? A[p + i * lda] : A[i + (long)p * lda];
        const double bv = trb ? B[j + (long)p * ldb] : B[p + j * ldb];
        ref += av * bv;
        mag += std::fabs(av * bv);
      }
      ref *= alpha_v;
      mag *= std::fabs((double)alpha_v);
      if (!beta_zero) {
        ref += (double)beta_v * orig;
        mag += std::fabs((double)beta_v * orig);
      }
      if (!(std::fabs(g - ref) <= S::tol * mag + 1e-300) && bad++ < 4)
        std::fprintf(stderr, "  batch %d C(%ld,%ld) = %.17g, expected %.17g\n", q, i, j, (double)g, ref);
    }
  }
  REQUIRE(bad == 0, "%sgemmStridedBatched %s%s m=%d n=%d k=%d batch=%d strides %lld/%lld/%lld device=%d beta0=%d: %ld bad",
          S::name, op_name(ta), op_name(tb), m, n, k, batch, sa, sb, sc, device, beta_zero, bad);
  ++checks;
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  CHECK(cudaFree(alpha.dev));
  CHECK(cudaFree(beta.dev));
  return 0;
}

template <typename T>
static int sb_all(cublasHandle_t h) {
  const cublasOperation_t ops[] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};
  int variant = 0;
  for (auto ta : ops)
    for (auto tb : ops)
      for (int m : {1, 17, 129})
        for (int n : {1, 17, 129})
          for (int k : {1, 17, 129}) {
            if ((m == 129) + (n == 129) + (k == 129) > 1) continue;
            // Rotate through batch count, shared A, pointer mode and beta = 0.
            const int v = variant++;
            if (sb_case<T>(h, ta, tb, m, n, k, 3, v % 3 == 0, v % 2 == 1, v % 4 >= 2)) return 1;
            if (v % 5 == 0 && sb_case<T>(h, ta, tb, m, n, k, 1, false, v % 2 == 0, v % 4 < 2)) return 1;
          }
  if (sb_case<T>(h, CUBLAS_OP_T, CUBLAS_OP_N, 129, 129, 129, 3, false, false, false)) return 1;
  CHECK_BLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  return 0;
}

static int invalid(cublasHandle_t h) {
  float *a, *c;
  CHECK(cudaMalloc(&a, 64 * sizeof(float)));
  CHECK(cudaMalloc(&c, 64 * sizeof(float)));
  const float one = 1.0f;
  const auto N = CUBLAS_OP_N, T = CUBLAS_OP_T;
  EXPECT_STATUS(cublasSgemmStridedBatched(nullptr, N, N, 2, 2, 2, &one, a, 2, 4, a, 2, 4, &one, c, 2, 4, 2), CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_STATUS(cublasSgemmStridedBatched(h, (cublasOperation_t)9, N, 2, 2, 2, &one, a, 2, 4, a, 2, 4, &one, c, 2, 4, 2), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasSgemmStridedBatched(h, N, N, -1, 2, 2, &one, a, 2, 4, a, 2, 4, &one, c, 2, 4, 2), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasSgemmStridedBatched(h, N, N, 2, 2, -1, &one, a, 2, 4, a, 2, 4, &one, c, 2, 4, 2), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasSgemmStridedBatched(h, N, N, 2, 2, 2, &one, a, 1, 4, a, 2, 4, &one, c, 2, 4, 2), CUBLAS_STATUS_INVALID_VALUE);  // lda < m
  EXPECT_STATUS(cublasSgemmStridedBatched(h, N, T, 2, 3, 2, &one, a, 2, 4, a, 2, 4, &one, c, 2, 4, 2), CUBLAS_STATUS_INVALID_VALUE);  // ldb < n
  EXPECT_STATUS(cublasSgemmStridedBatched(h, N, N, 2, 2, 2, &one, a, 2, 4, a, 2, 4, &one, c, 1, 4, 2), CUBLAS_STATUS_INVALID_VALUE);  // ldc < m
  EXPECT_STATUS(cublasSgemmStridedBatched(h, N, N, 2, 2, 2, &one, a, 2, 4, a, 2, 4, &one, c, 2, 4, -1), CUBLAS_STATUS_INVALID_VALUE);  // batchCount < 0
  EXPECT_STATUS(cublasSgemmStridedBatched(h, N, N, 2, 2, 2, &one, a, 2, 4, a, 2, 4, nullptr, c, 2, 4, 1), CUBLAS_STATUS_INVALID_VALUE);
  // batchCount = 0: nothing to do, C untouched.
  const float seven = 7.0f;
  CHECK(cudaMemcpy(c, &seven, sizeof(float), cudaMemcpyHostToDevice));
  const float zero = 0.0f;
  CHECK_BLAS(cublasSgemmStridedBatched(h, N, N, 2, 2, 2, &one, a, 2, 4, a, 2, 4, &zero, c, 2, 4, 0));
  float got = 0;
  CHECK(cudaMemcpy(&got, c, sizeof(float), cudaMemcpyDeviceToHost));
  REQUIRE(got == 7.0f, "batchCount = 0 wrote C: %g", got);
  checks += 10;
  CHECK(cudaFree(a));
  CHECK(cudaFree(c));
  return 0;
}

int main() {
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  if (sb_all<float>(h) || sb_all<double>(h) || invalid(h)) return 1;
  CHECK_BLAS(cublasDestroy(h));
  CHECK(cudaDeviceSynchronize());
  std::printf("PASS cublas_gemm_batched (%ld checks)\n", checks);
  return 0;
}
