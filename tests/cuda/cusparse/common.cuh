// What the cuSPARSE test programs share: status checks, random sparse
// matrices held on the host in CSR (0-based, int64, complex<double> values)
// and their upload in any index width and base, the value types as
// std::complex<double> on the host, and a tolerance check counting failures.
#pragma once

#include <cuComplex.h>
#include <cusparse.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "../check.cuh"

#define CHECK_SP(call)                                                                         \
  do {                                                                                         \
    cusparseStatus_t s_ = (call);                                                              \
    if (s_ != CUSPARSE_STATUS_SUCCESS) {                                                       \
      std::fprintf(stderr, "FAIL %s:%d: %s returned %s (%d)\n", __FILE__, __LINE__, #call,     \
                   cusparseGetErrorName(s_), (int)s_);                                         \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)

using cplx = std::complex<double>;

static uint64_t rng = 0x2545f4914f6cdd1dull;
static double urand() {  // in [-1, 1)
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng >> 11) / (double)(1ull << 52) - 1.0;
}
static int irand(int n) { return (int)((urand() + 1.0) * 0.5 * n) % n; }

// Value types: the device representation and its conversions.
template <typename T> struct Val;
template <> struct Val<float> {
  static constexpr cudaDataType type = CUDA_R_32F;
  static constexpr bool complex = false;
  static constexpr double tol = 1e-5;
  static float from(cplx c) { return (float)c.real(); }
  static cplx to(float v) { return cplx(v, 0); }
};
template <> struct Val<double> {
  static constexpr cudaDataType type = CUDA_R_64F;
  static constexpr bool complex = false;
  static constexpr double tol = 1e-13;
  static double from(cplx c) { return c.real(); }
  static cplx to(double v) { return cplx(v, 0); }
};
template <> struct Val<cuComplex> {
  static constexpr cudaDataType type = CUDA_C_32F;
  static constexpr bool complex = true;
  static constexpr double tol = 1e-5;
  static cuComplex from(cplx c) { return make_cuComplex((float)c.real(), (float)c.imag()); }
  static cplx to(cuComplex v) { return cplx(v.x, v.y); }
};
template <> struct Val<cuDoubleComplex> {
  static constexpr cudaDataType type = CUDA_C_64F;
  static constexpr bool complex = true;
  static constexpr double tol = 1e-13;
  static cuDoubleComplex from(cplx c) { return make_cuDoubleComplex(c.real(), c.imag()); }
  static cplx to(cuDoubleComplex v) { return cplx(v.x, v.y); }
};

// A random value of the type (imaginary part 0 for the real types), first
// rounded to T so the CPU reference sees what the device sees.
template <typename T>
static cplx rand_val() {
  return Val<T>::to(Val<T>::from(cplx(urand(), Val<T>::complex ? urand() : 0.0)));
}

// Host CSR, 0-based. Row i holds the sorted columns cols[off[i] .. off[i+1]).
struct HostCsr {
  int64_t rows = 0, cols = 0;
  std::vector<int64_t> off{0}, col;
  std::vector<cplx> val;
  int64_t nnz() const { return (int64_t)col.size(); }
};

// rows x cols with each entry present with probability `density`; every
// `empty_every`-th row (when > 0) is left empty.
template <typename T>
static HostCsr random_csr(int64_t rows, int64_t cols, double density, int empty_every = 0) {
  HostCsr a;
  a.rows = rows;
  a.cols = cols;
  for (int64_t i = 0; i < rows; ++i) {
    const bool empty = empty_every > 0 && i % empty_every == 0;
    for (int64_t j = 0; j < cols && !empty; ++j)
      if ((urand() + 1.0) * 0.5 < density) {
        a.col.push_back(j);
        a.val.push_back(rand_val<T>());
      }
    a.off.push_back((int64_t)a.col.size());
  }
  return a;
}

// The transpose, as a host CSR (its CSR is the CSC of the original).
static HostCsr transpose(const HostCsr& a) {
  HostCsr t;
  t.rows = a.cols;
  t.cols = a.rows;
  std::vector<std::vector<std::pair<int64_t, cplx>>> lines(a.cols);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t p = a.off[i]; p < a.off[i + 1]; ++p) lines[a.col[p]].push_back({i, a.val[p]});
  for (auto& l : lines) {
    for (auto& e : l) {
      t.col.push_back(e.first);
      t.val.push_back(e.second);
    }
    t.off.push_back((int64_t)t.col.size());
  }
  return t;
}

template <typename T>
static int upload_raw(const std::vector<T>& h, void** d) {
  CHECK(cudaMalloc(d, h.size() * sizeof(T) + 16));
  if (!h.empty()) CHECK(cudaMemcpy(*d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return 0;
}

// Index arrays in 32 or 64 bits with the base added.
static int upload_index(const std::vector<int64_t>& v, bool wide, int base, void** d) {
  if (wide) {
    std::vector<int64_t> w(v);
    for (auto& x : w) x += base;
    return upload_raw(w, d);
  }
  std::vector<int> w(v.size());
  for (size_t i = 0; i < v.size(); ++i) w[i] = (int)(v[i] + base);
  return upload_raw(w, d);
}

template <typename T>
static int upload_vals(const std::vector<cplx>& v, void** d) {
  std::vector<T> w(v.size());
  for (size_t i = 0; i < v.size(); ++i) w[i] = Val<T>::from(v[i]);
  return upload_raw(w, d);
}

template <typename T>
static int download_vals(std::vector<cplx>& v, const void* d) {
  std::vector<T> w(v.size());
  if (!w.empty()) CHECK(cudaMemcpy(w.data(), d, w.size() * sizeof(T), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < v.size(); ++i) v[i] = Val<T>::to(w[i]);
  return 0;
}

// Device arrays of one compressed matrix (offsets, indices, values).
struct DevCompressed {
  void *off = nullptr, *idx = nullptr, *val = nullptr;
  ~DevCompressed() {
    cudaFree(off);
    cudaFree(idx);
    cudaFree(val);
  }
};
template <typename T>
static int upload_csr(const HostCsr& a, bool off64, bool idx64, int base, DevCompressed& d) {
  if (upload_index(a.off, off64, base, &d.off) || upload_index(a.col, idx64, base, &d.idx)) return 1;
  return upload_vals<T>(a.val, &d.val);
}

static long checks = 0, bad = 0;
// |got - ref| <= tol * scale, scale the sum of the magnitudes of the terms.
static void expect_near(cplx got, cplx ref, double tol, double scale, const char* what, long i) {
  ++checks;
  if (!(std::abs(got - ref) <= tol * (scale + 1e-30) * 4)) {
    if (++bad <= 10)
      std::printf("FAIL %s [%ld]: got (%.17g, %.17g), expected (%.17g, %.17g)\n", what, i, got.real(), got.imag(),
                  ref.real(), ref.imag());
  }
}

static cplx op_val(cplx v, cusparseOperation_t op) { return op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE ? std::conj(v) : v; }
