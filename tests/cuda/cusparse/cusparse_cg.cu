// A conjugate-gradient solve of a tridiagonal SPD system (diagonal 2.5,
// off-diagonals -1, n = 3000) written with cuSPARSE SpMV and cuBLAS
// axpy/dot/scal/copy, in float (CSR int32, 0-based) and double (CSR int64,
// 1-based). The right-hand side is A x* for a known x*; the result must be
// within the tolerance of x*, the residual below the stopping threshold, and
// the iteration count within 2 of the same CG run on the CPU in double.
#include <cublas_v2.h>

#include <cmath>

#include "common.cuh"

#define CHECK_BLAS(call)                                                                      \
  do {                                                                                        \
    if ((call) != CUBLAS_STATUS_SUCCESS) {                                                    \
      std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #call);                    \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

constexpr int kN = 3000, kMaxIter = 500;

static HostCsr tridiagonal() {
  HostCsr a;
  a.rows = a.cols = kN;
  for (int i = 0; i < kN; ++i) {
    for (int j = i - 1; j <= i + 1; ++j)
      if (j >= 0 && j < kN) {
        a.col.push_back(j);
        a.val.push_back(j == i ? 2.5 : -1.0);
      }
    a.off.push_back((int64_t)a.col.size());
  }
  return a;
}

static void cpu_spmv(const HostCsr& a, const std::vector<double>& x, std::vector<double>& y) {
  for (int64_t i = 0; i < a.rows; ++i) {
    double s = 0;
    for (int64_t p = a.off[i]; p < a.off[i + 1]; ++p) s += a.val[p].real() * x[a.col[p]];
    y[i] = s;
  }
}

// The same iteration on the CPU; returns the iterations it took.
static int cpu_cg(const HostCsr& a, const std::vector<double>& b, double tol) {
  std::vector<double> x(kN, 0.0), r(b), p(kN), ap(kN);
  double r1 = 0;
  for (double v : r) r1 += v * v;
  int k = 0;
  for (double r0 = 0; r1 > tol * tol && k < kMaxIter; ++k) {
    if (k == 0) p = r;
    else for (int i = 0; i < kN; ++i) p[i] = r[i] + r1 / r0 * p[i];
    cpu_spmv(a, p, ap);
    double pap = 0;
    for (int i = 0; i < kN; ++i) pap += p[i] * ap[i];
    const double alpha = r1 / pap;
    r0 = r1;
    r1 = 0;
    for (int i = 0; i < kN; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * ap[i];
      r1 += r[i] * r[i];
    }
  }
  return k;
}

template <typename T> struct Blas;
template <> struct Blas<float> {
  static cublasStatus_t axpy(cublasHandle_t h, int n, const float* a, const float* x, float* y) { return cublasSaxpy(h, n, a, x, 1, y, 1); }
  static cublasStatus_t dot(cublasHandle_t h, int n, const float* x, const float* y, float* r) { return cublasSdot(h, n, x, 1, y, 1, r); }
  static cublasStatus_t scal(cublasHandle_t h, int n, const float* a, float* x) { return cublasSscal(h, n, a, x, 1); }
  static cublasStatus_t copy(cublasHandle_t h, int n, const float* x, float* y) { return cublasScopy(h, n, x, 1, y, 1); }
};
template <> struct Blas<double> {
  static cublasStatus_t axpy(cublasHandle_t h, int n, const double* a, const double* x, double* y) { return cublasDaxpy(h, n, a, x, 1, y, 1); }
  static cublasStatus_t dot(cublasHandle_t h, int n, const double* x, const double* y, double* r) { return cublasDdot(h, n, x, 1, y, 1, r); }
  static cublasStatus_t scal(cublasHandle_t h, int n, const double* a, double* x) { return cublasDscal(h, n, a, x, 1); }
  static cublasStatus_t copy(cublasHandle_t h, int n, const double* x, double* y) { return cublasDcopy(h, n, x, 1, y, 1); }
};

template <typename T>
static int solve(bool wide, int base, double tol, double x_tol) {
  const HostCsr a = tridiagonal();
  std::vector<double> xs(kN), b(kN);
  for (auto& v : xs) v = (double)(T)urand();
  cpu_spmv(a, xs, b);
  for (auto& v : b) v = (double)(T)v;  // what the device gets
  const int cpu_iters = cpu_cg(a, b, tol);

  cusparseHandle_t sp;
  cublasHandle_t bl;
  CHECK_SP(cusparseCreate(&sp));
  CHECK_BLAS(cublasCreate(&bl));
  DevCompressed d;
  if (upload_csr<T>(a, wide, wide, base, d)) return 1;
  std::vector<cplx> bc(b.begin(), b.end()), zeros(kN, 0.0);
  void *dx, *dr, *dp, *dap;
  if (upload_vals<T>(zeros, &dx) || upload_vals<T>(bc, &dr) || upload_vals<T>(zeros, &dp) || upload_vals<T>(zeros, &dap))
    return 1;
  T *x = (T*)dx, *r = (T*)dr, *p = (T*)dp, *ap = (T*)dap;
  const auto it = wide ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
  cusparseSpMatDescr_t ma;
  CHECK_SP(cusparseCreateCsr(&ma, kN, kN, a.nnz(), d.off, d.idx, d.val, it, it,
                             base ? CUSPARSE_INDEX_BASE_ONE : CUSPARSE_INDEX_BASE_ZERO, Val<T>::type));
  cusparseDnVecDescr_t vp, vap;
  CHECK_SP(cusparseCreateDnVec(&vp, kN, p, Val<T>::type));
  CHECK_SP(cusparseCreateDnVec(&vap, kN, ap, Val<T>::type));
  const T one = 1, zero = 0;
  size_t bytes = 0;
  CHECK_SP(cusparseSpMV_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ma, vp, &zero, vap, Val<T>::type,
                                   CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
  void* buf = nullptr;
  CHECK(cudaMalloc(&buf, bytes));

  T r1, r0 = 0, pap;
  CHECK_BLAS(Blas<T>::dot(bl, kN, r, r, &r1));
  int k = 0;
  for (; r1 > tol * tol && k < kMaxIter; ++k) {
    if (k == 0) {
      CHECK_BLAS(Blas<T>::copy(bl, kN, r, p));
    } else {
      const T beta = r1 / r0;
      CHECK_BLAS(Blas<T>::scal(bl, kN, &beta, p));
      CHECK_BLAS(Blas<T>::axpy(bl, kN, &one, r, p));
    }
    CHECK_SP(cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ma, vp, &zero, vap, Val<T>::type,
                          CUSPARSE_SPMV_ALG_DEFAULT, buf));
    CHECK_BLAS(Blas<T>::dot(bl, kN, p, ap, &pap));
    const T alpha = r1 / pap, minus_alpha = -alpha;
    CHECK_BLAS(Blas<T>::axpy(bl, kN, &alpha, p, x));
    CHECK_BLAS(Blas<T>::axpy(bl, kN, &minus_alpha, ap, r));
    r0 = r1;
    CHECK_BLAS(Blas<T>::dot(bl, kN, r, r, &r1));
  }
  std::vector<cplx> got(kN);
  if (download_vals<T>(got, dx)) return 1;
  double err = 0;
  for (int i = 0; i < kN; ++i) err = std::fmax(err, std::fabs(got[i].real() - xs[i]));
  std::printf("%s: %d iterations (CPU %d), residual %.3e, max |x - x*| %.3e\n", sizeof(T) == 4 ? "float" : "double", k,
              cpu_iters, std::sqrt((double)r1), err);
  REQUIRE(r1 <= tol * tol, "did not converge: residual %g", std::sqrt((double)r1));
  REQUIRE(std::abs(k - cpu_iters) <= 2, "%d iterations, CPU %d", k, cpu_iters);
  REQUIRE(err <= x_tol, "max error %g", err);
  CHECK_SP(cusparseDestroySpMat(ma));
  CHECK_SP(cusparseDestroyDnVec(vp));
  CHECK_SP(cusparseDestroyDnVec(vap));
  CHECK_SP(cusparseDestroy(sp));
  CHECK_BLAS(cublasDestroy(bl));
  for (void* q : {dx, dr, dp, dap, buf}) CHECK(cudaFree(q));
  return 0;
}

int main() {
  if (solve<float>(false, 0, 1e-4, 1e-4) || solve<double>(true, 1, 1e-10, 1e-10)) return 1;
  std::printf("PASS cusparse_cg\n");
  return 0;
}
