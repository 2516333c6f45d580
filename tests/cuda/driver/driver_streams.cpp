// Streams and events through the driver API: async copies and memsets on
// created streams, cross-stream waits, event records, queries, elapsed
// times, timing-disabled events; stream-ordered allocation from the default
// and a created memory pool; stream capture into a graph replayed; peer
// copies; results checked against CPU loops.
// Usage: driver_streams
#include <cmath>
#include <vector>

#include <cudaProfiler.h>

#include "drv_check.h"

int main() {
  CU_CHECK(cuInit(0));
  CUcontext ctx;
  CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
  CU_CHECK(cuCtxSetCurrent(ctx));
  CUmodule mod;
  CU_CHECK(cuModuleLoadData(&mod, kSaxpyPtx));
  CUfunction f;
  CU_CHECK(cuModuleGetFunction(&f, mod, "saxpy"));

  CUstream s1, s2;
  CU_CHECK(cuStreamCreate(&s1, CU_STREAM_DEFAULT));
  CU_CHECK(cuStreamCreateWithPriority(&s2, CU_STREAM_NON_BLOCKING, 0));
  CUevent start, stop, mid, untimed;
  CU_CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
  CU_CHECK(cuEventCreate(&stop, CU_EVENT_BLOCKING_SYNC));
  CU_CHECK(cuEventCreate(&mid, CU_EVENT_DEFAULT));
  CU_CHECK(cuEventCreate(&untimed, CU_EVENT_DISABLE_TIMING));

  const int n = 5000;
  std::vector<float> x(n), y(n), out(n);
  float* pinned_x = nullptr;
  CU_CHECK(cuMemAllocHost(reinterpret_cast<void**>(&pinned_x), n * sizeof(float)));
  for (int i = 0; i < n; ++i) pinned_x[i] = x[i] = 0.001f * i, y[i] = 2.0f;
  CUdeviceptr dx, dy;
  CU_CHECK(cuMemAlloc(&dx, n * 4));
  CU_CHECK(cuMemAlloc(&dy, n * 4));

  CU_CHECK(cuEventRecord(start, s1));
  CU_CHECK(cuMemcpyHtoDAsync(dx, pinned_x, n * 4, s1));
  CU_CHECK(cuMemsetD32Async(dy, 0x40000000u, n, s2));  // 2.0f on the other stream
  CU_EXPECT(cuEventRecordWithFlags(mid, s2, 2), CUDA_ERROR_INVALID_VALUE);  // flags: DEFAULT 0, EXTERNAL 1
  CU_CHECK(cuEventRecordWithFlags(mid, s2, CU_EVENT_RECORD_DEFAULT));
  CU_CHECK(cuStreamWaitEvent(s1, mid, 0));
  int nn = n;
  float a = -0.5f;
  void* params[] = {&nn, &a, &dx, &dy};
  CU_CHECK(cuLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, s1, params, nullptr));
  CU_CHECK(cuMemcpyDtoHAsync(out.data(), dy, n * 4, s1));
  CU_CHECK(cuEventRecord(stop, s1));
  CU_CHECK(cuEventRecord(untimed, s1));
  CU_CHECK(cuEventSynchronize(stop));
  CU_CHECK(cuEventQuery(stop));
  CU_CHECK(cuStreamQuery(s1));
  CU_CHECK(cuStreamSynchronize(s2));
  for (int i = 0; i < n; ++i)
    if (out[i] != std::fma(a, x[i], y[i])) {
      std::fprintf(stderr, "FAIL out[%d] = %g, expected %g\n", i, out[i], std::fma(a, x[i], y[i]));
      return 1;
    }
  float ms = -1, ms_mid = -1;
  CU_CHECK(cuEventElapsedTime(&ms, start, stop));
  CU_CHECK(cuEventElapsedTime(&ms_mid, start, mid));
  EXPECT_TRUE(ms >= 0 && ms_mid >= 0 && ms >= ms_mid);
  CU_EXPECT(cuEventElapsedTime(&ms, start, untimed), CUDA_ERROR_INVALID_HANDLE);
  CU_EXPECT(cuEventElapsedTime(nullptr, start, stop), CUDA_ERROR_INVALID_VALUE);

  // The default stream and the per-thread one work as handles too.
  CU_CHECK(cuMemsetD8Async(dy, 0, n * 4, nullptr));
  CU_CHECK(cuStreamSynchronize(nullptr));
  CU_CHECK(cuStreamSynchronize(CU_STREAM_PER_THREAD));
  CU_CHECK(cuMemcpyDtoH(out.data(), dy, n * 4));
  for (int i = 0; i < n; ++i) EXPECT_TRUE(out[i] == 0.0f);

  // Stream-ordered allocation: from the device's default pool and from a
  // created one, memset and copied on a stream, freed on it; pool
  // attributes; whether a stream is capturing.
  CUmemoryPool def_pool = nullptr, cur_pool = nullptr;
  CU_CHECK(cuDeviceGetDefaultMemPool(&def_pool, 0));
  CU_CHECK(cuDeviceGetMemPool(&cur_pool, 0));
  EXPECT_TRUE(def_pool && def_pool == cur_pool);
  CU_EXPECT(cuDeviceGetMemPool(&cur_pool, 7), CUDA_ERROR_INVALID_DEVICE);
  cuuint64_t threshold = 1 << 20, read_back = 0;
  CU_CHECK(cuMemPoolSetAttribute(def_pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold));
  CU_CHECK(cuMemPoolGetAttribute(def_pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &read_back));
  EXPECT_TRUE(read_back == threshold);
  CUdeviceptr da = 0;
  CU_CHECK(cuMemAllocAsync(&da, n * 4, s1));
  CU_CHECK(cuMemsetD32Async(da, 0x3f800000u, n, s1));  // 1.0f
  CU_CHECK(cuMemcpyDtoHAsync(out.data(), da, n * 4, s1));
  CU_CHECK(cuMemFreeAsync(da, s1));
  CU_CHECK(cuStreamSynchronize(s1));
  for (int i = 0; i < n; ++i) EXPECT_TRUE(out[i] == 1.0f);
  CUmemPoolProps props = {};
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = 0;
  CUmemoryPool pool = nullptr;
  CU_CHECK(cuMemPoolCreate(&pool, &props));
  CU_CHECK(cuMemAllocFromPoolAsync(&da, n * 4, pool, s2));
  cuuint64_t used = 0;
  CU_CHECK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
  EXPECT_TRUE(used >= cuuint64_t(n) * 4);
  CU_CHECK(cuMemcpyHtoDAsync(da, x.data(), n * 4, s2));
  CU_CHECK(cuMemcpyDtoHAsync(out.data(), da, n * 4, s2));
  CU_CHECK(cuMemFreeAsync(da, s2));
  CU_CHECK(cuStreamSynchronize(s2));
  for (int i = 0; i < n; ++i) EXPECT_TRUE(out[i] == x[i]);
  CU_CHECK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
  EXPECT_TRUE(used == 0);
  CU_CHECK(cuMemPoolTrimTo(pool, 0));
  CU_EXPECT(cuMemAllocFromPoolAsync(&da, 16, nullptr, s2), CUDA_ERROR_INVALID_VALUE);
  CU_CHECK(cuMemPoolDestroy(pool));
  CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  CU_CHECK(cuStreamIsCapturing(s1, &capturing));
  EXPECT_TRUE(capturing == CU_STREAM_CAPTURE_STATUS_NONE);

  // Capture into a graph: saxpy y = a*x + y captured once, replayed three
  // times (y = 2 + 3a*x), with the stream's device and a peer copy (within
  // the one device) beside it.
  CUdevice sdev = -1;
  CU_CHECK(cuStreamGetDevice(s1, &sdev));
  EXPECT_TRUE(sdev == 0);
  CU_CHECK(cuMemcpyHtoD(dx, x.data(), n * 4));
  CU_CHECK(cuMemsetD32(dy, 0x40000000u, n));
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  CU_CHECK(cuThreadExchangeStreamCaptureMode(&mode));
  EXPECT_TRUE(mode == CU_STREAM_CAPTURE_MODE_GLOBAL);  // the default, handed back
  CU_CHECK(cuThreadExchangeStreamCaptureMode(&mode));
  CU_CHECK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CU_CHECK(cuStreamIsCapturing(s1, &capturing));
  EXPECT_TRUE(capturing == CU_STREAM_CAPTURE_STATUS_ACTIVE);
  CU_CHECK(cuLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, s1, params, nullptr));
  CUgraph graph = nullptr;
  CU_CHECK(cuStreamEndCapture(s1, &graph));
  CUgraphExec exec = nullptr;
  CU_CHECK(cuGraphInstantiate(&exec, graph, 0));
  for (int r = 0; r < 3; ++r) CU_CHECK(cuGraphLaunch(exec, s1));
  CU_CHECK(cuStreamSynchronize(s1));
  CUdeviceptr dz;
  CU_CHECK(cuMemAlloc(&dz, n * 4));
  CU_CHECK(cuMemcpyPeer(dz, ctx, dy, ctx, n * 4));
  CU_CHECK(cuMemcpyDtoH(out.data(), dz, n * 4));
  for (int i = 0; i < n; ++i) {
    float want = 2.0f;
    for (int r = 0; r < 3; ++r) want = std::fma(a, x[i], want);
    if (out[i] != want) {
      std::fprintf(stderr, "FAIL graph out[%d] = %g, expected %g\n", i, out[i], want);
      return 1;
    }
  }
  CU_EXPECT(cuMemcpyPeer(dz, nullptr, dy, ctx, 4), CUDA_ERROR_INVALID_CONTEXT);
  CU_CHECK(cuProfilerStart());  // marks around a region a profiler would record
  CU_CHECK(cuProfilerStop());
  CU_CHECK(cuGraphExecDestroy(exec));
  CU_CHECK(cuGraphDestroy(graph));
  CU_CHECK(cuGraphCreate(&graph, 0));
  CU_CHECK(cuGraphDestroy(graph));
  CU_CHECK(cuMemFree(dz));

  for (CUevent e : {start, stop, mid, untimed}) CU_CHECK(cuEventDestroy(e));
  CU_CHECK(cuStreamDestroy(s1));
  CU_CHECK(cuStreamDestroy(s2));
  CU_EXPECT(cuStreamSynchronize(s1), CUDA_ERROR_INVALID_HANDLE);
  CU_CHECK(cuMemFreeHost(pinned_x));
  CU_CHECK(cuMemFree(dx));
  CU_CHECK(cuMemFree(dy));
  CU_CHECK(cuModuleUnload(mod));
  std::printf("PASS driver_streams\n");
  return 0;
}
