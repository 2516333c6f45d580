// Kernels for the executor tests (tests/unit/exec/exec_test.cpp).
// Regenerate: nvcc -ptx -arch=sm_80 kernels.cu -o kernels.ptx
#include <cstdio>
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) c[i] = a[i] + b[i];
}
extern "C" __global__ void block_sum(const int* in, int* out, int n) {
  __shared__ int s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, s[0]);
}
__device__ __noinline__ int collatz(int x) {
  int steps = 0;
  while (x != 1) { x = (x & 1) ? 3 * x + 1 : x / 2; ++steps; if (steps > 1000) return -1; }
  return steps;
}
__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
extern "C" __global__ void divergent(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v;
  if (i % 3 == 0) v = collatz(i + 1);
  else if (i % 3 == 1) v = fib(i % 12);
  else { v = 0; for (int k = 0; k < (i & 7); ++k) { if (k == 5) break; v += k * i; } }
  out[i] = v;
}
extern "C" __global__ void warp_reduce(const int* in, int* out) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int s = 16; s > 0; s >>= 1) v += __shfl_down_sync(0xffffffffu, v, s);
  if ((threadIdx.x & 31) == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}
extern "C" __global__ void oob(int* p) { p[threadIdx.x + 1000000] = 1; }
extern "C" __global__ void hello(int x) { if (threadIdx.x == 1) printf("hello %d %s %.2f\n", x, "world", 1.5f); }
// Threads past n return before the barrier; the rest must still meet there.
extern "C" __global__ void early_return_barrier(int* out, int n) {
  __shared__ int s[128];
  int t = threadIdx.x;
  if (t >= n) return;
  s[t] = t * 3;
  __syncthreads();
  out[t] = s[n - 1 - t];
}
