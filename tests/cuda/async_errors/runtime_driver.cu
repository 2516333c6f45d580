// The runtime API initializes the driver API, as NVIDIA's libraries do: once
// the program has made a runtime call that initializes the device (here
// cudaFree(0)), driver calls work without cuInit, on the primary context,
// current on that thread; a thread that made no runtime call has no current
// context until it makes one. Without any runtime call or cuInit, driver
// calls return CUDA_ERROR_NOT_INITIALIZED. A fault in a kernel launched with
// cuLaunchKernel is reported by the next synchronizing driver call.
// Usage: runtime_driver init|none|fault
#include <cuda.h>

#include <thread>

#include "../check.cuh"
#include "../driver/drv_check.h"

__global__ void oob_write(int* p, long long off) {
  const long long i = blockIdx.x == 1 && threadIdx.x == 3 ? off : threadIdx.x;
  p[i] = 1;
}

namespace {

int part_init() {
  CHECK(cudaFree(0));  // initializes the runtime, and with it the driver
  CUcontext cur = nullptr, primary = nullptr;
  CU_CHECK(cuCtxGetCurrent(&cur));
  CU_CHECK(cuDevicePrimaryCtxRetain(&primary, 0));
  EXPECT_TRUE(cur != nullptr && cur == primary);
  unsigned flags = 0;
  int active = 0;
  CU_CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active));
  EXPECT_TRUE(active == 1);
  CU_CHECK(cuDevicePrimaryCtxRelease(0));
  // As CUTLASS's gemm.initialize(): a driver memset on the default stream.
  const unsigned n = 1000;
  CUdeviceptr d = 0;
  CU_CHECK(cuMemAlloc(&d, n * sizeof(unsigned)));
  CU_CHECK(cuMemsetD32Async(d, 0xC0FFEEu, n, nullptr));
  CU_CHECK(cuCtxSynchronize());
  static unsigned h[n];
  CHECK(cudaMemcpy(h, reinterpret_cast<void*>(d), sizeof h, cudaMemcpyDeviceToHost));
  for (unsigned i = 0; i < n; ++i)
    REQUIRE(h[i] == 0xC0FFEEu, "h[%u] = %#x, expected 0xc0ffee", i, h[i]);
  CU_CHECK(cuMemFree(d));
  // Another thread: the driver is initialized, but no context is current
  // there until its own runtime call makes the primary context current.
  CUresult before = CUDA_ERROR_UNKNOWN, after = CUDA_ERROR_UNKNOWN;
  CUcontext there_before = primary, there_after = nullptr;
  cudaError_t malloc_status = cudaErrorUnknown;
  std::thread t([&] {
    before = cuCtxGetCurrent(&there_before);
    void* p = nullptr;
    malloc_status = cudaMalloc(&p, 64);
    after = cuCtxGetCurrent(&there_after);
    cudaFree(p);
  });
  t.join();
  CU_EXPECT(before, CUDA_SUCCESS);
  EXPECT_TRUE(there_before == nullptr);
  CHECK(malloc_status);
  CU_EXPECT(after, CUDA_SUCCESS);
  EXPECT_TRUE(there_after == primary);
  return 0;
}

int part_none() {
  // No runtime call and no cuInit yet.
  CUcontext cur = nullptr;
  CUdeviceptr d = 0;
  CU_EXPECT(cuCtxGetCurrent(&cur), CUDA_ERROR_NOT_INITIALIZED);
  CU_EXPECT(cuMemAlloc(&d, 64), CUDA_ERROR_NOT_INITIALIZED);
  CU_EXPECT(cuMemsetD32Async(d, 0, 16, nullptr), CUDA_ERROR_NOT_INITIALIZED);
  CU_CHECK(cuInit(0));
  CU_CHECK(cuCtxGetCurrent(&cur));
  EXPECT_TRUE(cur == nullptr);  // cuInit makes no context current
  return 0;
}

int part_fault() {
  int* buf = nullptr;
  CHECK(cudaMalloc(&buf, 4096));
  CUfunction f = nullptr;
  CHECK(cudaGetFuncBySymbol(reinterpret_cast<cudaFunction_t*>(&f), reinterpret_cast<const void*>(oob_write)));
  long long off = 1LL << 28;
  void* args[] = {&buf, &off};
  CU_CHECK(cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr));
  EXPECT_ERR(cudaPeekAtLastError(), cudaSuccess);
  CU_EXPECT(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  CU_EXPECT(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);  // sticky
  CU_EXPECT(cuStreamSynchronize(nullptr), CUDA_ERROR_ILLEGAL_ADDRESS);
  EXPECT_ERR(cudaGetLastError(), cudaErrorIllegalAddress);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const char* part = argv[1];
  int rc = 2;
  if (!std::strcmp(part, "init")) rc = part_init();
  else if (!std::strcmp(part, "none")) rc = part_none();
  else if (!std::strcmp(part, "fault")) rc = part_fault();
  if (rc == 0) std::printf("PASS runtime_driver %s\n", part);
  return rc;
}
