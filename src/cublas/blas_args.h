// What the BLAS routines share before they launch (blas.cpp, blas_more.cpp):
// BLAS increments, scalars in either pointer mode, reductions' results,
// operation and leading-dimension checks.
#pragma once
#include <cstdint>

#include "handle.h"

namespace softgpu::cublas {

// Increments are BLAS-style: a negative one walks the vector backwards from
// its last element, so the kernels get the lowest address.
template <typename T>
inline T* base(T* p, int n, int inc) {
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

inline bool at_least(int ld, int rows) { return ld >= (rows > 1 ? rows : 1); }

}  // namespace softgpu::cublas
