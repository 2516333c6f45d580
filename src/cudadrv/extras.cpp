// Smaller entry points over cudart: managed memory, 2-D copies between
// linear memories, stream queries, host functions, context limits and
// versions.
#include "cudadrv/driver.h"

using softgpu::cudadrv::Driver;
using softgpu::cudadrv::dptr;
using softgpu::cudadrv::guarded;
using softgpu::cudadrv::ptr;
using softgpu::cudadrv::rt;

namespace {
// One side of a CUDA_MEMCPY2D as a pointer to its first byte; arrays are
// not supported here (NOT_SUPPORTED), unknown types are INVALID_VALUE.
CUresult side(CUmemorytype type, const void* host, CUdeviceptr dev, CUarray array, size_t x, size_t y, size_t pitch,
              const char** out) {
  const char* base;
  switch (type) {
    case CU_MEMORYTYPE_HOST: base = static_cast<const char*>(host); break;
    case CU_MEMORYTYPE_DEVICE:
    case CU_MEMORYTYPE_UNIFIED: base = static_cast<const char*>(ptr(dev)); break;
    case CU_MEMORYTYPE_ARRAY: return array ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_VALUE;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  if (!base) return CUDA_ERROR_INVALID_VALUE;
  *out = base + y * pitch + x;
  return CUDA_SUCCESS;
}

CUresult copy_2d(const CUDA_MEMCPY2D* c, CUstream s, bool async) {
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  const char *src, *dst;
  if (CUresult r = side(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray, c->srcXInBytes, c->srcY,
                        c->srcPitch, &src);
      r != CUDA_SUCCESS)
    return r;
  if (CUresult r = side(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray, c->dstXInBytes, c->dstY,
                        c->dstPitch, &dst);
      r != CUDA_SUCCESS)
    return r;
  void* d = const_cast<char*>(dst);
  if (async)
    return rt(cudaMemcpy2DAsync(d, c->dstPitch, src, c->srcPitch, c->WidthInBytes, c->Height, cudaMemcpyDefault, s));
  return rt(cudaMemcpy2D(d, c->dstPitch, src, c->srcPitch, c->WidthInBytes, c->Height, cudaMemcpyDefault));
}
}  // namespace

// CU_MEM_ATTACH_* have cudart's values.
CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr* dp, size_t bytesize, unsigned int flags) {
  return guarded([&] {
    if (!dp || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
    void* p = nullptr;
    CUresult r = rt(cudaMallocManaged(&p, bytesize, flags));
    if (r == CUDA_SUCCESS) *dp = dptr(p);
    return r;
  });
}

CUresult CUDAAPI cuMemcpy2D(const CUDA_MEMCPY2D* pCopy) { return guarded([&] { return copy_2d(pCopy, nullptr, false); }); }

CUresult CUDAAPI cuMemcpy2DUnaligned(const CUDA_MEMCPY2D* pCopy) {
  return guarded([&] { return copy_2d(pCopy, nullptr, false); });
}

CUresult CUDAAPI cuMemcpy2DAsync(const CUDA_MEMCPY2D* pCopy, CUstream hStream) {
  return guarded([&] { return copy_2d(pCopy, hStream, true); });
}

CUresult CUDAAPI cuStreamGetFlags(CUstream hStream, unsigned int* flags) {
  return guarded([&] { return flags ? rt(cudaStreamGetFlags(hStream, flags)) : CUDA_ERROR_INVALID_VALUE; });
}

CUresult CUDAAPI cuStreamGetPriority(CUstream hStream, int* priority) {
  return guarded([&] { return priority ? rt(cudaStreamGetPriority(hStream, priority)) : CUDA_ERROR_INVALID_VALUE; });
}

CUresult CUDAAPI cuStreamGetCtx(CUstream hStream, CUcontext* pctx) {
  return guarded([&] {
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    unsigned flags = 0;  // validates the handle
    if (CUresult r = rt(cudaStreamGetFlags(hStream, &flags)); r != CUDA_SUCCESS) return r;
    *pctx = Driver::get().primary();
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void* userData) {
  return guarded([&] { return fn ? rt(cudaLaunchHostFunc(hStream, fn, userData)) : CUDA_ERROR_INVALID_VALUE; });
}

// CUlimit and cudaLimit share their numbers.
CUresult CUDAAPI cuCtxSetLimit(CUlimit limit, size_t value) {
  return guarded([&] { return rt(cudaDeviceSetLimit(static_cast<cudaLimit>(limit), value)); });
}

CUresult CUDAAPI cuCtxGetLimit(size_t* pvalue, CUlimit limit) {
  return guarded([&] {
    return pvalue ? rt(cudaDeviceGetLimit(pvalue, static_cast<cudaLimit>(limit))) : CUDA_ERROR_INVALID_VALUE;
  });
}

CUresult CUDAAPI cuCtxGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  return guarded([&] { return rt(cudaDeviceGetStreamPriorityRange(leastPriority, greatestPriority)); });
}

CUresult CUDAAPI cuCtxGetApiVersion(CUcontext ctx, unsigned int* version) {
  return guarded([&] {
    if (!version) return CUDA_ERROR_INVALID_VALUE;
    if (ctx && !Driver::get().valid_context(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
    if (!ctx && softgpu::cudadrv::context_stack().empty()) return CUDA_ERROR_INVALID_CONTEXT;
    *version = 3020;  // the context API version current drivers report (CUDA 3.2 and later contexts)
    return CUDA_SUCCESS;
  });
}
