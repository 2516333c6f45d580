// Runtime entry points beyond the common ones, each against a hand-worked
// expectation: cudaMallocPitch / cudaMalloc3D (pitch a multiple of 512 and at
// least the width, rows written through a kernel and read back with
// cudaMemcpy2D), cudaMemset3D(Async) (only the extent changes, the pitch
// padding keeps its bytes), cudaMemcpyPeer(Async) and cudaMemcpy3DPeer on
// device 0, peer access on a one-device system (no peer: 0, invalid device),
// cudaMemAdvise / cudaStreamAttachMemAsync (managed memory accepted, device
// memory refused), cudaFuncGetName, cudaGetKernel / cudaGetFuncBySymbol,
// PCI bus id round trip, cudaInitDevice, stream ids, the thread's capture
// mode exchange, stream attributes (an access-policy window, a
// synchronization policy and a priority read back as set; a hit ratio over
// 1 refused), cudaHostGetFlags (the cudaHostAlloc flags, also inside the
// allocation; device memory refused), cudaOccupancyAvailableDynamicSMemPerBlock
// (the largest size that still fits the blocks, checked with
// cudaOccupancyMaxActiveBlocksPerMultiprocessor at it and one KB above); and a function softgpu does not
// implement (cudaMemRangeGetAttribute): cudaErrorNotSupported, said once on
// stderr, the program goes on. Runs natively as well (where a second GPU
// would change the peer answers).
#include <cstdio>
#include <cstring>
#include <vector>

#include "check.cuh"

__global__ void fill_rows(char* p, size_t pitch, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < width && y < height) p[y * pitch + x] = char(x * 3 + y * 7);
}

int main() {
  // Pitched allocations.
  void* p = nullptr;
  size_t pitch = 0;
  const int w = 700, h = 5;
  CHECK(cudaMallocPitch(&p, &pitch, w, h));
  REQUIRE(pitch >= size_t(w) && pitch % 512 == 0, "pitch %zu", pitch);
  fill_rows<<<dim3((w + 127) / 128, h), 128>>>(static_cast<char*>(p), pitch, w, h);
  CHECK_LAUNCH();
  std::vector<char> host(size_t(w) * h);
  CHECK(cudaMemcpy2D(host.data(), w, p, pitch, w, h, cudaMemcpyDeviceToHost));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) REQUIRE(host[y * w + x] == char(x * 3 + y * 7), "pitched (%d,%d)", x, y);
  EXPECT_ERR(cudaMallocPitch(nullptr, &pitch, w, h), cudaErrorInvalidValue);
  CHECK(cudaFree(p));

  cudaPitchedPtr pp;
  const cudaExtent ext = make_cudaExtent(100, 6, 4);
  CHECK(cudaMalloc3D(&pp, ext));
  REQUIRE(pp.pitch >= 100 && pp.pitch % 512 == 0 && pp.xsize == 100 && pp.ysize == 6, "3D pitch %zu", pp.pitch);
  CHECK(cudaMemset(pp.ptr, 0x11, pp.pitch * 6 * 4));
  CHECK(cudaMemset3D(pp, 0x5a, make_cudaExtent(40, 3, 2)));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaMemset3DAsync(pp, 0x66, make_cudaExtent(10, 1, 4), s));
  CHECK(cudaStreamSynchronize(s));
  std::vector<unsigned char> vol(pp.pitch * 6 * 4);
  CHECK(cudaMemcpy(vol.data(), pp.ptr, vol.size(), cudaMemcpyDeviceToHost));
  for (size_t z = 0; z < 4; ++z)
    for (size_t y = 0; y < 6; ++y)
      for (size_t x = 0; x < pp.pitch; ++x) {
        const unsigned char want = x < 10 && y < 1 ? 0x66 : x < 40 && y < 3 && z < 2 ? 0x5a : 0x11;
        REQUIRE(vol[(z * 6 + y) * pp.pitch + x] == want, "memset3D (%zu,%zu,%zu) = %x", x, y, z,
                vol[(z * 6 + y) * pp.pitch + x]);
      }

  // Peer copies on device 0, and a 3-D peer copy of one plane.
  int* a = nullptr;
  int* b = nullptr;
  CHECK(cudaMalloc(&a, 64 * sizeof(int)));
  CHECK(cudaMalloc(&b, 64 * sizeof(int)));
  std::vector<int> ha(64), hb(64);
  for (int i = 0; i < 64; ++i) ha[i] = i * i - 7;
  CHECK(cudaMemcpy(a, ha.data(), 64 * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpyPeer(b, 0, a, 0, 32 * sizeof(int)));
  CHECK(cudaMemcpyPeerAsync(b + 32, 0, a + 32, 0, 32 * sizeof(int), s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(hb.data(), b, 64 * sizeof(int), cudaMemcpyDeviceToHost));
  REQUIRE(hb == ha, "peer copy");
  int ndev = 0;
  CHECK(cudaGetDeviceCount(&ndev));
  EXPECT_ERR(cudaMemcpyPeer(b, ndev, a, 0, 4), cudaErrorInvalidDevice);
  cudaMemcpy3DPeerParms pr = {};
  pr.srcPtr = make_cudaPitchedPtr(pp.ptr, pp.pitch, 100, 6);
  pr.dstPtr = make_cudaPitchedPtr(b, 16, 16, 4);
  pr.extent = make_cudaExtent(16, 4, 1);
  pr.srcDevice = pr.dstDevice = 0;
  CHECK(cudaMemcpy3DPeer(&pr));
  std::vector<unsigned char> plane(64);
  CHECK(cudaMemcpy(plane.data(), b, 64, cudaMemcpyDeviceToHost));
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 16; ++x)
      REQUIRE(plane[y * 16 + x] == vol[y * pp.pitch + x], "3D peer (%d,%d)", x, y);

  // Peer access: no device reaches another on a one-device system.
  int can = -1;
  CHECK(cudaDeviceCanAccessPeer(&can, 0, 0));
  REQUIRE(can == 0, "can access peer %d", can);
  EXPECT_ERR(cudaDeviceCanAccessPeer(&can, 0, ndev), cudaErrorInvalidDevice);
  if (ndev == 1) {
    EXPECT_ERR(cudaDeviceEnablePeerAccess(0, 0), cudaErrorInvalidDevice);
    int v = 0;
    EXPECT_ERR(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 0), cudaErrorInvalidDevice);
  }

  // Advice on managed memory only.
  float* m = nullptr;
  CHECK(cudaMallocManaged(&m, 4096));
  cudaMemLocation dev0 = {};
  dev0.type = cudaMemLocationTypeDevice;
  dev0.id = 0;
  CHECK(cudaMemAdvise(m, 4096, cudaMemAdviseSetReadMostly, dev0));
  CHECK(cudaMemAdvise(m, 4096, cudaMemAdviseSetPreferredLocation, dev0));
  EXPECT_ERR(cudaMemAdvise(m, 4096, static_cast<cudaMemoryAdvise>(99), dev0), cudaErrorInvalidValue);
  EXPECT_ERR(cudaMemAdvise(a, 256, cudaMemAdviseSetReadMostly, dev0), cudaErrorInvalidValue);
  CHECK(cudaStreamAttachMemAsync(s, m, 0, cudaMemAttachSingle));
  CHECK(cudaStreamSynchronize(s));
  m[3] = 2.5f;  // still usable from the host
  REQUIRE(m[3] == 2.5f, "managed after advice");

  // Kernel names and handles.
  const char* name = nullptr;
  CHECK(cudaFuncGetName(&name, reinterpret_cast<const void*>(fill_rows)));
  REQUIRE(name && std::strcmp(name, "_Z9fill_rowsPcmii") == 0, "cudaFuncGetName: %s", name ? name : "(null)");
  cudaKernel_t k = nullptr;
  CHECK(cudaGetKernel(&k, reinterpret_cast<const void*>(fill_rows)));
  cudaFunction_t f = nullptr;
  CHECK(cudaGetFuncBySymbol(&f, reinterpret_cast<const void*>(fill_rows)));
  REQUIRE(k && f, "kernel handles");
  EXPECT_ERR(cudaFuncGetName(&name, reinterpret_cast<const void*>(&main)), cudaErrorInvalidDeviceFunction);

  // PCI bus id round trip.
  char bus[32] = {};
  CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
  int d = -1;
  CHECK(cudaDeviceGetByPCIBusId(&d, bus));
  REQUIRE(d == 0, "bus id %s -> device %d", bus, d);
  EXPECT_ERR(cudaDeviceGetByPCIBusId(&d, "not a bus id"), cudaErrorInvalidValue);
  CHECK(cudaInitDevice(0, 0, 0));
  EXPECT_ERR(cudaInitDevice(ndev, 0, 0), cudaErrorInvalidDevice);

  // Stream ids: distinct, stable; the capture mode is per thread and swaps.
  cudaStream_t s2;
  CHECK(cudaStreamCreate(&s2));
  unsigned long long id1 = 0, id2 = 0, id1b = 0, id0 = 0;
  CHECK(cudaStreamGetId(s, &id1));
  CHECK(cudaStreamGetId(s2, &id2));
  CHECK(cudaStreamGetId(s, &id1b));
  CHECK(cudaStreamGetId(0, &id0));
  REQUIRE(id1 != id2 && id1 == id1b && id0 != id1 && id0 != id2, "stream ids %llu %llu %llu", id0, id1, id2);
  CHECK(cudaStreamDestroy(s2));
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
  REQUIRE(mode == cudaStreamCaptureModeGlobal, "initial capture mode %d", int(mode));
  CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
  REQUIRE(mode == cudaStreamCaptureModeRelaxed, "exchanged capture mode %d", int(mode));
  CHECK(cudaThreadExchangeStreamCaptureMode(&mode));  // back to global

  // Stream attributes.
  cudaStream_t sa;
  CHECK(cudaStreamCreate(&sa));
  cudaStreamAttrValue v{};
  v.accessPolicyWindow.base_ptr = m;
  v.accessPolicyWindow.num_bytes = 4096;
  v.accessPolicyWindow.hitRatio = 0.6f;
  v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  CHECK(cudaStreamSetAttribute(sa, cudaStreamAttributeAccessPolicyWindow, &v));
  cudaStreamAttrValue got{};
  CHECK(cudaStreamGetAttribute(sa, cudaStreamAttributeAccessPolicyWindow, &got));
  REQUIRE(got.accessPolicyWindow.base_ptr == m && got.accessPolicyWindow.num_bytes == 4096 &&
              got.accessPolicyWindow.hitRatio == 0.6f && got.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting &&
              got.accessPolicyWindow.missProp == cudaAccessPropertyStreaming,
          "access policy window read back differently");
  v = {};
  v.syncPolicy = cudaSyncPolicyYield;
  CHECK(cudaStreamSetAttribute(sa, cudaStreamAttributeSynchronizationPolicy, &v));
  CHECK(cudaStreamGetAttribute(sa, cudaStreamAttributeSynchronizationPolicy, &got));
  REQUIRE(got.syncPolicy == cudaSyncPolicyYield, "sync policy %d", int(got.syncPolicy));
  v = {};
  v.priority = -3;
  CHECK(cudaStreamSetAttribute(sa, cudaStreamAttributePriority, &v));
  int prio = 0;
  CHECK(cudaStreamGetPriority(sa, &prio));
  REQUIRE(prio == -3, "priority after the attribute: %d", prio);
  v = {};
  v.accessPolicyWindow.hitRatio = 1.5f;
  REQUIRE(cudaStreamSetAttribute(sa, cudaStreamAttributeAccessPolicyWindow, &v) == cudaErrorInvalidValue,
          "hit ratio 1.5 accepted");
  (void)cudaGetLastError();
  CHECK(cudaStreamDestroy(sa));

  // cudaHostGetFlags.
  char* hp = nullptr;
  CHECK(cudaHostAlloc(&hp, 4096, cudaHostAllocMapped | cudaHostAllocPortable));
  unsigned hflags = 0;
  CHECK(cudaHostGetFlags(&hflags, hp + 100));
  REQUIRE((hflags & (cudaHostAllocMapped | cudaHostAllocPortable)) == (cudaHostAllocMapped | cudaHostAllocPortable),
          "host flags %u", hflags);
  REQUIRE(cudaHostGetFlags(&hflags, m) == cudaErrorInvalidValue, "cudaHostGetFlags on managed memory");
  (void)cudaGetLastError();
  CHECK(cudaFreeHost(hp));

  // cudaOccupancyAvailableDynamicSMemPerBlock: the largest size at which two
  // blocks of 256 threads still fit an SM.
  size_t avail = 0;
  CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, fill_rows, 2, 256));
  int at = 0, above = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&at, fill_rows, 256, avail));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&above, fill_rows, 256, avail + 1024));
  int smem_sm = 0;
  CHECK(cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0));
  REQUIRE(at >= 2 && above < 2 && avail > size_t(smem_sm) / 2 - 4096 && avail <= size_t(smem_sm) / 2,
          "available dynamic shared memory %zu (blocks at it %d, 1 KB above %d; %d per SM)", avail, at, above, smem_sm);

  // Not implemented: an error, not a missing symbol.
  int read_mostly = -1;
  cudaError_t e = cudaMemRangeGetAttribute(&read_mostly, sizeof read_mostly, cudaMemRangeAttributeReadMostly, m, 4096);
  std::printf("cudaMemRangeGetAttribute: %s\n", cudaGetErrorName(e));
  (void)cudaGetLastError();

  CHECK(cudaFree(m));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(pp.ptr));
  CHECK(cudaStreamDestroy(s));
  std::printf("PASS runtime_extras\n");
  return 0;
}
