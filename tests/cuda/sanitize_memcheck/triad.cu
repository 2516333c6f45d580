// A memory-bound program for memcheck's cost (docs/performance.md) and a
// clean run: c = a + s*b over N floats (default 16 Mi), grid-stride.
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void init(float* a, float* b, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    a[i] = float(i % 1000);
    b[i] = 2.0f;
  }
}

__global__ void triad(const float* a, const float* b, float* c, float s, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    c[i] = a[i] + s * b[i];
}

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : size_t(1) << 24;
  float *a, *b, *c;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&c, n * sizeof(float));
  init<<<512, 256>>>(a, b, n);
  triad<<<512, 256>>>(a, b, c, 3.0f, n);
  std::vector<float> h(n);
  cudaMemcpy(h.data(), c, n * sizeof(float), cudaMemcpyDeviceToHost);
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) bad += h[i] != float(i % 1000) + 6.0f;
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  std::printf("%s triad n=%zu (%zu mismatches)\n", bad ? "FAIL" : "PASS", n, bad);
  return bad != 0;
}
