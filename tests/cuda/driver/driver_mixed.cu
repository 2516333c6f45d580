// Runtime and driver API in one program, sharing one device, memory and
// primary context: cudaSetDevice makes the primary context current;
// cudaMalloc memory is used by a cuLaunchKernel kernel and cuMemAlloc memory
// by a <<<>>> kernel; cudaGetDriverEntryPoint returns working driver
// functions; device attributes agree; cudaOccupancyMaxActiveClusters is
// checked against the rule worked by hand. Usage: driver_mixed
// context|memory|entry|attributes|clusters
#include <cuda.h>
#include <dlfcn.h>
#include <cuda_runtime.h>

#include <cstring>
#include <string>
#include <vector>

#include "../check.cuh"
#include "drv_check.h"

__global__ void add_one(int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += 1;
}

__global__ void plain(int* out) { out[blockIdx.x] = blockIdx.x; }

__global__ void __cluster_dims__(2, 1, 1) fixed_cluster(int* out) { out[blockIdx.x] = blockIdx.x; }

namespace {

int part_context() {
  CHECK(cudaSetDevice(0));
  CU_CHECK(cuInit(0));
  CUcontext cur = nullptr, primary = nullptr;
  CU_CHECK(cuCtxGetCurrent(&cur));
  CU_CHECK(cuDevicePrimaryCtxRetain(&primary, 0));
  EXPECT_TRUE(cur != nullptr && cur == primary);
  unsigned flags;
  int active = 0;
  CU_CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active));
  EXPECT_TRUE(active == 1);
  CU_CHECK(cuDevicePrimaryCtxRelease(0));
  CU_CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active));
  EXPECT_TRUE(active == 1);  // the runtime still holds it
  CUdevice dev = -1;
  CU_CHECK(cuCtxGetDevice(&dev));
  EXPECT_TRUE(dev == 0);
  std::printf("PASS driver_mixed context\n");
  return 0;
}

int part_memory() {
  CHECK(cudaSetDevice(0));
  CU_CHECK(cuInit(0));
  const int n = 3000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = 0.125f * i, y[i] = 1.0f + i;
  float *rx, *ry;  // runtime memory, driver kernel
  CHECK(cudaMalloc(&rx, n * 4));
  CHECK(cudaMalloc(&ry, n * 4));
  CHECK(cudaMemcpy(rx, x.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(ry, y.data(), n * 4, cudaMemcpyHostToDevice));
  CUmodule mod;
  CU_CHECK(cuModuleLoadData(&mod, kSaxpyPtx));
  CUfunction f;
  CU_CHECK(cuModuleGetFunction(&f, mod, "saxpy"));
  int nn = n;
  float a = 4.0f;
  CUdeviceptr dx = (CUdeviceptr)rx, dy = (CUdeviceptr)ry;
  void* params[] = {&nn, &a, &dx, &dy};
  CU_CHECK(cuLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr));
  CHECK(cudaDeviceSynchronize());
  std::vector<float> got(n);
  CHECK(cudaMemcpy(got.data(), ry, n * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (got[i] != std::fma(a, x[i], y[i])) {
      std::fprintf(stderr, "FAIL saxpy %d: %g\n", i, got[i]);
      return 1;
    }
  // Driver memory, runtime kernel and copies.
  CUdeviceptr dv;
  CU_CHECK(cuMemAlloc(&dv, n * sizeof(int)));
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = 7 * i - 50;
  CU_CHECK(cuMemcpyHtoD(dv, v.data(), n * sizeof(int)));
  add_one<<<(n + 127) / 128, 128>>>(reinterpret_cast<int*>(dv), n);
  CHECK_LAUNCH();
  std::vector<int> w(n);
  CHECK(cudaMemcpy(w.data(), reinterpret_cast<void*>(dv), n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) EXPECT_TRUE(w[i] == v[i] + 1);
  cudaPointerAttributes pa;
  CHECK(cudaPointerGetAttributes(&pa, reinterpret_cast<void*>(dv)));
  EXPECT_TRUE(pa.type == cudaMemoryTypeDevice);
  // A failing driver call leaves cudaGetLastError alone.
  CU_EXPECT(cuMemAlloc(&dv, 0), CUDA_ERROR_INVALID_VALUE);
  CU_EXPECT(cuModuleGetFunction(&f, mod, "missing"), CUDA_ERROR_NOT_FOUND);
  CHECK(cudaGetLastError());
  CU_CHECK(cuMemFree(reinterpret_cast<CUdeviceptr>(pa.devicePointer)));
  CHECK(cudaFree(rx));
  CHECK(cudaFree(ry));
  size_t rfree, rtotal, dfree, dtotal;
  CHECK(cudaMemGetInfo(&rfree, &rtotal));
  CU_CHECK(cuMemGetInfo(&dfree, &dtotal));
  EXPECT_TRUE(rfree == dfree && rtotal == dtotal);  // one memory
  CU_CHECK(cuModuleUnload(mod));
  std::printf("PASS driver_mixed memory\n");
  return 0;
}

// cudaGetDriverEntryPoint is deprecated in the CUDA 12.5+ headers but programs
// still call it: looked up by name, the test covers the exported function
// without a deprecation warning.
using GetEntryPoint = cudaError_t (*)(const char*, void**, unsigned long long, cudaDriverEntryPointQueryResult*);
GetEntryPoint get_entry_point() {
  return reinterpret_cast<GetEntryPoint>(dlsym(RTLD_DEFAULT, "cudaGetDriverEntryPoint"));
}

int part_entry() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  CHECK(get_entry_point()("cuMemAlloc", &fn, cudaEnableDefault, &q));
  EXPECT_TRUE(fn != nullptr && q == cudaDriverEntryPointSuccess);
  auto mem_alloc = reinterpret_cast<CUresult (*)(CUdeviceptr*, size_t)>(fn);
  CHECK(cudaGetDriverEntryPointByVersion("cuMemFree", &fn, 12000, cudaEnableDefault, &q));
  EXPECT_TRUE(fn != nullptr && q == cudaDriverEntryPointSuccess);
  auto mem_free = reinterpret_cast<CUresult (*)(CUdeviceptr)>(fn);
  CHECK(get_entry_point()("cuInit", &fn, cudaEnableDefault, &q));
  CU_CHECK(reinterpret_cast<CUresult (*)(unsigned)>(fn)(0));
  CUdeviceptr d = 0;
  CU_CHECK(mem_alloc(&d, 1024));
  std::vector<unsigned char> in(1024), out(1024);
  for (int i = 0; i < 1024; ++i) in[i] = (unsigned char)(i * 37);
  CHECK(cudaMemcpy(reinterpret_cast<void*>(d), in.data(), 1024, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(out.data(), reinterpret_cast<void*>(d), 1024, cudaMemcpyDeviceToHost));
  EXPECT_TRUE(in == out);
  CU_CHECK(mem_free(d));
  // The per-thread variant, and names that do not exist.
  CHECK(get_entry_point()("cuLaunchKernel", &fn, cudaEnablePerThreadDefaultStream, &q));
  EXPECT_TRUE(fn != nullptr && q == cudaDriverEntryPointSuccess);
  fn = reinterpret_cast<void*>(1);
  CHECK(get_entry_point()("cuNoSuchFunction", &fn, cudaEnableDefault, &q));
  EXPECT_TRUE(fn == nullptr && q == cudaDriverEntryPointSymbolNotFound);
  EXPECT_ERR(get_entry_point()("cuInit", &fn, 0x10, &q), cudaErrorInvalidValue);
  // cuGetProcAddress itself, as cudart-based libraries call it.
  void* pfn = nullptr;
  CUdriverProcAddressQueryResult st;
  CU_CHECK(cuGetProcAddress("cuMemAlloc", &pfn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &st));
  EXPECT_TRUE(pfn == reinterpret_cast<void*>(mem_alloc) && st == CU_GET_PROC_ADDRESS_SUCCESS);
  CU_EXPECT(cuGetProcAddress("cuNoSuchFunction", &pfn, 12000, 0, &st), CUDA_ERROR_NOT_FOUND);
  EXPECT_TRUE(st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  // The ABI of the version asked for: cuCtxCreate is _v2 from 3.2, _v3 from
  // 11.4, _v4 from 12.5; nothing before its first version.
  void* v2 = nullptr;
  void* v4 = nullptr;
  CU_CHECK(cuGetProcAddress("cuCtxCreate", &v2, 11000, 0, &st));
  CU_CHECK(cuGetProcAddress("cuCtxCreate", &v4, 13000, 0, &st));
  EXPECT_TRUE(v4 == reinterpret_cast<void*>(&cuCtxCreate) && v2 != v4);  // cuda.h maps cuCtxCreate to _v4
  CUcontext c2 = nullptr, prim = nullptr;
  CU_CHECK(reinterpret_cast<CUresult (*)(CUcontext*, unsigned, CUdevice)>(v2)(&c2, 0, 0));  // the _v2 signature
  CU_CHECK(cuDevicePrimaryCtxRetain(&prim, 0));
  EXPECT_TRUE(c2 == prim);
  CU_CHECK(cuCtxDestroy(c2));
  CU_CHECK(cuDevicePrimaryCtxRelease(0));
  CU_EXPECT(cuGetProcAddress("cuLaunchKernelEx", &pfn, 11000, 0, &st), CUDA_ERROR_NOT_FOUND);  // from 11.6
  EXPECT_TRUE(st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
  std::printf("PASS driver_mixed entry\n");
  return 0;
}

int part_attributes() {
  CU_CHECK(cuInit(0));
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  // Every attribute: the driver's value and error are the runtime's.
  int checked = 0;
  for (int attr = 1; attr < CU_DEVICE_ATTRIBUTE_MAX; ++attr) {
    int dv = -12345, rv = -12345;
    CUresult dr = cuDeviceGetAttribute(&dv, static_cast<CUdevice_attribute>(attr), 0);
    cudaError_t rr = cudaDeviceGetAttribute(&rv, static_cast<cudaDeviceAttr>(attr), 0);
    if ((dr == CUDA_SUCCESS) != (rr == cudaSuccess) || (dr == CUDA_SUCCESS && dv != rv)) {
      std::fprintf(stderr, "FAIL attribute %d: driver %d (%d), runtime %d (%d)\n", attr, dv, dr, rv, rr);
      return 1;
    }
    checked += dr == CUDA_SUCCESS;
  }
  EXPECT_TRUE(checked > 100);
  // And against the properties struct.
  int v = 0;
  CU_CHECK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
  EXPECT_TRUE(v == p.multiProcessorCount);
  CU_CHECK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0));
  EXPECT_TRUE(v == p.warpSize && v == 32);
  CU_CHECK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0));
  EXPECT_TRUE(size_t(v) == p.sharedMemPerBlockOptin);
  int major = 0, minor = 0;
  // Deprecated in the headers, still exported: looked up by name as above.
  auto compute_capability =
      reinterpret_cast<CUresult (*)(int*, int*, CUdevice)>(dlsym(RTLD_DEFAULT, "cuDeviceComputeCapability"));
  EXPECT_TRUE(compute_capability != nullptr);
  if (compute_capability) CU_CHECK(compute_capability(&major, &minor, 0));
  EXPECT_TRUE(major == p.major && minor == p.minor);
  char name[256];
  CU_CHECK(cuDeviceGetName(name, sizeof name, 0));
  EXPECT_TRUE(std::strcmp(name, p.name) == 0);
  char shortname[5];
  CU_CHECK(cuDeviceGetName(shortname, sizeof shortname, 0));
  EXPECT_TRUE(std::strncmp(shortname, p.name, 4) == 0 && shortname[4] == 0);
  size_t total = 0;
  CU_CHECK(cuDeviceTotalMem(&total, 0));
  EXPECT_TRUE(total == p.totalGlobalMem);
  CUuuid uuid;
  CU_CHECK(cuDeviceGetUuid(&uuid, 0));
  EXPECT_TRUE(std::memcmp(&uuid, &p.uuid, sizeof uuid) == 0);
  int count = 0, version = 0;
  CU_CHECK(cuDeviceGetCount(&count));
  int rcount = 0;
  CHECK(cudaGetDeviceCount(&rcount));
  EXPECT_TRUE(count == rcount);
  CU_CHECK(cuDriverGetVersion(&version));
  EXPECT_TRUE(version >= 13000);
  CU_EXPECT(cuDeviceGetAttribute(&v, static_cast<CUdevice_attribute>(100000), 0), CUDA_ERROR_INVALID_VALUE);
  CU_EXPECT(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 1), CUDA_ERROR_INVALID_DEVICE);
  std::printf("PASS driver_mixed attributes\n");
  return 0;
}

cudaError_t clusters(const void* kernel, int block, size_t smem, unsigned cluster, int* out) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(64);
  cfg.blockDim = dim3(block);
  cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cluster;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = cluster ? 1 : 0;
  return cudaOccupancyMaxActiveClusters(out, kernel, &cfg);
}

// The rule (docs/status.md): floor(SMs x blocks per SM / cluster size).
// On the default GPU (H100 SXM: 132 SMs, 2048 threads and 32 blocks per SM,
// 228 KB shared memory per SM):
//   128 threads, cluster 2:  blocks/SM = min(2048/128, 32) = 16 -> 132*16/2 = 1056
//   1024 threads, cluster 4: blocks/SM = 2                      -> 132*2/4  = 66
//   64 threads + 100 KB dynamic shared memory, cluster 8: 2 blocks/SM -> 132*2/8 = 33
//   __cluster_dims__(2,1,1), 256 threads, no attribute: 8 blocks/SM -> 132*8/2 = 528
int part_clusters() {
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  if (p.multiProcessorCount != 132 || p.major != 9) {
    std::fprintf(stderr, "FAIL this part expects the default GPU (h100), got %s\n", p.name);
    return 1;
  }
  int n = 0;
  CHECK(cudaFuncSetAttribute(plain, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
  CHECK(clusters((const void*)plain, 128, 0, 2, &n));
  EXPECT_TRUE(n == 1056);
  CHECK(clusters((const void*)plain, 1024, 0, 4, &n));
  EXPECT_TRUE(n == 66);
  CHECK(clusters((const void*)plain, 64, 100 * 1024, 8, &n));
  EXPECT_TRUE(n == 33);
  CHECK(clusters((const void*)fixed_cluster, 256, 0, 0, &n));
  EXPECT_TRUE(n == 528);
  EXPECT_ERR(clusters((const void*)plain, 128, 0, 0, &n), cudaErrorInvalidClusterSize);   // no cluster given
  EXPECT_ERR(clusters((const void*)plain, 128, 0, 16, &n), cudaErrorInvalidClusterSize);  // over the portable 8
  EXPECT_ERR(clusters((const void*)fixed_cluster, 256, 0, 4, &n), cudaErrorInvalidClusterSize);  // not its shape
  EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidClusterSize);  // the failures above, then cleared
  CHECK(cudaGetLastError());
  // A cluster launch of the fixed-shape kernel through the runtime, checked.
  int* out;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  fixed_cluster<<<64, 256>>>(out);
  CHECK_LAUNCH();
  std::vector<int> got(64);
  CHECK(cudaMemcpy(got.data(), out, 64 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i) EXPECT_TRUE(got[i] == i);
  CHECK(cudaFree(out));
  std::printf("PASS driver_mixed clusters\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string part = argc > 1 ? argv[1] : "";
  if (part == "context") return part_context();
  if (part == "memory") return part_memory();
  if (part == "entry") return part_entry();
  if (part == "attributes") return part_attributes();
  if (part == "clusters") return part_clusters();
  std::fprintf(stderr, "usage: driver_mixed context|memory|entry|attributes|clusters\n");
  return 2;
}
