// cublasSgeam/cublasDgeam against a CPU loop: C = alpha op(A) + beta op(B)
// for op N, T and C on either operand, m and n in {1, 17, 129}, leading
// dimensions larger than the matrix, host and device pointer modes; beta = 0
// with B full of NaN (B must not be read), alpha = beta = 0 resetting C over
// NaN A, B and C; in place C == A and C == B with op N and the same ld; the
// padding rows of C (ldc > m) untouched; the documented statuses.
//
// Tolerance: exact. Each element is one multiply and one fma on the device
// (fma(beta, b, alpha * a)), computed the same way on the CPU.
#include <cublas_v2.h>

#include <cstring>
#include <limits>
#include <vector>

#include "common.cuh"

template <typename T> struct Geam;
template <> struct Geam<float> {
  static constexpr const char* name = "S";
  static cublasStatus_t call(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, const float* al, const float* a, int lda, const float* be, const float* b, int ldb, float* c, int ldc) { return cublasSgeam(h, ta, tb, m, n, al, a, lda, be, b, ldb, c, ldc); }
  static float fma_(float a, float b, float c) { return std::fmaf(a, b, c); }
};
template <> struct Geam<double> {
  static constexpr const char* name = "D";
  static cublasStatus_t call(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, const double* al, const double* a, int lda, const double* be, const double* b, int ldb, double* c, int ldc) { return cublasDgeam(h, ta, tb, m, n, al, a, lda, be, b, ldb, c, ldc); }
  static double fma_(double a, double b, double c) { return std::fma(a, b, c); }
};

static long checks = 0;

// inplace: 0 = separate C, 1 = C is A, 2 = C is B (op N, ld = ldc there).
template <typename T>
static int geam_case(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, bool device,
                     T alpha_v, T beta_v, int inplace) {
  using G = Geam<T>;
  const bool tra = ta != CUBLAS_OP_N, trb = tb != CUBLAS_OP_N;
  const int ldc = m + 2;
  const int ar = tra ? n : m, ac = tra ? m : n, br = trb ? n : m, bc = trb ? m : n;
  const int lda = inplace == 1 ? ldc : ar + 1, ldb = inplace == 2 ? ldc : br + 3;
  const T nan = std::numeric_limits<T>::quiet_NaN(), sentinel = (T)1234.5;
  std::vector<T> a((long)lda * ac), b((long)ldb * bc), c((long)ldc * n);
  for (long j = 0; j < ac; ++j)
    for (long i = 0; i < lda; ++i) a[i + j * lda] = i >= ar ? sentinel : alpha_v == 0 ? nan : (T)urand();
  for (long j = 0; j < bc; ++j)
    for (long i = 0; i < ldb; ++i) b[i + j * ldb] = i >= br ? sentinel : beta_v == 0 ? nan : (T)urand();
  for (long j = 0; j < n; ++j)
    for (long i = 0; i < ldc; ++i) c[i + j * ldc] = i >= m ? sentinel : nan;
  T *da, *db, *dc;
  if (upload(a, &da) || upload(b, &db) || upload(c, &dc)) return 1;
  Arg<T> alpha, beta;
  if (make_arg(alpha, alpha_v) || make_arg(beta, beta_v)) return 1;
  T* out = inplace == 1 ? da : inplace == 2 ? db : dc;
  CHECK_BLAS(G::call(h, ta, tb, m, n, alpha.get(device), da, lda, beta.get(device), db, ldb, out, ldc));
  std::vector<T> got(c.size());
  if (download(got, out)) return 1;
  long bad = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < ldc; ++i) {
      const T g = got[i + (long)j * ldc];
      if (i >= m) {
        if (!(g == sentinel) && bad++ < 4) std::fprintf(stderr, "  C padding (%d,%d) overwritten: %g\n", i, j, (double)g);
        continue;
      }
      const T av = tra ? a[j + (long)i * lda] : a[i + (long)j * lda];
      const T bv = trb ? b[j + (long)i * ldb] : b[i + (long)j * ldb];
      T want = alpha_v == 0 ? (T)0 : alpha_v * av;
      if (beta_v != 0) want = G::fma_(beta_v, bv, want);
      if (!(g == want) && bad++ < 4) std::fprintf(stderr, "  C(%d,%d) = %.17g, expected %.17g\n", i, j, (double)g, (double)want);
    }
  REQUIRE(bad == 0, "%sgeam %s%s m=%d n=%d lda=%d ldb=%d ldc=%d device=%d alpha=%g beta=%g inplace=%d: %ld bad", G::name,
          op_name(ta), op_name(tb), m, n, lda, ldb, ldc, device, (double)alpha_v, (double)beta_v, inplace, bad);
  ++checks;
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  CHECK(cudaFree(alpha.dev));
  CHECK(cudaFree(beta.dev));
  return 0;
}

template <typename T>
static int geam_all(cublasHandle_t h) {
  const cublasOperation_t ops[] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};
  for (int device = 0; device < 2; ++device) {
    CHECK_BLAS(cublasSetPointerMode(h, device ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST));
    for (auto ta : ops)
      for (auto tb : ops)
        for (int m : {1, 17, 129})
          for (int n : {1, 17, 129}) {
            if (geam_case<T>(h, ta, tb, m, n, device, (T)1.25, (T)-0.5, 0)) return 1;
            if (geam_case<T>(h, ta, tb, m, n, device, (T)-2, (T)0, 0)) return 1;  // beta = 0: B not read
            if (ta == CUBLAS_OP_N && tb == CUBLAS_OP_N && geam_case<T>(h, ta, tb, m, n, device, (T)0, (T)0, 0)) return 1;
            if (ta == CUBLAS_OP_N && geam_case<T>(h, ta, tb, m, n, device, (T)0.5, (T)3, 1)) return 1;  // C == A
            if (tb == CUBLAS_OP_N && geam_case<T>(h, ta, tb, m, n, device, (T)0.5, (T)3, 2)) return 1;  // C == B
          }
  }
  CHECK_BLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  return 0;
}

static int invalid(cublasHandle_t h) {
  float *a, *b, *c;
  CHECK(cudaMalloc(&a, 64 * sizeof(float)));
  CHECK(cudaMalloc(&b, 64 * sizeof(float)));
  CHECK(cudaMalloc(&c, 64 * sizeof(float)));
  const float one = 1.0f;
  const auto N = CUBLAS_OP_N, T = CUBLAS_OP_T;
  EXPECT_STATUS(cublasSgeam(nullptr, N, N, 4, 4, &one, a, 4, &one, b, 4, c, 4), CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_STATUS(cublasSgeam(h, (cublasOperation_t)9, N, 4, 4, &one, a, 4, &one, b, 4, c, 4), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasSgeam(h, N, N, -1, 4, &one, a, 4, &one, b, 4, c, 4), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasSgeam(h, N, N, 4, -1, &one, a, 4, &one, b, 4, c, 4), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasSgeam(h, N, N, 4, 4, &one, a, 3, &one, b, 4, c, 4), CUBLAS_STATUS_INVALID_VALUE);  // lda < m
  EXPECT_STATUS(cublasSgeam(h, T, N, 4, 2, &one, a, 1, &one, b, 4, c, 4), CUBLAS_STATUS_INVALID_VALUE);  // lda < n
  EXPECT_STATUS(cublasSgeam(h, N, T, 4, 2, &one, a, 4, &one, b, 1, c, 4), CUBLAS_STATUS_INVALID_VALUE);  // ldb < n
  EXPECT_STATUS(cublasSgeam(h, N, N, 4, 4, &one, a, 4, &one, b, 4, c, 3), CUBLAS_STATUS_INVALID_VALUE);  // ldc < m
  EXPECT_STATUS(cublasSgeam(h, N, N, 4, 4, nullptr, a, 4, &one, b, 4, c, 4), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasSgeam(h, T, N, 4, 4, &one, a, 4, &one, b, 4, a, 4), CUBLAS_STATUS_INVALID_VALUE);  // C == A, op T
  EXPECT_STATUS(cublasSgeam(h, N, N, 4, 4, &one, a, 5, &one, b, 4, a, 4), CUBLAS_STATUS_INVALID_VALUE);  // C == A, lda != ldc
  EXPECT_STATUS(cublasSgeam(h, N, T, 4, 4, &one, a, 4, &one, b, 4, b, 4), CUBLAS_STATUS_INVALID_VALUE);  // C == B, op T
  CHECK_BLAS(cublasSgeam(h, N, N, 0, 4, &one, a, 1, &one, b, 1, c, 1));  // m = 0: nothing to do
  checks += 13;
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
  return 0;
}

int main() {
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  if (geam_all<float>(h) || geam_all<double>(h) || invalid(h)) return 1;
  CHECK_BLAS(cublasDestroy(h));
  CHECK(cudaDeviceSynchronize());
  std::printf("PASS cublas_geam (%ld checks)\n", checks);
  return 0;
}
