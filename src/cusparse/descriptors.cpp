// The generic API's sparse matrix descriptors, CSR and CSC (no strided
// batches). They hold the caller's device pointers and do not depend on a handle.
#include <new>

#include "handle.h"

namespace {

using softgpu::cusparse::get_values;
using softgpu::cusparse::index_base;
using softgpu::cusparse::index_type;
using softgpu::cusparse::set_values;

// CSR (offsets over rows) or CSC (over columns). Null arrays are accepted
// here (cusparseCsrSetPointers may supply them later); the products check them.
cusparseStatus_t create_compressed(cusparseSpMatDescr_t* out, cusparseFormat_t format, int64_t rows, int64_t cols,
                                   int64_t nnz, const void* offsets, const void* indices, const void* values,
                                   cusparseIndexType_t offsets_type, cusparseIndexType_t indices_type,
                                   cusparseIndexBase_t base, cudaDataType value_type) {
  if (!out) return CUSPARSE_STATUS_INVALID_VALUE;
  *out = nullptr;
  if (rows < 0 || cols < 0 || nnz < 0 || !index_base(base)) return CUSPARSE_STATUS_INVALID_VALUE;
  if (!index_type(offsets_type) || !index_type(indices_type)) return CUSPARSE_STATUS_NOT_SUPPORTED;
  auto* d = new (std::nothrow) cusparseSpMatDescr;
  if (!d) return CUSPARSE_STATUS_ALLOC_FAILED;
  d->format = format;
  d->rows = rows;
  d->cols = cols;
  d->nnz = nnz;
  d->offsets = const_cast<void*>(offsets);
  d->indices = const_cast<void*>(indices);
  d->values = const_cast<void*>(values);
  d->offsets_type = offsets_type;
  d->indices_type = indices_type;
  d->base = base;
  d->value_type = value_type;
  *out = d;
  return CUSPARSE_STATUS_SUCCESS;
}

template <typename P>
cusparseStatus_t get_compressed(cusparseConstSpMatDescr_t d, cusparseFormat_t format, int64_t* rows, int64_t* cols,
                                int64_t* nnz, P** offsets, P** indices, P** values, cusparseIndexType_t* offsets_type,
                                cusparseIndexType_t* indices_type, cusparseIndexBase_t* base,
                                cudaDataType* value_type) {
  if (!d || !rows || !cols || !nnz || !offsets || !indices || !values || !offsets_type || !indices_type || !base ||
      !value_type || d->format != format)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *rows = d->rows;
  *cols = d->cols;
  *nnz = d->nnz;
  *offsets = d->offsets;
  *indices = d->indices;
  *values = d->values;
  *offsets_type = d->offsets_type;
  *indices_type = d->indices_type;
  *base = d->base;
  *value_type = d->value_type;
  return CUSPARSE_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t* spMatDescr, int64_t rows, int64_t cols, int64_t nnz,
                                   void* csrRowOffsets, void* csrColInd, void* csrValues,
                                   cusparseIndexType_t csrRowOffsetsType, cusparseIndexType_t csrColIndType,
                                   cusparseIndexBase_t idxBase, cudaDataType valueType) {
  return create_compressed(spMatDescr, CUSPARSE_FORMAT_CSR, rows, cols, nnz, csrRowOffsets, csrColInd, csrValues,
                           csrRowOffsetsType, csrColIndType, idxBase, valueType);
}

cusparseStatus_t cusparseCreateConstCsr(cusparseConstSpMatDescr_t* spMatDescr, int64_t rows, int64_t cols,
                                        int64_t nnz, const void* csrRowOffsets, const void* csrColInd,
                                        const void* csrValues, cusparseIndexType_t csrRowOffsetsType,
                                        cusparseIndexType_t csrColIndType, cusparseIndexBase_t idxBase,
                                        cudaDataType valueType) {
  return create_compressed(const_cast<cusparseSpMatDescr_t*>(spMatDescr), CUSPARSE_FORMAT_CSR, rows, cols, nnz,
                           csrRowOffsets, csrColInd, csrValues, csrRowOffsetsType, csrColIndType, idxBase, valueType);
}

cusparseStatus_t cusparseCreateCsc(cusparseSpMatDescr_t* spMatDescr, int64_t rows, int64_t cols, int64_t nnz,
                                   void* cscColOffsets, void* cscRowInd, void* cscValues,
                                   cusparseIndexType_t cscColOffsetsType, cusparseIndexType_t cscRowIndType,
                                   cusparseIndexBase_t idxBase, cudaDataType valueType) {
  return create_compressed(spMatDescr, CUSPARSE_FORMAT_CSC, rows, cols, nnz, cscColOffsets, cscRowInd, cscValues,
                           cscColOffsetsType, cscRowIndType, idxBase, valueType);
}

cusparseStatus_t cusparseCreateConstCsc(cusparseConstSpMatDescr_t* spMatDescr, int64_t rows, int64_t cols,
                                        int64_t nnz, const void* cscColOffsets, const void* cscRowInd,
                                        const void* cscValues, cusparseIndexType_t cscColOffsetsType,
                                        cusparseIndexType_t cscRowIndType, cusparseIndexBase_t idxBase,
                                        cudaDataType valueType) {
  return create_compressed(const_cast<cusparseSpMatDescr_t*>(spMatDescr), CUSPARSE_FORMAT_CSC, rows, cols, nnz,
                           cscColOffsets, cscRowInd, cscValues, cscColOffsetsType, cscRowIndType, idxBase, valueType);
}

cusparseStatus_t cusparseCsrGet(cusparseSpMatDescr_t spMatDescr, int64_t* rows, int64_t* cols, int64_t* nnz,
                                void** csrRowOffsets, void** csrColInd, void** csrValues,
                                cusparseIndexType_t* csrRowOffsetsType, cusparseIndexType_t* csrColIndType,
                                cusparseIndexBase_t* idxBase, cudaDataType* valueType) {
  return get_compressed(spMatDescr, CUSPARSE_FORMAT_CSR, rows, cols, nnz, csrRowOffsets, csrColInd, csrValues,
                        csrRowOffsetsType, csrColIndType, idxBase, valueType);
}

cusparseStatus_t cusparseConstCsrGet(cusparseConstSpMatDescr_t spMatDescr, int64_t* rows, int64_t* cols,
                                     int64_t* nnz, const void** csrRowOffsets, const void** csrColInd,
                                     const void** csrValues, cusparseIndexType_t* csrRowOffsetsType,
                                     cusparseIndexType_t* csrColIndType, cusparseIndexBase_t* idxBase,
                                     cudaDataType* valueType) {
  return get_compressed(spMatDescr, CUSPARSE_FORMAT_CSR, rows, cols, nnz, csrRowOffsets, csrColInd, csrValues,
                        csrRowOffsetsType, csrColIndType, idxBase, valueType);
}

cusparseStatus_t cusparseCscGet(cusparseSpMatDescr_t spMatDescr, int64_t* rows, int64_t* cols, int64_t* nnz,
                                void** cscColOffsets, void** cscRowInd, void** cscValues,
                                cusparseIndexType_t* cscColOffsetsType, cusparseIndexType_t* cscRowIndType,
                                cusparseIndexBase_t* idxBase, cudaDataType* valueType) {
  return get_compressed(spMatDescr, CUSPARSE_FORMAT_CSC, rows, cols, nnz, cscColOffsets, cscRowInd, cscValues,
                        cscColOffsetsType, cscRowIndType, idxBase, valueType);
}

cusparseStatus_t cusparseConstCscGet(cusparseConstSpMatDescr_t spMatDescr, int64_t* rows, int64_t* cols,
                                     int64_t* nnz, const void** cscColOffsets, const void** cscRowInd,
                                     const void** cscValues, cusparseIndexType_t* cscColOffsetsType,
                                     cusparseIndexType_t* cscRowIndType, cusparseIndexBase_t* idxBase,
                                     cudaDataType* valueType) {
  return get_compressed(spMatDescr, CUSPARSE_FORMAT_CSC, rows, cols, nnz, cscColOffsets, cscRowInd, cscValues,
                        cscColOffsetsType, cscRowIndType, idxBase, valueType);
}

cusparseStatus_t cusparseCsrSetPointers(cusparseSpMatDescr_t spMatDescr, void* csrRowOffsets, void* csrColInd,
                                        void* csrValues) {
  if (!spMatDescr || spMatDescr->format != CUSPARSE_FORMAT_CSR || !csrRowOffsets) return CUSPARSE_STATUS_INVALID_VALUE;
  spMatDescr->offsets = csrRowOffsets;
  spMatDescr->indices = csrColInd;
  spMatDescr->values = csrValues;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseCscSetPointers(cusparseSpMatDescr_t spMatDescr, void* cscColOffsets, void* cscRowInd,
                                        void* cscValues) {
  if (!spMatDescr || spMatDescr->format != CUSPARSE_FORMAT_CSC || !cscColOffsets) return CUSPARSE_STATUS_INVALID_VALUE;
  spMatDescr->offsets = cscColOffsets;
  spMatDescr->indices = cscRowInd;
  spMatDescr->values = cscValues;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDestroySpMat(cusparseConstSpMatDescr_t spMatDescr) {
  delete spMatDescr;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMatGetFormat(cusparseConstSpMatDescr_t spMatDescr, cusparseFormat_t* format) {
  if (!spMatDescr || !format) return CUSPARSE_STATUS_INVALID_VALUE;
  *format = spMatDescr->format;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMatGetIndexBase(cusparseConstSpMatDescr_t spMatDescr, cusparseIndexBase_t* idxBase) {
  if (!spMatDescr || !idxBase) return CUSPARSE_STATUS_INVALID_VALUE;
  *idxBase = spMatDescr->base;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMatGetValues(cusparseSpMatDescr_t spMatDescr, void** values) {
  return get_values(spMatDescr, values);
}

cusparseStatus_t cusparseConstSpMatGetValues(cusparseConstSpMatDescr_t spMatDescr, const void** values) {
  return get_values(spMatDescr, values);
}

cusparseStatus_t cusparseSpMatSetValues(cusparseSpMatDescr_t spMatDescr, void* values) {
  return set_values(spMatDescr, values);
}

cusparseStatus_t cusparseSpMatGetSize(cusparseConstSpMatDescr_t spMatDescr, int64_t* rows, int64_t* cols,
                                      int64_t* nnz) {
  if (!spMatDescr || !rows || !cols || !nnz) return CUSPARSE_STATUS_INVALID_VALUE;
  *rows = spMatDescr->rows;
  *cols = spMatDescr->cols;
  *nnz = spMatDescr->nnz;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMatGetStridedBatch(cusparseConstSpMatDescr_t spMatDescr, int* batchCount) {
  if (!spMatDescr || !batchCount) return CUSPARSE_STATUS_INVALID_VALUE;
  *batchCount = 1;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMatGetAttribute(cusparseConstSpMatDescr_t spMatDescr, cusparseSpMatAttribute_t attribute,
                                           void* data, size_t dataSize) {
  if (!spMatDescr || !data) return CUSPARSE_STATUS_INVALID_VALUE;
  if (attribute == CUSPARSE_SPMAT_FILL_MODE && dataSize == sizeof(cusparseFillMode_t)) {
    *static_cast<cusparseFillMode_t*>(data) = spMatDescr->fill;
    return CUSPARSE_STATUS_SUCCESS;
  }
  if (attribute == CUSPARSE_SPMAT_DIAG_TYPE && dataSize == sizeof(cusparseDiagType_t)) {
    *static_cast<cusparseDiagType_t*>(data) = spMatDescr->diag;
    return CUSPARSE_STATUS_SUCCESS;
  }
  return CUSPARSE_STATUS_INVALID_VALUE;
}

cusparseStatus_t cusparseSpMatSetAttribute(cusparseSpMatDescr_t spMatDescr, cusparseSpMatAttribute_t attribute,
                                           void* data, size_t dataSize) {
  if (!spMatDescr || !data) return CUSPARSE_STATUS_INVALID_VALUE;
  if (attribute == CUSPARSE_SPMAT_FILL_MODE && dataSize == sizeof(cusparseFillMode_t)) {
    auto v = *static_cast<cusparseFillMode_t*>(data);
    if (v != CUSPARSE_FILL_MODE_LOWER && v != CUSPARSE_FILL_MODE_UPPER) return CUSPARSE_STATUS_INVALID_VALUE;
    spMatDescr->fill = v;
    return CUSPARSE_STATUS_SUCCESS;
  }
  if (attribute == CUSPARSE_SPMAT_DIAG_TYPE && dataSize == sizeof(cusparseDiagType_t)) {
    auto v = *static_cast<cusparseDiagType_t*>(data);
    if (v != CUSPARSE_DIAG_TYPE_NON_UNIT && v != CUSPARSE_DIAG_TYPE_UNIT) return CUSPARSE_STATUS_INVALID_VALUE;
    spMatDescr->diag = v;
    return CUSPARSE_STATUS_SUCCESS;
  }
  return CUSPARSE_STATUS_INVALID_VALUE;
}

}  // extern "C"
