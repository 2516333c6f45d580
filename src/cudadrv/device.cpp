// cuInit, versions, devices and their attributes, primary contexts.
#include <algorithm>
#include <cstring>

#include "cudadrv/driver.h"

using softgpu::cudadrv::check_device;
using softgpu::cudadrv::Driver;
using softgpu::cudadrv::guarded;
using softgpu::cudadrv::rt;

namespace {
CUresult properties(cudaDeviceProp* p, CUdevice dev) {
  if (CUresult r = check_device(dev); r != CUDA_SUCCESS) return r;
  return rt(cudaGetDeviceProperties(p, dev));
}

// Flags cuDevicePrimaryCtxSetFlags accepts: a scheduling mode and the
// CU_CTX_* bits that still mean something.
constexpr unsigned kCtxFlags = CU_CTX_SCHED_MASK | CU_CTX_MAP_HOST | CU_CTX_LMEM_RESIZE_TO_MAX |
                               CU_CTX_COREDUMP_ENABLE | CU_CTX_USER_COREDUMP_ENABLE | CU_CTX_SYNC_MEMOPS;
}  // namespace

CUresult CUDAAPI cuInit(unsigned int Flags) {
  try {
    if (Flags != 0) return CUDA_ERROR_INVALID_VALUE;
    return Driver::get().init();
  } catch (...) {
    return CUDA_ERROR_UNKNOWN;
  }
}

CUresult CUDAAPI cuDriverGetVersion(int* driverVersion) {
  if (!driverVersion) return CUDA_ERROR_INVALID_VALUE;
  *driverVersion = CUDA_VERSION;  // the driver API softgpu implements (cuda.h it was built with)
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice* device, int ordinal) {
  return guarded([&] {
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = check_device(ordinal); r != CUDA_SUCCESS) return r;
    *device = ordinal;
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuDeviceGetCount(int* count) {
  return guarded([&] { return count ? rt(cudaGetDeviceCount(count)) : CUDA_ERROR_INVALID_VALUE; });
}

CUresult CUDAAPI cuDeviceGetName(char* name, int len, CUdevice dev) {
  return guarded([&] {
    if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    cudaDeviceProp p;
    if (CUresult r = properties(&p, dev); r != CUDA_SUCCESS) return r;
    size_t n = std::min(std::strlen(p.name), size_t(len - 1));
    std::memcpy(name, p.name, n);
    name[n] = '\0';
    return CUDA_SUCCESS;
  });
}

// CUdevice_attribute and cudaDeviceAttr share their numbers.
CUresult CUDAAPI cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev) {
  return guarded([&] {
    if (!pi) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = check_device(dev); r != CUDA_SUCCESS) return r;
    return rt(cudaDeviceGetAttribute(pi, static_cast<cudaDeviceAttr>(attrib), dev));
  });
}

CUresult CUDAAPI cuDeviceTotalMem(size_t* bytes, CUdevice dev) {
  return guarded([&] {
    if (!bytes) return CUDA_ERROR_INVALID_VALUE;
    cudaDeviceProp p;
    if (CUresult r = properties(&p, dev); r != CUDA_SUCCESS) return r;
    *bytes = p.totalGlobalMem;
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuDeviceGetUuid(CUuuid* uuid, CUdevice dev) {
  return guarded([&] {
    if (!uuid) return CUDA_ERROR_INVALID_VALUE;
    cudaDeviceProp p;
    if (CUresult r = properties(&p, dev); r != CUDA_SUCCESS) return r;
    static_assert(sizeof *uuid == sizeof p.uuid);
    std::memcpy(uuid, &p.uuid, sizeof *uuid);
    return CUDA_SUCCESS;
  });
}

// The pre-11.4 entry point, same signature (cuda.h maps the name to _v2).
extern "C" CUresult CUDAAPI cuDeviceGetUuid_v1(CUuuid* uuid, CUdevice dev) __asm__("cuDeviceGetUuid");
extern "C" CUresult CUDAAPI cuDeviceGetUuid_v1(CUuuid* uuid, CUdevice dev) { return cuDeviceGetUuid(uuid, dev); }

CUresult CUDAAPI cuDeviceComputeCapability(int* major, int* minor, CUdevice dev) {
  return guarded([&] {
    if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = check_device(dev); r != CUDA_SUCCESS) return r;
    if (CUresult r = rt(cudaDeviceGetAttribute(major, cudaDevAttrComputeCapabilityMajor, dev)); r != CUDA_SUCCESS)
      return r;
    return rt(cudaDeviceGetAttribute(minor, cudaDevAttrComputeCapabilityMinor, dev));
  });
}

// One device: it is not its own peer (as cudaDeviceCanAccessPeer says).
CUresult CUDAAPI cuDeviceCanAccessPeer(int* canAccessPeer, CUdevice dev, CUdevice peerDev) {
  return guarded([&] { return rt(cudaDeviceCanAccessPeer(canAccessPeer, dev, peerDev)); });
}

static_assert(int(CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED) == int(cudaDevP2PAttrCudaArrayAccessSupported));
CUresult CUDAAPI cuDeviceGetP2PAttribute(int* value, CUdevice_P2PAttribute attrib, CUdevice srcDevice,
                                         CUdevice dstDevice) {
  return guarded([&] {
    return rt(cudaDeviceGetP2PAttribute(value, static_cast<cudaDeviceP2PAttr>(attrib), srcDevice, dstDevice));
  });
}

// ---------------------------------------------------------------- primary context

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
  return guarded([&] {
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = check_device(dev); r != CUDA_SUCCESS) return r;
    Driver::get().retain();
    *pctx = Driver::get().primary();
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev) {
  return guarded([&] {
    if (CUresult r = check_device(dev); r != CUDA_SUCCESS) return r;
    return Driver::get().release() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
  });
}

// Destroys every allocation and all state of the device (cudaDeviceReset:
// the runtime shares the context); references held stay valid.
CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev) {
  return guarded([&] {
    if (CUresult r = check_device(dev); r != CUDA_SUCCESS) return r;
    Driver::get().reset_flags();
    softgpu::cudadrv::context_reset(Driver::get().primary());
    return rt(cudaDeviceReset());
  });
}

// The CUDA 7.0 ABIs of the two (what the static CUDA runtime asks
// cuGetProcAddress for): the same signatures.
extern "C" CUresult CUDAAPI cuDevicePrimaryCtxRelease_v1(CUdevice dev) __asm__("cuDevicePrimaryCtxRelease");
extern "C" CUresult CUDAAPI cuDevicePrimaryCtxRelease_v1(CUdevice dev) { return cuDevicePrimaryCtxRelease(dev); }
extern "C" CUresult CUDAAPI cuDevicePrimaryCtxReset_v1(CUdevice dev) __asm__("cuDevicePrimaryCtxReset");
extern "C" CUresult CUDAAPI cuDevicePrimaryCtxReset_v1(CUdevice dev) { return cuDevicePrimaryCtxReset(dev); }

CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active) {
  return guarded([&] {
    if (!flags || !active) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = check_device(dev); r != CUDA_SUCCESS) return r;
    *flags = Driver::get().flags();
    *active = Driver::get().active() ? 1 : 0;
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags) {
  return guarded([&] {
    if (CUresult r = check_device(dev); r != CUDA_SUCCESS) return r;
    if ((flags & ~kCtxFlags) || (flags & CU_CTX_SCHED_MASK) == 3 || (flags & CU_CTX_SCHED_MASK) > 4)
      return CUDA_ERROR_INVALID_VALUE;
    Driver::get().set_flags(flags);
    return CUDA_SUCCESS;
  });
}
