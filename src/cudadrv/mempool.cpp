// Stream-ordered allocation and memory pools (cuMemAllocAsync, cuMemPool*),
// over cudart's pools (runtime/mempool.h): a CUmemoryPool is a
// cudaMemPool_t, and the driver's pool properties, attributes, access
// descriptors and locations have the runtime's layouts and numbers.
#include <type_traits>

#include "cudadrv/driver.h"

using softgpu::cudadrv::check_device;
using softgpu::cudadrv::dptr;
using softgpu::cudadrv::guarded;
using softgpu::cudadrv::per_thread;
using softgpu::cudadrv::ptr;
using softgpu::cudadrv::rt;

static_assert(std::is_same_v<CUmemoryPool, cudaMemPool_t>);
static_assert(sizeof(CUmemPoolProps) == sizeof(cudaMemPoolProps));
static_assert(sizeof(CUmemAccessDesc) == sizeof(cudaMemAccessDesc));
static_assert(sizeof(CUmemLocation) == sizeof(cudaMemLocation));
static_assert(int(CU_MEMPOOL_ATTR_USED_MEM_HIGH) == int(cudaMemPoolAttrUsedMemHigh));
static_assert(int(CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES) ==
              int(cudaMemPoolReuseFollowEventDependencies));

namespace {

CUresult alloc_async(CUdeviceptr* dp, size_t bytes, CUmemoryPool pool, CUstream s) {
  if (!dp) return CUDA_ERROR_INVALID_VALUE;
  void* p = nullptr;
  CUresult r = pool ? rt(cudaMallocFromPoolAsync(&p, bytes, pool, s)) : rt(cudaMallocAsync(&p, bytes, s));
  if (r == CUDA_SUCCESS) *dp = dptr(p);
  return r;
}
}  // namespace

CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool* pool_out, CUdevice dev) {
  return guarded([&] {
    if (CUresult r = check_device(dev); r != CUDA_SUCCESS) return r;
    return rt(cudaDeviceGetDefaultMemPool(pool_out, dev));
  });
}

CUresult CUDAAPI cuDeviceGetMemPool(CUmemoryPool* pool, CUdevice dev) {
  return guarded([&] {
    if (CUresult r = check_device(dev); r != CUDA_SUCCESS) return r;
    return rt(cudaDeviceGetMemPool(pool, dev));
  });
}

CUresult CUDAAPI cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool) {
  return guarded([&] {
    if (CUresult r = check_device(dev); r != CUDA_SUCCESS) return r;
    return rt(cudaDeviceSetMemPool(dev, pool));
  });
}

CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool* pool, const CUmemPoolProps* props) {
  return guarded([&] { return rt(cudaMemPoolCreate(pool, reinterpret_cast<const cudaMemPoolProps*>(props))); });
}

CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool pool) {
  return guarded([&] { return rt(cudaMemPoolDestroy(pool)); });
}

CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep) {
  return guarded([&] { return rt(cudaMemPoolTrimTo(pool, minBytesToKeep)); });
}

CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void* value) {
  return guarded([&] { return rt(cudaMemPoolSetAttribute(pool, static_cast<cudaMemPoolAttr>(attr), value)); });
}

CUresult CUDAAPI cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void* value) {
  return guarded([&] { return rt(cudaMemPoolGetAttribute(pool, static_cast<cudaMemPoolAttr>(attr), value)); });
}

CUresult CUDAAPI cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc* map, size_t count) {
  return guarded(
      [&] { return rt(cudaMemPoolSetAccess(pool, reinterpret_cast<const cudaMemAccessDesc*>(map), count)); });
}

CUresult CUDAAPI cuMemPoolGetAccess(CUmemAccess_flags* flags, CUmemoryPool pool, CUmemLocation* location) {
  return guarded([&] {
    return rt(cudaMemPoolGetAccess(reinterpret_cast<cudaMemAccessFlags*>(flags), pool,
                                   reinterpret_cast<cudaMemLocation*>(location)));
  });
}

CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr* dp, size_t bytesize, CUstream s) {
  return guarded([&] { return alloc_async(dp, bytesize, nullptr, s); });
}

CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr* dp, size_t bytesize, CUmemoryPool pool, CUstream s) {
  return guarded([&] { return pool ? alloc_async(dp, bytesize, pool, s) : CUDA_ERROR_INVALID_VALUE; });
}

CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dp, CUstream s) {
  return guarded([&] { return rt(cudaFreeAsync(ptr(dp), s)); });
}

// The per-thread-default-stream forms (cuda.h's names under
// CUDA_API_PER_THREAD_DEFAULT_STREAM): stream 0 is the thread's stream.
extern "C" {
CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr* dp, size_t bytesize, CUstream s);
CUresult CUDAAPI cuMemAllocFromPoolAsync_ptsz(CUdeviceptr* dp, size_t bytesize, CUmemoryPool pool, CUstream s);
CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr dp, CUstream s);
}
CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr* dp, size_t bytesize, CUstream s) {
  return guarded([&] { return alloc_async(dp, bytesize, nullptr, per_thread(s)); });
}
CUresult CUDAAPI cuMemAllocFromPoolAsync_ptsz(CUdeviceptr* dp, size_t bytesize, CUmemoryPool pool, CUstream s) {
  return guarded([&] { return pool ? alloc_async(dp, bytesize, pool, per_thread(s)) : CUDA_ERROR_INVALID_VALUE; });
}
CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr dp, CUstream s) {
  return guarded([&] { return rt(cudaFreeAsync(ptr(dp), per_thread(s))); });
}
