// Streams and events: CUstream and CUevent are cudart's handles (the same
// structs), so either API may use them.
#include "cudadrv/driver.h"

using softgpu::cudadrv::guarded;
using softgpu::cudadrv::per_thread;
using softgpu::cudadrv::rt;

CUresult CUDAAPI cuStreamCreate(CUstream* phStream, unsigned int Flags) {
  return guarded([&] {
    if (!phStream || (Flags & ~unsigned(CU_STREAM_NON_BLOCKING))) return CUDA_ERROR_INVALID_VALUE;
    return rt(cudaStreamCreateWithFlags(phStream, Flags));
  });
}

CUresult CUDAAPI cuStreamCreateWithPriority(CUstream* phStream, unsigned int flags, int priority) {
  return guarded([&] {
    if (!phStream || (flags & ~unsigned(CU_STREAM_NON_BLOCKING))) return CUDA_ERROR_INVALID_VALUE;
    return rt(cudaStreamCreateWithPriority(phStream, flags, priority));
  });
}

CUresult CUDAAPI cuStreamDestroy(CUstream hStream) {
  return guarded([&] { return hStream ? rt(cudaStreamDestroy(hStream)) : CUDA_ERROR_INVALID_HANDLE; });
}

CUresult CUDAAPI cuStreamSynchronize(CUstream hStream) {
  return guarded([&] { return rt(cudaStreamSynchronize(hStream)); });
}

CUresult CUDAAPI cuStreamQuery(CUstream hStream) { return guarded([&] { return rt(cudaStreamQuery(hStream)); }); }

// Capture itself is the runtime's (cudaStreamBeginCapture); the driver
// answers whether a stream is being captured. The two enums have the same
// numbers.
CUresult CUDAAPI cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus* captureStatus) {
  static_assert(int(CU_STREAM_CAPTURE_STATUS_INVALIDATED) == int(cudaStreamCaptureStatusInvalidated));
  return guarded([&] {
    return rt(cudaStreamIsCapturing(hStream, reinterpret_cast<cudaStreamCaptureStatus*>(captureStatus)));
  });
}

CUresult CUDAAPI cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr, size_t length, unsigned int flags) {
  return guarded([&] { return rt(cudaStreamAttachMemAsync(hStream, softgpu::cudadrv::ptr(dptr), length, flags)); });
}

CUresult CUDAAPI cuStreamGetDevice(CUstream hStream, CUdevice* device) {
  return guarded([&] { return rt(cudaStreamGetDevice(hStream, device)); });
}

CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags) {
  return guarded([&] {
    if (!hEvent) return CUDA_ERROR_INVALID_HANDLE;
    return rt(cudaStreamWaitEvent(hStream, hEvent, Flags));
  });
}

CUresult CUDAAPI cuEventCreate(CUevent* phEvent, unsigned int Flags) {
  return guarded([&] {
    constexpr unsigned kKnown = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
    if (!phEvent || (Flags & ~kKnown)) return CUDA_ERROR_INVALID_VALUE;
    return rt(cudaEventCreateWithFlags(phEvent, Flags));  // CU_EVENT_* have cudart's values
  });
}

CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream) {
  return guarded([&] { return hEvent ? rt(cudaEventRecord(hEvent, hStream)) : CUDA_ERROR_INVALID_HANDLE; });
}

// CU_EVENT_RECORD_EXTERNAL (outside graph capture, the only use softgpu
// has) records as the default does.
CUresult CUDAAPI cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags) {
  return guarded([&] {
    return hEvent ? rt(cudaEventRecordWithFlags(hEvent, hStream, flags)) : CUDA_ERROR_INVALID_HANDLE;
  });
}

CUresult CUDAAPI cuEventSynchronize(CUevent hEvent) {
  return guarded([&] { return hEvent ? rt(cudaEventSynchronize(hEvent)) : CUDA_ERROR_INVALID_HANDLE; });
}

CUresult CUDAAPI cuEventQuery(CUevent hEvent) {
  return guarded([&] { return hEvent ? rt(cudaEventQuery(hEvent)) : CUDA_ERROR_INVALID_HANDLE; });
}

CUresult CUDAAPI cuEventElapsedTime(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
  return guarded([&] {
    if (!pMilliseconds) return CUDA_ERROR_INVALID_VALUE;
    if (!hStart || !hEnd) return CUDA_ERROR_INVALID_HANDLE;
    return rt(cudaEventElapsedTime(pMilliseconds, hStart, hEnd));
  });
}

// The pre-12.8 entry point, same signature (cuda.h maps the name to _v2).
extern "C" CUresult CUDAAPI cuEventElapsedTime_v1(float* ms, CUevent a, CUevent b) __asm__("cuEventElapsedTime");
extern "C" CUresult CUDAAPI cuEventElapsedTime_v1(float* ms, CUevent a, CUevent b) { return cuEventElapsedTime(ms, a, b); }

CUresult CUDAAPI cuEventDestroy(CUevent hEvent) {
  return guarded([&] { return hEvent ? rt(cudaEventDestroy(hEvent)) : CUDA_ERROR_INVALID_HANDLE; });
}

extern "C" {
CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream s);
CUresult CUDAAPI cuStreamQuery_ptsz(CUstream s);
CUresult CUDAAPI cuStreamWaitEvent_ptsz(CUstream s, CUevent e, unsigned int flags);
CUresult CUDAAPI cuEventRecord_ptsz(CUevent e, CUstream s);
CUresult CUDAAPI cuEventRecordWithFlags_ptsz(CUevent e, CUstream s, unsigned int flags);
CUresult CUDAAPI cuStreamIsCapturing_ptsz(CUstream s, CUstreamCaptureStatus* status);
}
CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream s) { return cuStreamSynchronize(per_thread(s)); }
CUresult CUDAAPI cuStreamQuery_ptsz(CUstream s) { return cuStreamQuery(per_thread(s)); }
CUresult CUDAAPI cuStreamWaitEvent_ptsz(CUstream s, CUevent e, unsigned int flags) {
  return cuStreamWaitEvent(per_thread(s), e, flags);
}
CUresult CUDAAPI cuEventRecord_ptsz(CUevent e, CUstream s) { return cuEventRecord(e, per_thread(s)); }
CUresult CUDAAPI cuEventRecordWithFlags_ptsz(CUevent e, CUstream s, unsigned int flags) {
  return cuEventRecordWithFlags(e, per_thread(s), flags);
}
CUresult CUDAAPI cuStreamIsCapturing_ptsz(CUstream s, CUstreamCaptureStatus* status) {
  return cuStreamIsCapturing(per_thread(s), status);
}
