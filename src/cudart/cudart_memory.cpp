// libcudart.so.13 C ABI, part 2: memory, symbols, streams, events, and the
// per-thread-default-stream (_ptsz/_ptds) aliases nvcc emits with
// --default-stream per-thread. Work runs synchronously (see runtime.h), so
// an alias behaves exactly like the legacy-stream call.
#include "cudart/cudart_internal.h"

using namespace softgpu;
using softgpu::cudart::call;
using softgpu::cudart::rt;
using softgpu::cudart::to_kind;

extern "C" {
cudaError_t cudaMemcpy_ptds(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                                 cudaStream_t stream);
cudaError_t cudaMemset_ptds(void* devPtr, int value, size_t count);
cudaError_t cudaMemsetAsync_ptsz(void* devPtr, int value, size_t count, cudaStream_t stream);
cudaError_t cudaMemcpy2D_ptds(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                   size_t height, enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemset2D_ptds(void* devPtr, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemset2DAsync_ptsz(void* devPtr, size_t pitch, int value, size_t width, size_t height,
                                   cudaStream_t stream);
cudaError_t cudaMemcpyToSymbol_ptds(const void* symbol, const void* src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromSymbol_ptds(void* dst, const void* symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void* symbol, const void* src, size_t count, size_t offset,
                                         enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void* dst, const void* symbol, size_t count, size_t offset,
                                           enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemPrefetchAsync_ptsz(const void* devPtr, size_t count, struct cudaMemLocation location,
                                      unsigned int flags, cudaStream_t stream);
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream);
cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags);
cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                       unsigned int flags);
cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void* userData);
cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream, unsigned int flags);
}

// ---------------------------------------------------------------- allocation

cudaError_t cudaMalloc(void** devPtr, size_t size) {
  return call([&] { return rt().malloc(devPtr, size); });
}

cudaError_t cudaFree(void* devPtr) {
  return call([&] { return rt().free(devPtr); });
}

cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int flags) {
  return call([&] { return rt().malloc_managed(devPtr, size, flags); });
}

cudaError_t cudaHostAlloc(void** pHost, size_t size, unsigned int flags) {
  return call([&] { return rt().host_alloc(pHost, size, flags); });
}

cudaError_t cudaMallocHost(void** ptr, size_t size) {
  return call([&] { return rt().host_alloc(ptr, size, 0); });
}

cudaError_t cudaHostGetFlags(unsigned int* pFlags, void* pHost) {
  return call([&] { return rt().host_get_flags(pFlags, pHost); });
}

cudaError_t cudaFreeHost(void* ptr) {
  return call([&] { return rt().free_host(ptr); });
}

cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
  return call([&] { return rt().host_register(ptr, size, flags); });
}

cudaError_t cudaHostUnregister(void* ptr) {
  return call([&] { return rt().host_unregister(ptr); });
}

cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags) {
  return call([&] { return rt().host_get_device_pointer(pDevice, pHost, flags); });
}

cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  return call([&] { return rt().mem_get_info(free, total); });
}

// Stream-ordered allocation and memory pools: cudart_mempool.cpp.

cudaError_t cudaMemPrefetchAsync(const void* devPtr, size_t count, struct cudaMemLocation, unsigned int,
                                 cudaStream_t stream) {
  return call([&] { return rt().prefetch(devPtr, count, stream); });
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes* attributes, const void* ptr) {
  return call([&] {
    if (!attributes) return Status::InvalidValue;
    runtime::PointerInfo info;
    Status s = rt().pointer_info(ptr, &info);
    if (s != Status::Success) return s;
    attributes->type = static_cast<cudaMemoryType>(static_cast<int>(info.type));
    attributes->device = info.device;
    attributes->devicePointer = info.device_pointer;
    attributes->hostPointer = info.host_pointer;
    return Status::Success;
  });
}

// ---------------------------------------------------------------- copies

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  return call([&] { return rt().memcpy(dst, src, count, to_kind(kind)); });
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
  return call([&] { return rt().memcpy(dst, src, count, to_kind(kind), stream, true); });
}

cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  return call([&] { return rt().memset(devPtr, value, count); });
}

cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  return call([&] { return rt().memset(devPtr, value, count, stream); });
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         enum cudaMemcpyKind kind) {
  return call([&] { return rt().memcpy_2d(dst, dpitch, src, spitch, width, height, to_kind(kind)); });
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                              size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
  return call([&] { return rt().memcpy_2d(dst, dpitch, src, spitch, width, height, to_kind(kind), stream, true); });
}

cudaError_t cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width, size_t height) {
  return call([&] { return rt().memset_2d(devPtr, pitch, value, width, height); });
}

cudaError_t cudaMemset2DAsync(void* devPtr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream) {
  return call([&] { return rt().memset_2d(devPtr, pitch, value, width, height, stream); });
}

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind) {
  return call([&] { return rt().memcpy_to_symbol(symbol, src, count, offset, to_kind(kind)); });
}

cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind) {
  return call([&] { return rt().memcpy_from_symbol(dst, symbol, count, offset, to_kind(kind)); });
}

cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t stream) {
  return call([&] { return rt().memcpy_to_symbol(symbol, src, count, offset, to_kind(kind), stream, true); });
}

cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t stream) {
  return call([&] { return rt().memcpy_from_symbol(dst, symbol, count, offset, to_kind(kind), stream, true); });
}

cudaError_t cudaGetSymbolAddress(void** devPtr, const void* symbol) {
  return call([&] { return rt().symbol_address(devPtr, symbol); });
}

cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
  return call([&] { return rt().symbol_size(size, symbol); });
}

// ---------------------------------------------------------------- streams

cudaError_t cudaStreamCreate(cudaStream_t* pStream) {
  return call([&] { return rt().stream_create(reinterpret_cast<void**>(pStream), 0, 0); });
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags) {
  return call([&] { return rt().stream_create(reinterpret_cast<void**>(pStream), flags, 0); });
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* pStream, unsigned int flags, int priority) {
  return call([&] { return rt().stream_create(reinterpret_cast<void**>(pStream), flags, priority); });
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  return call([&] { return rt().stream_destroy(stream); });
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  return call([&] { return rt().stream_synchronize(stream); });
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  return call([&] { return rt().stream_query(stream); });
}

// Stream properties. Priorities are clamped to [-5, 0] at creation, the
// range reported here (the H100's).
cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  return call([&] {
    int device = 0;
    if (Status s = rt().get_device(&device); s != Status::Success) return s;  // initialization errors
    if (leastPriority) *leastPriority = 0;
    if (greatestPriority) *greatestPriority = -5;
    return Status::Success;
  });
}

cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags) {
  return call([&] { return flags ? rt().stream_info(stream, flags, nullptr) : Status::InvalidValue; });
}

cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
  return call([&] { return priority ? rt().stream_info(stream, nullptr, priority) : Status::InvalidValue; });
}

cudaError_t cudaStreamGetDevice(cudaStream_t stream, int* device) {
  return call([&] {
    if (!device) return Status::InvalidValue;
    if (Status s = rt().stream_check(stream); s != Status::Success) return s;
    return rt().get_device(device);
  });
}

// cudaStreamIsCapturing / cudaStreamGetCaptureInfo: src/cudart/cudart_graph.cpp.

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  return call([&] { return rt().stream_wait_event(stream, event, flags); });
}

namespace {
struct StreamCallback {
  cudaStreamCallback_t fn;
  cudaStream_t stream;
  void* user;
};
}  // namespace

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                  unsigned int flags) {
  return call([&] {
    if (!callback || flags != 0) return Status::InvalidValue;
    // CUDA refuses stream callbacks in capture (cudaLaunchHostFunc is the
    // capturable form); the record below also lives only during this call.
    enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &cs) == cudaSuccess && cs != cudaStreamCaptureStatusNone)
      return static_cast<Status>(cudaErrorStreamCaptureUnsupported);
    // The callback runs before this call returns, so the record can live on the stack.
    StreamCallback cb{callback, stream, userData};
    return rt().launch_host_func(
        stream,
        [](void* p) {
          auto* c = static_cast<StreamCallback*>(p);
          c->fn(c->stream, cudaSuccess, c->user);
        },
        &cb);
  });
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  return call([&] { return rt().launch_host_func(stream, fn, userData); });
}

// ---------------------------------------------------------------- events

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  return call([&] { return rt().event_create(reinterpret_cast<void**>(event), 0); });
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  return call([&] { return rt().event_create(reinterpret_cast<void**>(event), flags); });
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return call([&] { return rt().event_record(event, stream); });
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  return call([&] { return flags & ~1u ? Status::InvalidValue : rt().event_record(event, stream); });
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return call([&] { return rt().event_synchronize(event); });
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  return call([&] { return rt().event_query(event); });
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  return call([&] { return rt().event_elapsed(ms, start, end); });
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  return call([&] { return rt().event_destroy(event); });
}

// ---------------------------------------------------------------- per-thread aliases

cudaError_t cudaMemcpy_ptds(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  return cudaMemcpy(dst, src, count, kind);
}
cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                                 cudaStream_t stream) {
  return cudaMemcpyAsync(dst, src, count, kind, stream);
}
cudaError_t cudaMemset_ptds(void* devPtr, int value, size_t count) { return cudaMemset(devPtr, value, count); }
cudaError_t cudaMemsetAsync_ptsz(void* devPtr, int value, size_t count, cudaStream_t stream) {
  return cudaMemsetAsync(devPtr, value, count, stream);
}
cudaError_t cudaMemcpy2D_ptds(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              enum cudaMemcpyKind kind) {
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
cudaError_t cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                   size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
  return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream);
}
cudaError_t cudaMemset2D_ptds(void* devPtr, size_t pitch, int value, size_t width, size_t height) {
  return cudaMemset2D(devPtr, pitch, value, width, height);
}
cudaError_t cudaMemset2DAsync_ptsz(void* devPtr, size_t pitch, int value, size_t width, size_t height,
                                   cudaStream_t stream) {
  return cudaMemset2DAsync(devPtr, pitch, value, width, height, stream);
}
cudaError_t cudaMemcpyToSymbol_ptds(const void* symbol, const void* src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind) {
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
cudaError_t cudaMemcpyFromSymbol_ptds(void* dst, const void* symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind) {
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void* symbol, const void* src, size_t count, size_t offset,
                                         enum cudaMemcpyKind kind, cudaStream_t stream) {
  return cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, stream);
}
cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void* dst, const void* symbol, size_t count, size_t offset,
                                           enum cudaMemcpyKind kind, cudaStream_t stream) {
  return cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, stream);
}
cudaError_t cudaMemPrefetchAsync_ptsz(const void* devPtr, size_t count, struct cudaMemLocation location,
                                      unsigned int flags, cudaStream_t stream) {
  return cudaMemPrefetchAsync(devPtr, count, location, flags, stream);
}
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) { return cudaStreamSynchronize(stream); }
cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream) { return cudaStreamQuery(stream); }
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  return cudaStreamWaitEvent(stream, event, flags);
}
cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                       unsigned int flags) {
  return cudaStreamAddCallback(stream, callback, userData, flags);
}
cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  return cudaLaunchHostFunc(stream, fn, userData);
}
cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream) { return cudaEventRecord(event, stream); }
cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  return cudaEventRecordWithFlags(event, stream, flags);
}
