// TMA tensor maps: cuTensorMapEncodeTiled and cuTensorMapReplaceAddress fill
// the 128-byte CUtensorMap with softgpu's encoding (exec/tensor_map.h, through
// cudart), which cp.async.bulk.tensor reads. Invalid arguments, as the
// driver documents them, are CUDA_ERROR_INVALID_VALUE; valid ones softgpu
// does not implement (packed sub-byte types, the 128B
// atom swizzles) CUDA_ERROR_NOT_SUPPORTED; either way the reason goes to
// stderr. cuTensorMapEncodeIm2col likewise; cuTensorMapEncodeIm2colWide
// (sm_100) stays a NOT_SUPPORTED stub.
#include <cstdio>

#include "cudadrv/driver.h"

using softgpu::cudadrv::guarded;

namespace {
CUresult report(const char* call, int code, const char* why) {
  if (code == 0) return CUDA_SUCCESS;
  std::fprintf(stderr, "softgpu cuda: %s: %s%s\n", call, why, code == 2 ? " is not supported" : "");
  return code == 2 ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_VALUE;
}
}  // namespace

extern "C" {

CUresult CUDAAPI cuTensorMapEncodeTiled(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank, void* global,
                                        const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box,
                                        const cuuint32_t* elem_strides, CUtensorMapInterleave interleave,
                                        CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
                                        CUtensorMapFloatOOBfill oob) {
  return guarded([&] {
    char why[256] = {};
    const int r = softgpu_cudart_tensor_map_tiled(map, unsigned(type), rank, global, dims, strides, box, elem_strides,
                                                  unsigned(interleave), unsigned(swizzle), unsigned(l2), unsigned(oob),
                                                  why, sizeof why);
    return report("cuTensorMapEncodeTiled", r, why);
  });
}

CUresult CUDAAPI cuTensorMapEncodeIm2col(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank, void* global,
                                         const cuuint64_t* dims, const cuuint64_t* strides, const int* lower,
                                         const int* upper, cuuint32_t channels, cuuint32_t pixels,
                                         const cuuint32_t* elem_strides, CUtensorMapInterleave interleave,
                                         CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
                                         CUtensorMapFloatOOBfill oob) {
  return guarded([&] {
    char why[256] = {};
    const int r = softgpu_cudart_tensor_map_im2col(map, unsigned(type), rank, global, dims, strides, lower, upper,
                                                   channels, pixels, elem_strides, unsigned(interleave),
                                                   unsigned(swizzle), unsigned(l2), unsigned(oob), why, sizeof why);
    return report("cuTensorMapEncodeIm2col", r, why);
  });
}

CUresult CUDAAPI cuTensorMapReplaceAddress(CUtensorMap* map, void* global) {
  return guarded([&] {
    char why[256] = {};
    return report("cuTensorMapReplaceAddress", softgpu_cudart_tensor_map_replace_address(map, global, why, sizeof why),
                  why);
  });
}

}  // extern "C"
