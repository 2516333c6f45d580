// Cooperative groups, cp.async pipeline and clusters (sm_90).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_pipeline.h>
namespace cg = cooperative_groups;
__global__ void cg_reduce(const int* in, int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int v = in[block.thread_rank()];
  v = cg::reduce(warp, v, cg::plus<int>());
  block.sync();
  if (warp.thread_rank() == 0) atomicAdd(out, v);
}
__global__ void async_copy(const float4* in, float4* out) {
  __shared__ float4 buf[128];
  __pipeline_memcpy_async(&buf[threadIdx.x], &in[threadIdx.x], sizeof(float4));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  out[threadIdx.x] = buf[127 - threadIdx.x];
}
__global__ void __cluster_dims__(2, 1, 1) clustered(int* out) {
  cg::cluster_group c = cg::this_cluster();
  __shared__ int s;
  s = threadIdx.x;
  c.sync();
  int* other = c.map_shared_rank(&s, c.block_rank() ^ 1);
  out[c.block_rank()] = *other + (int)(clock64() & 1) + __activemask();
}
