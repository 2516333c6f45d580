// The cuBLAS handle and what the API entry points share.
#pragma once

#include <cublas_api.h>
#include <cuda_runtime_api.h>

struct cublasContext {
  cudaStream_t stream = nullptr;
  cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
  cublasMath_t math_mode = CUBLAS_DEFAULT_MATH;
  cublasAtomicsMode_t atomics_mode = CUBLAS_ATOMICS_NOT_ALLOWED;
  void* workspace = nullptr;  // user workspace (cublasSetWorkspace); not needed by the kernels so far
  size_t workspace_bytes = 0;
  void* scratch = nullptr;  // 16 bytes of device memory: reduction results in host pointer mode
};

namespace softgpu::cublas {

// CUDA_VERSION-style number cuBLAS reports: major*10000 + minor*100 + patch.
constexpr int kVersion = CUBLAS_VER_MAJOR * 10000 + CUBLAS_VER_MINOR * 100 + CUBLAS_VER_PATCH;

// A launch's error as a cuBLAS status.
inline cublasStatus_t from_cuda(cudaError_t e) {
  return e == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}

}  // namespace softgpu::cublas
