// initcheck's cost on a memory-heavy program (docs/performance.md): a 16M-float
// triad c = a + s*b, inputs copied from the host, the result copied back.
#include <cstdio>
#include <vector>

__global__ void triad(const float* a, const float* b, float* c, float s, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c[i] = a[i] + s * b[i];
}

int main() {
  const int n = 16 << 20;
  std::vector<float> h(n, 1.0f);
  float *a, *b, *c;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&c, n * sizeof(float));
  cudaMemcpy(a, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(b, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  triad<<<1024, 256>>>(a, b, c, 2.0f, n);
  cudaMemcpy(h.data(), c, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("%s triad c[n-1] = %g\n", h[n - 1] == 3.0f ? "PASS" : "FAIL", h[n - 1]);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return 0;
}
