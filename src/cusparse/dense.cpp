// The generic API's dense descriptors: vectors and matrices (column- or
// row-major; no strided batches). They hold the caller's device pointers.
#include <new>

#include "handle.h"

namespace {

using softgpu::cusparse::get_values;
using softgpu::cusparse::set_values;

cusparseStatus_t create_dn_mat(cusparseDnMatDescr_t* out, int64_t rows, int64_t cols, int64_t ld, const void* values,
                               cudaDataType type, cusparseOrder_t order) {
  if (!out) return CUSPARSE_STATUS_INVALID_VALUE;
  *out = nullptr;
  if (rows < 0 || cols < 0 || (order != CUSPARSE_ORDER_COL && order != CUSPARSE_ORDER_ROW))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int64_t lead = order == CUSPARSE_ORDER_COL ? rows : cols;
  if (ld < (lead > 1 ? lead : 1)) return CUSPARSE_STATUS_INVALID_VALUE;
  auto* d = new (std::nothrow) cusparseDnMatDescr;
  if (!d) return CUSPARSE_STATUS_ALLOC_FAILED;
  *d = {rows, cols, ld, const_cast<void*>(values), type, order};
  *out = d;
  return CUSPARSE_STATUS_SUCCESS;
}

template <typename P>
cusparseStatus_t get_dn_mat(cusparseConstDnMatDescr_t d, int64_t* rows, int64_t* cols, int64_t* ld, P** values,
                            cudaDataType* type, cusparseOrder_t* order) {
  if (!d || !rows || !cols || !ld || !values || !type || !order) return CUSPARSE_STATUS_INVALID_VALUE;
  *rows = d->rows;
  *cols = d->cols;
  *ld = d->ld;
  *values = d->values;
  *type = d->value_type;
  *order = d->order;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t create_dn_vec(cusparseDnVecDescr_t* out, int64_t size, const void* values, cudaDataType type) {
  if (!out) return CUSPARSE_STATUS_INVALID_VALUE;
  *out = nullptr;
  if (size < 0) return CUSPARSE_STATUS_INVALID_VALUE;
  auto* d = new (std::nothrow) cusparseDnVecDescr;
  if (!d) return CUSPARSE_STATUS_ALLOC_FAILED;
  *d = {size, const_cast<void*>(values), type};
  *out = d;
  return CUSPARSE_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

cusparseStatus_t cusparseCreateDnVec(cusparseDnVecDescr_t* dnVecDescr, int64_t size, void* values,
                                     cudaDataType valueType) {
  return create_dn_vec(dnVecDescr, size, values, valueType);
}

cusparseStatus_t cusparseCreateConstDnVec(cusparseConstDnVecDescr_t* dnVecDescr, int64_t size, const void* values,
                                          cudaDataType valueType) {
  return create_dn_vec(const_cast<cusparseDnVecDescr_t*>(dnVecDescr), size, values, valueType);
}

cusparseStatus_t cusparseDestroyDnVec(cusparseConstDnVecDescr_t dnVecDescr) {
  delete dnVecDescr;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDnVecGet(cusparseDnVecDescr_t dnVecDescr, int64_t* size, void** values,
                                  cudaDataType* valueType) {
  if (!dnVecDescr || !size || !values || !valueType) return CUSPARSE_STATUS_INVALID_VALUE;
  *size = dnVecDescr->size;
  *values = dnVecDescr->values;
  *valueType = dnVecDescr->value_type;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseConstDnVecGet(cusparseConstDnVecDescr_t dnVecDescr, int64_t* size, const void** values,
                                       cudaDataType* valueType) {
  if (!dnVecDescr || !size || !values || !valueType) return CUSPARSE_STATUS_INVALID_VALUE;
  *size = dnVecDescr->size;
  *values = dnVecDescr->values;
  *valueType = dnVecDescr->value_type;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDnVecGetValues(cusparseDnVecDescr_t dnVecDescr, void** values) {
  return get_values(dnVecDescr, values);
}

cusparseStatus_t cusparseConstDnVecGetValues(cusparseConstDnVecDescr_t dnVecDescr, const void** values) {
  return get_values(dnVecDescr, values);
}

cusparseStatus_t cusparseDnVecSetValues(cusparseDnVecDescr_t dnVecDescr, void* values) {
  return set_values(dnVecDescr, values);
}

cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t* dnMatDescr, int64_t rows, int64_t cols, int64_t ld,
                                     void* values, cudaDataType valueType, cusparseOrder_t order) {
  return create_dn_mat(dnMatDescr, rows, cols, ld, values, valueType, order);
}

cusparseStatus_t cusparseCreateConstDnMat(cusparseConstDnMatDescr_t* dnMatDescr, int64_t rows, int64_t cols,
                                          int64_t ld, const void* values, cudaDataType valueType,
                                          cusparseOrder_t order) {
  return create_dn_mat(const_cast<cusparseDnMatDescr_t*>(dnMatDescr), rows, cols, ld, values, valueType, order);
}

cusparseStatus_t cusparseDestroyDnMat(cusparseConstDnMatDescr_t dnMatDescr) {
  delete dnMatDescr;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDnMatGet(cusparseDnMatDescr_t dnMatDescr, int64_t* rows, int64_t* cols, int64_t* ld,
                                  void** values, cudaDataType* type, cusparseOrder_t* order) {
  return get_dn_mat(dnMatDescr, rows, cols, ld, values, type, order);
}

cusparseStatus_t cusparseConstDnMatGet(cusparseConstDnMatDescr_t dnMatDescr, int64_t* rows, int64_t* cols,
                                       int64_t* ld, const void** values, cudaDataType* type, cusparseOrder_t* order) {
  return get_dn_mat(dnMatDescr, rows, cols, ld, values, type, order);
}

cusparseStatus_t cusparseDnMatGetValues(cusparseDnMatDescr_t dnMatDescr, void** values) {
  return get_values(dnMatDescr, values);
}

cusparseStatus_t cusparseConstDnMatGetValues(cusparseConstDnMatDescr_t dnMatDescr, const void** values) {
  return get_values(dnMatDescr, values);
}

cusparseStatus_t cusparseDnMatSetValues(cusparseDnMatDescr_t dnMatDescr, void* values) {
  return set_values(dnMatDescr, values);
}

cusparseStatus_t cusparseDnMatGetStridedBatch(cusparseConstDnMatDescr_t dnMatDescr, int* batchCount,
                                              int64_t* batchStride) {
  if (!dnMatDescr || !batchCount || !batchStride) return CUSPARSE_STATUS_INVALID_VALUE;
  *batchCount = 1;
  *batchStride = 0;
  return CUSPARSE_STATUS_SUCCESS;
}

}  // extern "C"
