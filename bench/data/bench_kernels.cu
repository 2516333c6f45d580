// Kernels for bench/exec_bench.cpp. Regenerate: nvcc -ptx -arch=sm_80 bench_kernels.cu -o bench_kernels.ptx
// ALU-bound: a long chain of integer/float arithmetic per thread, no memory in the loop.
extern "C" __global__ void alu_bound(float* out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = i * 2654435761u;
  float f = float(i);
  for (int k = 0; k < iters; ++k) {
    x = x * 1664525u + 1013904223u;
    f = f * 0.999f + float(x >> 16) * 1e-6f;
  }
  out[i] = f + float(x & 0xff);
}
// Memory-bound: streaming triad.
extern "C" __global__ void triad(const float* a, const float* b, float* c, float s, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) c[i] = a[i] + s * b[i];
}
