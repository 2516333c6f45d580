// Shared helpers for the libcudart.so.13 C ABI layer: argument marshalling
// only; the logic lives in softgpu::runtime.
#pragma once
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>

#include <exception>
#include <new>

#include "runtime/runtime.h"

namespace softgpu::cudart {

inline runtime::Runtime& rt() { return runtime::Runtime::process(); }

inline cudaError_t to_cuda(Status s) { return static_cast<cudaError_t>(static_cast<int>(s)); }

inline Dim3 to_dim(const dim3& d) { return {d.x, d.y, d.z}; }

inline runtime::CopyKind to_kind(cudaMemcpyKind k) { return static_cast<runtime::CopyKind>(static_cast<int>(k)); }

// Runs f (returning Status) and turns any escaping exception into an error
// code: nothing may unwind into the C program.
template <class F>
cudaError_t call(F&& f) noexcept {
  try {
    return to_cuda(f());
  } catch (const std::bad_alloc&) {
    return cudaErrorMemoryAllocation;
  } catch (...) {
    return cudaErrorUnknown;
  }
}

}  // namespace softgpu::cudart
