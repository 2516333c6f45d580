// Per-block integer sum: shared-memory tree (bar.sync) down to 32 values, then
// warp shuffles (shfl.sync.down). Requires blockDim.x == 256.
// block_sums[b] = sum of in[b*256 + t] over t with b*256 + t < n.
extern "C" __global__ void reduce_sum(const int* in, int* block_sums, int n) {
  __shared__ int s[256];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int stride = 128; stride >= 32; stride >>= 1) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x < 32) {
    int v = s[threadIdx.x];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if (threadIdx.x == 0) block_sums[blockIdx.x] = v;
  }
}
