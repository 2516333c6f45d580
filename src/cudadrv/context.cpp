// Contexts: the primary context and the per-thread context stack (driver.h).
#include "cudadrv/driver.h"

using softgpu::cudadrv::check_device;
using softgpu::cudadrv::context_stack;
using softgpu::cudadrv::Driver;
using softgpu::cudadrv::guarded;
using softgpu::cudadrv::rt;

namespace {
CUresult create(CUcontext* pctx, CUdevice dev) {
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = check_device(dev); r != CUDA_SUCCESS) return r;
  Driver& d = Driver::get();
  d.created();
  *pctx = d.primary();
  context_stack().push_back(*pctx);
  return CUDA_SUCCESS;
}

CUresult current(CUcontext* out) {
  auto& s = context_stack();
  if (s.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  if (out) *out = s.back();
  return CUDA_SUCCESS;
}
}  // namespace

// Every context is the primary context (one device): cuCtxCreate hands it
// out again, pushed on the calling thread's stack, and counts the creation
// so that cuCtxDestroy balances it. Creation parameters are accepted and
// have no effect.
CUresult CUDAAPI cuCtxCreate(CUcontext* pctx, CUctxCreateParams*, unsigned int flags, CUdevice dev) {
  return guarded([&] { return flags & ~unsigned(CU_CTX_FLAGS_MASK) ? CUDA_ERROR_INVALID_VALUE : create(pctx, dev); });
}

// cuCtxCreate before CUDA 13 (programs built with older toolkits import it).
extern "C" CUresult CUDAAPI cuCtxCreate_v2(CUcontext* pctx, unsigned int flags, CUdevice dev);
extern "C" CUresult CUDAAPI cuCtxCreate_v2(CUcontext* pctx, unsigned int flags, CUdevice dev) {
  return guarded([&] { return flags & ~unsigned(CU_CTX_FLAGS_MASK) ? CUDA_ERROR_INVALID_VALUE : create(pctx, dev); });
}

CUresult CUDAAPI cuCtxDestroy(CUcontext ctx) {
  return guarded([&] {
    Driver& d = Driver::get();
    if (!d.valid_context(ctx)) return CUDA_ERROR_INVALID_HANDLE;
    if (!d.destroyed()) return CUDA_ERROR_INVALID_CONTEXT;  // the primary context is released, not destroyed
    auto& s = context_stack();
    if (!s.empty() && s.back() == ctx) s.pop_back();
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext* pctx) {
  return guarded([&] {
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    auto& s = context_stack();
    *pctx = s.empty() ? nullptr : s.back();
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
  return guarded([&] {
    auto& s = context_stack();
    if (!ctx) {
      if (!s.empty()) s.pop_back();
      return CUDA_SUCCESS;
    }
    if (!Driver::get().valid_context(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
    if (s.empty()) s.push_back(ctx);
    else s.back() = ctx;
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx) {
  return guarded([&] {
    if (!Driver::get().valid_context(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
    context_stack().push_back(ctx);
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuCtxPopCurrent(CUcontext* pctx) {
  return guarded([&] {
    auto& s = context_stack();
    if (s.empty()) return CUDA_ERROR_INVALID_CONTEXT;
    if (pctx) *pctx = s.back();
    s.pop_back();
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuCtxSynchronize(void) {
  return guarded([&] {
    if (CUresult r = current(nullptr); r != CUDA_SUCCESS) return r;
    return rt(cudaDeviceSynchronize());
  });
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice* device) {
  return guarded([&] {
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    CUcontext c = nullptr;
    if (CUresult r = current(&c); r != CUDA_SUCCESS) return r;
    *device = c->device;
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuCtxGetFlags(unsigned int* flags) {
  return guarded([&] {
    if (!flags) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = current(nullptr); r != CUDA_SUCCESS) return r;
    *flags = Driver::get().flags();
    return CUDA_SUCCESS;
  });
}

// Peer access between contexts: the one context is no peer of itself, which
// the runtime's answer (cudaErrorInvalidDevice) says.
CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags) {
  return guarded([&] {
    if (!Driver::get().valid_context(peerContext)) return CUDA_ERROR_INVALID_CONTEXT;
    return rt(cudaDeviceEnablePeerAccess(0, Flags));
  });
}

CUresult CUDAAPI cuCtxDisablePeerAccess(CUcontext peerContext) {
  return guarded([&] {
    if (!Driver::get().valid_context(peerContext)) return CUDA_ERROR_INVALID_CONTEXT;
    return rt(cudaDeviceDisablePeerAccess(0));
  });
}
