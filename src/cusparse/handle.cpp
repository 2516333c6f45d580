// Handle, stream, pointer mode, version, status strings and the legacy
// matrix descriptor.
#include <cstdio>
#include <new>

#include "handle.h"
#include "stubs.h"

extern "C" void softgpu_cusparse_unimplemented(const char* name, int* once) {
  if (__atomic_exchange_n(once, 1, __ATOMIC_RELAXED) == 0)
    std::fprintf(stderr, "softgpu cusparse: %s is not implemented yet\n", name);
}

extern "C" {

cusparseStatus_t cusparseCreate(cusparseHandle_t* handle) {
  if (!handle) return CUSPARSE_STATUS_INVALID_VALUE;
  *handle = nullptr;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return CUSPARSE_STATUS_NOT_INITIALIZED;
  auto* h = new (std::nothrow) cusparseContext;
  if (!h) return CUSPARSE_STATUS_ALLOC_FAILED;
  *handle = h;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDestroy(cusparseHandle_t handle) {
  if (!handle) return CUSPARSE_STATUS_NOT_INITIALIZED;
  delete handle;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseGetVersion(cusparseHandle_t handle, int* version) {
  if (!handle) return CUSPARSE_STATUS_NOT_INITIALIZED;
  if (!version) return CUSPARSE_STATUS_INVALID_VALUE;
  *version = softgpu::cusparse::kVersion;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseGetProperty(libraryPropertyType type, int* value) {
  if (!value) return CUSPARSE_STATUS_INVALID_VALUE;
  switch (type) {
    case MAJOR_VERSION: *value = CUSPARSE_VER_MAJOR; return CUSPARSE_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CUSPARSE_VER_MINOR; return CUSPARSE_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CUSPARSE_VER_PATCH; return CUSPARSE_STATUS_SUCCESS;
  }
  return CUSPARSE_STATUS_INVALID_VALUE;
}

cusparseStatus_t cusparseSetStream(cusparseHandle_t handle, cudaStream_t streamId) {
  if (!handle) return CUSPARSE_STATUS_NOT_INITIALIZED;
  handle->stream = streamId;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseGetStream(cusparseHandle_t handle, cudaStream_t* streamId) {
  if (!handle) return CUSPARSE_STATUS_NOT_INITIALIZED;
  if (!streamId) return CUSPARSE_STATUS_INVALID_VALUE;
  *streamId = handle->stream;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseGetPointerMode(cusparseHandle_t handle, cusparsePointerMode_t* mode) {
  if (!handle) return CUSPARSE_STATUS_NOT_INITIALIZED;
  if (!mode) return CUSPARSE_STATUS_INVALID_VALUE;
  *mode = handle->pointer_mode;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSetPointerMode(cusparseHandle_t handle, cusparsePointerMode_t mode) {
  if (!handle) return CUSPARSE_STATUS_NOT_INITIALIZED;
  if (mode != CUSPARSE_POINTER_MODE_HOST && mode != CUSPARSE_POINTER_MODE_DEVICE) return CUSPARSE_STATUS_INVALID_VALUE;
  handle->pointer_mode = mode;
  return CUSPARSE_STATUS_SUCCESS;
}

const char* cusparseGetErrorName(cusparseStatus_t status) {
  switch (status) {
    case CUSPARSE_STATUS_SUCCESS: return "CUSPARSE_STATUS_SUCCESS";
    case CUSPARSE_STATUS_NOT_INITIALIZED: return "CUSPARSE_STATUS_NOT_INITIALIZED";
    case CUSPARSE_STATUS_ALLOC_FAILED: return "CUSPARSE_STATUS_ALLOC_FAILED";
    case CUSPARSE_STATUS_INVALID_VALUE: return "CUSPARSE_STATUS_INVALID_VALUE";
    case CUSPARSE_STATUS_ARCH_MISMATCH: return "CUSPARSE_STATUS_ARCH_MISMATCH";
    case CUSPARSE_STATUS_MAPPING_ERROR: return "CUSPARSE_STATUS_MAPPING_ERROR";
    case CUSPARSE_STATUS_EXECUTION_FAILED: return "CUSPARSE_STATUS_EXECUTION_FAILED";
    case CUSPARSE_STATUS_INTERNAL_ERROR: return "CUSPARSE_STATUS_INTERNAL_ERROR";
    case CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED: return "CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case CUSPARSE_STATUS_ZERO_PIVOT: return "CUSPARSE_STATUS_ZERO_PIVOT";
    case CUSPARSE_STATUS_NOT_SUPPORTED: return "CUSPARSE_STATUS_NOT_SUPPORTED";
    case CUSPARSE_STATUS_INSUFFICIENT_RESOURCES: return "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES";
  }
  return "CUSPARSE_STATUS_UNKNOWN";
}

const char* cusparseGetErrorString(cusparseStatus_t status) {
  switch (status) {
    case CUSPARSE_STATUS_SUCCESS: return "success";
    case CUSPARSE_STATUS_NOT_INITIALIZED: return "initialization error";
    case CUSPARSE_STATUS_ALLOC_FAILED: return "out of memory";
    case CUSPARSE_STATUS_INVALID_VALUE: return "invalid value";
    case CUSPARSE_STATUS_ARCH_MISMATCH: return "architecture mismatch";
    case CUSPARSE_STATUS_MAPPING_ERROR: return "mapping error";
    case CUSPARSE_STATUS_EXECUTION_FAILED: return "execution failed";
    case CUSPARSE_STATUS_INTERNAL_ERROR: return "internal operation failed";
    case CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED: return "matrix type not supported";
    case CUSPARSE_STATUS_ZERO_PIVOT: return "zero pivot";
    case CUSPARSE_STATUS_NOT_SUPPORTED: return "operation not supported";
    case CUSPARSE_STATUS_INSUFFICIENT_RESOURCES: return "insufficient resources";
  }
  return "unknown error";
}

// The legacy descriptor. A getter given a null descriptor returns the default.
cusparseStatus_t cusparseCreateMatDescr(cusparseMatDescr_t* descrA) {
  if (!descrA) return CUSPARSE_STATUS_INVALID_VALUE;
  *descrA = new (std::nothrow) cusparseMatDescr;
  return *descrA ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_ALLOC_FAILED;
}

cusparseStatus_t cusparseDestroyMatDescr(cusparseMatDescr_t descrA) {
  delete descrA;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSetMatType(cusparseMatDescr_t descrA, cusparseMatrixType_t type) {
  if (!descrA || type < CUSPARSE_MATRIX_TYPE_GENERAL || type > CUSPARSE_MATRIX_TYPE_TRIANGULAR)
    return CUSPARSE_STATUS_INVALID_VALUE;
  descrA->type = type;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseMatrixType_t cusparseGetMatType(const cusparseMatDescr_t descrA) {
  return descrA ? descrA->type : CUSPARSE_MATRIX_TYPE_GENERAL;
}

cusparseStatus_t cusparseSetMatFillMode(cusparseMatDescr_t descrA, cusparseFillMode_t fillMode) {
  if (!descrA || (fillMode != CUSPARSE_FILL_MODE_LOWER && fillMode != CUSPARSE_FILL_MODE_UPPER))
    return CUSPARSE_STATUS_INVALID_VALUE;
  descrA->fill = fillMode;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseFillMode_t cusparseGetMatFillMode(const cusparseMatDescr_t descrA) {
  return descrA ? descrA->fill : CUSPARSE_FILL_MODE_LOWER;
}

cusparseStatus_t cusparseSetMatDiagType(cusparseMatDescr_t descrA, cusparseDiagType_t diagType) {
  if (!descrA || (diagType != CUSPARSE_DIAG_TYPE_NON_UNIT && diagType != CUSPARSE_DIAG_TYPE_UNIT))
    return CUSPARSE_STATUS_INVALID_VALUE;
  descrA->diag = diagType;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseDiagType_t cusparseGetMatDiagType(const cusparseMatDescr_t descrA) {
  return descrA ? descrA->diag : CUSPARSE_DIAG_TYPE_NON_UNIT;
}

cusparseStatus_t cusparseSetMatIndexBase(cusparseMatDescr_t descrA, cusparseIndexBase_t base) {
  if (!descrA || !softgpu::cusparse::index_base(base)) return CUSPARSE_STATUS_INVALID_VALUE;
  descrA->base = base;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseIndexBase_t cusparseGetMatIndexBase(const cusparseMatDescr_t descrA) {
  return descrA ? descrA->base : CUSPARSE_INDEX_BASE_ZERO;
}

}  // extern "C"
