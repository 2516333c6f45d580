// Shared helpers for the libcudart.so.13 C ABI layer: argument marshalling
// only; the logic lives in softgpu::runtime.
#pragma once
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>

#include <exception>
#include <new>
#include <source_location>

#include "runtime/runtime.h"

namespace softgpu::cudart {

inline runtime::Runtime& rt() { return runtime::Runtime::process(); }

inline cudaError_t to_cuda(Status s) { return static_cast<cudaError_t>(static_cast<int>(s)); }

inline Dim3 to_dim(const dim3& d) { return {d.x, d.y, d.z}; }

inline runtime::CopyKind to_kind(cudaMemcpyKind k) { return static_cast<runtime::CopyKind>(static_cast<int>(k)); }

// A failed call, for the sanitizers ("Program hit ... on CUDA API call to
// cudaMalloc"); `function` is the calling function's signature.
void note_api_error(const char* function, cudaError_t e) noexcept;

// Adds delta to the calling thread's count of driver API calls in progress
// (softgpu's libcuda.so.1 calls cudart); returns the new count. While it is
// positive, failing calls are not reported as cudart's (errors.cpp).
int driver_call_depth(int delta) noexcept;

// cudaSetDevice's effect on the driver API (cudart_library.cpp).
void make_primary_context_current(int device) noexcept;

// Runs f (returning Status) and turns any escaping exception into an error
// code: nothing may unwind into the C program.
template <class F>
cudaError_t call(F&& f, std::source_location loc = std::source_location::current()) noexcept {
  cudaError_t e;
  try {
    e = to_cuda(f());
  } catch (const std::bad_alloc&) {
    e = cudaErrorMemoryAllocation;
  } catch (...) {
    e = cudaErrorUnknown;
  }
  if (e != cudaSuccess && e != cudaErrorNotReady) note_api_error(loc.function_name(), e);
  return e;
}

}  // namespace softgpu::cudart
