// Thread-block clusters (sm_90): each block of a cluster fills its shared
// memory, cluster.sync(), then reads its neighbours' shared memory through
// map_shared_rank (distributed shared memory). Checked against a CPU model.
#include <cooperative_groups.h>

#include <vector>

#include "../check.cuh"

namespace cg = cooperative_groups;

constexpr int kThreads = 128;

__global__ void ring(const int* in, int* out, unsigned* ids) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ int buf[kThreads];
  const unsigned rank = cluster.block_rank();
  const unsigned size = cluster.num_blocks();
  buf[threadIdx.x] = in[blockIdx.x * kThreads + threadIdx.x];
  cluster.sync();
  // Sum of this element over every block of the cluster, plus the next
  // block's element reversed.
  int sum = 0;
  for (unsigned r = 0; r < size; ++r) sum += cluster.map_shared_rank(buf, r)[threadIdx.x];
  int* next = cluster.map_shared_rank(buf, (rank + 1) % size);
  out[blockIdx.x * kThreads + threadIdx.x] = sum * 1000 + next[kThreads - 1 - threadIdx.x];
  if (threadIdx.x == 0) {
    ids[blockIdx.x * 4 + 0] = rank;
    ids[blockIdx.x * 4 + 1] = size;
    ids[blockIdx.x * 4 + 2] = cluster.block_index().x;
    ids[blockIdx.x * 4 + 3] = blockIdx.x / size;  // filled with clusterid below
    unsigned cid;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(cid));
    ids[blockIdx.x * 4 + 3] = cid;
  }
  cluster.sync();  // nobody leaves while others may still read its shared memory
}

// Each block adds into rank 0's shared counter with a DSMEM atomic.
__global__ void dsmem_atomic(int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ int counter;
  if (threadIdx.x == 0) counter = 0;
  cluster.sync();
  int* c0 = cluster.map_shared_rank(&counter, 0);
  atomicAdd(c0, (int)cluster.block_rank() + 1);
  cluster.sync();
  if (cluster.block_rank() == 0 && threadIdx.x == 0) out[blockIdx.x / cluster.num_blocks()] = counter;
  cluster.sync();
}

int main() {
  const int cl = 4, blocks = 16, n = blocks * kThreads;
  std::vector<int> h(n), out(n), want(n);
  std::vector<unsigned> ids(blocks * 4);
  for (int i = 0; i < n; ++i) h[i] = (i * 13 + 5) % 97;
  int *d_in, *d_out;
  unsigned* d_ids;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMalloc(&d_ids, ids.size() * sizeof(unsigned)));
  CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(blocks);
  cfg.blockDim = dim3(kThreads);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cl;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&cfg, ring, (const int*)d_in, d_out, d_ids));
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(ids.data(), d_ids, ids.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int b = 0; b < blocks; ++b) {
    int base = b / cl * cl, rank = b % cl, next = base + (rank + 1) % cl;
    for (int t = 0; t < kThreads; ++t) {
      int sum = 0;
      for (int r = 0; r < cl; ++r) sum += h[(base + r) * kThreads + t];
      want[b * kThreads + t] = sum * 1000 + h[next * kThreads + kThreads - 1 - t];
    }
    REQUIRE(ids[b * 4] == (unsigned)rank && ids[b * 4 + 1] == (unsigned)cl && ids[b * 4 + 2] == (unsigned)rank &&
                ids[b * 4 + 3] == (unsigned)(b / cl),
            "block %d: rank %u size %u index %u clusterid %u", b, ids[b * 4], ids[b * 4 + 1], ids[b * 4 + 2],
            ids[b * 4 + 3]);
  }
  REQUIRE(count_mismatches("ring", out.data(), want.data(), n) == 0, "ring output");

  CHECK(cudaMemset(d_out, 0, n * sizeof(int)));
  CHECK(cudaLaunchKernelEx(&cfg, dsmem_atomic, d_out));
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), d_out, (blocks / cl) * sizeof(int), cudaMemcpyDeviceToHost));
  // Every thread of rank r adds r+1: kThreads * (1+2+...+cl).
  for (int c = 0; c < blocks / cl; ++c)
    REQUIRE(out[c] == kThreads * cl * (cl + 1) / 2, "cluster %d counter %d", c, out[c]);
  std::printf("PASS cluster_dsmem\n");
  return 0;
}
