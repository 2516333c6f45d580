// trmv, trmm, symm and syr2k (S and D) against plain-loop CPU references in
// double, over sizes 1, 17 and 129, every side, fill mode, operation and
// diagonal type, leading dimensions above the rows (the padding checked
// untouched, bit for bit), increments of either sign, host and device
// pointer modes; NaN wherever a routine may not read (the triangle not
// stored, a unit diagonal, C with beta = 0, C of an out-of-place trmm, A and
// B with alpha = 0); trmm both out of place and in place (C == B, which must
// give the out-of-place result bit for bit); then the documented statuses.
// Run with one part: trmv | trmm | symm | syr2k.
//
// Tolerances, |got - ref| <= tol * scale, scale = the sum of the terms'
// magnitudes (times |alpha|, plus |beta c|): trmv, trmm, symm tol = (len + 2) u
// (len: the summed dimension), syr2k (2k + 2) u; u = 2^-24 (float) or
// 2^-53 (double).
#include <cublas_v2.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common.cuh"
#include "near.cuh"

template <typename T> struct Blas;
#define SG_CALLS(T, P)                                                                                             \
  template <> struct Blas<T> {                                                                                    \
    static constexpr double u = sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;                                               \
    static cublasStatus_t trmv(cublasHandle_t h, cublasFillMode_t f, cublasOperation_t t, cublasDiagType_t d,    \
                               int n, const T* a, int lda, T* x, int ix) {                                        \
      return cublas##P##trmv(h, f, t, d, n, a, lda, x, ix);                                                       \
    }                                                                                                             \
    static cublasStatus_t trmm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t f, cublasOperation_t t,    \
                               cublasDiagType_t d, int m, int n, const T* al, const T* a, int lda, const T* b,   \
                               int ldb, T* c, int ldc) {                                                          \
      return cublas##P##trmm(h, s, f, t, d, m, n, al, a, lda, b, ldb, c, ldc);                                    \
    }                                                                                                             \
    static cublasStatus_t symm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t f, int m, int n,           \
                               const T* al, const T* a, int lda, const T* b, int ldb, const T* be, T* c,         \
                               int ldc) {                                                                         \
      return cublas##P##symm(h, s, f, m, n, al, a, lda, b, ldb, be, c, ldc);                                      \
    }                                                                                                             \
    static cublasStatus_t syr2k(cublasHandle_t h, cublasFillMode_t f, cublasOperation_t t, int n, int k,         \
                                const T* al, const T* a, int lda, const T* b, int ldb, const T* be, T* c,        \
                                int ldc) {                                                                        \
      return cublas##P##syr2k(h, f, t, n, k, al, a, lda, b, ldb, be, c, ldc);                                     \
    }                                                                                                             \
  };
SG_CALLS(float, S)
SG_CALLS(double, D)

static const int kSizes[] = {1, 17, 129};
static const cublasFillMode_t kFills[] = {CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER};
static const cublasOperation_t kOps[] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};
static const cublasDiagType_t kDiags[] = {CUBLAS_DIAG_NON_UNIT, CUBLAS_DIAG_UNIT};
static const cublasSideMode_t kSides[] = {CUBLAS_SIDE_LEFT, CUBLAS_SIDE_RIGHT};

template <typename T>
static T nan_v() { return std::numeric_limits<T>::quiet_NaN(); }

// A ka x ka triangular (or symmetric) matrix in an lda x ka array: random in
// the stored triangle, NaN in the other (and, with `unit`, on the diagonal).
template <typename T>
static std::vector<T> stored_triangle(int ka, int lda, bool upper, bool unit) {
  std::vector<T> a = random_vec<T>(size_t(lda) * ka);
  for (int j = 0; j < ka; ++j)
    for (int i = 0; i < ka; ++i)
      if ((upper ? i > j : i < j) || (unit && i == j)) a[i + long(j) * lda] = nan_v<T>();
  return a;
}

// op(A)(r, c) of a stored triangle as the routine must see it.
template <typename T>
static double tri(const std::vector<T>& a, int lda, bool upper, bool tr, bool unit, int r, int c) {
  const int i = tr ? c : r, j = tr ? r : c;
  if (i == j && unit) return 1.0;
  if (upper ? i > j : i < j) return 0.0;
  return double(a[i + long(j) * lda]);
}

template <typename T>
static int trmv(cublasHandle_t h) {
  using B = Blas<T>;
  for (int n : kSizes)
    for (cublasFillMode_t uplo : kFills)
      for (cublasOperation_t op : kOps)
        for (cublasDiagType_t diag : kDiags)
          for (int ix : {1, -2}) {
            const bool upper = uplo == CUBLAS_FILL_MODE_UPPER, tr = op != CUBLAS_OP_N, unit = diag == CUBLAS_DIAG_UNIT;
            const int lda = n + 1;
            std::vector<T> a = stored_triangle<T>(n, lda, upper, unit), x = random_vec<T>(span(n, ix));
            T *da, *dx;
            if (upload(a, &da) || upload(x, &dx)) return 1;
            CHECK_BLAS(B::trmv(h, uplo, op, diag, n, da, lda, dx, ix));
            std::vector<T> got(x.size());
            if (download(got, dx)) return 1;
            std::vector<char> on(x.size(), 0);
            for (int i = 0; i < n; ++i) {
              double ref = 0, mag = 0;
              for (int p = 0; p < n; ++p) {
                const double t = tri(a, lda, upper, tr, unit, i, p) * double(x[at(p, n, ix)]);
                ref += t;
                mag += std::fabs(t);
              }
              on[at(i, n, ix)] = 1;
              expect_near(got[at(i, n, ix)], ref, (n + 2) * B::u * mag, "trmv", i);
            }
            for (size_t e = 0; e < x.size(); ++e)
              if (!on[e]) expect_same(got[e], x[e], "trmv off the stride", long(e));
            if (free_all({da, dx})) return 1;
          }
  return 0;
}

template <typename T>
static int trmm(cublasHandle_t h, bool device) {
  using B = Blas<T>;
  for (int m : kSizes)
    for (int n : kSizes)
      for (cublasSideMode_t side : kSides)
        for (cublasFillMode_t uplo : kFills)
          for (cublasOperation_t op : kOps)
            for (cublasDiagType_t diag : kDiags) {
              if (op == CUBLAS_OP_C && m != n) continue;  // C is T for real types; keep the run short
              const bool left = side == CUBLAS_SIDE_LEFT, upper = uplo == CUBLAS_FILL_MODE_UPPER,
                         tr = op != CUBLAS_OP_N, unit = diag == CUBLAS_DIAG_UNIT;
              const int ka = left ? m : n, lda = ka + 2, ldb = m + 1, ldc = m + 3;
              std::vector<T> a = stored_triangle<T>(ka, lda, upper, unit), b = random_vec<T>(size_t(ldb) * n);
              std::vector<T> c(size_t(ldc) * n, nan_v<T>());  // out of place: C is only written
              T *da, *db, *dc, *dbi;
              if (upload(a, &da) || upload(b, &db) || upload(c, &dc) || upload(b, &dbi)) return 1;
              Arg<T> alpha;
              const T al = (T)1.5;
              if (make_arg(alpha, al)) return 1;
              CHECK_BLAS(B::trmm(h, side, uplo, op, diag, m, n, alpha.get(device), da, lda, db, ldb, dc, ldc));
              CHECK_BLAS(B::trmm(h, side, uplo, op, diag, m, n, alpha.get(device), da, lda, dbi, ldb, dbi, ldb));
              std::vector<T> got(c.size()), got_b(b.size()), in_place(b.size());
              if (download(got, dc) || download(got_b, db) || download(in_place, dbi)) return 1;
              for (int j = 0; j < n; ++j)
                for (int i = 0; i < ldc; ++i) {
                  const long e = i + long(j) * ldc;
                  if (i >= m) { expect_same(got[e], c[e], "trmm padding", e); continue; }
                  double ref = 0, mag = 0;
                  for (int p = 0; p < ka; ++p) {
                    const double t = left ? tri(a, lda, upper, tr, unit, i, p) * double(b[p + long(j) * ldb])
                                          : double(b[i + long(p) * ldb]) * tri(a, lda, upper, tr, unit, p, j);
                    ref += t;
                    mag += std::fabs(t);
                  }
                  expect_near(got[e], al * ref, (ka + 2) * B::u * al * mag, "trmm", e);
                  expect_same(in_place[i + long(j) * ldb], got[e], "trmm in place (C == B) vs out of place", e);
                }
              for (size_t e = 0; e < b.size(); ++e) {
                expect_same(got_b[e], b[e], "trmm: B changed out of place", long(e));
                if (long(e) % ldb >= m) expect_same(in_place[e], b[e], "trmm in-place padding", long(e));
              }
              if (free_all({da, db, dc, dbi, alpha.dev})) return 1;
            }
  // alpha = 0: C = 0 with A and B never read (all NaN).
  for (cublasSideMode_t side : kSides) {
    const int m = 17, n = 5, ka = side == CUBLAS_SIDE_LEFT ? m : n;
    std::vector<T> a(size_t(ka) * ka, nan_v<T>()), b(size_t(m) * n, nan_v<T>()), c(size_t(m) * n, (T)7);
    T *da, *db, *dc;
    if (upload(a, &da) || upload(b, &db) || upload(c, &dc)) return 1;
    Arg<T> zero;
    if (make_arg(zero, (T)0)) return 1;
    CHECK_BLAS(B::trmm(h, side, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, m, n, zero.get(device), da,
                       ka, db, m, dc, m));
    if (download(c, dc)) return 1;
    for (size_t e = 0; e < c.size(); ++e) expect_same(c[e], T(0), "trmm alpha = 0", long(e));
    if (free_all({da, db, dc, zero.dev})) return 1;
  }
  return 0;
}

template <typename T>
static int symm(cublasHandle_t h, bool device) {
  using B = Blas<T>;
  for (int m : kSizes)
    for (int n : kSizes)
      for (cublasSideMode_t side : kSides)
        for (cublasFillMode_t uplo : kFills)
          for (int scalars : {0, 1, 2}) {  // alpha, beta: both, beta = 0, alpha = 0
            const bool left = side == CUBLAS_SIDE_LEFT, upper = uplo == CUBLAS_FILL_MODE_UPPER;
            const bool beta_zero = scalars == 1, alpha_zero = scalars == 2;
            const int ka = left ? m : n, lda = ka + 1, ldb = m + 2, ldc = m + 3;
            std::vector<T> a = stored_triangle<T>(ka, lda, upper, false), b = random_vec<T>(size_t(ldb) * n),
                           c = random_vec<T>(size_t(ldc) * n);
            if (alpha_zero) {
              for (auto& v : a) v = nan_v<T>();
              for (auto& v : b) v = nan_v<T>();
            }
            std::vector<T> c_in = c;
            if (beta_zero)
              for (int j = 0; j < n; ++j)
                for (int i = 0; i < m; ++i) c_in[i + long(j) * ldc] = nan_v<T>();
            T *da, *db, *dc;
            if (upload(a, &da) || upload(b, &db) || upload(c_in, &dc)) return 1;
            Arg<T> alpha, beta;
            const T al = alpha_zero ? (T)0 : (T)-0.75, be = beta_zero ? (T)0 : (T)1.25;
            if (make_arg(alpha, al) || make_arg(beta, be)) return 1;
            CHECK_BLAS(B::symm(h, side, uplo, m, n, alpha.get(device), da, lda, db, ldb, beta.get(device), dc, ldc));
            std::vector<T> got(c.size());
            if (download(got, dc)) return 1;
            auto sym = [&](int i, int j) {
              return double((upper ? i <= j : i >= j) ? a[i + long(j) * lda] : a[j + long(i) * lda]);
            };
            for (int j = 0; j < n; ++j)
              for (int i = 0; i < ldc; ++i) {
                const long e = i + long(j) * ldc;
                if (i >= m) { expect_same(got[e], c_in[e], "symm padding", e); continue; }
                double ref = 0, mag = 0;
                if (!alpha_zero)
                  for (int p = 0; p < ka; ++p) {
                    const double t =
                        left ? sym(i, p) * double(b[p + long(j) * ldb]) : double(b[i + long(p) * ldb]) * sym(p, j);
                    ref += t;
                    mag += std::fabs(t);
                  }
                scale_terms(ref, mag, al, be, c[e]);
                expect_near(got[e], ref, (ka + 2) * B::u * mag, "symm", e);
              }
            if (free_all({da, db, dc, alpha.dev, beta.dev})) return 1;
          }
  return 0;
}

template <typename T>
static int syr2k(cublasHandle_t h, bool device) {
  using B = Blas<T>;
  for (int n : kSizes)
    for (int k : kSizes)
      for (cublasOperation_t op : kOps)
        for (cublasFillMode_t uplo : kFills)
          for (bool beta_zero : {false, true}) {
            const bool tr = op != CUBLAS_OP_N, upper = uplo == CUBLAS_FILL_MODE_UPPER;
            const int rows = tr ? k : n, cols = tr ? n : k, lda = rows + 2, ldb = rows + 1, ldc = n + 1;
            std::vector<T> a = random_vec<T>(size_t(lda) * cols), b = random_vec<T>(size_t(ldb) * cols),
                           c = random_vec<T>(size_t(ldc) * n);
            std::vector<T> c_in = c;
            if (beta_zero)
              for (int j = 0; j < n; ++j)
                for (int i = 0; i < n; ++i)
                  if (upper ? i <= j : i >= j) c_in[i + long(j) * ldc] = nan_v<T>();
            T *da, *db, *dc;
            if (upload(a, &da) || upload(b, &db) || upload(c_in, &dc)) return 1;
            Arg<T> alpha, beta;
            const T al = (T)0.5, be = beta_zero ? (T)0 : (T)-2;
            if (make_arg(alpha, al) || make_arg(beta, be)) return 1;
            CHECK_BLAS(B::syr2k(h, uplo, op, n, k, alpha.get(device), da, lda, db, ldb, beta.get(device), dc, ldc));
            std::vector<T> got(c.size());
            if (download(got, dc)) return 1;
            auto opx = [&](const std::vector<T>& x, int ld, int i, int p) {
              return double(tr ? x[p + long(i) * ld] : x[i + long(p) * ld]);
            };
            for (int j = 0; j < n; ++j)
              for (int i = 0; i < ldc; ++i) {
                const long e = i + long(j) * ldc;
                if (i >= n || (upper ? i > j : i < j)) {
                  expect_same(got[e], c_in[e], "syr2k: outside the triangle changed", e);
                  continue;
                }
                double ref = 0, mag = 0;
                for (int p = 0; p < k; ++p) {
                  const double t1 = opx(a, lda, i, p) * opx(b, ldb, j, p), t2 = opx(b, ldb, i, p) * opx(a, lda, j, p);
                  ref += t1 + t2;
                  mag += std::fabs(t1) + std::fabs(t2);
                }
                scale_terms(ref, mag, al, be, c[e]);
                expect_near(got[e], ref, (2 * k + 2) * B::u * mag, "syr2k", e);
              }
            if (free_all({da, db, dc, alpha.dev, beta.dev})) return 1;
          }
  return 0;
}

// The documented statuses (and softgpu's INVALID_VALUE for an in-place trmm
// with ldc != ldb).
template <typename T>
static int statuses(cublasHandle_t h) {
  using B = Blas<T>;
  T one = 1, *d;
  CHECK(cudaMalloc(&d, 64 * sizeof(T)));
  const auto L = CUBLAS_FILL_MODE_LOWER;
  const auto N = CUBLAS_OP_N;
  const auto U = CUBLAS_DIAG_UNIT;
  const auto SL = CUBLAS_SIDE_LEFT, SR = CUBLAS_SIDE_RIGHT;
  EXPECT_STATUS(B::trmv(nullptr, L, N, U, 2, d, 2, d, 1), CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_STATUS(B::trmv(h, CUBLAS_FILL_MODE_FULL, N, U, 2, d, 2, d, 1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::trmv(h, L, (cublasOperation_t)9, U, 2, d, 2, d, 1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::trmv(h, L, N, (cublasDiagType_t)7, 2, d, 2, d, 1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::trmv(h, L, N, U, -1, d, 2, d, 1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::trmv(h, L, N, U, 4, d, 3, d, 1), CUBLAS_STATUS_INVALID_VALUE);  // lda < n
  EXPECT_STATUS(B::trmv(h, L, N, U, 2, d, 2, d, 0), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::trmv(h, L, N, U, 0, d, 1, d, 1), CUBLAS_STATUS_SUCCESS);

  EXPECT_STATUS(B::trmm(h, (cublasSideMode_t)5, L, N, U, 2, 2, &one, d, 2, d, 2, d + 8, 2),
                CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::trmm(h, SL, L, N, U, -1, 2, &one, d, 2, d, 2, d + 8, 2), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::trmm(h, SL, L, N, U, 4, 2, &one, d, 3, d, 4, d + 8, 4), CUBLAS_STATUS_INVALID_VALUE);  // lda < m
  EXPECT_STATUS(B::trmm(h, SR, L, N, U, 2, 4, &one, d, 2, d, 2, d + 8, 2), CUBLAS_STATUS_INVALID_VALUE);  // lda < n
  EXPECT_STATUS(B::trmm(h, SL, L, N, U, 4, 2, &one, d, 4, d, 3, d + 8, 4), CUBLAS_STATUS_INVALID_VALUE);  // ldb < m
  EXPECT_STATUS(B::trmm(h, SL, L, N, U, 4, 2, &one, d, 4, d, 4, d + 8, 3), CUBLAS_STATUS_INVALID_VALUE);  // ldc < m
  EXPECT_STATUS(B::trmm(h, SL, L, N, U, 2, 2, nullptr, d, 2, d, 2, d + 8, 2), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::trmm(h, SL, L, N, U, 2, 2, &one, d, 2, d + 8, 2, d + 8, 3), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::trmm(h, SL, L, N, U, 0, 2, &one, d, 1, d, 1, d + 8, 1), CUBLAS_STATUS_SUCCESS);

  EXPECT_STATUS(B::symm(h, SL, CUBLAS_FILL_MODE_FULL, 2, 2, &one, d, 2, d, 2, &one, d + 8, 2),
                CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::symm(h, SR, L, 2, 4, &one, d, 2, d, 2, &one, d + 8, 2), CUBLAS_STATUS_INVALID_VALUE);  // lda < n
  EXPECT_STATUS(B::symm(h, SL, L, 4, 2, &one, d, 4, d, 4, &one, d + 8, 3), CUBLAS_STATUS_INVALID_VALUE);  // ldc < m
  EXPECT_STATUS(B::symm(h, SL, L, 2, 2, &one, d, 2, d, 2, nullptr, d + 8, 2), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::symm(h, SL, L, 2, -2, &one, d, 2, d, 2, &one, d + 8, 2), CUBLAS_STATUS_INVALID_VALUE);

  EXPECT_STATUS(B::syr2k(h, L, (cublasOperation_t)9, 2, 2, &one, d, 2, d, 2, &one, d + 8, 2),
                CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::syr2k(h, L, CUBLAS_OP_T, 2, 4, &one, d, 4, d, 3, &one, d + 8, 2),
                CUBLAS_STATUS_INVALID_VALUE);  // ldb < k
  EXPECT_STATUS(B::syr2k(h, L, N, 4, 2, &one, d, 4, d, 4, &one, d + 8, 3), CUBLAS_STATUS_INVALID_VALUE);  // ldc < n
  EXPECT_STATUS(B::syr2k(h, L, N, 2, -1, &one, d, 2, d, 2, &one, d + 8, 2), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::syr2k(h, L, N, 2, 2, nullptr, d, 2, d, 2, &one, d + 8, 2), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(B::syr2k(h, L, N, 0, 2, &one, d, 1, d, 1, &one, d + 8, 1), CUBLAS_STATUS_SUCCESS);
  CHECK(cudaFree(d));
  return 0;
}

int main(int argc, char** argv) {
  return parts_main(
      argc, argv, "cublas_level3_more", "trmv|trmm|symm|syr2k",
      [](cublasHandle_t h, const std::string& part, bool device, auto type) {
        using T = decltype(type);
        if (part == "trmv") return device ? 0 : trmv<T>(h);  // trmv has no scalars
        if (part == "trmm") return trmm<T>(h, device);
        if (part == "symm") return symm<T>(h, device);
        if (part == "syr2k") return syr2k<T>(h, device);
        return 2;
      },
      [](cublasHandle_t h, auto type) { return statuses<decltype(type)>(h); });
}
