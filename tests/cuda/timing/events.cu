// cudaEventElapsedTime under --timing: the simulated time of what ran
// between the events (a launch and its kernel), printed for the test to
// compare with the timing report; the results must be those of a plain run.
#include <cstdio>
#include <vector>

#include "../check.cuh"

__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 1 << 20;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) { x[i] = float(i % 1000); y[i] = 1.0f; }
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  saxpy<<<n / 256, 256>>>(2.0f, dx, dy, n);
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (y[i] != 2.0f * float(i % 1000) + 1.0f) { std::printf("FAIL y[%d] = %g\n", i, y[i]); return 1; }
  std::printf("elapsed_us=%.4f\n", double(ms) * 1000.0);
  std::printf("PASS timing_events\n");
  return 0;
}
