// cuBLAS routines of the first slice against plain-loop CPU references:
// handle calls, Level 1 S/D (axpy dot nrm2 scal asum amax copy), Level 3
// Sgemm/Dgemm. Odd sizes (1, 17, 129), increments 1, 3 and negative, all
// transposes (N, T, C), leading dimensions larger than the matrix, host and
// device pointer modes, beta = 0 over C full of NaN (C must not be read),
// and the documented statuses for invalid arguments.
//
// Tolerances (eps = the type's machine epsilon; references in double):
//   axpy, scal, copy: exact (one fma / one multiply / a copy per element);
//   dot, asum, nrm2: |got - ref| <= 2 n eps sum|terms| (+ tiny), the
//     recursive-summation bound for any order;
//   amax: exact index (1-based, first of equal maxima);
//   gemm: |got - ref| <= tol (|alpha| sum_k |a_ik b_kj| + |beta c_ij|),
//     tol = 1e-5 for float (K <= 129, fma chains), 1e-13 for double;
//     the padding rows of C (ld > m) must be untouched.
#include <cublas_v2.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "common.cuh"

template <typename T> struct Blas;
template <> struct Blas<float> {
  static constexpr const char* name = "S";
  static cublasStatus_t axpy(cublasHandle_t h, int n, const float* a, const float* x, int ix, float* y, int iy) { return cublasSaxpy(h, n, a, x, ix, y, iy); }
  static cublasStatus_t scal(cublasHandle_t h, int n, const float* a, float* x, int ix) { return cublasSscal(h, n, a, x, ix); }
  static cublasStatus_t copy(cublasHandle_t h, int n, const float* x, int ix, float* y, int iy) { return cublasScopy(h, n, x, ix, y, iy); }
  static cublasStatus_t dot(cublasHandle_t h, int n, const float* x, int ix, const float* y, int iy, float* r) { return cublasSdot(h, n, x, ix, y, iy, r); }
  static cublasStatus_t nrm2(cublasHandle_t h, int n, const float* x, int ix, float* r) { return cublasSnrm2(h, n, x, ix, r); }
  static cublasStatus_t asum(cublasHandle_t h, int n, const float* x, int ix, float* r) { return cublasSasum(h, n, x, ix, r); }
  static cublasStatus_t amax(cublasHandle_t h, int n, const float* x, int ix, int* r) { return cublasIsamax(h, n, x, ix, r); }
  static cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const float* al, const float* a, int lda, const float* b, int ldb, const float* be, float* c, int ldc) { return cublasSgemm(h, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc); }
  static float fma_(float a, float b, float c) { return std::fmaf(a, b, c); }
  static constexpr double gemm_tol = 1e-5;
};
template <> struct Blas<double> {
  static constexpr const char* name = "D";
  static cublasStatus_t axpy(cublasHandle_t h, int n, const double* a, const double* x, int ix, double* y, int iy) { return cublasDaxpy(h, n, a, x, ix, y, iy); }
  static cublasStatus_t scal(cublasHandle_t h, int n, const double* a, double* x, int ix) { return cublasDscal(h, n, a, x, ix); }
  static cublasStatus_t copy(cublasHandle_t h, int n, const double* x, int ix, double* y, int iy) { return cublasDcopy(h, n, x, ix, y, iy); }
  static cublasStatus_t dot(cublasHandle_t h, int n, const double* x, int ix, const double* y, int iy, double* r) { return cublasDdot(h, n, x, ix, y, iy, r); }
  static cublasStatus_t nrm2(cublasHandle_t h, int n, const double* x, int ix, double* r) { return cublasDnrm2(h, n, x, ix, r); }
  static cublasStatus_t asum(cublasHandle_t h, int n, const double* x, int ix, double* r) { return cublasDasum(h, n, x, ix, r); }
  static cublasStatus_t amax(cublasHandle_t h, int n, const double* x, int ix, int* r) { return cublasIdamax(h, n, x, ix, r); }
  static cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const double* al, const double* a, int lda, const double* b, int ldb, const double* be, double* c, int ldc) { return cublasDgemm(h, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc); }
  static double fma_(double a, double b, double c) { return std::fma(a, b, c); }
  static constexpr double gemm_tol = 1e-13;
};

// A reduction's result in the current pointer mode, read back as a host value.
template <typename R, typename Call>
static int reduce_result(cublasHandle_t h, bool device, R* out, Call call) {
  if (!device) {
    *out = R(-12345);
    CHECK_BLAS(call(out));
    return 0;
  }
  R* d = nullptr;
  CHECK(cudaMalloc(&d, sizeof(R)));
  CHECK_BLAS(call(d));
  CHECK(cudaMemcpy(out, d, sizeof(R), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d));
  return 0;
}

static long checks = 0;

template <typename T>
static int level1(cublasHandle_t h) {
  using B = Blas<T>;
  const double eps = std::numeric_limits<T>::epsilon();
  for (int device = 0; device < 2; ++device) {
    CHECK_BLAS(cublasSetPointerMode(h, device ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST));
    for (int n : {1, 17, 129}) {
      for (int incx : {1, 3, -2}) {
        const int incy = incx == 1 ? 2 : (incx == 3 ? -1 : 1);
        std::vector<T> x(span(n, incx)), y(span(n, incy));
        for (auto& v : x) v = (T)urand();
        for (auto& v : y) v = (T)urand();
        T *dx, *dy;
        if (upload(x, &dx) || upload(y, &dy)) return 1;
        Arg<T> alpha;
        if (make_arg(alpha, (T)0.75)) return 1;

        // axpy: exact, one fma per element; elements off the stride untouched.
        std::vector<T> want = y, got(y.size());
        for (int i = 0; i < n; ++i) want[at(i, n, incy)] = B::fma_(alpha.host, x[at(i, n, incx)], y[at(i, n, incy)]);
        CHECK_BLAS(B::axpy(h, n, alpha.get(device), dx, incx, dy, incy));
        if (download(got, dy)) return 1;
        REQUIRE(count_mismatches("axpy", got.data(), want.data(), (long)got.size()) == 0, "%saxpy n=%d incx=%d incy=%d device=%d", B::name, n, incx, incy, device);
        ++checks;

        // copy: exact.
        want = got;
        for (int i = 0; i < n; ++i) want[at(i, n, incy)] = x[at(i, n, incx)];
        CHECK_BLAS(B::copy(h, n, dx, incx, dy, incy));
        if (download(got, dy)) return 1;
        REQUIRE(count_mismatches("copy", got.data(), want.data(), (long)got.size()) == 0, "%scopy n=%d device=%d", B::name, n, device);
        ++checks;

        // dot (y now holds a copy of x: use fresh y values).
        for (auto& v : y) v = (T)urand();
        CHECK(cudaMemcpy(dy, y.data(), y.size() * sizeof(T), cudaMemcpyHostToDevice));
        double ref = 0, mag = 0;
        for (int i = 0; i < n; ++i) {
          double t = (double)x[at(i, n, incx)] * (double)y[at(i, n, incy)];
          ref += t;
          mag += std::fabs(t);
        }
        T r;
        if (reduce_result<T>(h, device, &r, [&](T* out) { return B::dot(h, n, dx, incx, dy, incy, out); })) return 1;
        REQUIRE(std::fabs(r - ref) <= 2 * n * eps * mag + 1e-30, "%sdot n=%d incx=%d incy=%d device=%d: %.17g vs %.17g", B::name, n, incx, incy, device, (double)r, ref);
        ++checks;

        // nrm2, asum, amax: positive increments only (BLAS: incx <= 0 gives 0).
        const int inc = std::abs(incx);
        double ss = 0, as = 0;
        int imax = 0;
        double best = -1;
        for (int i = 0; i < n; ++i) {
          double v = x[(long)i * inc];
          ss += v * v;
          as += std::fabs(v);
          if (std::fabs(v) > best) { best = std::fabs(v); imax = i + 1; }
        }
        if (reduce_result<T>(h, device, &r, [&](T* out) { return B::nrm2(h, n, dx, inc, out); })) return 1;
        REQUIRE(std::fabs(r - std::sqrt(ss)) <= 2 * n * eps * std::sqrt(ss) + 1e-30, "%snrm2 n=%d inc=%d device=%d: %.17g vs %.17g", B::name, n, inc, device, (double)r, std::sqrt(ss));
        if (reduce_result<T>(h, device, &r, [&](T* out) { return B::asum(h, n, dx, inc, out); })) return 1;
        REQUIRE(std::fabs(r - as) <= 2 * n * eps * as + 1e-30, "%sasum n=%d inc=%d device=%d: %.17g vs %.17g", B::name, n, inc, device, (double)r, as);
        int ri;
        if (reduce_result<int>(h, device, &ri, [&](int* out) { return B::amax(h, n, dx, inc, out); })) return 1;
        REQUIRE(ri == imax, "I%samax n=%d inc=%d device=%d: %d vs %d", B::name, n, inc, device, ri, imax);
        checks += 3;

        // amax ties: the first of equal maxima (1-based), sign ignored.
        if (n >= 17) {
          std::vector<T> t(n, (T)0.5);
          t[4] = (T)-2;
          t[11] = (T)2;
          t[n - 1] = (T)2;
          CHECK(cudaMemcpy(dx, t.data(), n * sizeof(T), cudaMemcpyHostToDevice));
          if (reduce_result<int>(h, device, &ri, [&](int* out) { return B::amax(h, n, dx, 1, out); })) return 1;
          REQUIRE(ri == 5, "I%samax ties n=%d: %d, expected 5", B::name, n, ri);
          ++checks;
          CHECK(cudaMemcpy(dx, x.data(), x.size() * sizeof(T), cudaMemcpyHostToDevice));
        }

        // scal: exact, one multiply per element; off-stride elements untouched.
        want = x;
        for (int i = 0; i < n; ++i) want[(long)i * inc] = alpha.host * x[(long)i * inc];
        CHECK_BLAS(B::scal(h, n, alpha.get(device), dx, inc));
        got.resize(x.size());
        if (download(got, dx)) return 1;
        REQUIRE(count_mismatches("scal", got.data(), want.data(), (long)got.size()) == 0, "%sscal n=%d inc=%d device=%d", B::name, n, inc, device);
        ++checks;

        CHECK(cudaFree(dx));
        CHECK(cudaFree(dy));
        CHECK(cudaFree(alpha.dev));
      }
    }
    // n <= 0 / incx <= 0: quick returns; reductions give 0.
    T r = 7;
    if (reduce_result<T>(h, device, &r, [&](T* out) { return B::nrm2(h, 0, nullptr, 1, out); })) return 1;
    REQUIRE(r == 0, "%snrm2 n=0 gives %g", B::name, (double)r);
    if (reduce_result<T>(h, device, &r, [&](T* out) { return B::dot(h, -1, nullptr, 1, nullptr, 1, out); })) return 1;
    REQUIRE(r == 0, "%sdot n=-1 gives %g", B::name, (double)r);
    int ri = 7;
    if (reduce_result<int>(h, device, &ri, [&](int* out) { return B::amax(h, 0, nullptr, 1, out); })) return 1;
    REQUIRE(ri == 0, "I%samax n=0 gives %d", B::name, ri);
    checks += 3;
  }
  CHECK_BLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  return 0;
}


template <typename T>
static int gemm_case(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, bool device,
                     bool beta_zero) {
  using B = Blas<T>;
  const bool tra = ta != CUBLAS_OP_N, trb = tb != CUBLAS_OP_N;
  const int ar = tra ? k : m, ac = tra ? m : k;  // stored A is ar x ac
  const int br = trb ? n : k, bc = trb ? k : n;
  const int lda = ar + 3, ldb = br + 1, ldc = m + 2;
  std::vector<T> a((long)lda * ac), b((long)ldb * bc), c((long)ldc * n);
  const T sentinel = (T)1234.5;
  for (auto& v : a) v = (T)urand();
  for (auto& v : b) v = (T)urand();
  for (long j = 0; j < n; ++j)
    for (long i = 0; i < ldc; ++i)
      c[i + j * ldc] = i >= m ? sentinel : beta_zero ? std::numeric_limits<T>::quiet_NaN() : (T)urand();
  const T alpha_v = (T)1.25, beta_v = beta_zero ? (T)0 : (T)-0.5;
  T *da, *db, *dc;
  if (upload(a, &da) || upload(b, &db) || upload(c, &dc)) return 1;
  Arg<T> alpha, beta;
  if (make_arg(alpha, alpha_v) || make_arg(beta, beta_v)) return 1;
  CHECK_BLAS(cublasSetPointerMode(h, device ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST));
  CHECK_BLAS(B::gemm(h, ta, tb, m, n, k, alpha.get(device), da, lda, db, ldb, beta.get(device), dc, ldc));
  std::vector<T> got(c.size());
  if (download(got, dc)) return 1;
  long bad = 0;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < ldc; ++i) {
      const T g = got[i + (long)j * ldc];
      if (i >= m) {
        if (!(g == sentinel) && bad++ < 4) std::fprintf(stderr, "  C padding (%d,%d) overwritten: %g\n", i, j, (double)g);
        continue;
      }
      double ref = 0, mag = 0;
      for (int p = 0; p < k; ++p) {
        double av = tra ? a[p + (long)i * lda] : a[i + (long)p * lda];
        double bv = trb ? b[j + (long)p * ldb] : b[p + (long)j * ldb];
        ref += av * bv;
        mag += std::fabs(av * bv);
      }
      ref *= alpha_v;
      mag *= std::fabs((double)alpha_v);
      if (!beta_zero) {
        ref += (double)beta_v * c[i + (long)j * ldc];
        mag += std::fabs((double)beta_v * c[i + (long)j * ldc]);
      }
      if (!(std::fabs(g - ref) <= B::gemm_tol * mag + 1e-300) && bad++ < 4)
        std::fprintf(stderr, "  C(%d,%d) = %.17g, expected %.17g (bound %.3g)\n", i, j, (double)g, ref, B::gemm_tol * mag);
    }
  }
  REQUIRE(bad == 0, "%sgemm %s%s m=%d n=%d k=%d lda=%d ldb=%d ldc=%d device=%d beta0=%d: %ld bad", B::name, op_name(ta),
          op_name(tb), m, n, k, lda, ldb, ldc, device, beta_zero, bad);
  ++checks;
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  CHECK(cudaFree(alpha.dev));
  CHECK(cudaFree(beta.dev));
  return 0;
}

template <typename T>
static int level3(cublasHandle_t h, bool full) {
  const cublasOperation_t ops[] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};
  const int sizes[] = {1, 17, 129};
  for (auto ta : ops)
    for (auto tb : ops)
      for (int m : sizes)
        for (int n : sizes)
          for (int k : sizes) {
            // Every shape in host mode with beta != 0; device pointer mode and
            // beta = 0 over NaN on the shapes with at most one 129 (both for float).
            const int big = (m == 129) + (n == 129) + (k == 129);
            if (!full && big > 1) continue;
            if (gemm_case<T>(h, ta, tb, m, n, k, false, false)) return 1;
            if (big <= 1 && gemm_case<T>(h, ta, tb, m, n, k, true, (m + n + k) % 2 == 1)) return 1;
            if (big <= 1 && gemm_case<T>(h, ta, tb, m, n, k, false, true)) return 1;
          }
  CHECK_BLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  return 0;
}

static int handle_calls() {
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  int version = 0;
  CHECK_BLAS(cublasGetVersion(h, &version));
  REQUIRE(version == CUBLAS_VERSION, "version %d, header says %d", version, CUBLAS_VERSION);
  cudaStream_t s, got_s = (cudaStream_t)1;
  CHECK(cudaStreamCreate(&s));
  CHECK_BLAS(cublasGetStream(h, &got_s));
  REQUIRE(got_s == nullptr, "default stream is %p", (void*)got_s);
  CHECK_BLAS(cublasSetStream(h, s));
  CHECK_BLAS(cublasGetStream(h, &got_s));
  REQUIRE(got_s == s, "stream %p, set %p", (void*)got_s, (void*)s);
  cublasPointerMode_t pm;
  CHECK_BLAS(cublasGetPointerMode(h, &pm));
  REQUIRE(pm == CUBLAS_POINTER_MODE_HOST, "default pointer mode %d", (int)pm);
  CHECK_BLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
  CHECK_BLAS(cublasGetPointerMode(h, &pm));
  REQUIRE(pm == CUBLAS_POINTER_MODE_DEVICE, "pointer mode %d", (int)pm);
  CHECK_BLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  cublasMath_t mm;
  CHECK_BLAS(cublasGetMathMode(h, &mm));
  REQUIRE(mm == CUBLAS_DEFAULT_MATH, "default math mode %d", (int)mm);
  CHECK_BLAS(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
  CHECK_BLAS(cublasGetMathMode(h, &mm));
  REQUIRE(mm == CUBLAS_TF32_TENSOR_OP_MATH, "math mode %d", (int)mm);
  CHECK_BLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  void* ws;
  CHECK(cudaMalloc(&ws, 1 << 20));
  CHECK_BLAS(cublasSetWorkspace(h, ws, 1 << 20));
  REQUIRE(std::strcmp(cublasGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED), "CUBLAS_STATUS_NOT_SUPPORTED") == 0, "%s",
          cublasGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED));
  REQUIRE(std::strcmp(cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE), "CUBLAS_STATUS_INVALID_VALUE") == 0, "%s",
          cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE));
  REQUIRE(cublasGetStatusString(CUBLAS_STATUS_SUCCESS) && *cublasGetStatusString(CUBLAS_STATUS_SUCCESS), "empty string");

  // Work on a user stream: an sgemm and an saxpy issued there, then a sync of that stream.
  const int n = 17;
  std::vector<float> x(n, 1.0f), y(n, 2.0f);
  float *dx, *dy;
  if (upload(x, &dx) || upload(y, &dy)) return 1;
  const float two = 2.0f;
  CHECK_BLAS(cublasSaxpy(h, n, &two, dx, 1, dy, 1));
  CHECK(cudaStreamSynchronize(s));
  if (download(y, dy)) return 1;
  for (int i = 0; i < n; ++i) REQUIRE(y[i] == 4.0f, "saxpy on a stream: y[%d] = %g", i, y[i]);

  // Invalid arguments: the documented statuses.
  const float one = 1.0f;
  float r;
  EXPECT_STATUS(cublasSgemm(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, dx, 1, dy, 1, &one, dy, 1), CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_STATUS(cublasSaxpy(nullptr, n, &one, dx, 1, dy, 1), CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_STATUS(cublasSdot(nullptr, n, dx, 1, dy, 1, &r), CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_STATUS(cublasSetStream(nullptr, s), CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_STATUS(cublasSetPointerMode(nullptr, CUBLAS_POINTER_MODE_HOST), CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_STATUS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, -1, 1, 1, &one, dx, 1, dy, 1, &one, dy, 1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, -1, 1, &one, dx, 1, dy, 1, &one, dy, 1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, -1, nullptr, nullptr, 1, nullptr, 1, nullptr, nullptr, 1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, dx, 3, dy, 4, &one, dy, 4), CUBLAS_STATUS_INVALID_VALUE);  // lda < m
  EXPECT_STATUS(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, 4, 4, 2, &one, dx, 1, dy, 4, &one, dy, 4), CUBLAS_STATUS_INVALID_VALUE);  // lda < k
  EXPECT_STATUS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, 4, 4, 4, &one, dx, 4, dy, 3, &one, dy, 4), CUBLAS_STATUS_INVALID_VALUE);  // ldb < n
  EXPECT_STATUS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, dx, 4, dy, 4, &one, dy, 3), CUBLAS_STATUS_INVALID_VALUE);  // ldc < m
  EXPECT_STATUS(cublasSgemm(h, (cublasOperation_t)7, CUBLAS_OP_N, 1, 1, 1, &one, dx, 1, dy, 1, &one, dy, 1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasSetPointerMode(h, (cublasPointerMode_t)5), CUBLAS_STATUS_INVALID_VALUE);
  // m = 0 or n = 0: nothing to do.
  CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 0, 4, 4, &one, dx, 1, dy, 4, &one, dy, 1));
  checks += 20;

  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  CHECK(cudaFree(ws));
  CHECK_BLAS(cublasDestroy(h));
  CHECK(cudaStreamDestroy(s));
  return 0;
}

int main(int argc, char** argv) {
  const char* part = argc > 1 ? argv[1] : "all";
  const bool all = !std::strcmp(part, "all");
  if (all || !std::strcmp(part, "handle"))
    if (handle_calls()) return 1;
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  if (all || !std::strcmp(part, "level1")) {
    if (level1<float>(h) || level1<double>(h)) return 1;
  }
  if (all || !std::strcmp(part, "sgemm"))
    if (level3<float>(h, true)) return 1;
  if (all || !std::strcmp(part, "dgemm"))
    if (level3<double>(h, false)) return 1;
  CHECK_BLAS(cublasDestroy(h));
  CHECK(cudaDeviceSynchronize());
  std::printf("PASS cublas_routines %s (%ld checks)\n", part, checks);
  return 0;
}
