// softgpu cuSPARSE's device kernels: CSR/CSC sparse matrix times dense
// vector (SpMV) and dense matrix (SpMM). Compiled by nvcc into the library's
// own fatbinary, registered with softgpu's libcudart like a program's
// kernels and run on the software GPU.
//
// op(M) = M walks M's lines (one thread per element of the result, entries
// added in storage order); op(M) = M^T scatters each line's contributions
// with atomic adds after the result is scaled by beta, so its summation
// order is not fixed.
#include "kernels.h"

#include <cuda_runtime.h>

#include <cstring>

namespace softgpu::cusparse {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return unsigned(b < 1 ? 1 : (b > 4096 ? 4096 : b));
}

// Arithmetic on the four value types.
__device__ __forceinline__ float add(float a, float b) { return a + b; }
__device__ __forceinline__ double add(double a, double b) { return a + b; }
__device__ __forceinline__ float2 add(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ double2 add(double2 a, double2 b) { return make_double2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float mul(float a, float b) { return a * b; }
__device__ __forceinline__ double mul(double a, double b) { return a * b; }
__device__ __forceinline__ float2 mul(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__device__ __forceinline__ double2 mul(double2 a, double2 b) {
  return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__device__ __forceinline__ float conj_if(float a, bool) { return a; }
__device__ __forceinline__ double conj_if(double a, bool) { return a; }
__device__ __forceinline__ float2 conj_if(float2 a, bool c) { return c ? make_float2(a.x, -a.y) : a; }
__device__ __forceinline__ double2 conj_if(double2 a, bool c) { return c ? make_double2(a.x, -a.y) : a; }
__device__ __forceinline__ bool is_zero(float a) { return a == 0.0f; }
__device__ __forceinline__ bool is_zero(double a) { return a == 0.0; }
__device__ __forceinline__ bool is_zero(float2 a) { return a.x == 0.0f && a.y == 0.0f; }
__device__ __forceinline__ bool is_zero(double2 a) { return a.x == 0.0 && a.y == 0.0; }
__device__ __forceinline__ void atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(float2* p, float2 v) {
  atomicAdd(&p->x, v.x);
  atomicAdd(&p->y, v.y);
}
__device__ __forceinline__ void atomic_add(double2* p, double2 v) {
  atomicAdd(&p->x, v.x);
  atomicAdd(&p->y, v.y);
}
template <typename T>
__device__ __forceinline__ T zero() {
  T z;
  memset(&z, 0, sizeof z);
  return z;
}

template <typename T>
__device__ __forceinline__ T pick(T value, const T* dev) {
  return dev ? *dev : value;
}

__device__ __forceinline__ int64_t load_index(const void* p, bool wide, int64_t k) {
  return wide ? static_cast<const int64_t*>(p)[k] : int64_t(static_cast<const int*>(p)[k]);
}

// Line i's entries [lo, hi) of `a`.
__device__ __forceinline__ void line(const Compressed& a, int64_t i, int64_t& lo, int64_t& hi) {
  lo = load_index(a.offsets, a.offsets64, i) - a.base;
  hi = load_index(a.offsets, a.offsets64, i + 1) - a.base;
}

__device__ __forceinline__ int64_t at(const Dense& d, int64_t r, int64_t c) {
  return d.row_major ? r * d.ld + c : r + c * d.ld;
}

// Element (r, c) of op(B).
template <typename T>
__device__ __forceinline__ T op_b(const Dense& b, bool trans, bool conj, int64_t r, int64_t c) {
  const T* v = static_cast<const T*>(b.values);
  return conj_if(v[trans ? at(b, c, r) : at(b, r, c)], conj);
}

// y = alpha M x + beta y: one thread per line of M.
template <typename T>
__global__ void spmv_lines(Compressed a, bool conj, T alpha, const T* alpha_dev, const T* x, T beta,
                           const T* beta_dev, T* y) {
  const T al = pick(alpha, alpha_dev), be = pick(beta, beta_dev);
  const T* val = static_cast<const T*>(a.values);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < a.major; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t lo, hi;
    line(a, i, lo, hi);
    T acc = zero<T>();
    for (int64_t p = lo; p < hi; ++p)
      acc = add(acc, mul(conj_if(val[p], conj), x[load_index(a.indices, a.indices64, p) - a.base]));
    const T r = mul(al, acc);
    y[i] = is_zero(be) ? r : add(r, mul(be, y[i]));
  }
}

// C (m x n) = beta C, or 0 when beta == 0 (C not read).
template <typename T>
__global__ void scale_dense(Dense c, int64_t m, int64_t n, T beta, const T* beta_dev) {
  const T be = pick(beta, beta_dev);
  T* v = static_cast<T*>(c.values);
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < m * n; k += int64_t(gridDim.x) * blockDim.x) {
    const int64_t e = at(c, k % m, k / m);
    v[e] = is_zero(be) ? zero<T>() : mul(be, v[e]);
  }
}

// y += alpha M^T x: line i of M adds val * alpha x[i] to y[index].
template <typename T>
__global__ void spmv_scatter(Compressed a, bool conj, T alpha, const T* alpha_dev, const T* x, T* y) {
  const T al = pick(alpha, alpha_dev);
  const T* val = static_cast<const T*>(a.values);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < a.major; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t lo, hi;
    line(a, i, lo, hi);
    const T xi = mul(al, x[i]);
    for (int64_t p = lo; p < hi; ++p)
      atomic_add(&y[load_index(a.indices, a.indices64, p) - a.base], mul(conj_if(val[p], conj), xi));
  }
}

// C = alpha M op(B) + beta C: one thread per element of C (m = M's lines).
template <typename T>
__global__ void spmm_lines(Compressed a, bool conj, Dense b, bool trans_b, bool conj_b, T alpha, const T* alpha_dev,
                           T beta, const T* beta_dev, Dense c, int64_t n) {
  const T al = pick(alpha, alpha_dev), be = pick(beta, beta_dev);
  const T* val = static_cast<const T*>(a.values);
  T* cv = static_cast<T*>(c.values);
  const int64_t m = a.major;
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < m * n; k += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = k % m, j = k / m;
    int64_t lo, hi;
    line(a, i, lo, hi);
    T acc = zero<T>();
    for (int64_t p = lo; p < hi; ++p)
      acc = add(acc, mul(conj_if(val[p], conj),
                         op_b<T>(b, trans_b, conj_b, load_index(a.indices, a.indices64, p) - a.base, j)));
    const int64_t e = at(c, i, j);
    const T r = mul(al, acc);
    cv[e] = is_zero(be) ? r : add(r, mul(be, cv[e]));
  }
}

// C += alpha M^T op(B): thread (r, j) scatters line r of M times op(B)(r, j).
template <typename T>
__global__ void spmm_scatter(Compressed a, bool conj, Dense b, bool trans_b, bool conj_b, T alpha, const T* alpha_dev,
                             Dense c, int64_t n) {
  const T al = pick(alpha, alpha_dev);
  const T* val = static_cast<const T*>(a.values);
  T* cv = static_cast<T*>(c.values);
  const int64_t lines = a.major;
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < lines * n;
       k += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = k % lines, j = k / lines;
    int64_t lo, hi;
    line(a, r, lo, hi);
    const T bv = mul(al, op_b<T>(b, trans_b, conj_b, r, j));
    for (int64_t p = lo; p < hi; ++p)
      atomic_add(&cv[at(c, load_index(a.indices, a.indices64, p) - a.base, j)], mul(conj_if(val[p], conj), bv));
  }
}

template <typename T>
T host_value(const Scalar& s) {
  T v;
  std::memcpy(&v, s.host, sizeof v);
  return v;
}

template <typename T>
cudaError_t spmv(cudaStream_t s, const Compressed& a, bool trans, bool conj, const Scalar& alpha, const void* x,
                 const Scalar& beta, void* y) {
  const T al = host_value<T>(alpha), be = host_value<T>(beta);
  const T* ad = static_cast<const T*>(alpha.dev);
  const T* bd = static_cast<const T*>(beta.dev);
  const T* xv = static_cast<const T*>(x);
  T* yv = static_cast<T*>(y);
  if (!trans) {
    if (a.major > 0) spmv_lines<T><<<blocks_for(a.major), kThreads, 0, s>>>(a, conj, al, ad, xv, be, bd, yv);
    return cudaGetLastError();
  }
  if (a.minor == 0) return cudaSuccess;
  Dense yd{y, a.minor, false};
  scale_dense<T><<<blocks_for(a.minor), kThreads, 0, s>>>(yd, a.minor, 1, be, bd);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  if (a.major > 0) spmv_scatter<T><<<blocks_for(a.major), kThreads, 0, s>>>(a, conj, al, ad, xv, yv);
  return cudaGetLastError();
}

template <typename T>
cudaError_t spmm(cudaStream_t s, const Compressed& a, bool trans_a, bool conj_a, const Dense& b, bool trans_b,
                 bool conj_b, const Scalar& alpha, const Scalar& beta, const Dense& c, int64_t m, int64_t n) {
  const T al = host_value<T>(alpha), be = host_value<T>(beta);
  const T* ad = static_cast<const T*>(alpha.dev);
  const T* bd = static_cast<const T*>(beta.dev);
  if (m == 0 || n == 0) return cudaSuccess;
  if (!trans_a) {
    spmm_lines<T><<<blocks_for(m * n), kThreads, 0, s>>>(a, conj_a, b, trans_b, conj_b, al, ad, be, bd, c, n);
    return cudaGetLastError();
  }
  scale_dense<T><<<blocks_for(m * n), kThreads, 0, s>>>(c, m, n, be, bd);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  if (a.major > 0)
    spmm_scatter<T><<<blocks_for(a.major * n), kThreads, 0, s>>>(a, conj_a, b, trans_b, conj_b, al, ad, c, n);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_spmv(cudaStream_t s, VType t, const Compressed& a, bool trans, bool conj, const Scalar& alpha,
                        const void* x, const Scalar& beta, void* y) {
  switch (t) {
    case VType::R32F: return spmv<float>(s, a, trans, conj, alpha, x, beta, y);
    case VType::R64F: return spmv<double>(s, a, trans, conj, alpha, x, beta, y);
    case VType::C32F: return spmv<float2>(s, a, trans, conj, alpha, x, beta, y);
    case VType::C64F: return spmv<double2>(s, a, trans, conj, alpha, x, beta, y);
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch_spmm(cudaStream_t s, VType t, const Compressed& a, bool trans_a, bool conj_a, const Dense& b,
                        bool trans_b, bool conj_b, const Scalar& alpha, const Scalar& beta, const Dense& c, int64_t m,
                        int64_t n) {
  switch (t) {
    case VType::R32F: return spmm<float>(s, a, trans_a, conj_a, b, trans_b, conj_b, alpha, beta, c, m, n);
    case VType::R64F: return spmm<double>(s, a, trans_a, conj_a, b, trans_b, conj_b, alpha, beta, c, m, n);
    case VType::C32F: return spmm<float2>(s, a, trans_a, conj_a, b, trans_b, conj_b, alpha, beta, c, m, n);
    case VType::C64F: return spmm<double2>(s, a, trans_a, conj_a, b, trans_b, conj_b, alpha, beta, c, m, n);
  }
  return cudaErrorInvalidValue;
}

}  // namespace softgpu::cusparse
