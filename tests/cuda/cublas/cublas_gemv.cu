// cublasSgemv/cublasDgemv against a plain-loop CPU reference: y = alpha
// op(A) x + beta y for op N, T and C, m and n in {1, 17, 129}, lda > m,
// increments 1, 2, -3 and -1 on x and y, host and device pointer modes, and
// beta = 0 over a y full of NaN (y must not be read). Elements of y off its
// stride must stay untouched. Then the documented statuses for invalid
// arguments and the m = 0 / n = 0 quick return.
//
// Tolerance (references in double): |got - ref| <= tol (|alpha| sum_j
// |a_ij x_j| + |beta y_i|), tol = 1e-5 for float, 1e-13 for double, as for
// gemm (one fma chain per element of y).
#include <cublas_v2.h>

#include <cstring>
#include <limits>
#include <vector>

#include "common.cuh"

template <typename T> struct Gemv;
template <> struct Gemv<float> {
  static constexpr const char* name = "S";
  static constexpr double tol = 1e-5;
  static cublasStatus_t call(cublasHandle_t h, cublasOperation_t t, int m, int n, const float* al, const float* a, int lda, const float* x, int ix, const float* be, float* y, int iy) { return cublasSgemv(h, t, m, n, al, a, lda, x, ix, be, y, iy); }
};
template <> struct Gemv<double> {
  static constexpr const char* name = "D";
  static constexpr double tol = 1e-13;
  static cublasStatus_t call(cublasHandle_t h, cublasOperation_t t, int m, int n, const double* al, const double* a, int lda, const double* x, int ix, const double* be, double* y, int iy) { return cublasDgemv(h, t, m, n, al, a, lda, x, ix, be, y, iy); }
};

static long checks = 0;

template <typename T>
static int gemv_case(cublasHandle_t h, cublasOperation_t op, int m, int n, int incx, int incy, bool device,
                     bool beta_zero) {
  using G = Gemv<T>;
  const bool tr = op != CUBLAS_OP_N;
  const int lx = tr ? m : n, ly = tr ? n : m, lda = m + 3;
  const T sentinel = (T)1234.5;
  std::vector<T> a((long)lda * n), x(span(lx, incx)), y(span(ly, incy), sentinel);
  for (auto& v : a) v = (T)urand();
  for (auto& v : x) v = (T)urand();
  for (int i = 0; i < ly; ++i) y[at(i, ly, incy)] = beta_zero ? std::numeric_limits<T>::quiet_NaN() : (T)urand();
  const T alpha_v = (T)-1.5, beta_v = beta_zero ? (T)0 : (T)0.75;
  T *da, *dx, *dy;
  if (upload(a, &da) || upload(x, &dx) || upload(y, &dy)) return 1;
  Arg<T> alpha, beta;
  if (make_arg(alpha, alpha_v) || make_arg(beta, beta_v)) return 1;
  CHECK_BLAS(G::call(h, op, m, n, alpha.get(device), da, lda, dx, incx, beta.get(device), dy, incy));
  std::vector<T> got(y.size());
  if (download(got, dy)) return 1;
  long bad = 0;
  std::vector<char> on(y.size(), 0);
  for (int i = 0; i < ly; ++i) {
    const long yi = at(i, ly, incy);
    on[yi] = 1;
    double ref = 0, mag = 0;
    for (int j = 0; j < lx; ++j) {
      const double av = tr ? a[j + (long)i * lda] : a[i + (long)j * lda];
      const double t = av * x[at(j, lx, incx)];
      ref += t;
      mag += std::fabs(t);
    }
    ref *= alpha_v;
    mag *= std::fabs((double)alpha_v);
    if (!beta_zero) {
      ref += (double)beta_v * y[yi];
      mag += std::fabs((double)beta_v * y[yi]);
    }
    if (!(std::fabs(got[yi] - ref) <= G::tol * mag + 1e-300) && bad++ < 4)
      std::fprintf(stderr, "  y[%d] = %.17g, expected %.17g (bound %.3g)\n", i, (double)got[yi], ref, G::tol * mag);
  }
  for (size_t e = 0; e < y.size(); ++e)
    if (!on[e] && !(got[e] == sentinel) && bad++ < 4) std::fprintf(stderr, "  y off-stride [%zu] overwritten\n", e);
  REQUIRE(bad == 0, "%sgemv %s m=%d n=%d lda=%d incx=%d incy=%d device=%d beta0=%d: %ld bad", G::name, op_name(op), m,
          n, lda, incx, incy, device, beta_zero, bad);
  ++checks;
  CHECK(cudaFree(da));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  CHECK(cudaFree(alpha.dev));
  CHECK(cudaFree(beta.dev));
  return 0;
}

template <typename T>
static int gemv_all(cublasHandle_t h) {
  const int incs[][2] = {{1, 1}, {2, -3}, {-1, 2}};
  for (int device = 0; device < 2; ++device) {
    CHECK_BLAS(cublasSetPointerMode(h, device ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST));
    for (auto op : {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C})
      for (int m : {1, 17, 129})
        for (int n : {1, 17, 129})
          for (auto& inc : incs)
            for (int beta_zero = 0; beta_zero < 2; ++beta_zero)
              if (gemv_case<T>(h, op, m, n, inc[0], inc[1], device, beta_zero)) return 1;
  }
  CHECK_BLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  return 0;
}

static int invalid(cublasHandle_t h) {
  float *a, *x, *y;
  CHECK(cudaMalloc(&a, 64 * sizeof(float)));
  CHECK(cudaMalloc(&x, 8 * sizeof(float)));
  CHECK(cudaMalloc(&y, 8 * sizeof(float)));
  const float one = 1.0f;
  EXPECT_STATUS(cublasSgemv(nullptr, CUBLAS_OP_N, 4, 4, &one, a, 4, x, 1, &one, y, 1), CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_STATUS(cublasSgemv(h, (cublasOperation_t)9, 4, 4, &one, a, 4, x, 1, &one, y, 1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasSgemv(h, CUBLAS_OP_N, -1, 4, &one, a, 4, x, 1, &one, y, 1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasSgemv(h, CUBLAS_OP_N, 4, -1, &one, a, 4, x, 1, &one, y, 1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasSgemv(h, CUBLAS_OP_T, 4, 4, &one, a, 3, x, 1, &one, y, 1), CUBLAS_STATUS_INVALID_VALUE);  // lda < m
  EXPECT_STATUS(cublasSgemv(h, CUBLAS_OP_N, 4, 4, &one, a, 4, x, 0, &one, y, 1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasSgemv(h, CUBLAS_OP_N, 4, 4, &one, a, 4, x, 1, &one, y, 0), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasSgemv(h, CUBLAS_OP_N, 4, 4, nullptr, a, 4, x, 1, &one, y, 1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasDgemv(h, CUBLAS_OP_N, 0, 4, nullptr, nullptr, 0, nullptr, 1, nullptr, nullptr, 1), CUBLAS_STATUS_INVALID_VALUE);  // lda < 1
  // m = 0 or n = 0: success, y untouched (even with beta = 0).
  const float zero = 0.0f, seven = 7.0f;
  CHECK(cudaMemcpy(y, &seven, sizeof(float), cudaMemcpyHostToDevice));
  CHECK_BLAS(cublasSgemv(h, CUBLAS_OP_N, 1, 0, &one, a, 1, x, 1, &zero, y, 1));
  CHECK_BLAS(cublasSgemv(h, CUBLAS_OP_T, 0, 1, &one, a, 1, x, 1, &zero, y, 1));
  float got = 0;
  CHECK(cudaMemcpy(&got, y, sizeof(float), cudaMemcpyDeviceToHost));
  REQUIRE(got == 7.0f, "gemv quick return wrote y: %g", got);
  checks += 12;
  CHECK(cudaFree(a));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  return 0;
}

int main() {
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  if (gemv_all<float>(h) || gemv_all<double>(h) || invalid(h)) return 1;
  CHECK_BLAS(cublasDestroy(h));
  CHECK(cudaDeviceSynchronize());
  std::printf("PASS cublas_gemv (%ld checks)\n", checks);
  return 0;
}
