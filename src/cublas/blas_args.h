// What the BLAS routines share before they launch (blas.cpp, blas_more.cpp,
// blas_level3.cpp): sizes of the 32- and 64-bit entry points, BLAS
// increments, scalars in either pointer mode, reductions' results,
// operation, fill mode, diagonal and leading-dimension checks.
#pragma once
#include <cstdint>
#include <cstdio>

#include "handle.h"
#include "kernels_level3.h"

namespace softgpu::cublas {

// Every routine has a 32-bit entry point (int sizes, increments and leading
// dimensions) and an ILP64 one (cublas<name>_64: int64_t). Both are generated
// from one definition with the index type as a parameter; the routine's body
// takes int64_t increments, leading dimensions and strides (the kernels do
// too) and int sizes (m, n, k, batch count), which the kernels count in.
// kMaxSize is the largest size they take: an int less the longest grid
// stride of a loop (4096 blocks of 256 threads), so no index overflows.
constexpr int64_t kMaxSize = INT32_MAX - (int64_t(1) << 20);

// The sizes of a call of `name` before they are narrowed to int: above
// kMaxSize the call is NOT_SUPPORTED with one line on stderr (a null handle
// still NOT_INITIALIZED); negative ones stay negative (dim()) for the
// routine's own checks.
template <typename... I>
inline cublasStatus_t fit_sizes(cublasHandle_t h, const char* name, I... sizes) {
  for (int64_t v : {int64_t(sizes)...}) {
    if (v <= kMaxSize) continue;
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    std::fprintf(stderr, "softgpu cublas: %s: size %lld is more than the %lld softgpu's kernels take\n", name,
                 static_cast<long long>(v), static_cast<long long>(kMaxSize));
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  return CUBLAS_STATUS_SUCCESS;
}
inline int dim(int64_t v) { return v < 0 ? -1 : int(v); }  // after fit_sizes

// In an entry point generated for both index types: return unless every size fits.
#define SG_FIT(h, ...)                                                                       \
  if (auto st_ = ::softgpu::cublas::fit_sizes(h, __func__, __VA_ARGS__); st_ != CUBLAS_STATUS_SUCCESS) \
  return st_

// Increments are BLAS-style: a negative one walks the vector backwards from
// its last element, so the kernels get the lowest address.
template <typename T>
inline T* base(T* p, int64_t n, int64_t inc) {
  return inc < 0 ? p + static_cast<int64_t>(1 - n) * inc : p;
}

// A scalar argument: by value in host pointer mode, a device pointer in
// device pointer mode.
template <typename T>
struct Scalar {
  T value = 0;
  const T* dev = nullptr;
};
template <typename T>
inline Scalar<T> scalar(cublasHandle_t h, const T* p) {
  if (h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE) return {T(0), p};
  return {*p, nullptr};
}

// Where a reduction's kernel writes, and how the result reaches the caller:
// straight to `result` in device pointer mode; through the handle's scratch
// word and a synchronous copy in host pointer mode (the call blocks, as in
// cuBLAS).
template <typename R, typename Launch>
inline cublasStatus_t reduce(cublasHandle_t h, R* result, bool empty, Launch launch) {
  const bool host = h->pointer_mode == CUBLAS_POINTER_MODE_HOST;
  if (empty) {
    if (host) {
      *result = R(0);
      return CUBLAS_STATUS_SUCCESS;
    }
    return from_cuda(cudaMemsetAsync(result, 0, sizeof(R), h->stream));
  }
  R* out = host ? static_cast<R*>(h->scratch) : result;
  if (cudaError_t e = launch(out); e != cudaSuccess) return from_cuda(e);
  if (!host) return CUBLAS_STATUS_SUCCESS;
  if (cudaMemcpyAsync(result, out, sizeof(R), cudaMemcpyDeviceToHost, h->stream) != cudaSuccess ||
      cudaStreamSynchronize(h->stream) != cudaSuccess)
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return CUBLAS_STATUS_SUCCESS;
}

inline bool transposed(cublasOperation_t op, bool& ok) {
  ok = op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
  return op != CUBLAS_OP_N;  // real types: C is T
}

inline bool at_least(int64_t ld, int64_t rows) { return ld >= (rows > 1 ? rows : 1); }

inline bool fill_mode(cublasFillMode_t uplo, bool& upper) {
  upper = uplo == CUBLAS_FILL_MODE_UPPER;
  return uplo == CUBLAS_FILL_MODE_LOWER || upper;
}
inline bool diag_type(cublasDiagType_t diag, bool& unit) {
  unit = diag == CUBLAS_DIAG_UNIT;
  return unit || diag == CUBLAS_DIAG_NON_UNIT;
}
inline bool side_mode(cublasSideMode_t side, bool& left) {
  left = side == CUBLAS_SIDE_LEFT;
  return left || side == CUBLAS_SIDE_RIGHT;
}

// amax/amin's result, an int (32-bit entry point) or int64_t (_64): the
// kernel writes an int; an int64_t result gets it through the handle's
// scratch word.
template <typename R, typename Launch>
inline cublasStatus_t reduce_index(cublasHandle_t h, R* result, bool empty, Launch launch) {
  if constexpr (sizeof(R) == sizeof(int)) {
    return reduce(h, result, empty, launch);
  } else {
    if (h->pointer_mode == CUBLAS_POINTER_MODE_HOST) {
      int v = 0;
      const cublasStatus_t st = reduce(h, &v, empty, launch);
      if (st == CUBLAS_STATUS_SUCCESS) *result = v;
      return st;
    }
    if (empty) return from_cuda(cudaMemsetAsync(result, 0, sizeof(R), h->stream));
    int* word = static_cast<int*>(h->scratch);
    if (cudaError_t e = launch(word); e != cudaSuccess) return from_cuda(e);
    return from_cuda(launch_widen_index(h->stream, word, result));
  }
}

}  // namespace softgpu::cublas
