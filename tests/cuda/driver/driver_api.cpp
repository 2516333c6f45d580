// A program that uses the CUDA driver API alone (no cudart): PTX loaded
// with cuModuleLoadData, launches with kernelParams and with the `extra`
// packed buffer, module globals, copies and memsets, contexts, cluster and
// cooperative launches, pointer attributes. Every result is checked against
// a CPU loop. Usage: driver_api ptx|context|cluster|memory|extras
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "drv_check.h"

namespace {

int setup(CUcontext* ctx) {
  CU_CHECK(cuInit(0));
  CUdevice dev;
  CU_CHECK(cuDeviceGet(&dev, 0));
  CU_CHECK(cuDevicePrimaryCtxRetain(ctx, dev));
  CU_CHECK(cuCtxSetCurrent(*ctx));
  return 0;
}

int check_saxpy(CUdeviceptr dy, const std::vector<float>& x, std::vector<float>& y_ref, float a, int launches) {
  std::vector<float> y(x.size());
  CU_CHECK(cuMemcpyDtoH(y.data(), dy, y.size() * sizeof(float)));
  for (size_t i = 0; i < x.size(); ++i) {
    for (int l = 0; l < launches; ++l) y_ref[i] = std::fma(a, x[i], y_ref[i]);
    if (y[i] != y_ref[i]) {
      std::fprintf(stderr, "FAIL saxpy y[%zu] = %g, expected %g\n", i, y[i], y_ref[i]);
      return 1;
    }
  }
  return 0;
}

int part_ptx() {
  CUcontext ctx;
  if (setup(&ctx)) return 1;
  CUmodule mod;
  CU_CHECK(cuModuleLoadData(&mod, kSaxpyPtx));
  CUfunction f;
  CU_CHECK(cuModuleGetFunction(&f, mod, "saxpy"));
  CUdeviceptr launches;
  size_t launches_size = 0;
  CU_CHECK(cuModuleGetGlobal(&launches, &launches_size, mod, "launches"));
  EXPECT_TRUE(launches_size == 4);

  const int n = 1000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.5f * i - 7.0f;
    y[i] = 3.0f - 0.25f * i;
  }
  CUdeviceptr dx, dy;
  CU_CHECK(cuMemAlloc(&dx, n * sizeof(float)));
  CU_CHECK(cuMemAlloc(&dy, n * sizeof(float)));
  CU_CHECK(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)));
  CU_CHECK(cuMemcpyHtoD(dy, y.data(), n * sizeof(float)));

  // kernelParams: an array of pointers to each argument.
  int nn = n;
  float a = 1.5f;
  void* params[] = {&nn, &a, &dx, &dy};
  CU_CHECK(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
  CU_CHECK(cuCtxSynchronize());
  if (check_saxpy(dy, x, y, a, 1)) return 1;

  // extra: the arguments packed in one buffer at their ABI offsets.
  struct {
    int n;
    float a;
    CUdeviceptr x, y;
  } packed = {n, -2.0f, dx, dy};
  size_t size = sizeof packed;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
  CU_CHECK(cuLaunchKernel(f, (n + 63) / 64, 1, 1, 64, 1, 1, 0, nullptr, nullptr, extra));
  CU_CHECK(cuCtxSynchronize());
  if (check_saxpy(dy, x, y, -2.0f, 1)) return 1;

  unsigned count = 0;
  CU_CHECK(cuMemcpyDtoH(&count, launches, sizeof count));
  EXPECT_TRUE(count == 2);

  // A buffer smaller than the parameters is refused, and nothing runs.
  size_t small = 8;
  void* extra_small[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &small,
                         CU_LAUNCH_PARAM_END};
  CU_EXPECT(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, extra_small), CUDA_ERROR_INVALID_VALUE);

  // The parameter layout the driver reports.
  size_t off = 0, psize = 0;
  CU_CHECK(cuFuncGetParamInfo(f, 3, &off, &psize));
  EXPECT_TRUE(off == 16 && psize == 8);
  CU_EXPECT(cuFuncGetParamInfo(f, 4, &off, &psize), CUDA_ERROR_INVALID_VALUE);

  int threads = 0;
  CU_CHECK(cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
  int dev_threads = 0;
  CU_CHECK(cuDeviceGetAttribute(&dev_threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0));
  EXPECT_TRUE(threads == dev_threads);
  int blocks = 0;
  CU_CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 128, 0));
  int per_sm = 0, slots = 0;
  CU_CHECK(cuDeviceGetAttribute(&per_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 0));
  CU_CHECK(cuDeviceGetAttribute(&slots, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, 0));
  int want = per_sm / 128 < slots ? per_sm / 128 : slots;  // PTX only: registers do not limit
  if (blocks != want) {
    std::fprintf(stderr, "FAIL occupancy %d blocks per SM, expected %d\n", blocks, want);
    return 1;
  }
  int min_grid = 0, block = 0, sms = 0;
  CU_CHECK(cuOccupancyMaxPotentialBlockSize(&min_grid, &block, f, nullptr, 0, 0));
  CU_CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
  // Every block size from 1024 down to 32 that divides threads per SM keeps
  // it full; the largest wins.
  int best = 0, best_bs = 0;
  for (int bs = dev_threads; bs > 0; bs -= 32) {
    int b = per_sm / bs < slots ? per_sm / bs : slots;
    if (b * bs > best) best = b * bs, best_bs = bs;
  }
  if (block != best_bs || min_grid != best / best_bs * sms) {
    std::fprintf(stderr, "FAIL potential block size %d grid %d, expected %d and %d\n", block, min_grid, best_bs,
                 best / best_bs * sms);
    return 1;
  }
  // Dynamic shared memory a block may use with n blocks per SM: one block
  // gets the opt-in maximum (the kernel has no static shared memory); n
  // blocks fit with that much each, and not with a byte more.
  int optin = 0;
  CU_CHECK(cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0));
  for (int n = 1; n <= 3; ++n) {
    size_t avail = 0;
    CU_CHECK(cuOccupancyAvailableDynamicSMemPerBlock(&avail, f, n, 128));
    int fit = 0, over = 0;
    CU_CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&fit, f, 128, avail));
    CU_CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&over, f, 128, avail + 1));
    if ((n == 1 && avail != size_t(optin)) || avail == 0 || fit < n || (avail < size_t(optin) && over >= n)) {
      std::fprintf(stderr, "FAIL available dynamic smem for %d blocks: %zu (opt-in %d; %d blocks fit, %d with a byte more)\n",
                   n, avail, optin, fit, over);
      return 1;
    }
  }
  CU_EXPECT(cuOccupancyAvailableDynamicSMemPerBlock(nullptr, f, 1, 128), CUDA_ERROR_INVALID_VALUE);

  CU_CHECK(cuMemFree(dx));
  CU_CHECK(cuMemFree(dy));
  CU_CHECK(cuModuleUnload(mod));
  CU_EXPECT(cuModuleGetFunction(&f, mod, "saxpy"), CUDA_ERROR_INVALID_HANDLE);
  CU_CHECK(cuDevicePrimaryCtxRelease(0));
  std::printf("PASS driver_api ptx\n");
  return 0;
}

int part_context() {
  CU_CHECK(cuInit(0));
  CUcontext cur = reinterpret_cast<CUcontext>(1);
  CU_CHECK(cuCtxGetCurrent(&cur));
  EXPECT_TRUE(cur == nullptr);  // nothing made current yet
  CU_EXPECT(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
  CUcontext popped;
  CU_EXPECT(cuCtxPopCurrent(&popped), CUDA_ERROR_INVALID_CONTEXT);

  unsigned flags = 99;
  int active = 99;
  CU_CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active));
  EXPECT_TRUE(flags == 0 && active == 0);
  CU_CHECK(cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_BLOCKING_SYNC));
  CU_EXPECT(cuDevicePrimaryCtxSetFlags(0, 3), CUDA_ERROR_INVALID_VALUE);  // not a scheduling mode
  CUcontext primary, again;
  CU_CHECK(cuDevicePrimaryCtxRetain(&primary, 0));
  CU_CHECK(cuDevicePrimaryCtxRetain(&again, 0));
  EXPECT_TRUE(primary && primary == again);
  CU_CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active));
  EXPECT_TRUE(flags == CU_CTX_SCHED_BLOCKING_SYNC && active == 1);

  CU_CHECK(cuCtxPushCurrent(primary));
  CU_CHECK(cuCtxGetCurrent(&cur));
  EXPECT_TRUE(cur == primary);
  CUdevice dev = -1;
  CU_CHECK(cuCtxGetDevice(&dev));
  EXPECT_TRUE(dev == 0);
  CU_CHECK(cuCtxSynchronize());
  unsigned ctx_flags = 0;
  CU_CHECK(cuCtxGetFlags(&ctx_flags));
  EXPECT_TRUE(ctx_flags == CU_CTX_SCHED_BLOCKING_SYNC);
  CU_CHECK(cuCtxPopCurrent(&popped));
  EXPECT_TRUE(popped == primary);
  CU_CHECK(cuCtxGetCurrent(&cur));
  EXPECT_TRUE(cur == nullptr);

  // cuCtxCreate: the primary context again (documented alias), pushed.
  CUcontext created;
  CU_CHECK(cuCtxCreate(&created, nullptr, 0, 0));
  EXPECT_TRUE(created == primary);
  CU_CHECK(cuCtxGetCurrent(&cur));
  EXPECT_TRUE(cur == created);
  CU_CHECK(cuCtxDestroy(created));
  CU_CHECK(cuCtxGetCurrent(&cur));
  EXPECT_TRUE(cur == nullptr);
  CU_EXPECT(cuCtxDestroy(created), CUDA_ERROR_INVALID_CONTEXT);  // only released, never destroyed
  CU_EXPECT(cuCtxPushCurrent(reinterpret_cast<CUcontext>(&flags)), CUDA_ERROR_INVALID_CONTEXT);

  CU_CHECK(cuCtxSetCurrent(primary));
  CU_CHECK(cuCtxSetCurrent(nullptr));
  CU_CHECK(cuCtxGetCurrent(&cur));
  EXPECT_TRUE(cur == nullptr);

  CU_CHECK(cuDevicePrimaryCtxRelease(0));
  CU_CHECK(cuDevicePrimaryCtxRelease(0));
  CU_CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active));
  EXPECT_TRUE(active == 0);
  CU_EXPECT(cuDevicePrimaryCtxRelease(0), CUDA_ERROR_INVALID_CONTEXT);
  CU_CHECK(cuDevicePrimaryCtxReset(0));
  CU_CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active));
  EXPECT_TRUE(flags == 0);
  std::printf("PASS driver_api context\n");
  return 0;
}

// cuLaunchKernelEx: a 1-D cluster of 4 over 16 blocks (each block sees rank
// blockIdx % 4 of 4), and a cooperative saxpy.
int part_cluster() {
  CUcontext ctx;
  if (setup(&ctx)) return 1;
  CUmodule mod;
  CU_CHECK(cuModuleLoadDataEx(&mod, kClusterPtx, 0, nullptr, nullptr));
  CUfunction f;
  CU_CHECK(cuModuleGetFunction(&f, mod, "cluster_info"));
  const int blocks = 16;
  CUdeviceptr out;
  CU_CHECK(cuMemAlloc(&out, blocks * 4));
  CU_CHECK(cuMemsetD32(out, 0xffffffffu, blocks));
  CUlaunchAttribute attr[1];
  std::memset(attr, 0, sizeof attr);
  attr[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr[0].value.clusterDim.x = 4;
  attr[0].value.clusterDim.y = 1;
  attr[0].value.clusterDim.z = 1;
  CUlaunchConfig cfg{};
  cfg.gridDimX = blocks;
  cfg.gridDimY = cfg.gridDimZ = 1;
  cfg.blockDimX = 32;
  cfg.blockDimY = cfg.blockDimZ = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  void* params[] = {&out};
  CU_CHECK(cuLaunchKernelEx(&cfg, f, params, nullptr));
  CU_CHECK(cuCtxSynchronize());
  std::vector<unsigned> got(blocks);
  CU_CHECK(cuMemcpyDtoH(got.data(), out, blocks * 4));
  for (int b = 0; b < blocks; ++b)
    if (got[b] != 4000u + unsigned(b % 4)) {
      std::fprintf(stderr, "FAIL cluster block %d: %u, expected %u\n", b, got[b], 4000u + b % 4);
      return 1;
    }
  // A grid that is not a whole number of clusters is refused.
  cfg.gridDimX = 6;
  CU_EXPECT(cuLaunchKernelEx(&cfg, f, params, nullptr), CUDA_ERROR_INVALID_CLUSTER_SIZE);
  // cuOccupancyMaxActiveClusters: as cudaOccupancyMaxActiveClusters
  // (floor(SMs x blocks per SM / cluster size)).
  cfg.gridDimX = blocks;
  int clusters = 0, bps = 0, sms = 0;
  CU_CHECK(cuOccupancyMaxActiveClusters(&clusters, f, &cfg));
  CU_CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&bps, f, 32, 0));
  CU_CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
  EXPECT_TRUE(clusters == sms * bps / 4);

  // Cooperative attribute: saxpy over a grid that fits on the device at once.
  CUmodule smod;
  CU_CHECK(cuModuleLoadData(&smod, kSaxpyPtx));
  CUfunction saxpy;
  CU_CHECK(cuModuleGetFunction(&saxpy, smod, "saxpy"));
  const int n = 256;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = float(i), y[i] = float(2 * i + 1);
  CUdeviceptr dx, dy;
  CU_CHECK(cuMemAlloc(&dx, n * 4));
  CU_CHECK(cuMemAlloc(&dy, n * 4));
  CU_CHECK(cuMemcpyHtoD(dx, x.data(), n * 4));
  CU_CHECK(cuMemcpyHtoD(dy, y.data(), n * 4));
  attr[0].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
  std::memset(&attr[0].value, 0, sizeof attr[0].value);
  attr[0].value.cooperative = 1;
  cfg.gridDimX = n / 64;
  cfg.blockDimX = 64;
  int nn = n;
  float a = 3.0f;
  void* sparams[] = {&nn, &a, &dx, &dy};
  CU_CHECK(cuLaunchKernelEx(&cfg, saxpy, sparams, nullptr));
  if (check_saxpy(dy, x, y, a, 1)) return 1;
  CU_CHECK(cuModuleUnload(smod));
  CU_CHECK(cuModuleUnload(mod));
  std::printf("PASS driver_api cluster\n");
  return 0;
}

int part_memory() {
  CUcontext ctx;
  if (setup(&ctx)) return 1;
  const size_t n = 4096;
  CUdeviceptr d;
  CU_CHECK(cuMemAlloc(&d, n));
  // Memsets of each width over parts of the buffer, against a CPU image.
  std::vector<unsigned char> ref(n, 0);
  CU_CHECK(cuMemsetD8(d, 0, n));
  CU_CHECK(cuMemsetD8(d + 3, 0xab, 100));
  std::memset(ref.data() + 3, 0xab, 100);
  CU_CHECK(cuMemsetD16(d + 200, 0x1234, 50));
  for (int i = 0; i < 50; ++i) ref[200 + 2 * i] = 0x34, ref[201 + 2 * i] = 0x12;
  CU_CHECK(cuMemsetD32(d + 1024, 0xdeadbeefu, 300));
  for (int i = 0; i < 300; ++i) {
    uint32_t v = 0xdeadbeefu;
    std::memcpy(ref.data() + 1024 + 4 * i, &v, 4);
  }
  CU_EXPECT(cuMemsetD32(d + 2, 1, 4), CUDA_ERROR_INVALID_VALUE);  // misaligned
  std::vector<unsigned char> got(n);
  CU_CHECK(cuMemcpyDtoH(got.data(), d, n));
  for (size_t i = 0; i < n; ++i)
    if (got[i] != ref[i]) {
      std::fprintf(stderr, "FAIL memset byte %zu: %#x, expected %#x\n", i, got[i], ref[i]);
      return 1;
    }
  // Device to device, and cuMemcpy with unified addresses.
  CUdeviceptr e;
  CU_CHECK(cuMemAlloc(&e, n));
  CU_CHECK(cuMemcpyDtoD(e, d + 1000, 1000));
  CU_CHECK(cuMemcpy(e + 1000, d, 500));
  std::vector<unsigned char> got2(1500);
  CU_CHECK(cuMemcpyDtoH(got2.data(), e, 1500));
  EXPECT_TRUE(std::memcmp(got2.data(), ref.data() + 1000, 1000) == 0);
  EXPECT_TRUE(std::memcmp(got2.data() + 1000, ref.data(), 500) == 0);

  // Address ranges and pointer attributes.
  CUdeviceptr base = 0;
  size_t size = 0;
  CU_CHECK(cuMemGetAddressRange(&base, &size, d + 777));
  EXPECT_TRUE(base == d && size == n);
  unsigned type = 0;
  CU_CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d + 5));
  EXPECT_TRUE(type == CU_MEMORYTYPE_DEVICE);
  CUcontext owner = nullptr;
  CU_CHECK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, d));
  EXPECT_TRUE(owner == ctx);
  CUdeviceptr start = 0;
  CU_CHECK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, d + 100));
  EXPECT_TRUE(start == d);
  int ordinal = -1;
  CU_CHECK(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d));
  EXPECT_TRUE(ordinal == 0);
  int stack_var = 0;
  CU_EXPECT(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)&stack_var),
            CUDA_ERROR_INVALID_VALUE);
  // cuPointerGetAttributes: unknown memory is no error, its values read as zero / -1.
  CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                 CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  unsigned t2 = 7;
  int o2 = 7;
  size_t s2 = 7;
  void* data[] = {&t2, &o2, &s2};
  CU_CHECK(cuPointerGetAttributes(3, which, data, (CUdeviceptr)&stack_var));
  EXPECT_TRUE(t2 == 0 && o2 == -1 && s2 == 0);
  CU_CHECK(cuPointerGetAttributes(3, which, data, d + 8));
  EXPECT_TRUE(t2 == CU_MEMORYTYPE_DEVICE && o2 == 0 && s2 == n);

  // Pinned and registered host memory: usable as copy endpoints, host-typed.
  void* pinned = nullptr;
  CU_CHECK(cuMemAllocHost(&pinned, 256));
  std::memset(pinned, 0x5a, 256);
  CU_CHECK(cuMemcpyHtoD(e, pinned, 256));
  CU_CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)pinned));
  EXPECT_TRUE(type == CU_MEMORYTYPE_HOST);
  void* mapped = nullptr;
  CU_CHECK(cuMemHostAlloc(&mapped, 128, CU_MEMHOSTALLOC_DEVICEMAP));
  CUdeviceptr mapped_dev = 0;
  CU_CHECK(cuMemHostGetDevicePointer(&mapped_dev, mapped, 0));
  EXPECT_TRUE(mapped_dev != 0);
  std::vector<int> host(64, 0);
  CU_CHECK(cuMemHostRegister(host.data(), host.size() * sizeof(int), 0));
  CU_CHECK(cuMemcpyDtoH(host.data(), e, 64 * sizeof(int)));
  EXPECT_TRUE(host[10] == 0x5a5a5a5a);
  CU_CHECK(cuMemHostUnregister(host.data()));
  CU_EXPECT(cuMemHostUnregister(host.data()), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
  CU_CHECK(cuMemFreeHost(pinned));
  CU_CHECK(cuMemFreeHost(mapped));

  size_t free_b = 0, total_b = 0, dev_total = 0;
  CU_CHECK(cuMemGetInfo(&free_b, &total_b));
  CU_CHECK(cuDeviceTotalMem(&dev_total, 0));
  EXPECT_TRUE(total_b == dev_total && free_b < total_b);
  CU_CHECK(cuMemFree(d));
  CU_CHECK(cuMemFree(e));
  CU_EXPECT(cuMemFree(d), CUDA_ERROR_INVALID_VALUE);
  std::printf("PASS driver_api memory\n");
  return 0;
}

void CUDA_CB set_flag(void* p) { *static_cast<int*>(p) += 1; }

// Managed memory, 2-D copies, stream queries, host functions, limits.
int part_extras() {
  CUcontext ctx;
  if (setup(&ctx)) return 1;
  CUmodule mod;
  CU_CHECK(cuModuleLoadData(&mod, kSaxpyPtx));
  CUfunction f;
  CU_CHECK(cuModuleGetFunction(&f, mod, "saxpy"));
  const int n = 100;
  CUdeviceptr mx, my;
  CU_CHECK(cuMemAllocManaged(&mx, n * 4, CU_MEM_ATTACH_GLOBAL));
  CU_CHECK(cuMemAllocManaged(&my, n * 4, CU_MEM_ATTACH_GLOBAL));
  float* hx = reinterpret_cast<float*>(mx);
  float* hy = reinterpret_cast<float*>(my);
  for (int i = 0; i < n; ++i) hx[i] = float(i), hy[i] = 1.0f;
  int nn = n;
  float a = 0.5f;
  void* params[] = {&nn, &a, &mx, &my};
  CUstream s;
  CU_CHECK(cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, -1));
  int calls = 0;
  CU_CHECK(cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, s, params, nullptr));
  CU_CHECK(cuLaunchHostFunc(s, set_flag, &calls));
  CU_CHECK(cuStreamSynchronize(s));
  EXPECT_TRUE(calls == 1);
  for (int i = 0; i < n; ++i) EXPECT_TRUE(hy[i] == std::fma(0.5f, float(i), 1.0f));
  unsigned is_managed = 0;
  CU_CHECK(cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, mx));
  EXPECT_TRUE((is_managed & 0xff) == 1);
  unsigned flags = 0;
  int prio = 0, least = 0, greatest = 0;
  CU_CHECK(cuStreamGetFlags(s, &flags));
  EXPECT_TRUE(flags == CU_STREAM_NON_BLOCKING);
  CU_CHECK(cuCtxGetStreamPriorityRange(&least, &greatest));
  CU_CHECK(cuStreamGetPriority(s, &prio));
  EXPECT_TRUE(prio == (-1 < greatest ? greatest : -1));  // clamped to the range
  CUcontext sctx = nullptr;
  CU_CHECK(cuStreamGetCtx(s, &sctx));
  EXPECT_TRUE(sctx == ctx);
  CU_CHECK(cuStreamDestroy(s));

  // 2-D: a 5x3 block at (2 bytes, row 1) of a 16-byte-pitch host image into
  // a 32-byte-pitch device image at (4, 2), and back into a clean host image.
  unsigned char src[16 * 6], back[24 * 6] = {};
  for (int i = 0; i < 16 * 6; ++i) src[i] = (unsigned char)(i + 1);
  CUdeviceptr d;
  CU_CHECK(cuMemAlloc(&d, 32 * 8));
  CU_CHECK(cuMemsetD8(d, 0, 32 * 8));
  CUDA_MEMCPY2D c{};
  c.srcMemoryType = CU_MEMORYTYPE_HOST;
  c.srcHost = src;
  c.srcPitch = 16;
  c.srcXInBytes = 2;
  c.srcY = 1;
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.dstDevice = d;
  c.dstPitch = 32;
  c.dstXInBytes = 4;
  c.dstY = 2;
  c.WidthInBytes = 5;
  c.Height = 3;
  CU_CHECK(cuMemcpy2D(&c));
  CUDA_MEMCPY2D r{};
  r.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
  r.srcDevice = d;
  r.srcPitch = 32;
  r.dstMemoryType = CU_MEMORYTYPE_HOST;
  r.dstHost = back;
  r.dstPitch = 24;
  r.WidthInBytes = 12;
  r.Height = 6;
  CU_CHECK(cuMemcpy2DAsync(&r, nullptr));
  CU_CHECK(cuCtxSynchronize());
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 24; ++x) {
      unsigned char want = 0;
      if (x < 12 && y >= 2 && y < 5 && x >= 4 && x < 9) want = src[(y - 2 + 1) * 16 + (x - 4 + 2)];
      if (back[y * 24 + x] != want) {
        std::fprintf(stderr, "FAIL 2-D copy (%d,%d) = %d, expected %d\n", x, y, back[y * 24 + x], want);
        return 1;
      }
    }
  c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  CU_EXPECT(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);  // no array given

  size_t stack = 0;
  CU_CHECK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 8192));
  CU_CHECK(cuCtxGetLimit(&stack, CU_LIMIT_STACK_SIZE));
  EXPECT_TRUE(stack == 8192);
  unsigned api = 0;
  CU_CHECK(cuCtxGetApiVersion(ctx, &api));
  EXPECT_TRUE(api >= 3020);
  CU_CHECK(cuMemFree(d));
  CU_CHECK(cuMemFree(mx));
  CU_CHECK(cuMemFree(my));
  CU_CHECK(cuModuleUnload(mod));
  std::printf("PASS driver_api extras\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string part = argc > 1 ? argv[1] : "";
  if (part == "ptx") return part_ptx();
  if (part == "context") return part_context();
  if (part == "cluster") return part_cluster();
  if (part == "memory") return part_memory();
  if (part == "extras") return part_extras();
  std::fprintf(stderr, "usage: driver_api ptx|context|cluster|memory|extras\n");
  return 2;
}
