// A deviceQuery-like program: no kernels of its own (nvcc still embeds a
// machine-code-only fatbinary), only property queries. Prints one
// "key: value" line per field; run_device_query.cmake compares them with
// the GPU config file.
#include "../check.cuh"

int main() {
  int n = 0;
  CHECK(cudaGetDeviceCount(&n));
  std::printf("devices: %d\n", n);
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  int driver = 0, runtime = 0;
  CHECK(cudaDriverGetVersion(&driver));
  CHECK(cudaRuntimeGetVersion(&runtime));
  std::printf("name: %s\n", p.name);
  std::printf("compute_capability: %d.%d\n", p.major, p.minor);
  std::printf("sm_count: %d\n", p.multiProcessorCount);
  std::printf("global_memory_bytes: %llu\n", (unsigned long long)p.totalGlobalMem);
  std::printf("warp_size: %d\n", p.warpSize);
  std::printf("max_threads_per_block: %d\n", p.maxThreadsPerBlock);
  std::printf("max_block_dim: [%d, %d, %d]\n", p.maxThreadsDim[0], p.maxThreadsDim[1], p.maxThreadsDim[2]);
  std::printf("max_grid_dim: [%d, %d, %d]\n", p.maxGridSize[0], p.maxGridSize[1], p.maxGridSize[2]);
  std::printf("max_threads_per_sm: %d\n", p.maxThreadsPerMultiProcessor);
  std::printf("registers_per_block: %d\n", p.regsPerBlock);
  std::printf("shared_memory_per_block: %zu\n", p.sharedMemPerBlock);
  std::printf("shared_memory_per_sm: %zu\n", p.sharedMemPerMultiprocessor);
  std::printf("memory_bus_width_bits: %d\n", p.memoryBusWidth);
  int clock = 0;
  CHECK(cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, 0));
  std::printf("clock_khz: %d\n", clock);
  std::printf("versions: driver %d runtime %d\n", driver, runtime);
  EXPECT_ERR(cudaGetDeviceProperties(&p, n), cudaErrorInvalidDevice);
  std::printf("PASS device_query\n");
  return 0;
}
