// Shared memory, dynamic shared memory, atomics, shuffles, math.
#include <cstdio>
__constant__ float coeffs[8] = {1.0f, 2.0f, 3.5f, -4.0f, 0.25f, 6.0f, 7.0f, 8.0f};
__constant__ int table[2][3] = {{1, 2, 3}, {4, 5, 6}};
__device__ int counter;
__device__ int* ptr_to_counter = &counter;

__global__ void saxpy(int n, float a, const float* __restrict__ x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i] * coeffs[i & 7];
}

__global__ void reduce_shared(const float* in, float* out, int n) {
  __shared__ float s[256];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, s[0]);
}

__global__ void dyn_shared(int* out) {
  extern __shared__ int ds[];
  ds[threadIdx.x] = threadIdx.x * 3;
  __syncthreads();
  out[threadIdx.x] = ds[blockDim.x - 1 - threadIdx.x] + table[threadIdx.x & 1][threadIdx.x % 3];
}

__global__ void warp_ops(const int* in, int* out) {
  int v = in[threadIdx.x];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  unsigned b = __ballot_sync(0xffffffff, v > 0);
  atomicMax(&counter, v);
  atomicCAS(out + 1, 0, (int)b);
  out[threadIdx.x] = v + __popc(b) + __clz(v) + __ffs(v);
}

__global__ void math_ops(float* f, double* d) {
  int i = threadIdx.x;
  f[i] = sinf(f[i]) + expf(f[i]) + sqrtf(fabsf(f[i])) + __fdividef(1.0f, f[i] + 3.0f) + powf(f[i], 2.5f);
  d[i] = sqrt(d[i]) + exp(d[i]) + log(d[i] + 1.0) + 1e-300;
}

__global__ void hello(int x) { printf("hello %d from %d %f\n", x, threadIdx.x, 1.5); }
