// Built with nvcc's default static CUDA runtime (no -cudart shared): the
// program's own copy of NVIDIA's runtime starts through softgpu's
// libcuda.so.1. What the static runtime does on its own is checked here:
// versions, device properties from the driver, kernels and symbols from the
// fatbinary it registers, a second host thread, and cudaDeviceReset in the
// middle of the program (the runtime must load its modules again).
// Usage: static_runtime SM_COUNT MAJOR   (the --gpu the test runs with)
#include <cstdlib>
#include <thread>
#include <vector>

#include "../check.cuh"

__constant__ float c_scale;
__device__ int d_count;

__global__ void scale_add(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = c_scale * x[i] + y[i];
    atomicAdd(&d_count, 1);
  }
}

// One round: y = s*x + y on n elements, checked on the CPU; the device
// counter must have counted every element.
static int round(int n, float s) {
  std::vector<float> x(n), y(n), out(n);
  for (int i = 0; i < n; ++i) x[i] = 0.25f * i, y[i] = 1.0f - i;
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpyToSymbol(c_scale, &s, sizeof s));
  int zero = 0;
  CHECK(cudaMemcpyToSymbol(d_count, &zero, sizeof zero));
  scale_add<<<(n + 127) / 128, 128>>>(dx, dy, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  int count = -1;
  CHECK(cudaMemcpyFromSymbol(&count, d_count, sizeof count));
  REQUIRE(count == n, "d_count = %d, expected %d", count, n);
  for (int i = 0; i < n; ++i) REQUIRE(out[i] == s * x[i] + y[i], "y[%d] = %g, expected %g", i, out[i], s * x[i] + y[i]);
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: static_runtime SM_COUNT MAJOR\n");
    return 2;
  }
  int rt = 0, drv = 0;
  CHECK(cudaRuntimeGetVersion(&rt));
  CHECK(cudaDriverGetVersion(&drv));
  REQUIRE(rt == CUDART_VERSION, "runtime version %d, built with %d", rt, CUDART_VERSION);
  REQUIRE(drv >= rt, "driver version %d older than the runtime's %d", drv, rt);
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  REQUIRE(count == 1, "%d devices", count);
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  REQUIRE(p.multiProcessorCount == std::atoi(argv[1]), "%d SMs, expected %s", p.multiProcessorCount, argv[1]);
  REQUIRE(p.major == std::atoi(argv[2]), "compute capability %d.%d, expected major %s", p.major, p.minor, argv[2]);
  std::printf("device: %s, %d SMs, sm_%d%d\n", p.name, p.multiProcessorCount, p.major, p.minor);

  if (round(1000, 2.0f)) return 1;
  // A second host thread: its runtime sets up its own current context.
  int thread_status = -1;
  std::thread t([&] { thread_status = round(777, -3.0f); });
  t.join();
  REQUIRE(thread_status == 0, "the second thread's round failed");
  // After a reset the runtime registers its fatbinary again.
  CHECK(cudaDeviceReset());
  if (round(513, 0.5f)) return 1;
  // An error from the driver comes back as the runtime's code.
  float* bad = nullptr;
  EXPECT_ERR(cudaMalloc(&bad, ~size_t(0)), cudaErrorMemoryAllocation);
  std::printf("PASS static_runtime\n");
  return 0;
}
