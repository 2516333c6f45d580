// saxpy built by CMake (project LANGUAGES CXX CUDA, CMAKE_CUDA_RUNTIME_LIBRARY
// Shared) and checked against the host reference in host.cpp.
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <vector>

void saxpy_reference(float a, const float* x, const float* y, float* out, std::size_t n);

#define CHECK(call)                                                                               \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "FAIL %s:%d: %s returned %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_)); \
      return 1;                                                                                   \
    }                                                                                             \
  } while (0)

__global__ void saxpy(float a, const float* x, const float* y, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}

int main() {
  const int n = 5000;
  const float a = 2.5f;
  std::vector<float> x(n), y(n), out(n), want(n);
  for (int i = 0; i < n; ++i) {
    x[i] = (float)(i % 97) * 0.25f;  // quarters and small integers: a*x+y is exact,
    y[i] = (float)(i % 13) - 6.0f;   // so FMA contraction on the device cannot matter
  }
  saxpy_reference(a, x.data(), y.data(), want.data(), n);
  float *dx, *dy, *dout;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMalloc(&dout, n * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  saxpy<<<(n + 255) / 256, 256>>>(a, dx, dy, dout, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    if (out[i] != want[i]) {
      std::fprintf(stderr, "MISMATCH out[%d]: got %.9g expected %.9g\n", i, out[i], want[i]);
      return 1;
    }
  }
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  CHECK(cudaFree(dout));
  std::printf("PASS cmake_project\n");
  return 0;
}
