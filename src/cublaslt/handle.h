// softgpu cuBLASLt's state: the handle, and what the semi-opaque descriptors
// (cublasLtMatmulDescOpaque_t, cublasLtMatrixLayoutOpaque_t,
// cublasLtMatmulPreferenceOpaque_t, which a program may also keep on its own
// stack through the *Init functions) hold, and the attribute copy rules the
// Get/SetAttribute calls share.
#pragma once

#include <cublasLt.h>

#include <cstdint>
#include <cstring>

struct cublasLtContext {
  int device = 0;
};

namespace softgpu::cublaslt {

// Marks an initialized descriptor, so that a garbage one is INVALID_VALUE
// instead of being trusted.
constexpr uint32_t kLayoutMagic = 0x4c544c59;  // "LTLY"
constexpr uint32_t kDescMagic = 0x4c54444d;    // "LTDM"
constexpr uint32_t kPrefMagic = 0x4c545046;    // "LTPF"
constexpr uint64_t kAlgoId = 0x736f667467707531ull;  // the one algorithm cublasLtMatmulAlgoGetHeuristic returns

struct Layout {
  uint32_t magic;
  uint32_t type;  // cudaDataType
  int32_t order;  // cublasLtOrder_t
  int32_t batch_count;
  uint64_t rows;
  uint64_t cols;
  int64_t ld;
  int64_t batch_stride;
  uint32_t batch_mode;
  int64_t plane_offset;
};
static_assert(sizeof(Layout) <= sizeof(cublasLtMatrixLayoutOpaque_t));

struct MatmulDesc {
  uint32_t magic;
  int32_t compute_type;  // cublasComputeType_t
  int32_t scale_type;    // cudaDataType
  int32_t pointer_mode;  // cublasLtPointerMode_t
  int32_t trans_a, trans_b, trans_c;  // cublasOperation_t
  uint32_t epilogue;     // cublasLtEpilogue_t
  const void* bias;
  int64_t bias_batch_stride;
  int32_t bias_type;  // cudaDataType, -1: D's type
  int32_t aux_type;   // cudaDataType, -1: D's type
  void* aux;
  int64_t aux_ld;
  int64_t aux_batch_stride;
  int32_t sm_count_target;
};
static_assert(sizeof(MatmulDesc) <= sizeof(cublasLtMatmulDescOpaque_t));

struct Preference {
  uint32_t magic;
  uint32_t search_mode;
  uint64_t max_workspace;
  uint32_t reduction_mask;
  uint32_t min_align[4];  // A, B, C, D
  float max_waves;
  uint64_t impl_mask;
};
static_assert(sizeof(Preference) <= sizeof(cublasLtMatmulPreferenceOpaque_t));

inline Layout* layout(cublasLtMatrixLayout_t p) {
  auto* l = reinterpret_cast<Layout*>(p);
  return l && l->magic == kLayoutMagic ? l : nullptr;
}
inline MatmulDesc* desc(cublasLtMatmulDesc_t p) {
  auto* d = reinterpret_cast<MatmulDesc*>(p);
  return d && d->magic == kDescMagic ? d : nullptr;
}
inline Preference* preference(cublasLtMatmulPreference_t p) {
  auto* d = reinterpret_cast<Preference*>(p);
  return d && d->magic == kPrefMagic ? d : nullptr;
}

// SetAttribute: the buffer must hold exactly the attribute's size.
template <typename T>
cublasStatus_t set_attr(T& field, const void* buf, size_t size) {
  if (!buf || size != sizeof(T)) return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(&field, buf, sizeof(T));
  return CUBLAS_STATUS_SUCCESS;
}
// GetAttribute: size 0 with sizeWritten asks for the size; otherwise the
// buffer must be non-null and of exactly the attribute's size.
template <typename T>
cublasStatus_t get_attr(const T& field, void* buf, size_t size, size_t* written) {
  if (size == 0 && written) {
    *written = sizeof(T);
    return CUBLAS_STATUS_SUCCESS;
  }
  if (!buf || size != sizeof(T)) return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(buf, &field, sizeof(T));
  if (written) *written = sizeof(T);
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace softgpu::cublaslt
