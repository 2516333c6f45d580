// Fuzz seed: shared memory, barriers, shuffles, atomics, votes.
__global__ void reduce(const int* in, int* out, int n) {
  __shared__ int s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  if ((threadIdx.x & 31) == 0) s[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    int t = 0;
    for (int w = 0; w < blockDim.x / 32; ++w) t += s[w];
    atomicAdd(out, t);
  }
  if (__any_sync(0xffffffff, v < 0)) atomicMax(out + 1, v);
}
