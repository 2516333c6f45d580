// Memory: allocation, pinned and registered host memory, copies, memsets,
// address ranges and pointer attributes, over softgpu's cudart.
#include <cstring>

#include "cudadrv/driver.h"

using softgpu::cudadrv::Driver;
using softgpu::cudadrv::dptr;
using softgpu::cudadrv::guarded;
using softgpu::cudadrv::per_thread;
using softgpu::cudadrv::ptr;
using softgpu::cudadrv::rt;

namespace {
// loc: the calling entry point, whose name a failure is reported under.
using Loc = std::source_location;

CUresult copy(CUdeviceptr dst, const void* src, size_t n, cudaMemcpyKind kind, CUstream s, bool async,
              Loc loc = Loc::current()) {
  return guarded([&] {
    return async ? rt(cudaMemcpyAsync(ptr(dst), src, n, kind, s)) : rt(cudaMemcpy(ptr(dst), src, n, kind));
  }, loc);
}
CUresult copy_out(void* dst, CUdeviceptr src, size_t n, CUstream s, bool async, Loc loc = Loc::current()) {
  return guarded([&] {
    return async ? rt(cudaMemcpyAsync(dst, ptr(src), n, cudaMemcpyDeviceToHost, s))
                 : rt(cudaMemcpy(dst, ptr(src), n, cudaMemcpyDeviceToHost));
  }, loc);
}
CUresult set(CUdeviceptr dst, unsigned value, size_t elem, size_t n, CUstream s, Loc loc = Loc::current()) {
  return guarded([&] {
    if (elem == 1) return rt(cudaMemsetAsync(ptr(dst), int(value & 0xff), n, s));
    return rt(softgpu_cudart_memset_elements(ptr(dst), value, elem, n, s));
  }, loc);
}
}  // namespace

CUresult CUDAAPI cuMemAlloc(CUdeviceptr* dp, size_t bytesize) {
  return guarded([&] {
    if (!dp || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
    void* p = nullptr;
    CUresult r = rt(cudaMalloc(&p, bytesize));
    if (r == CUDA_SUCCESS) *dp = dptr(p);
    return r;
  });
}

CUresult CUDAAPI cuMemFree(CUdeviceptr dp) { return guarded([&] { return rt(cudaFree(ptr(dp))); }); }

CUresult CUDAAPI cuMemAllocHost(void** pp, size_t bytesize) {
  return guarded([&] { return pp && bytesize ? rt(cudaMallocHost(pp, bytesize)) : CUDA_ERROR_INVALID_VALUE; });
}

CUresult CUDAAPI cuMemFreeHost(void* p) { return guarded([&] { return rt(cudaFreeHost(p)); }); }

// CU_MEMHOSTALLOC_* and CU_MEMHOSTREGISTER_* have cudart's flag values.
CUresult CUDAAPI cuMemHostAlloc(void** pp, size_t bytesize, unsigned int Flags) {
  return guarded([&] { return pp && bytesize ? rt(cudaHostAlloc(pp, bytesize, Flags)) : CUDA_ERROR_INVALID_VALUE; });
}

CUresult CUDAAPI cuMemHostGetDevicePointer(CUdeviceptr* pdptr, void* p, unsigned int Flags) {
  return guarded([&] {
    if (!pdptr) return CUDA_ERROR_INVALID_VALUE;
    void* d = nullptr;
    CUresult r = rt(cudaHostGetDevicePointer(&d, p, Flags));
    if (r == CUDA_SUCCESS) *pdptr = dptr(d);
    return r;
  });
}

CUresult CUDAAPI cuMemHostRegister(void* p, size_t bytesize, unsigned int Flags) {
  return guarded([&] { return rt(cudaHostRegister(p, bytesize, Flags)); });
}

CUresult CUDAAPI cuMemHostUnregister(void* p) { return guarded([&] { return rt(cudaHostUnregister(p)); }); }

CUresult CUDAAPI cuMemGetInfo(size_t* free, size_t* total) {
  return guarded([&] { return free && total ? rt(cudaMemGetInfo(free, total)) : CUDA_ERROR_INVALID_VALUE; });
}

CUresult CUDAAPI cuMemGetAddressRange(CUdeviceptr* pbase, size_t* psize, CUdeviceptr dp) {
  return guarded([&] {
    void* base = nullptr;
    size_t size = 0;
    if (CUresult r = rt(softgpu_cudart_address_range(ptr(dp), &base, &size)); r != CUDA_SUCCESS)
      return r == CUDA_ERROR_NOT_FOUND ? CUDA_ERROR_INVALID_VALUE : r;
    if (pbase) *pbase = dptr(base);
    if (psize) *psize = size;
    return CUDA_SUCCESS;
  });
}

// ---------------------------------------------------------------- copies

CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  return copy(dst, ptr(src), n, cudaMemcpyDefault, nullptr, false);
}
CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  return copy(dst, ptr(src), n, cudaMemcpyDefault, s, true);
}
CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr dst, const void* src, size_t n) {
  return copy(dst, src, n, cudaMemcpyHostToDevice, nullptr, false);
}
CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t n, CUstream s) {
  return copy(dst, src, n, cudaMemcpyHostToDevice, s, true);
}
CUresult CUDAAPI cuMemcpyDtoH(void* dst, CUdeviceptr src, size_t n) { return copy_out(dst, src, n, nullptr, false); }
CUresult CUDAAPI cuMemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t n, CUstream s) {
  return copy_out(dst, src, n, s, true);
}
CUresult CUDAAPI cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  return copy(dst, ptr(src), n, cudaMemcpyDeviceToDevice, nullptr, false);
}
CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  return copy(dst, ptr(src), n, cudaMemcpyDeviceToDevice, s, true);
}

// ---------------------------------------------------------------- memsets

CUresult CUDAAPI cuMemsetD8(CUdeviceptr d, unsigned char v, size_t n) { return set(d, v, 1, n, nullptr); }
CUresult CUDAAPI cuMemsetD16(CUdeviceptr d, unsigned short v, size_t n) { return set(d, v, 2, n, nullptr); }
CUresult CUDAAPI cuMemsetD32(CUdeviceptr d, unsigned int v, size_t n) { return set(d, v, 4, n, nullptr); }
CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) { return set(d, v, 1, n, s); }
CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream s) { return set(d, v, 2, n, s); }
CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, CUstream s) { return set(d, v, 4, n, s); }

// Advice and prefetches on managed memory: the runtime's (the location
// types and advice values have the same numbers).
static_assert(sizeof(CUmemLocation) == sizeof(cudaMemLocation) &&
              int(CU_MEM_ADVISE_UNSET_ACCESSED_BY) == int(cudaMemAdviseUnsetAccessedBy));
CUresult CUDAAPI cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUmemLocation location) {
  return guarded([&] {
    cudaMemLocation loc;
    std::memcpy(&loc, &location, sizeof loc);
    return rt(cudaMemAdvise(ptr(devPtr), count, static_cast<cudaMemoryAdvise>(advice), loc));
  });
}

CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags,
                                    CUstream hStream) {
  return guarded([&] {
    cudaMemLocation loc;
    std::memcpy(&loc, &location, sizeof loc);
    return rt(cudaMemPrefetchAsync(ptr(devPtr), count, loc, flags, hStream));
  });
}

// One device, one context: a peer copy is a copy within it.
CUresult CUDAAPI cuMemcpyPeer(CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src, CUcontext srcCtx, size_t n) {
  if (!Driver::get().valid_context(dstCtx) || !Driver::get().valid_context(srcCtx)) return CUDA_ERROR_INVALID_CONTEXT;
  return copy(dst, ptr(src), n, cudaMemcpyDeviceToDevice, nullptr, false);
}
CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src, CUcontext srcCtx, size_t n,
                                   CUstream s) {
  if (!Driver::get().valid_context(dstCtx) || !Driver::get().valid_context(srcCtx)) return CUDA_ERROR_INVALID_CONTEXT;
  return copy(dst, ptr(src), n, cudaMemcpyDeviceToDevice, s, true);
}

// ---------------------------------------------------------------- per-thread default stream variants

extern "C" {
CUresult CUDAAPI cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n);
CUresult CUDAAPI cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s);
CUresult CUDAAPI cuMemcpyHtoD_v2_ptds(CUdeviceptr dst, const void* src, size_t n);
CUresult CUDAAPI cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void* src, size_t n, CUstream s);
CUresult CUDAAPI cuMemcpyDtoH_v2_ptds(void* dst, CUdeviceptr src, size_t n);
CUresult CUDAAPI cuMemcpyDtoHAsync_v2_ptsz(void* dst, CUdeviceptr src, size_t n, CUstream s);
CUresult CUDAAPI cuMemcpyDtoD_v2_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n);
CUresult CUDAAPI cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s);
CUresult CUDAAPI cuMemsetD8_v2_ptds(CUdeviceptr d, unsigned char v, size_t n);
CUresult CUDAAPI cuMemsetD16_v2_ptds(CUdeviceptr d, unsigned short v, size_t n);
CUresult CUDAAPI cuMemsetD32_v2_ptds(CUdeviceptr d, unsigned int v, size_t n);
CUresult CUDAAPI cuMemsetD8Async_ptsz(CUdeviceptr d, unsigned char v, size_t n, CUstream s);
CUresult CUDAAPI cuMemsetD16Async_ptsz(CUdeviceptr d, unsigned short v, size_t n, CUstream s);
CUresult CUDAAPI cuMemsetD32Async_ptsz(CUdeviceptr d, unsigned int v, size_t n, CUstream s);
}

CUresult CUDAAPI cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  return copy(dst, ptr(src), n, cudaMemcpyDefault, CU_STREAM_PER_THREAD, true);
}
CUresult CUDAAPI cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  return copy(dst, ptr(src), n, cudaMemcpyDefault, per_thread(s), true);
}
CUresult CUDAAPI cuMemcpyHtoD_v2_ptds(CUdeviceptr dst, const void* src, size_t n) {
  return copy(dst, src, n, cudaMemcpyHostToDevice, CU_STREAM_PER_THREAD, true);
}
CUresult CUDAAPI cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void* src, size_t n, CUstream s) {
  return copy(dst, src, n, cudaMemcpyHostToDevice, per_thread(s), true);
}
CUresult CUDAAPI cuMemcpyDtoH_v2_ptds(void* dst, CUdeviceptr src, size_t n) {
  return copy_out(dst, src, n, CU_STREAM_PER_THREAD, true);
}
CUresult CUDAAPI cuMemcpyDtoHAsync_v2_ptsz(void* dst, CUdeviceptr src, size_t n, CUstream s) {
  return copy_out(dst, src, n, per_thread(s), true);
}
CUresult CUDAAPI cuMemcpyDtoD_v2_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  return copy(dst, ptr(src), n, cudaMemcpyDeviceToDevice, CU_STREAM_PER_THREAD, true);
}
CUresult CUDAAPI cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  return copy(dst, ptr(src), n, cudaMemcpyDeviceToDevice, per_thread(s), true);
}
CUresult CUDAAPI cuMemsetD8_v2_ptds(CUdeviceptr d, unsigned char v, size_t n) {
  return set(d, v, 1, n, CU_STREAM_PER_THREAD);
}
CUresult CUDAAPI cuMemsetD16_v2_ptds(CUdeviceptr d, unsigned short v, size_t n) {
  return set(d, v, 2, n, CU_STREAM_PER_THREAD);
}
CUresult CUDAAPI cuMemsetD32_v2_ptds(CUdeviceptr d, unsigned int v, size_t n) {
  return set(d, v, 4, n, CU_STREAM_PER_THREAD);
}
CUresult CUDAAPI cuMemsetD8Async_ptsz(CUdeviceptr d, unsigned char v, size_t n, CUstream s) {
  return set(d, v, 1, n, per_thread(s));
}
CUresult CUDAAPI cuMemsetD16Async_ptsz(CUdeviceptr d, unsigned short v, size_t n, CUstream s) {
  return set(d, v, 2, n, per_thread(s));
}
CUresult CUDAAPI cuMemsetD32Async_ptsz(CUdeviceptr d, unsigned int v, size_t n, CUstream s) {
  return set(d, v, 4, n, per_thread(s));
}

// ---------------------------------------------------------------- pointer attributes

namespace {
struct Pointer {
  cudaPointerAttributes a{};
  void* base = nullptr;
  size_t size = 0;
};

CUresult query(CUdeviceptr p, Pointer* out) {
  if (CUresult r = rt(cudaPointerGetAttributes(&out->a, ptr(p))); r != CUDA_SUCCESS) return r;
  if (out->a.type == cudaMemoryTypeUnregistered) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = rt(softgpu_cudart_address_range(ptr(p), &out->base, &out->size)); r != CUDA_SUCCESS)
    return r == CUDA_ERROR_NOT_FOUND ? CUDA_ERROR_INVALID_VALUE : r;
  return CUDA_SUCCESS;
}

template <class T>
void put(void* data, T v) {
  std::memcpy(data, &v, sizeof v);
}

// One attribute of a known pointer. Booleans are written as one byte (bool).
CUresult attribute(const Pointer& p, CUpointer_attribute attr, void* data) {
  const bool host = p.a.type == cudaMemoryTypeHost;
  switch (attr) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: put(data, Driver::get().primary()); break;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      put(data, static_cast<unsigned>(host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE));  // managed: device
      break;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
      if (!p.a.devicePointer) return CUDA_ERROR_INVALID_VALUE;
      put(data, dptr(p.a.devicePointer));
      break;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
      if (!p.a.hostPointer) return CUDA_ERROR_INVALID_VALUE;
      put(data, p.a.hostPointer);
      break;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: put(data, true); break;  // every operation is synchronous here
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: put(data, p.a.type == cudaMemoryTypeManaged); break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: put(data, p.a.device); break;
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE: put(data, false); break;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: put(data, dptr(p.base)); break;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: put(data, p.size); break;
    case CU_POINTER_ATTRIBUTE_MAPPED: put(data, true); break;
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES: put(data, 0ull); break;
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE: put(data, false); break;
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: put(data, static_cast<unsigned>(CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE)); break;
    default: return attr > 0 && attr <= CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE ? CUDA_ERROR_NOT_SUPPORTED
                                                                                      : CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

// The size of an attribute's value, for cuPointerGetAttributes' defaults.
size_t attribute_size(CUpointer_attribute attr) {
  switch (attr) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: case CU_POINTER_ATTRIBUTE_HOST_POINTER: return sizeof(void*);
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: return sizeof(CUdeviceptr);
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: return sizeof(size_t);
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: return sizeof(unsigned);
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: return sizeof(int);
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES: return sizeof(unsigned long long);
    default: return sizeof(bool);
  }
}
}  // namespace

CUresult CUDAAPI cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr p) {
  return guarded([&] {
    if (!data) return CUDA_ERROR_INVALID_VALUE;
    Pointer q;
    if (CUresult r = query(p, &q); r != CUDA_SUCCESS) return r;
    return ::attribute(q, attribute, data);
  });
}

// Unlike cuPointerGetAttribute, memory CUDA does not know is no error: its
// attributes read as zero (the device ordinal as -1, as documented).
CUresult CUDAAPI cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute* attributes, void** data,
                                        CUdeviceptr p) {
  return guarded([&] {
    if (numAttributes == 0 || !attributes || !data) return CUDA_ERROR_INVALID_VALUE;
    Pointer q;
    const bool known = query(p, &q) == CUDA_SUCCESS;
    for (unsigned i = 0; i < numAttributes; ++i) {
      if (!data[i]) return CUDA_ERROR_INVALID_VALUE;
      if (!known) {
        std::memset(data[i], 0, attribute_size(attributes[i]));
        if (attributes[i] == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL) put(data[i], -1);
        continue;
      }
      CUresult r = attribute(q, attributes[i], data[i]);
      if (r == CUDA_ERROR_INVALID_VALUE && attributes[i] >= CU_POINTER_ATTRIBUTE_CONTEXT &&
          attributes[i] <= CU_POINTER_ATTRIBUTE_HOST_POINTER)
        std::memset(data[i], 0, attribute_size(attributes[i]));  // no such pointer for this memory: NULL
      else if (r != CUDA_SUCCESS)
        return r;
    }
    return CUDA_SUCCESS;
  });
}
