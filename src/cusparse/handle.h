// The cuSPARSE handle, the descriptors, and what the entry points share.
#pragma once

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <cstdint>

#include "kernels.h"

struct cusparseContext {
  cudaStream_t stream = nullptr;
  cusparsePointerMode_t pointer_mode = CUSPARSE_POINTER_MODE_HOST;
};

// The legacy descriptor (cusparseCreateMatDescr): kept for the programs
// that set it up, though no implemented routine takes one.
struct cusparseMatDescr {
  cusparseMatrixType_t type = CUSPARSE_MATRIX_TYPE_GENERAL;
  cusparseFillMode_t fill = CUSPARSE_FILL_MODE_LOWER;
  cusparseDiagType_t diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
  cusparseIndexBase_t base = CUSPARSE_INDEX_BASE_ZERO;
};

// A CSR or CSC matrix: offsets has rows + 1 (CSC: cols + 1) entries.
struct cusparseSpMatDescr {
  cusparseFormat_t format = CUSPARSE_FORMAT_CSR;
  int64_t rows = 0, cols = 0, nnz = 0;
  void* offsets = nullptr;
  void* indices = nullptr;
  void* values = nullptr;
  cusparseIndexType_t offsets_type = CUSPARSE_INDEX_32I;
  cusparseIndexType_t indices_type = CUSPARSE_INDEX_32I;
  cusparseIndexBase_t base = CUSPARSE_INDEX_BASE_ZERO;
  cudaDataType value_type = CUDA_R_32F;
  cusparseFillMode_t fill = CUSPARSE_FILL_MODE_LOWER;  // attributes (SpMatGet/SetAttribute)
  cusparseDiagType_t diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
};

struct cusparseDnVecDescr {
  int64_t size = 0;
  void* values = nullptr;
  cudaDataType value_type = CUDA_R_32F;
};

struct cusparseDnMatDescr {
  int64_t rows = 0, cols = 0, ld = 0;
  void* values = nullptr;
  cudaDataType value_type = CUDA_R_32F;
  cusparseOrder_t order = CUSPARSE_ORDER_COL;
};

namespace softgpu::cusparse {

// As cusparseGetVersion reports it: major*1000 + minor*100 + patch.
constexpr int kVersion = CUSPARSE_VERSION;

inline cusparseStatus_t from_cuda(cudaError_t e) {
  return e == cudaSuccess ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_EXECUTION_FAILED;
}

// The value types the kernels take (computeType must be the same).
inline bool value_type(cudaDataType t, VType& out) {
  switch (t) {
    case CUDA_R_32F: out = VType::R32F; return true;
    case CUDA_R_64F: out = VType::R64F; return true;
    case CUDA_C_32F: out = VType::C32F; return true;
    case CUDA_C_64F: out = VType::C64F; return true;
    default: return false;
  }
}

inline bool index_type(cusparseIndexType_t t) { return t == CUSPARSE_INDEX_32I || t == CUSPARSE_INDEX_64I; }
inline bool index_base(cusparseIndexBase_t b) { return b == CUSPARSE_INDEX_BASE_ZERO || b == CUSPARSE_INDEX_BASE_ONE; }

// The values pointer of a descriptor (Get/SetValues of each kind); a null
// descriptor or pointer is INVALID_VALUE.
template <typename D, typename P>
cusparseStatus_t get_values(D d, P** values) {
  if (!d || !values) return CUSPARSE_STATUS_INVALID_VALUE;
  *values = d->values;
  return CUSPARSE_STATUS_SUCCESS;
}
template <typename D>
cusparseStatus_t set_values(D d, void* values) {
  if (!d || !values) return CUSPARSE_STATUS_INVALID_VALUE;
  d->values = values;
  return CUSPARSE_STATUS_SUCCESS;
}

}  // namespace softgpu::cusparse
