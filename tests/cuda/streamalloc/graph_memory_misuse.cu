// Graph memory and multi-stream capture misuse: the documented error codes
// for invalid alloc/free nodes, graph-memory attributes, cudaFreeAsync of
// non-graph memory during capture, and capture forks that are not joined,
// ended on the wrong stream or mixed between captures. Also a captured
// allocation freed outside its graph, checked against a CPU computation.
#include <vector>

#include "../check.cuh"

__global__ void iota_k(int* p, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i * k - 7;
}

static cudaMemAllocNodeParams alloc_params(size_t bytes) {
  cudaMemAllocNodeParams ap;
  std::memset(&ap, 0, sizeof(ap));
  ap.bytesize = bytes;
  ap.poolProps.allocType = cudaMemAllocationTypePinned;
  ap.poolProps.location.type = cudaMemLocationTypeDevice;
  ap.poolProps.location.id = 0;
  return ap;
}

int main() {
  cudaStream_t s1, s2, s3;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking));
  int* plain = nullptr;
  CHECK(cudaMalloc(&plain, 1024));

  // ---- alloc node parameters
  cudaGraph_t g, g2;
  CHECK(cudaGraphCreate(&g, 0));
  CHECK(cudaGraphCreate(&g2, 0));
  cudaGraphNode_t n, a, e;
  cudaMemAllocNodeParams ap = alloc_params(0);
  EXPECT_ERR(cudaGraphAddMemAllocNode(&n, g, nullptr, 0, &ap), cudaErrorInvalidValue);  // size 0
  EXPECT_ERR(cudaGraphAddMemAllocNode(&n, g, nullptr, 0, nullptr), cudaErrorInvalidValue);
  ap = alloc_params(4096);
  ap.poolProps.location.id = 1;
  EXPECT_ERR(cudaGraphAddMemAllocNode(&n, g, nullptr, 0, &ap), cudaErrorInvalidValue);  // no device 1
  ap = alloc_params(4096);
  ap.poolProps.allocType = cudaMemAllocationTypeInvalid;
  EXPECT_ERR(cudaGraphAddMemAllocNode(&n, g, nullptr, 0, &ap), cudaErrorInvalidValue);
  ap = alloc_params(4000);
  CHECK(cudaGraphAddMemAllocNode(&a, g, nullptr, 0, &ap));
  void* p = ap.dptr;
  REQUIRE(p != nullptr, "alloc node gave no address");
  CHECK(cudaGraphAddEmptyNode(&e, g, nullptr, 0));
  cudaMemAllocNodeParams got;
  EXPECT_ERR(cudaGraphMemAllocNodeGetParams(e, &got), cudaErrorInvalidValue);  // not an alloc node
  EXPECT_ERR(cudaGraphMemAllocNodeGetParams(a, nullptr), cudaErrorInvalidValue);
  CHECK(cudaGraphMemAllocNodeGetParams(a, &got));
  REQUIRE(got.dptr == p && got.bytesize == 4000, "alloc node params %p %zu", got.dptr, got.bytesize);

  // ---- free node rules
  EXPECT_ERR(cudaGraphAddMemFreeNode(&n, g, &a, 1, plain), cudaErrorInvalidValue);  // not a graph allocation
  EXPECT_ERR(cudaGraphAddMemFreeNode(&n, g, &a, 1, (char*)p + 64), cudaErrorInvalidValue);  // not its start
  EXPECT_ERR(cudaGraphAddMemFreeNode(&n, g, &e, 1, p), cudaErrorInvalidValue);  // not ordered after the alloc
  EXPECT_ERR(cudaGraphAddMemFreeNode(&n, g, &a, 1, nullptr), cudaErrorInvalidValue);
  // Freed in another graph: then the owning graph may not free it.
  cudaGraphNode_t f2;
  CHECK(cudaGraphAddMemFreeNode(&f2, g2, nullptr, 0, p));
  EXPECT_ERR(cudaGraphAddMemFreeNode(&n, g, &a, 1, p), cudaErrorInvalidValue);
  EXPECT_ERR(cudaGraphMemFreeNodeGetParams(f2, nullptr), cudaErrorInvalidValue);
  EXPECT_ERR(cudaGraphMemFreeNodeGetParams(a, &p), cudaErrorInvalidValue);  // not a free node
  CHECK(cudaGraphDestroy(g2));
  // With g2 gone, the owning graph frees it: once.
  cudaGraphNode_t f;
  CHECK(cudaGraphAddMemFreeNode(&f, g, &a, 1, p));
  EXPECT_ERR(cudaGraphAddMemFreeNode(&n, g, &f, 1, p), cudaErrorInvalidValue);
  CHECK(cudaGraphCreate(&g2, 0));
  EXPECT_ERR(cudaGraphAddMemFreeNode(&n, g2, nullptr, 0, p), cudaErrorInvalidValue);  // freed in its own graph
  CHECK(cudaGraphDestroy(g2));
  cudaGraphExec_t ge;
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  CHECK(cudaGraphLaunch(ge, s1));
  CHECK(cudaGraphLaunch(ge, s1));  // freed in the graph: relaunch is fine
  EXPECT_ERR(cudaFree(p), cudaErrorInvalidValue);
  EXPECT_ERR(cudaFreeAsync(p, s1), cudaErrorInvalidValue);
  CHECK(cudaGraphExecDestroy(ge));
  // Device launch cannot be combined with auto-free-on-launch.
  EXPECT_ERR(cudaGraphInstantiate(&ge, g, cudaGraphInstantiateFlagAutoFreeOnLaunch | cudaGraphInstantiateFlagDeviceLaunch),
             cudaErrorInvalidValue);
  CHECK(cudaGraphDestroy(g));

  // ---- graph-memory attributes
  uint64_t v = 0, five = 5, zero = 0;
  EXPECT_ERR(cudaDeviceGetGraphMemAttribute(1, cudaGraphMemAttrUsedMemCurrent, &v), cudaErrorInvalidDevice);
  EXPECT_ERR(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, nullptr), cudaErrorInvalidValue);
  EXPECT_ERR(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &zero), cudaErrorInvalidValue);
  EXPECT_ERR(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &five), cudaErrorInvalidValue);
  EXPECT_ERR(cudaDeviceSetGraphMemAttribute(1, cudaGraphMemAttrUsedMemHigh, &zero), cudaErrorInvalidDevice);
  EXPECT_ERR(cudaDeviceGraphMemTrim(1), cudaErrorInvalidValue);
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &v));
  REQUIRE(v == 4096, "used high %llu, expected 4096 (4000 rounded to 512)", (unsigned long long)v);
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &v));
  REQUIRE(v == 4096, "reserved %llu before trim", (unsigned long long)v);
  CHECK(cudaDeviceGraphMemTrim(0));
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &v));
  REQUIRE(v == 0, "reserved %llu after trim", (unsigned long long)v);
  CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
  CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero));
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &v));
  REQUIRE(v == 0, "used high %llu after reset", (unsigned long long)v);
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &v));
  REQUIRE(v == 0, "reserved high %llu after reset", (unsigned long long)v);

  // ---- a captured allocation left to the caller, freed outside the graph
  const int count = 3000;
  int* d = nullptr;
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CHECK(cudaMallocAsync(&d, count * sizeof(int), s1));
  iota_k<<<(count + 255) / 256, 256, 0, s1>>>(d, count, 3);
  EXPECT_ERR(cudaFreeAsync(plain, s1), cudaErrorInvalidValue);  // capture frees graph allocations only
  CHECK(cudaStreamEndCapture(s1, &g));
  size_t nn = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &nn));
  REQUIRE(nn == 2, "captured %zu nodes, expected alloc + kernel", nn);
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  std::vector<int> h(count);
  for (int it = 0; it < 3; ++it) {
    CHECK(cudaGraphLaunch(ge, s1));
    CHECK(cudaMemcpyAsync(h.data(), d, count * sizeof(int), cudaMemcpyDeviceToHost, s1));
    CHECK(cudaStreamSynchronize(s1));
    for (int i = 0; i < count; ++i) REQUIRE(h[i] == i * 3 - 7, "launch %d: h[%d] = %d", it, i, h[i]);
    EXPECT_ERR(cudaGraphLaunch(ge, s1), cudaErrorInvalidValue);  // d is still allocated
    CHECK(cudaFreeAsync(d, s1));
  }
  CHECK(cudaGraphExecDestroy(ge));
  CHECK(cudaGraphDestroy(g));

  // ---- capture forks
  cudaEvent_t ev, ev2;
  CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&ev2, cudaEventDisableTiming));
  // Not joined back: EndCapture fails and discards the graph.
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CHECK(cudaEventRecord(ev, s1));
  CHECK(cudaStreamWaitEvent(s2, ev, 0));
  cudaStreamCaptureStatus cs;
  CHECK(cudaStreamIsCapturing(s2, &cs));
  REQUIRE(cs == cudaStreamCaptureStatusActive, "s2 did not join the capture (%d)", (int)cs);
  iota_k<<<1, 32, 0, s2>>>(plain, 32, 1);
  g = (cudaGraph_t)0x1;
  EXPECT_ERR(cudaStreamEndCapture(s1, &g), cudaErrorStreamCaptureUnjoined);
  REQUIRE(g == nullptr, "graph %p from an unjoined capture", (void*)g);
  CHECK(cudaStreamIsCapturing(s2, &cs));
  REQUIRE(cs == cudaStreamCaptureStatusNone, "s2 still capturing (%d)", (int)cs);
  // Ended on the joined stream instead of the origin; then joined properly.
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CHECK(cudaEventRecord(ev, s1));
  CHECK(cudaStreamWaitEvent(s2, ev, 0));
  iota_k<<<1, 32, 0, s2>>>(plain, 32, 2);
  EXPECT_ERR(cudaStreamEndCapture(s2, &g), cudaErrorStreamCaptureUnmatched);
  // Two captures may not be mixed.
  CHECK(cudaStreamBeginCapture(s3, cudaStreamCaptureModeGlobal));
  EXPECT_ERR(cudaStreamWaitEvent(s3, ev, 0), cudaErrorStreamCaptureIsolation);
  cudaGraph_t g3;
  CHECK(cudaStreamEndCapture(s3, &g3));
  CHECK(cudaGraphDestroy(g3));
  CHECK(cudaEventRecord(ev2, s2));
  const cudaGraphNode_t* deps = nullptr;
  size_t ndeps = 7;
  unsigned long long id1 = 0, id2 = 0;
  CHECK(cudaStreamGetCaptureInfo(s1, &cs, &id1, nullptr, &deps, nullptr, &ndeps));
  REQUIRE(cs == cudaStreamCaptureStatusActive && ndeps == 0, "s1 before the join: %zu dependencies", ndeps);
  CHECK(cudaStreamWaitEvent(s1, ev2, 0));
  CHECK(cudaStreamGetCaptureInfo(s1, &cs, &id1, nullptr, &deps, nullptr, &ndeps));
  CHECK(cudaStreamGetCaptureInfo(s2, &cs, &id2, nullptr, nullptr, nullptr, nullptr));
  REQUIRE(id1 == id2, "one capture, two ids %llu %llu", id1, id2);
  REQUIRE(ndeps == 1 && deps, "s1 after the join: %zu dependencies", ndeps);
  cudaGraphNodeType dt;
  CHECK(cudaGraphNodeGetType(deps[0], &dt));
  REQUIRE(dt == cudaGraphNodeTypeKernel, "joined dependency is node type %d", (int)dt);
  CHECK(cudaStreamEndCapture(s1, &g));
  CHECK(cudaGraphGetNodes(g, nullptr, &nn));
  REQUIRE(nn == 1, "joined capture has %zu nodes", nn);
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  CHECK(cudaGraphLaunch(ge, s1));
  CHECK(cudaStreamSynchronize(s1));
  CHECK(cudaMemcpy(h.data(), plain, 32 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i) REQUIRE(h[i] == i * 2 - 7, "fork kernel h[%d] = %d", i, h[i]);
  CHECK(cudaGraphExecDestroy(ge));
  CHECK(cudaGraphDestroy(g));

  CHECK(cudaEventDestroy(ev));
  CHECK(cudaEventDestroy(ev2));
  CHECK(cudaFree(plain));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  CHECK(cudaStreamDestroy(s3));
  std::printf("PASS graph_memory_misuse\n");
  return 0;
}
