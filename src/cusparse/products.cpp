// cusparseSpMV and cusparseSpMM (with their _bufferSize and _preprocess) on
// CSR and CSC matrices: argument checks, the pointer mode's scalars, then
// the kernels of kernels.cu on the handle's stream. The kernels need no
// workspace: the buffer size is 0 and externalBuffer is not used.
#include <cstdio>
#include <cstring>

#include "handle.h"

namespace softgpu::cusparse {
namespace {

const char* type_name(cudaDataType t) {
  switch (t) {
    case CUDA_R_16F: return "CUDA_R_16F";
    case CUDA_R_16BF: return "CUDA_R_16BF";
    case CUDA_R_32F: return "CUDA_R_32F";
    case CUDA_R_64F: return "CUDA_R_64F";
    case CUDA_C_32F: return "CUDA_C_32F";
    case CUDA_C_64F: return "CUDA_C_64F";
    case CUDA_R_8I: return "CUDA_R_8I";
    case CUDA_R_32I: return "CUDA_R_32I";
    default: return "another cudaDataType";
  }
}

size_t value_bytes(VType t) {
  return t == VType::R32F ? 4 : t == VType::C64F ? 16 : 8;
}

// One value type for everything: A's, the dense operands' and computeType
// (no mixed precision). NOT_SUPPORTED, said once per call on stderr, otherwise.
cusparseStatus_t common_type(const char* name, cudaDataType a, cudaDataType x, cudaDataType y, cudaDataType compute,
                             VType& t) {
  if (a == x && a == y && a == compute && value_type(compute, t)) return CUSPARSE_STATUS_SUCCESS;
  std::fprintf(stderr, "softgpu cusparse: %s: A %s, dense %s and %s, compute %s is not supported\n", name,
               type_name(a), type_name(x), type_name(y), type_name(compute));
  return CUSPARSE_STATUS_NOT_SUPPORTED;
}

// The kernels' view of A under op: CSC is walked as the CSR of its
// transpose. rows/cols: op(A)'s.
cusparseStatus_t sparse_view(cusparseConstSpMatDescr_t m, cusparseOperation_t op, VType t, Compressed& a,
                             bool& trans, bool& conj, int64_t& rows, int64_t& cols) {
  if (op != CUSPARSE_OPERATION_NON_TRANSPOSE && op != CUSPARSE_OPERATION_TRANSPOSE &&
      op != CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE)
    return CUSPARSE_STATUS_INVALID_VALUE;
  const bool csr = m->format == CUSPARSE_FORMAT_CSR;
  if (!csr && m->format != CUSPARSE_FORMAT_CSC) return CUSPARSE_STATUS_NOT_SUPPORTED;
  a.major = csr ? m->rows : m->cols;
  a.minor = csr ? m->cols : m->rows;
  if ((a.major > 0 && !m->offsets) || (m->nnz > 0 && (!m->indices || !m->values)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  a.offsets = m->offsets;
  a.indices = m->indices;
  a.values = m->values;
  a.offsets64 = m->offsets_type == CUSPARSE_INDEX_64I;
  a.indices64 = m->indices_type == CUSPARSE_INDEX_64I;
  a.base = m->base == CUSPARSE_INDEX_BASE_ONE ? 1 : 0;
  const bool n = op == CUSPARSE_OPERATION_NON_TRANSPOSE;
  trans = csr ? !n : n;
  conj = op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE && (t == VType::C32F || t == VType::C64F);
  rows = n ? m->rows : m->cols;
  cols = n ? m->cols : m->rows;
  return CUSPARSE_STATUS_SUCCESS;
}

Scalar scalar(cusparseHandle_t h, const void* p, VType t) {
  Scalar s;
  if (h->pointer_mode == CUSPARSE_POINTER_MODE_DEVICE)
    s.dev = p;
  else
    std::memcpy(s.host, p, value_bytes(t));
  return s;
}

bool dense_ok(const void* values, int64_t elements) { return elements == 0 || values; }

struct Spmv {
  VType t;
  Compressed a;
  bool trans, conj;
};

// SpMV's checks, shared by the three entry points.
cusparseStatus_t spmv_args(const char* name, cusparseHandle_t h, cusparseOperation_t op, const void* alpha,
                           cusparseConstSpMatDescr_t mat, cusparseConstDnVecDescr_t x, const void* beta,
                           cusparseConstDnVecDescr_t y, cudaDataType compute, cusparseSpMVAlg_t alg, Spmv& s) {
  if (!h) return CUSPARSE_STATUS_NOT_INITIALIZED;
  if (!alpha || !beta || !mat || !x || !y) return CUSPARSE_STATUS_INVALID_VALUE;
  if (auto st = common_type(name, mat->value_type, x->value_type, y->value_type, compute, s.t);
      st != CUSPARSE_STATUS_SUCCESS)
    return st;
  int64_t rows, cols;
  if (auto st = sparse_view(mat, op, s.t, s.a, s.trans, s.conj, rows, cols); st != CUSPARSE_STATUS_SUCCESS)
    return st;
  if (x->size != cols || y->size != rows || !dense_ok(x->values, x->size) || !dense_ok(y->values, y->size))
    return CUSPARSE_STATUS_INVALID_VALUE;
  switch (alg) {
    case CUSPARSE_SPMV_ALG_DEFAULT: case CUSPARSE_SPMV_CSR_ALG1: case CUSPARSE_SPMV_CSR_ALG2:
      return CUSPARSE_STATUS_SUCCESS;
    case CUSPARSE_SPMV_COO_ALG1: case CUSPARSE_SPMV_COO_ALG2: case CUSPARSE_SPMV_SELL_ALG1:
    case CUSPARSE_SPMV_BSR_ALG1:
      std::fprintf(stderr, "softgpu cusparse: %s: algorithm %d is not supported for CSR/CSC\n", name, int(alg));
      return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  return CUSPARSE_STATUS_INVALID_VALUE;
}

struct Spmm {
  VType t;
  Compressed a;
  bool trans_a, conj_a, trans_b, conj_b;
  int64_t m, n;
  Dense b, c;
};

Dense dense(cusparseConstDnMatDescr_t d) { return {d->values, d->ld, d->order == CUSPARSE_ORDER_ROW}; }

cusparseStatus_t spmm_args(const char* name, cusparseHandle_t h, cusparseOperation_t op_a, cusparseOperation_t op_b,
                           const void* alpha, cusparseConstSpMatDescr_t mat, cusparseConstDnMatDescr_t b,
                           const void* beta, cusparseConstDnMatDescr_t c, cudaDataType compute, cusparseSpMMAlg_t alg,
                           Spmm& s) {
  if (!h) return CUSPARSE_STATUS_NOT_INITIALIZED;
  if (!alpha || !beta || !mat || !b || !c) return CUSPARSE_STATUS_INVALID_VALUE;
  if (auto st = common_type(name, mat->value_type, b->value_type, c->value_type, compute, s.t);
      st != CUSPARSE_STATUS_SUCCESS)
    return st;
  int64_t k;
  if (auto st = sparse_view(mat, op_a, s.t, s.a, s.trans_a, s.conj_a, s.m, k); st != CUSPARSE_STATUS_SUCCESS)
    return st;
  if (op_b != CUSPARSE_OPERATION_NON_TRANSPOSE && op_b != CUSPARSE_OPERATION_TRANSPOSE &&
      op_b != CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE)
    return CUSPARSE_STATUS_INVALID_VALUE;
  s.trans_b = op_b != CUSPARSE_OPERATION_NON_TRANSPOSE;
  s.conj_b = op_b == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE && (s.t == VType::C32F || s.t == VType::C64F);
  s.n = c->cols;
  const int64_t b_rows = s.trans_b ? b->cols : b->rows, b_cols = s.trans_b ? b->rows : b->cols;
  if (b_rows != k || b_cols != s.n || c->rows != s.m || !dense_ok(b->values, b->rows * b->cols) ||
      !dense_ok(c->values, c->rows * c->cols))
    return CUSPARSE_STATUS_INVALID_VALUE;
  s.b = dense(b);
  s.c = dense(c);
  switch (alg) {
    case CUSPARSE_SPMM_ALG_DEFAULT: case CUSPARSE_SPMM_CSR_ALG1: case CUSPARSE_SPMM_CSR_ALG2:
    case CUSPARSE_SPMM_CSR_ALG3:
      return CUSPARSE_STATUS_SUCCESS;
    case CUSPARSE_SPMM_COO_ALG1: case CUSPARSE_SPMM_COO_ALG2: case CUSPARSE_SPMM_COO_ALG3:
    case CUSPARSE_SPMM_COO_ALG4: case CUSPARSE_SPMM_BLOCKED_ELL_ALG1: case CUSPARSE_SPMM_BSR_ALG1:
      std::fprintf(stderr, "softgpu cusparse: %s: algorithm %d is not supported for CSR/CSC\n", name, int(alg));
      return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  return CUSPARSE_STATUS_INVALID_VALUE;
}

}  // namespace
}  // namespace softgpu::cusparse

using namespace softgpu::cusparse;

extern "C" {

cusparseStatus_t cusparseSpMV_bufferSize(cusparseHandle_t handle, cusparseOperation_t opA, const void* alpha,
                                         cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX,
                                         const void* beta, cusparseDnVecDescr_t vecY, cudaDataType computeType,
                                         cusparseSpMVAlg_t alg, size_t* bufferSize) {
  Spmv s;
  if (auto st = spmv_args(__func__, handle, opA, alpha, matA, vecX, beta, vecY, computeType, alg, s);
      st != CUSPARSE_STATUS_SUCCESS)
    return st;
  if (!bufferSize) return CUSPARSE_STATUS_INVALID_VALUE;
  *bufferSize = 0;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMV_preprocess(cusparseHandle_t handle, cusparseOperation_t opA, const void* alpha,
                                         cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX,
                                         const void* beta, cusparseDnVecDescr_t vecY, cudaDataType computeType,
                                         cusparseSpMVAlg_t alg, void* externalBuffer) {
  Spmv s;
  return spmv_args(__func__, handle, opA, alpha, matA, vecX, beta, vecY, computeType, alg, s);
}

cusparseStatus_t cusparseSpMV(cusparseHandle_t handle, cusparseOperation_t opA, const void* alpha,
                              cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX, const void* beta,
                              cusparseDnVecDescr_t vecY, cudaDataType computeType, cusparseSpMVAlg_t alg,
                              void* externalBuffer) {
  Spmv s;
  if (auto st = spmv_args(__func__, handle, opA, alpha, matA, vecX, beta, vecY, computeType, alg, s);
      st != CUSPARSE_STATUS_SUCCESS)
    return st;
  return from_cuda(launch_spmv(handle->stream, s.t, s.a, s.trans, s.conj, scalar(handle, alpha, s.t), vecX->values,
                               scalar(handle, beta, s.t), vecY->values));
}

cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB,
                                         const void* alpha, cusparseConstSpMatDescr_t matA,
                                         cusparseConstDnMatDescr_t matB, const void* beta, cusparseDnMatDescr_t matC,
                                         cudaDataType computeType, cusparseSpMMAlg_t alg, size_t* bufferSize) {
  Spmm s;
  if (auto st = spmm_args(__func__, handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg, s);
      st != CUSPARSE_STATUS_SUCCESS)
    return st;
  if (!bufferSize) return CUSPARSE_STATUS_INVALID_VALUE;
  *bufferSize = 0;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMM_preprocess(cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB,
                                         const void* alpha, cusparseConstSpMatDescr_t matA,
                                         cusparseConstDnMatDescr_t matB, const void* beta, cusparseDnMatDescr_t matC,
                                         cudaDataType computeType, cusparseSpMMAlg_t alg, void* externalBuffer) {
  Spmm s;
  return spmm_args(__func__, handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg, s);
}

cusparseStatus_t cusparseSpMM(cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB,
                              const void* alpha, cusparseConstSpMatDescr_t matA, cusparseConstDnMatDescr_t matB,
                              const void* beta, cusparseDnMatDescr_t matC, cudaDataType computeType,
                              cusparseSpMMAlg_t alg, void* externalBuffer) {
  Spmm s;
  if (auto st = spmm_args(__func__, handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg, s);
      st != CUSPARSE_STATUS_SUCCESS)
    return st;
  return from_cuda(launch_spmm(handle->stream, s.t, s.a, s.trans_a, s.conj_a, s.b, s.trans_b, s.conj_b,
                               scalar(handle, alpha, s.t), scalar(handle, beta, s.t), s.c, s.m, s.n));
}

}  // extern "C"
