// Matrix layouts, matmul descriptors and preferences: Create / Init /
// Destroy / Set- / GetAttribute. A descriptor lives in the semi-opaque
// struct of cublasLt.h (Create allocates one, Init fills the caller's).
// Attributes softgpu does not implement are NOT_SUPPORTED with a line on
// stderr naming them; a wrong buffer size or an uninitialized descriptor is
// INVALID_VALUE.
#include <cstdio>
#include <new>

#include "handle.h"

namespace lt = softgpu::cublaslt;

namespace softgpu::cublaslt {
namespace {

cublasStatus_t unsupported_attr(const char* call, int attr) {
  std::fprintf(stderr, "softgpu cublasLt: %s: attribute %d is not supported\n", call, attr);
  return CUBLAS_STATUS_NOT_SUPPORTED;
}

void init_layout(Layout& l, cudaDataType type, uint64_t rows, uint64_t cols, int64_t ld) {
  l = Layout{};
  l.magic = kLayoutMagic;
  l.type = uint32_t(type);
  l.order = CUBLASLT_ORDER_COL;
  l.batch_count = 1;
  l.rows = rows;
  l.cols = cols;
  l.ld = ld;
}

void init_desc(MatmulDesc& d, cublasComputeType_t compute, cudaDataType scale) {
  d = MatmulDesc{};
  d.magic = kDescMagic;
  d.compute_type = compute;
  d.scale_type = scale;
  d.pointer_mode = CUBLASLT_POINTER_MODE_HOST;
  d.trans_a = d.trans_b = d.trans_c = CUBLAS_OP_N;
  d.epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  d.bias_type = -1;
  d.aux_type = -1;
}

void init_pref(Preference& p) {
  p = Preference{};
  p.magic = kPrefMagic;
  p.search_mode = CUBLASLT_SEARCH_BEST_FIT;
  p.reduction_mask = CUBLASLT_REDUCTION_SCHEME_MASK;
  for (auto& a : p.min_align) a = 256;
  p.impl_mask = ~uint64_t(0);
}

// Allocates T's opaque struct for a Create call.
template <typename Opaque>
Opaque* make() {
  return new (std::nothrow) Opaque{};
}

}  // namespace
}  // namespace softgpu::cublaslt

extern "C" {

// --- matrix layouts ------------------------------------------------------

cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t l, size_t size, cudaDataType type,
                                                 uint64_t rows, uint64_t cols, int64_t ld) {
  if (!l || size < sizeof(lt::Layout)) return CUBLAS_STATUS_INVALID_VALUE;
  lt::init_layout(*reinterpret_cast<lt::Layout*>(l), type, rows, cols, ld);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* out, cudaDataType type, uint64_t rows,
                                          uint64_t cols, int64_t ld) {
  if (!out) return CUBLAS_STATUS_INVALID_VALUE;
  auto* l = lt::make<cublasLtMatrixLayoutOpaque_t>();
  if (!l) return CUBLAS_STATUS_ALLOC_FAILED;
  lt::init_layout(*reinterpret_cast<lt::Layout*>(l), type, rows, cols, ld);
  *out = l;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l) {
  if (l && !lt::layout(l)) return CUBLAS_STATUS_INVALID_VALUE;
  if (l) reinterpret_cast<lt::Layout*>(l)->magic = 0;
  delete l;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t p, cublasLtMatrixLayoutAttribute_t attr,
                                                const void* buf, size_t size) {
  lt::Layout* l = lt::layout(p);
  if (!l) return CUBLAS_STATUS_INVALID_VALUE;
  switch (attr) {
    case CUBLASLT_MATRIX_LAYOUT_TYPE: return lt::set_attr(l->type, buf, size);
    case CUBLASLT_MATRIX_LAYOUT_ORDER: return lt::set_attr(l->order, buf, size);
    case CUBLASLT_MATRIX_LAYOUT_ROWS: return lt::set_attr(l->rows, buf, size);
    case CUBLASLT_MATRIX_LAYOUT_COLS: return lt::set_attr(l->cols, buf, size);
    case CUBLASLT_MATRIX_LAYOUT_LD: return lt::set_attr(l->ld, buf, size);
    case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT: return lt::set_attr(l->batch_count, buf, size);
    case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: return lt::set_attr(l->batch_stride, buf, size);
    case CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET: return lt::set_attr(l->plane_offset, buf, size);
    case CUBLASLT_MATRIX_LAYOUT_BATCH_MODE: return lt::set_attr(l->batch_mode, buf, size);
  }
  return lt::unsupported_attr("cublasLtMatrixLayoutSetAttribute", attr);
}

cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t p, cublasLtMatrixLayoutAttribute_t attr,
                                                void* buf, size_t size, size_t* written) {
  const lt::Layout* l = lt::layout(p);
  if (!l) return CUBLAS_STATUS_INVALID_VALUE;
  switch (attr) {
    case CUBLASLT_MATRIX_LAYOUT_TYPE: return lt::get_attr(l->type, buf, size, written);
    case CUBLASLT_MATRIX_LAYOUT_ORDER: return lt::get_attr(l->order, buf, size, written);
    case CUBLASLT_MATRIX_LAYOUT_ROWS: return lt::get_attr(l->rows, buf, size, written);
    case CUBLASLT_MATRIX_LAYOUT_COLS: return lt::get_attr(l->cols, buf, size, written);
    case CUBLASLT_MATRIX_LAYOUT_LD: return lt::get_attr(l->ld, buf, size, written);
    case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT: return lt::get_attr(l->batch_count, buf, size, written);
    case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: return lt::get_attr(l->batch_stride, buf, size, written);
    case CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET: return lt::get_attr(l->plane_offset, buf, size, written);
    case CUBLASLT_MATRIX_LAYOUT_BATCH_MODE: return lt::get_attr(l->batch_mode, buf, size, written);
  }
  return lt::unsupported_attr("cublasLtMatrixLayoutGetAttribute", attr);
}

// --- matmul descriptors --------------------------------------------------

cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t d, size_t size, cublasComputeType_t compute,
                                               cudaDataType_t scale) {
  if (!d || size < sizeof(lt::MatmulDesc)) return CUBLAS_STATUS_INVALID_VALUE;
  lt::init_desc(*reinterpret_cast<lt::MatmulDesc*>(d), compute, scale);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* out, cublasComputeType_t compute,
                                        cudaDataType_t scale) {
  if (!out) return CUBLAS_STATUS_INVALID_VALUE;
  auto* d = lt::make<cublasLtMatmulDescOpaque_t>();
  if (!d) return CUBLAS_STATUS_ALLOC_FAILED;
  lt::init_desc(*reinterpret_cast<lt::MatmulDesc*>(d), compute, scale);
  *out = d;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d) {
  if (d && !lt::desc(d)) return CUBLAS_STATUS_INVALID_VALUE;
  if (d) reinterpret_cast<lt::MatmulDesc*>(d)->magic = 0;
  delete d;
  return CUBLAS_STATUS_SUCCESS;
}

#define SG_DESC_ATTRS(X)                                              \
  X(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, compute_type)                  \
  X(CUBLASLT_MATMUL_DESC_SCALE_TYPE, scale_type)                      \
  X(CUBLASLT_MATMUL_DESC_POINTER_MODE, pointer_mode)                  \
  X(CUBLASLT_MATMUL_DESC_TRANSA, trans_a)                             \
  X(CUBLASLT_MATMUL_DESC_TRANSB, trans_b)                             \
  X(CUBLASLT_MATMUL_DESC_TRANSC, trans_c)                             \
  X(CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue)                          \
  X(CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias)                          \
  X(CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, bias_batch_stride)        \
  X(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, bias_type)                   \
  X(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, aux)                   \
  X(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, aux_ld)                     \
  X(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, aux_batch_stride) \
  X(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, aux_type)            \
  X(CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, sm_count_target)

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t p, cublasLtMatmulDescAttributes_t attr,
                                              const void* buf, size_t size) {
  lt::MatmulDesc* d = lt::desc(p);
  if (!d) return CUBLAS_STATUS_INVALID_VALUE;
  switch (attr) {
#define SG_SET(A, field) \
  case A: return lt::set_attr(d->field, buf, size);
    SG_DESC_ATTRS(SG_SET)
#undef SG_SET
    default: break;
  }
  return lt::unsupported_attr("cublasLtMatmulDescSetAttribute", attr);
}

cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t p, cublasLtMatmulDescAttributes_t attr, void* buf,
                                              size_t size, size_t* written) {
  const lt::MatmulDesc* d = lt::desc(p);
  if (!d) return CUBLAS_STATUS_INVALID_VALUE;
  switch (attr) {
#define SG_GET(A, field) \
  case A: return lt::get_attr(d->field, buf, size, written);
    SG_DESC_ATTRS(SG_GET)
#undef SG_GET
    default: break;
  }
  return lt::unsupported_attr("cublasLtMatmulDescGetAttribute", attr);
}

// --- preferences ---------------------------------------------------------

cublasStatus_t cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t p, size_t size) {
  if (!p || size < sizeof(lt::Preference)) return CUBLAS_STATUS_INVALID_VALUE;
  lt::init_pref(*reinterpret_cast<lt::Preference*>(p));
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* out) {
  if (!out) return CUBLAS_STATUS_INVALID_VALUE;
  auto* p = lt::make<cublasLtMatmulPreferenceOpaque_t>();
  if (!p) return CUBLAS_STATUS_ALLOC_FAILED;
  lt::init_pref(*reinterpret_cast<lt::Preference*>(p));
  *out = p;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t p) {
  if (p && !lt::preference(p)) return CUBLAS_STATUS_INVALID_VALUE;
  if (p) reinterpret_cast<lt::Preference*>(p)->magic = 0;
  delete p;
  return CUBLAS_STATUS_SUCCESS;
}

#define SG_PREF_ATTRS(X)                                         \
  X(CUBLASLT_MATMUL_PREF_SEARCH_MODE, search_mode)               \
  X(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, max_workspace)     \
  X(CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, reduction_mask)  \
  X(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, min_align[0])    \
  X(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, min_align[1])    \
  X(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, min_align[2])    \
  X(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, min_align[3])    \
  X(CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT, max_waves)             \
  X(CUBLASLT_MATMUL_PREF_IMPL_MASK, impl_mask)

cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t p,
                                                    cublasLtMatmulPreferenceAttributes_t attr, const void* buf,
                                                    size_t size) {
  lt::Preference* d = lt::preference(p);
  if (!d) return CUBLAS_STATUS_INVALID_VALUE;
  switch (attr) {
#define SG_SET(A, field) \
  case A: return lt::set_attr(d->field, buf, size);
    SG_PREF_ATTRS(SG_SET)
#undef SG_SET
    default: break;
  }
  return lt::unsupported_attr("cublasLtMatmulPreferenceSetAttribute", attr);
}

cublasStatus_t cublasLtMatmulPreferenceGetAttribute(cublasLtMatmulPreference_t p,
                                                    cublasLtMatmulPreferenceAttributes_t attr, void* buf,
                                                    size_t size, size_t* written) {
  const lt::Preference* d = lt::preference(p);
  if (!d) return CUBLAS_STATUS_INVALID_VALUE;
  switch (attr) {
#define SG_GET(A, field) \
  case A: return lt::get_attr(d->field, buf, size, written);
    SG_PREF_ATTRS(SG_GET)
#undef SG_GET
    default: break;
  }
  return lt::unsupported_attr("cublasLtMatmulPreferenceGetAttribute", attr);
}

}  // extern "C"
