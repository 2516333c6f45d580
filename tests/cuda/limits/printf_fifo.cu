// Device printf through a small FIFO (cudaLimitPrintfFifoSize = 4096 bytes):
// one thread prints 1000 lines (in a known order) with one argument each. softgpu sizes a record
// as a 16-byte header plus 8 bytes per argument (24 bytes here), so exactly
// 4096 / 24 = 170 lines come out and the rest are dropped; the next launch
// starts with an empty FIFO. After a printing kernel ran, the FIFO size
// can no longer be changed (cudaErrorInvalidValue). (A GPU's cut-off is near this; its exact record
// layout is not documented.)
#include "../check.cuh"

__global__ void shout(int base, int n) {
  for (int i = 0; i < n; ++i) printf("line %d\n", base + i);
}

int main() {
  size_t fifo = 0;
  CHECK(cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize));
  if (fifo != (1u << 20)) {
    std::printf("FAIL default printf FIFO is %zu bytes, expected 1 MB\n", fifo);
    return 1;
  }
  CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 4096));
  CHECK(cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize));
  if (fifo != 4096) return 1;
  shout<<<1, 1>>>(0, 1000);
  CHECK_LAUNCH();
  shout<<<1, 1>>>(5000, 2);  // a new launch, an empty FIFO
  CHECK_LAUNCH();
  // Once a kernel that prints has run, the FIFO size is fixed.
  EXPECT_ERR(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 8192), cudaErrorInvalidValue);
  EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_ERR(cudaGetLastError(), cudaSuccess);
  CHECK(cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize));
  if (fifo != 4096) return 1;
  std::fflush(stdout);
  std::fprintf(stderr, "PASS printf_fifo\n");
  return 0;
}
