// swap, rot, iamin, ger, symv, trsv, dgmm, syrk and trsm (S and D) against plain-loop
// CPU references in double, over sizes 1, 17 and 129, every operation,
// side, fill mode and diagonal type, leading dimensions above the rows
// (the padding checked untouched), increments of either sign, host and
// device pointer modes, beta = 0 over NaN (C never read); then the
// documented statuses; and cublasSgemmEx (f16, bf16, f32 inputs, f32 C).
// Run with one part: level1 | ger | symv | trsv | dgmm | syrk | trsm | sgemmex.
//
// Tolerances, |got - ref| <= tol * scale: swap, dgmm exact; rot, ger (one
// rounding or one fma per element) scale = the terms' magnitudes, tol 2u;
// syrk scale = alpha sum_p |a_ip a_jp| + |beta c_ij|, tol = (k + 2) u;
// symv likewise with n terms; trsv as trsm;
// trsm (one substitution per vector, A diagonally dominant: its diagonal
// len + 1, the rest in [-1, 1)) scale = max(1, max |x|), tol = 4 len u;
// SgemmEx (inputs exact in their type, f32 accumulation) scale = alpha
// sum_p |a_ip b_pj|, tol = (k + 2) 2^-24;
// u = 2^-24 (float) or 2^-53 (double).
#include <cublas_v2.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "common.cuh"
#include "near.cuh"

template <typename T> struct Blas;
#define SG_CALLS(T, P, p)                                                                                         \
  template <> struct Blas<T> {                                                                                    \
    static constexpr double u = sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;                                               \
    static constexpr const char* name = #P;                                                                       \
    static cublasStatus_t swap(cublasHandle_t h, int n, T* x, int ix, T* y, int iy) {                            \
      return cublas##P##swap(h, n, x, ix, y, iy);                                                                 \
    }                                                                                                             \
    static cublasStatus_t rot(cublasHandle_t h, int n, T* x, int ix, T* y, int iy, const T* c, const T* s) {     \
      return cublas##P##rot(h, n, x, ix, y, iy, c, s);                                                            \
    }                                                                                                             \
    static cublasStatus_t amin(cublasHandle_t h, int n, const T* x, int ix, int* r) {                            \
      return cublasI##p##amin(h, n, x, ix, r);                                                                    \
    }                                                                                                             \
    static cublasStatus_t ger(cublasHandle_t h, int m, int n, const T* al, const T* x, int ix, const T* y,       \
                              int iy, T* a, int lda) {                                                            \
      return cublas##P##ger(h, m, n, al, x, ix, y, iy, a, lda);                                                   \
    }                                                                                                             \
    static cublasStatus_t symv(cublasHandle_t h, cublasFillMode_t f, int n, const T* al, const T* a, int lda,    \
                               const T* x, int ix, const T* be, T* y, int iy) {                                   \
      return cublas##P##symv(h, f, n, al, a, lda, x, ix, be, y, iy);                                              \
    }                                                                                                             \
    static cublasStatus_t trsv(cublasHandle_t h, cublasFillMode_t f, cublasOperation_t t, cublasDiagType_t d,    \
                               int n, const T* a, int lda, T* x, int ix) {                                        \
      return cublas##P##trsv(h, f, t, d, n, a, lda, x, ix);                                                       \
    }                                                                                                             \
    static cublasStatus_t dgmm(cublasHandle_t h, cublasSideMode_t s, int m, int n, const T* a, int lda,          \
                               const T* x, int ix, T* c, int ldc) {                                               \
      return cublas##P##dgmm(h, s, m, n, a, lda, x, ix, c, ldc);                                                  \
    }                                                                                                             \
    static cublasStatus_t syrk(cublasHandle_t h, cublasFillMode_t f, cublasOperation_t t, int n, int k,          \
                               const T* al, const T* a, int lda, const T* be, T* c, int ldc) {                   \
      return cublas##P##syrk(h, f, t, n, k, al, a, lda, be, c, ldc);                                              \
    }                                                                                                             \
    static cublasStatus_t trsm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t f, cublasOperation_t t,    \
                               cublasDiagType_t d, int m, int n, const T* al, const T* a, int lda, T* b,         \
                               int ldb) {                                                                         \
      return cublas##P##trsm(h, s, f, t, d, m, n, al, a, lda, b, ldb);                                            \
    }                                                                                                             \
  };
SG_CALLS(float, S, s)
SG_CALLS(double, D, d)

static const int kSizes[] = {1, 17, 129};

template <typename T>
static int level1(cublasHandle_t h, bool device) {
  using B = Blas<T>;
  const int incs[][2] = {{1, 1}, {2, -3}, {-1, 2}};
  for (int n : kSizes)
    for (auto& inc : incs) {
      const int ix = inc[0], iy = inc[1];
      std::vector<T> x = random_vec<T>(span(n, ix)), y = random_vec<T>(span(n, iy));
      T *dx, *dy;
      if (upload(x, &dx) || upload(y, &dy)) return 1;
      // swap: exact, elements off the stride untouched
      CHECK_BLAS(B::swap(h, n, dx, ix, dy, iy));
      std::vector<T> gx(x.size()), gy(y.size());
      if (download(gx, dx) || download(gy, dy)) return 1;
      std::vector<T> wx = x, wy = y;
      for (int i = 0; i < n; ++i) std::swap(wx[at(i, n, ix)], wy[at(i, n, iy)]);
      for (size_t i = 0; i < x.size(); ++i) expect_near(gx[i], wx[i], 0, "swap x", long(i));
      for (size_t i = 0; i < y.size(); ++i) expect_near(gy[i], wy[i], 0, "swap y", long(i));
      // rot on the swapped vectors
      Arg<T> c, s;
      if (make_arg(c, (T)0.6) || make_arg(s, (T)-0.8)) return 1;
      CHECK_BLAS(B::rot(h, n, dx, ix, dy, iy, c.get(device), s.get(device)));
      std::vector<T> rx(x.size()), ry(y.size());
      if (download(rx, dx) || download(ry, dy)) return 1;
      for (int i = 0; i < n; ++i) {
        const double xi = wx[at(i, n, ix)], yi = wy[at(i, n, iy)], cv = c.host, sv = s.host;
        const double sc = std::fabs(cv * xi) + std::fabs(sv * yi) + std::fabs(cv * yi) + std::fabs(sv * xi);
        expect_near(rx[at(i, n, ix)], cv * xi + sv * yi, 2 * B::u * sc, "rot x", i);
        expect_near(ry[at(i, n, iy)], cv * yi - sv * xi, 2 * B::u * sc, "rot y", i);
      }
      // iamin: the first smallest |x| (positive increments only), with a tie planted
      if (ix > 0) {
        std::vector<T> v = x;
        if (n > 3) v[at(n - 1, n, ix)] = v[at(2, n, ix)] = (T)1e-3;
        T* dv;
        if (upload(v, &dv)) return 1;
        int want = 1;
        for (int i = 1; i < n; ++i)
          if (std::fabs(v[at(i, n, ix)]) < std::fabs(v[at(want - 1, n, ix)])) want = i + 1;
        int got = -1;
        if (device) {
          int* dr;
          CHECK(cudaMalloc(&dr, sizeof(int)));
          CHECK_BLAS(B::amin(h, n, dv, ix, dr));
          CHECK(cudaMemcpy(&got, dr, sizeof(int), cudaMemcpyDeviceToHost));
          CHECK(cudaFree(dr));
        } else {
          CHECK_BLAS(B::amin(h, n, dv, ix, &got));
        }
        expect_near(got, want, 0, "iamin", n);
        CHECK(cudaFree(dv));
      }
      CHECK(cudaFree(dx));
      CHECK(cudaFree(dy));
    }
  return 0;
}

template <typename T>
static int ger(cublasHandle_t h, bool device) {
  using B = Blas<T>;
  for (int m : kSizes)
    for (int n : kSizes)
      for (int ix : {1, -2}) {
        const int iy = -ix + 1 == 0 ? 3 : 1, lda = m + 2;
        std::vector<T> x = random_vec<T>(span(m, ix)), y = random_vec<T>(span(n, iy)), a = random_vec<T>(size_t(lda) * n);
        T *dx, *dy, *da;
        if (upload(x, &dx) || upload(y, &dy) || upload(a, &da)) return 1;
        Arg<T> alpha;
        if (make_arg(alpha, (T)-1.25)) return 1;
        CHECK_BLAS(B::ger(h, m, n, alpha.get(device), dx, ix, dy, iy, da, lda));
        std::vector<T> got(a.size());
        if (download(got, da)) return 1;
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < lda; ++i) {
            const long e = i + long(j) * lda;
            if (i >= m) { expect_near(got[e], a[e], 0, "ger padding", e); continue; }
            const double t = -1.25 * double(x[at(i, m, ix)]) * double(y[at(j, n, iy)]);
            expect_near(got[e], a[e] + t, 2 * B::u * (std::fabs(t) + std::fabs(a[e])), "ger", e);
          }
        CHECK(cudaFree(dx));
        CHECK(cudaFree(dy));
        CHECK(cudaFree(da));
      }
  return 0;
}

template <typename T>
static int symv(cublasHandle_t h, bool device) {
  using B = Blas<T>;
  for (int n : kSizes)
    for (cublasFillMode_t uplo : {CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER})
      for (int ix : {1, -2})
        for (bool beta_zero : {false, true}) {
          const int iy = ix == 1 ? -3 : 1, lda = n + 2;
          const bool upper = uplo == CUBLAS_FILL_MODE_UPPER;
          std::vector<T> a = random_vec<T>(size_t(lda) * n), x = random_vec<T>(span(n, ix)),
                         y = random_vec<T>(span(n, iy));
          for (int j = 0; j < n; ++j)  // the triangle not stored: NaN, never read
            for (int i = 0; i < n; ++i)
              if (upper ? i > j : i < j) a[i + long(j) * lda] = std::numeric_limits<T>::quiet_NaN();
          std::vector<T> y_in = y;
          if (beta_zero)
            for (int i = 0; i < n; ++i) y_in[at(i, n, iy)] = std::numeric_limits<T>::quiet_NaN();
          T *da, *dx, *dy;
          if (upload(a, &da) || upload(x, &dx) || upload(y_in, &dy)) return 1;
          Arg<T> alpha, beta;
          const T al = (T)-0.75, be = beta_zero ? (T)0 : (T)1.25;
          if (make_arg(alpha, al) || make_arg(beta, be)) return 1;
          CHECK_BLAS(B::symv(h, uplo, n, alpha.get(device), da, lda, dx, ix, beta.get(device), dy, iy));
          std::vector<T> got(y.size());
          if (download(got, dy)) return 1;
          std::vector<char> on(y.size(), 0);
          for (int i = 0; i < n; ++i) {
            const long yi = at(i, n, iy);
            on[yi] = 1;
            double ref = 0, mag = 0;
            for (int j = 0; j < n; ++j) {
              const bool stored = upper ? i <= j : i >= j;
              const double t = double(stored ? a[i + long(j) * lda] : a[j + long(i) * lda]) * double(x[at(j, n, ix)]);
              ref += t;
              mag += std::fabs(t);
            }
            ref *= al;
            mag *= std::fabs(al);
            if (!beta_zero) { ref += be * double(y[yi]); mag += std::fabs(be * double(y[yi])); }
            expect_near(got[yi], ref, (n + 2) * B::u * mag, "symv", i);
          }
          for (size_t e = 0; e < y.size(); ++e)
            if (!on[e]) expect_near(got[e], y_in[e], 0, "symv off the stride", long(e));
          CHECK(cudaFree(da));
          CHECK(cudaFree(dx));
          CHECK(cudaFree(dy));
        }
  return 0;
}

template <typename T>
static int trsv(cublasHandle_t h) {
  using B = Blas<T>;
  for (int n : kSizes)
    for (cublasFillMode_t uplo : {CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER})
      for (cublasOperation_t op : {CUBLAS_OP_N, CUBLAS_OP_T})
        for (cublasDiagType_t diag : {CUBLAS_DIAG_NON_UNIT, CUBLAS_DIAG_UNIT})
          for (int ix : {1, -2}) {
            const bool upper = uplo == CUBLAS_FILL_MODE_UPPER, tr = op != CUBLAS_OP_N, unit = diag == CUBLAS_DIAG_UNIT;
            const int lda = n + 1;
            std::vector<T> a = random_vec<T>(size_t(lda) * n), x = random_vec<T>(span(n, ix));
            for (int i = 0; i < n; ++i) a[i + long(i) * lda] = unit ? std::numeric_limits<T>::quiet_NaN() : (T)(n + 1);
            for (int j = 0; j < n; ++j)
              for (int i = 0; i < n; ++i)
                if (upper ? i > j : i < j) a[i + long(j) * lda] = std::numeric_limits<T>::quiet_NaN();
            T *da, *dx;
            if (upload(a, &da) || upload(x, &dx)) return 1;
            CHECK_BLAS(B::trsv(h, uplo, op, diag, n, da, lda, dx, ix));
            std::vector<T> got(x.size());
            if (download(got, dx)) return 1;
            // Reference: op(A) v = b by substitution in double.
            auto opa = [&](int r, int c) -> double {
              const int i = tr ? c : r, j = tr ? r : c;
              if (i == j) return unit ? 1.0 : double(a[i + long(j) * lda]);
              return (upper ? i > j : i < j) ? 0.0 : double(a[i + long(j) * lda]);
            };
            const bool lower = upper == tr;
            std::vector<double> v(n);
            for (int s2 = 0; s2 < n; ++s2) {
              const int r = lower ? s2 : n - 1 - s2;
              double acc = x[at(r, n, ix)];
              for (int q = 0; q < n; ++q)
                if (lower ? q < r : q > r) acc -= opa(r, q) * v[q];
              v[r] = acc / opa(r, r);
            }
            double scale = 1;
            for (double e : v) scale = std::max(scale, std::fabs(e));
            std::vector<char> on(x.size(), 0);
            for (int i = 0; i < n; ++i) {
              on[at(i, n, ix)] = 1;
              expect_near(got[at(i, n, ix)], v[i], 4.0 * n * B::u * scale, "trsv", i);
            }
            for (size_t e = 0; e < x.size(); ++e)
              if (!on[e]) expect_near(got[e], x[e], 0, "trsv off the stride", long(e));
            CHECK(cudaFree(da));
            CHECK(cudaFree(dx));
          }
  return 0;
}

template <typename T>
static int dgmm(cublasHandle_t h) {
  using B = Blas<T>;
  for (int m : kSizes)
    for (int n : kSizes)
      for (cublasSideMode_t side : {CUBLAS_SIDE_LEFT, CUBLAS_SIDE_RIGHT})
        for (int ix : {1, -2, 0})
          for (bool in_place : {false, true}) {
            const int lda = m + 1, ldc = in_place ? lda : m + 3, len = side == CUBLAS_SIDE_LEFT ? m : n;
            std::vector<T> a = random_vec<T>(size_t(lda) * n), x = random_vec<T>(ix ? span(len, ix) : 1),
                           c(size_t(ldc) * n, (T)77);
            T *da, *dx, *dc;
            if (upload(a, &da) || upload(x, &dx) || upload(c, &dc)) return 1;
            T* out = in_place ? da : dc;
            CHECK_BLAS(B::dgmm(h, side, m, n, da, lda, dx, ix, out, ldc));
            std::vector<T> got(in_place ? a.size() : c.size());
            if (download(got, out)) return 1;
            for (int j = 0; j < n; ++j)
              for (int i = 0; i < ldc; ++i) {
                const long e = i + long(j) * ldc;
                const T before = in_place ? a[e] : c[e];
                if (i >= m) { expect_near(got[e], before, 0, "dgmm padding", e); continue; }
                const int xi = side == CUBLAS_SIDE_LEFT ? i : j;
                const T want = a[i + long(j) * lda] * x[ix ? at(xi, len, ix) : 0];
                expect_near(got[e], want, 0, "dgmm", e);
              }
            CHECK(cudaFree(da));
            CHECK(cudaFree(dx));
            CHECK(cudaFree(dc));
          }
  return 0;
}

template <typename T>
static int syrk(cublasHandle_t h, bool device) {
  using B = Blas<T>;
  for (int n : kSizes)
    for (int k : {1, 17, 129})
      for (cublasOperation_t op : {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C})
        for (cublasFillMode_t uplo : {CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER})
          for (bool beta_zero : {false, true}) {
            const bool tr = op != CUBLAS_OP_N;
            const int rows = tr ? k : n, cols = tr ? n : k, lda = rows + 2, ldc = n + 1;
            std::vector<T> a = random_vec<T>(size_t(lda) * cols), c = random_vec<T>(size_t(ldc) * n);
            const bool upper = uplo == CUBLAS_FILL_MODE_UPPER;
            std::vector<T> c_in = c;
            if (beta_zero)
              for (int j = 0; j < n; ++j)
                for (int i = 0; i < n; ++i)
                  if (upper ? i <= j : i >= j) c_in[i + long(j) * ldc] = std::numeric_limits<T>::quiet_NaN();
            T *da, *dc;
            if (upload(a, &da) || upload(c_in, &dc)) return 1;
            Arg<T> alpha, beta;
            const T al = (T)0.5, be = beta_zero ? (T)0 : (T)-2;
            if (make_arg(alpha, al) || make_arg(beta, be)) return 1;
            CHECK_BLAS(B::syrk(h, uplo, op, n, k, alpha.get(device), da, lda, beta.get(device), dc, ldc));
            std::vector<T> got(c.size());
            if (download(got, dc)) return 1;
            auto opa = [&](int i, int p) { return double(tr ? a[p + long(i) * lda] : a[i + long(p) * lda]); };
            for (int j = 0; j < n; ++j)
              for (int i = 0; i < ldc; ++i) {
                const long e = i + long(j) * ldc;
                if (i >= n || (upper ? i > j : i < j)) {
                  const bool same = std::memcmp(&got[e], &c_in[e], sizeof(T)) == 0;
                  expect_near(same ? 0 : 1, 0, 0, "syrk: outside the triangle changed", e);
                  continue;
                }
                double ref = 0, mag = 0;
                for (int p = 0; p < k; ++p) { ref += opa(i, p) * opa(j, p); mag += std::fabs(opa(i, p) * opa(j, p)); }
                ref *= al;
                mag *= std::fabs(al);
                if (!beta_zero) { ref += be * double(c[e]); mag += std::fabs(be * double(c[e])); }
                expect_near(got[e], ref, (k + 2) * B::u * mag, "syrk", e);
              }
            CHECK(cudaFree(da));
            CHECK(cudaFree(dc));
          }
  return 0;
}

template <typename T>
static int trsm(cublasHandle_t h, bool device) {
  using B = Blas<T>;
  for (int m : kSizes)
    for (int n : {1, 17, 129})
      for (cublasSideMode_t side : {CUBLAS_SIDE_LEFT, CUBLAS_SIDE_RIGHT})
        for (cublasFillMode_t uplo : {CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER})
          for (cublasOperation_t op : {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C})
            for (cublasDiagType_t diag : {CUBLAS_DIAG_NON_UNIT, CUBLAS_DIAG_UNIT}) {
              if (m == 17 && n == 129 && op == CUBLAS_OP_C) continue;  // C is T for real types; keep the run short
              const bool left = side == CUBLAS_SIDE_LEFT, upper = uplo == CUBLAS_FILL_MODE_UPPER,
                         tr = op != CUBLAS_OP_N, unit = diag == CUBLAS_DIAG_UNIT;
              const int ka = left ? m : n, lda = ka + 2, ldb = m + 1;
              std::vector<T> a = random_vec<T>(size_t(lda) * ka), b = random_vec<T>(size_t(ldb) * n);
              for (int i = 0; i < ka; ++i) a[i + long(i) * lda] = (T)(ka + 1);  // diagonally dominant
              // The other triangle holds garbage the routine must not read.
              for (int j = 0; j < ka; ++j)
                for (int i = 0; i < ka; ++i)
                  if (upper ? i > j : i < j) a[i + long(j) * lda] = std::numeric_limits<T>::quiet_NaN();
              if (unit)
                for (int i = 0; i < ka; ++i) a[i + long(i) * lda] = std::numeric_limits<T>::quiet_NaN();
              T *da, *db;
              if (upload(a, &da) || upload(b, &db)) return 1;
              Arg<T> alpha;
              if (make_arg(alpha, (T)1.5)) return 1;
              CHECK_BLAS(B::trsm(h, side, uplo, op, diag, m, n, alpha.get(device), da, lda, db, ldb));
              std::vector<T> got(b.size());
              if (download(got, db)) return 1;
              // op(A)[r][c] of the triangle, 0 outside it, 1 on a unit diagonal.
              auto opa = [&](int r, int c) -> double {
                const int i = tr ? c : r, j = tr ? r : c;
                if (i == j) return unit ? 1.0 : double(a[i + long(j) * lda]);
                if (upper ? i > j : i < j) return 0.0;
                return double(a[i + long(j) * lda]);
              };
              // Reference: solve each vector in double by plain substitution
              // (left: op(A) x = 1.5 b per column; right: x op(A) = 1.5 b per row).
              std::vector<double> x(size_t(ldb) * n);
              for (int v = 0; v < (left ? n : m); ++v) {
                auto el = [&](int t) -> double& { return left ? x[t + long(v) * ldb] : x[v + long(t) * ldb]; };
                auto bl = [&](int t) { return double(left ? b[t + long(v) * ldb] : b[v + long(t) * ldb]); };
                // M(r, c): left op(A)[r][c]; right op(A)[c][r] (op(A)^T x = b).
                auto M = [&](int r, int c) { return left ? opa(r, c) : opa(c, r); };
                const bool lower = left ? (upper == tr) : (upper != tr);
                for (int s = 0; s < ka; ++s) {
                  const int r = lower ? s : ka - 1 - s;
                  double acc = 1.5 * bl(r);
                  for (int q = 0; q < ka; ++q)
                    if (q != r && (lower ? q < r : q > r)) acc -= M(r, q) * el(q);
                  el(r) = acc / M(r, r);
                }
              }
              double scale = 1;
              for (int j = 0; j < n; ++j)
                for (int i = 0; i < m; ++i) scale = std::max(scale, std::fabs(x[i + long(j) * ldb]));
              for (int j = 0; j < n; ++j)
                for (int i = 0; i < ldb; ++i) {
                  const long e = i + long(j) * ldb;
                  if (i >= m) expect_near(got[e], b[e], 0, "trsm padding", e);
                  else expect_near(got[e], x[e], 4.0 * ka * B::u * scale, "trsm", e);
                }
              CHECK(cudaFree(da));
              CHECK(cudaFree(db));
            }
  return 0;
}

// SgemmEx: C = alpha op(A) op(B) + beta C in f32 with A and B of `type`
// (beta = 0 over NaN: C not read).
template <typename In>
static int sgemmex_type(cublasHandle_t h, bool device, cudaDataType type) {
  for (int m : {1, 17, 129})
    for (int k : {1, 17, 129})
      for (cublasOperation_t ta : {CUBLAS_OP_N, CUBLAS_OP_T})
        for (cublasOperation_t tb : {CUBLAS_OP_N, CUBLAS_OP_T})
          for (bool beta_zero : {false, true}) {
            const int n = 17, lda = (ta == CUBLAS_OP_N ? m : k) + 1, ldb = (tb == CUBLAS_OP_N ? k : n) + 2,
                      ldc = m + 3;
            std::vector<In> a(size_t(lda) * (ta == CUBLAS_OP_N ? k : m)), b(size_t(ldb) * (tb == CUBLAS_OP_N ? n : k));
            for (auto& v : a) v = In(float(urand()));
            for (auto& v : b) v = In(float(urand()));
            std::vector<float> c = random_vec<float>(size_t(ldc) * n);
            if (beta_zero) for (auto& v : c) v = std::numeric_limits<float>::quiet_NaN();
            In *da, *db;
            float* dc;
            if (upload(a, &da) || upload(b, &db) || upload(c, &dc)) return 1;
            Arg<float> alpha, beta;
            const float al = 0.75f, be = beta_zero ? 0.0f : -0.5f;
            if (make_arg(alpha, al) || make_arg(beta, be)) return 1;
            CHECK_BLAS(cublasSgemmEx(h, ta, tb, m, n, k, alpha.get(device), da, type, lda, db, type, ldb,
                                     beta.get(device), dc, CUDA_R_32F, ldc));
            std::vector<float> got(c.size());
            if (download(got, dc)) return 1;
            auto A = [&](int i, int p) { return double(float(ta == CUBLAS_OP_N ? a[i + long(p) * lda] : a[p + long(i) * lda])); };
            auto Bm = [&](int p, int j) { return double(float(tb == CUBLAS_OP_N ? b[p + long(j) * ldb] : b[j + long(p) * ldb])); };
            for (int j = 0; j < n; ++j)
              for (int i = 0; i < ldc; ++i) {
                const long e = i + long(j) * ldc;
                if (i >= m) {
                  const bool same = std::memcmp(&got[e], &c[e], sizeof(float)) == 0;
                  expect_near(same ? 0 : 1, 0, 0, "sgemmex padding", e);
                  continue;
                }
                double ref = 0, mag = 0;
                for (int p = 0; p < k; ++p) { ref += A(i, p) * Bm(p, j); mag += std::fabs(A(i, p) * Bm(p, j)); }
                ref *= al;
                mag *= al;
                if (!beta_zero) { ref += be * double(c[e]); mag += std::fabs(be * double(c[e])); }
                expect_near(got[e], ref, (k + 2) * 0x1p-24 * mag, "sgemmex", e);
              }
            CHECK(cudaFree(da));
            CHECK(cudaFree(db));
            CHECK(cudaFree(dc));
          }
  return 0;
}

static int sgemmex(cublasHandle_t h, bool device) {
  if (sgemmex_type<__half>(h, device, CUDA_R_16F) || sgemmex_type<__nv_bfloat16>(h, device, CUDA_R_16BF) ||
      sgemmex_type<float>(h, device, CUDA_R_32F))
    return 1;
  // f16 inputs with an f64 C: not a combination SgemmEx has.
  float one = 1, *d;
  CHECK(cudaMalloc(&d, 64 * sizeof(float)));
  EXPECT_STATUS(cublasSgemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, d, CUDA_R_16F, 2, d, CUDA_R_16F, 2, &one,
                              d, CUDA_R_64F, 2),
                CUBLAS_STATUS_NOT_SUPPORTED);
  CHECK(cudaFree(d));
  return 0;
}

// The documented statuses.
template <typename T>
static int statuses(cublasHandle_t h) {
  using B = Blas<T>;
  T one = 1, *d;
  CHECK(cudaMalloc(&d, 64 * sizeof(T)));
  EXPECT_STATUS(B::ger(h, -1, 2, &one, d, 1, d, 1, d, 4), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::ger(h, 2, 2, &one, d, 0, d, 1, d, 4), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::ger(h, 4, 2, &one, d, 1, d, 1, d, 3), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::dgmm(h, (cublasSideMode_t)7, 2, 2, d, 2, d, 1, d, 2), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::dgmm(h, CUBLAS_SIDE_LEFT, 2, 2, d, 2, d, 1, d, 3), CUBLAS_STATUS_INVALID_VALUE);  // in place, other ld
  EXPECT_STATUS(B::syrk(h, CUBLAS_FILL_MODE_FULL, CUBLAS_OP_N, 2, 2, &one, d, 2, &one, d, 2),
                CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::syrk(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, 2, 4, &one, d, 2, &one, d, 2),
                CUBLAS_STATUS_INVALID_VALUE);  // lda < k
  EXPECT_STATUS(B::trsm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, 2, 4, &one, d,
                        2, d, 2),
                CUBLAS_STATUS_INVALID_VALUE);  // right: lda < n
  EXPECT_STATUS(B::trsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, (cublasDiagType_t)5, 2, 2, &one, d,
                        2, d, 2),
                CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::trsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, 2, 2, nullptr,
                        d, 2, d, 2),
                CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::symv(h, CUBLAS_FILL_MODE_LOWER, 4, &one, d, 3, d, 1, &one, d, 1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::symv(h, CUBLAS_FILL_MODE_UPPER, 2, &one, d, 2, d, 1, &one, d, 0), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::trsv(h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, 2, d, 2, d, 0),
                CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::rot(nullptr, 2, d, 1, d, 1, &one, &one), CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_STATUS(B::swap(h, 0, d, 1, d, 1), CUBLAS_STATUS_SUCCESS);
  int r = -1;
  EXPECT_STATUS(B::amin(h, 0, d, 1, &r), CUBLAS_STATUS_SUCCESS);
  if (r != 0) { std::printf("FAIL iamin with n = 0 gave %d, expected 0\n", r); return 1; }
  CHECK(cudaFree(d));
  return 0;
}

int main(int argc, char** argv) {
  return parts_main(
      argc, argv, "cublas_more", "level1|ger|symv|trsv|dgmm|syrk|trsm|sgemmex",
      [](cublasHandle_t h, const std::string& part, bool device, auto type) {
        using T = decltype(type);
        if (part == "level1") return level1<T>(h, device);
        if (part == "ger") return ger<T>(h, device);
        if (part == "symv") return symv<T>(h, device);
        if (part == "trsv") return device ? 0 : trsv<T>(h);  // trsv has no scalars
        if (part == "dgmm") return device ? 0 : dgmm<T>(h);  // dgmm has no scalars
        if (part == "syrk") return syrk<T>(h, device);
        if (part == "trsm") return trsm<T>(h, device);
        if (part == "sgemmex") {
          if constexpr (std::is_same_v<T, float>) return sgemmex(h, device);
          return 0;
        }
        return 2;
      },
      [](cublasHandle_t h, auto type) { return statuses<decltype(type)>(h); });
}
