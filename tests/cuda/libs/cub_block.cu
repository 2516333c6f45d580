// CUB block- and warp-level collectives inside user kernels: BlockReduce
// (sum, max), BlockScan (inclusive and exclusive sums, with block aggregate),
// WarpReduce (sum), over many blocks, checked against host loops.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_reduce.cuh>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "../check.cuh"

constexpr int kThreads = 256;

struct MaxOp {
  __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};
constexpr int kItems = 4;  // items per thread for the scan (blocked arrangement)

__global__ void block_reduce_kernel(const int* in, int* sums, int* maxes, int n) {
  using BlockReduce = cub::BlockReduce<int, kThreads>;
  __shared__ typename BlockReduce::TempStorage tmp;
  int i = blockIdx.x * kThreads + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int s = BlockReduce(tmp).Sum(v);
  __syncthreads();  // TempStorage is reused
  int m = BlockReduce(tmp).Reduce(i < n ? in[i] : INT_MIN, MaxOp{});
  if (threadIdx.x == 0) {
    sums[blockIdx.x] = s;
    maxes[blockIdx.x] = m;
  }
}

__global__ void block_scan_kernel(const int* in, int* incl, int* excl, int* totals, int n) {
  using BlockScan = cub::BlockScan<int, kThreads>;
  __shared__ typename BlockScan::TempStorage tmp;
  int base = blockIdx.x * kThreads * kItems + threadIdx.x * kItems;
  int items[kItems];
  for (int k = 0; k < kItems; ++k) items[k] = base + k < n ? in[base + k] : 0;
  int out[kItems];
  BlockScan(tmp).InclusiveSum(items, out);
  for (int k = 0; k < kItems; ++k)
    if (base + k < n) incl[base + k] = out[k];
  __syncthreads();
  int total = 0;
  BlockScan(tmp).ExclusiveSum(items, out, total);
  for (int k = 0; k < kItems; ++k)
    if (base + k < n) excl[base + k] = out[k];
  if (threadIdx.x == 0) totals[blockIdx.x] = total;
}

__global__ void warp_reduce_kernel(const float* in, float* out, int n) {
  using WarpReduce = cub::WarpReduce<float>;
  __shared__ typename WarpReduce::TempStorage tmp[kThreads / 32];
  int i = blockIdx.x * kThreads + threadIdx.x;
  int warp = threadIdx.x / 32;
  float v = i < n ? in[i] : 0.0f;
  float s = WarpReduce(tmp[warp]).Sum(v);
  if (threadIdx.x % 32 == 0) out[blockIdx.x * (kThreads / 32) + warp] = s;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000000;
  Lcg rng(7);
  std::vector<int> h(n);
  for (auto& x : h) x = (int)(rng.next() % 2001) - 1000;
  std::vector<float> hf(n);
  // Multiples of 1/16 with small magnitude: every partial sum of 32 is exact,
  // so the result does not depend on the reduction order.
  for (auto& x : hf) x = (float)((int)(rng.next() % 257) - 128) / 16.0f;

  int *d_in, *d_sums, *d_max, *d_incl, *d_excl, *d_tot;
  float *d_f, *d_wsum;
  const int rblocks = (n + kThreads - 1) / kThreads;
  const int sblocks = (n + kThreads * kItems - 1) / (kThreads * kItems);
  const int nwarps = rblocks * (kThreads / 32);
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_sums, rblocks * sizeof(int)));
  CHECK(cudaMalloc(&d_max, rblocks * sizeof(int)));
  CHECK(cudaMalloc(&d_incl, n * sizeof(int)));
  CHECK(cudaMalloc(&d_excl, n * sizeof(int)));
  CHECK(cudaMalloc(&d_tot, sblocks * sizeof(int)));
  CHECK(cudaMalloc(&d_f, n * sizeof(float)));
  CHECK(cudaMalloc(&d_wsum, nwarps * sizeof(float)));
  CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_f, hf.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  block_reduce_kernel<<<rblocks, kThreads>>>(d_in, d_sums, d_max, n);
  CHECK_LAUNCH();
  block_scan_kernel<<<sblocks, kThreads>>>(d_in, d_incl, d_excl, d_tot, n);
  CHECK_LAUNCH();
  warp_reduce_kernel<<<rblocks, kThreads>>>(d_f, d_wsum, n);
  CHECK_LAUNCH();

  std::vector<int> sums(rblocks), maxes(rblocks), incl(n), excl(n), tot(sblocks);
  std::vector<float> wsum(nwarps);
  CHECK(cudaMemcpy(sums.data(), d_sums, rblocks * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(maxes.data(), d_max, rblocks * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(incl.data(), d_incl, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(excl.data(), d_excl, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(tot.data(), d_tot, sblocks * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(wsum.data(), d_wsum, nwarps * sizeof(float), cudaMemcpyDeviceToHost));

  std::vector<int> wsums(rblocks, 0), wmax(rblocks, INT_MIN);
  for (int i = 0; i < n; ++i) {
    wsums[i / kThreads] += h[i];
    wmax[i / kThreads] = std::max(wmax[i / kThreads], h[i]);
  }
  if (count_mismatches("block_reduce.sum", sums.data(), wsums.data(), rblocks)) return 1;
  if (count_mismatches("block_reduce.max", maxes.data(), wmax.data(), rblocks)) return 1;

  std::vector<int> wincl(n), wexcl(n), wtot(sblocks, 0);
  const int tile = kThreads * kItems;
  for (int i = 0; i < n; ++i) {
    int b = i / tile;
    wexcl[i] = i % tile == 0 ? 0 : wincl[i - 1];
    wincl[i] = wexcl[i] + h[i];
    wtot[b] = wincl[i];
  }
  if (count_mismatches("block_scan.inclusive", incl.data(), wincl.data(), n)) return 1;
  if (count_mismatches("block_scan.exclusive", excl.data(), wexcl.data(), n)) return 1;
  if (count_mismatches("block_scan.aggregate", tot.data(), wtot.data(), sblocks)) return 1;

  std::vector<float> wws(nwarps, 0.0f);
  for (int i = 0; i < n; ++i) wws[i / 32] += hf[i];
  if (count_mismatches("warp_reduce.sum", wsum.data(), wws.data(), nwarps)) return 1;

  std::printf("PASS cub_block (n=%d blocks=%d)\n", n, rblocks);
  return 0;
}
