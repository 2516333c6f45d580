// cuBLASLt handle, versions, properties and status strings.
#include <cstdio>
#include <new>

#include "handle.h"
#include "cublas/status_names.h"

extern "C" void softgpu_cublaslt_unimplemented(const char* name, int* once);
extern "C" void softgpu_cublaslt_unimplemented(const char* name, int* once) {
  if (__atomic_exchange_n(once, 1, __ATOMIC_RELAXED) == 0)
    std::fprintf(stderr, "softgpu cublasLt: %s is not implemented yet\n", name);
}

extern "C" {

cublasStatus_t cublasLtCreate(cublasLtHandle_t* handle) {
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  *handle = nullptr;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return CUBLAS_STATUS_NOT_INITIALIZED;
  auto* h = new (std::nothrow) cublasLtContext;
  if (!h) return CUBLAS_STATUS_ALLOC_FAILED;
  h->device = device;
  *handle = h;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

// CUBLAS_VERSION-style: major*10000 + minor*100 + patch, as cublasLtGetVersion reports.
size_t cublasLtGetVersion(void) { return CUBLAS_VER_MAJOR * 10000 + CUBLAS_VER_MINOR * 100 + CUBLAS_VER_PATCH; }

size_t cublasLtGetCudartVersion(void) { return CUDART_VERSION; }

cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int* value) {
  if (!value) return CUBLAS_STATUS_INVALID_VALUE;
  switch (type) {
    case MAJOR_VERSION: *value = CUBLAS_VER_MAJOR; return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CUBLAS_VER_MINOR; return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CUBLAS_VER_PATCH; return CUBLAS_STATUS_SUCCESS;
  }
  return CUBLAS_STATUS_INVALID_VALUE;
}

const char* cublasLtGetStatusName(cublasStatus_t status) { return softgpu::cublas::status_name(status); }

const char* cublasLtGetStatusString(cublasStatus_t status) { return softgpu::cublas::status_string(status); }

}  // extern "C"
