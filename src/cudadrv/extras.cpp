// Smaller entry points over cudart: managed memory, stream queries, host
// functions, context limits and versions, profiler markers.
#include <cudaProfiler.h>
#include <cuda_profiler_api.h>

#include "cudadrv/driver.h"

using softgpu::cudadrv::Driver;
using softgpu::cudadrv::dptr;
using softgpu::cudadrv::guarded;
using softgpu::cudadrv::ptr;
using softgpu::cudadrv::rt;


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

// The profiler's start and stop marks: nothing to start (softgpu's own
// profiling is --timing), but a context must be current, as on NVIDIA's driver.
CUresult CUDAAPI cuProfilerStart(void) {
  return guarded([&] {
    return softgpu::cudadrv::context_stack().empty() ? CUDA_ERROR_INVALID_CONTEXT : rt(cudaProfilerStart());
  });
}

CUresult CUDAAPI cuProfilerStop(void) {
  return guarded([&] {
    return softgpu::cudadrv::context_stack().empty() ? CUDA_ERROR_INVALID_CONTEXT : rt(cudaProfilerStop());
  });
}
