// Cooperative launch: a multi-phase reduction over the whole grid separated
// by grid.sync(), checked against a CPU reference. Also checks that a grid
// larger than what fits co-resident is rejected.
#include <cooperative_groups.h>

#include <vector>

#include "../check.cuh"

namespace cg = cooperative_groups;

// Phase 1: every block writes its partial sum; phase 2: block 0 reduces the
// partials; phase 3: every thread reads the total and scales its element.
__global__ void grid_reduce(const int* in, int* partial, int* total, int* out, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  __shared__ int s[256];
  int acc = 0;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) acc += in[i];
  s[block.thread_rank()] = acc;
  block.sync();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    block.sync();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    int t = 0;
    for (int b = 0; b < gridDim.x; ++b) t += partial[b];
    *total = t;
  }
  grid.sync();
  int t = *total;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) out[i] = in[i] * 3 - t % 1000;
  grid.sync();
  // Phase 4: every block checks that every block finished phase 3 before it.
  if (threadIdx.x == 0) partial[blockIdx.x] = out[(blockIdx.x * 7919) % n] == in[(blockIdx.x * 7919) % n] * 3 - t % 1000;
}

__global__ void validity(int* out) {
  // Outside a cooperative launch the grid group is not valid.
  if (blockIdx.x == 0 && threadIdx.x == 0) *out = cg::this_grid().is_valid() ? 1 : 0;
}

int main() {
  const int n = 100000, threads = 256;
  int dev = 0, sms = 0, per_sm = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_reduce, threads, 0));
  REQUIRE(per_sm > 0, "occupancy %d", per_sm);
  int blocks = sms * per_sm;
  if (blocks > 64) blocks = 64;  // enough to interleave, small enough to be quick
  std::vector<int> h(n), out(n), partial(blocks);
  for (int i = 0; i < n; ++i) h[i] = (i * 37 + 11) % 1001 - 500;
  long long want_total = 0;
  for (int v : h) want_total += v;
  int *d_in, *d_partial, *d_total, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMalloc(&d_partial, blocks * sizeof(int)));
  CHECK(cudaMalloc(&d_total, sizeof(int)));
  CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  int nn = n;
  void* args[] = {&d_in, &d_partial, &d_total, &d_out, &nn};
  CHECK(cudaLaunchCooperativeKernel((void*)grid_reduce, dim3(blocks), dim3(threads), args, 0, 0));
  CHECK_LAUNCH();
  int total = 0;
  CHECK(cudaMemcpy(&total, d_total, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(partial.data(), d_partial, blocks * sizeof(int), cudaMemcpyDeviceToHost));
  REQUIRE(total == (int)want_total, "total %d, want %lld", total, want_total);
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i) want[i] = h[i] * 3 - (int)(want_total % 1000);
  REQUIRE(count_mismatches("out", out.data(), want.data(), n) == 0, "scaled output");
  for (int b = 0; b < blocks; ++b) REQUIRE(partial[b] == 1, "block %d saw phase 3 incomplete", b);

  // Too many blocks to be co-resident.
  EXPECT_ERR(cudaLaunchCooperativeKernel((void*)grid_reduce, dim3(sms * per_sm + 1), dim3(threads), args, 0, 0),
             cudaErrorCooperativeLaunchTooLarge);
  cudaGetLastError();

  int* d_valid;
  CHECK(cudaMalloc(&d_valid, sizeof(int)));
  CHECK(cudaMemset(d_valid, 0xff, sizeof(int)));
  validity<<<2, 32>>>(d_valid);
  CHECK_LAUNCH();
  int valid = -1;
  CHECK(cudaMemcpy(&valid, d_valid, sizeof(int), cudaMemcpyDeviceToHost));
  REQUIRE(valid == 0, "grid group valid in a normal launch: %d", valid);
  std::printf("PASS grid_sync\n");
  return 0;
}
