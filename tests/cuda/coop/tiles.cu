// Cooperative-groups tiles: tiled_partition<16> and coalesced_threads() with
// shfl and cg::reduce, checked against CPU sums.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <vector>

#include "../check.cuh"

namespace cg = cooperative_groups;

__global__ void tile_sums(const int* in, int* tile_sum, int* tile_max, int* shfl_out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[gid];
  int s = cg::reduce(tile, v, cg::plus<int>());
  int m = cg::reduce(tile, v, cg::greater<int>());
  // Rotate values inside the tile by 3 with shfl.
  shfl_out[gid] = tile.shfl(v, (tile.thread_rank() + 3) % tile.size());
  if (tile.thread_rank() == 0) {
    tile_sum[gid / 16] = s;
    tile_max[gid / 16] = m;
  }
}

// Only threads with odd values take part; they count themselves and sum
// their values through a coalesced group.
__global__ void coalesced(const int* in, int* count, int* sum, int* rank_out) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[gid];
  rank_out[gid] = -1;
  if (v & 1) {
    cg::coalesced_group g = cg::coalesced_threads();
    int total = cg::reduce(g, v, cg::plus<int>());
    int first = g.shfl(v, 0);
    rank_out[gid] = g.thread_rank();
    if (g.thread_rank() == 0) {
      count[gid / 32] = g.size();
      sum[gid / 32] = total + 0 * first;
      sum[gid / 32 + 1024] = first;
    }
  }
}

int main() {
  const int blocks = 8, threads = 128, n = blocks * threads;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = (i * 7919 + 13) % 1000 - 300;
  int *d_in, *d_ts, *d_tm, *d_sh, *d_cnt, *d_sum, *d_rank;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_ts, n / 16 * sizeof(int)));
  CHECK(cudaMalloc(&d_tm, n / 16 * sizeof(int)));
  CHECK(cudaMalloc(&d_sh, n * sizeof(int)));
  CHECK(cudaMalloc(&d_cnt, n / 32 * sizeof(int)));
  CHECK(cudaMalloc(&d_sum, 2048 * sizeof(int)));
  CHECK(cudaMemset(d_sum, 0, 2048 * sizeof(int)));  // the kernel writes only some; all are copied back
  CHECK(cudaMalloc(&d_rank, n * sizeof(int)));
  CHECK(cudaMemset(d_cnt, 0, n / 32 * sizeof(int)));
  CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  tile_sums<<<blocks, threads>>>(d_in, d_ts, d_tm, d_sh);
  CHECK_LAUNCH();
  std::vector<int> ts(n / 16), tm(n / 16), sh(n), wts(n / 16), wtm(n / 16), wsh(n);
  CHECK(cudaMemcpy(ts.data(), d_ts, ts.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(tm.data(), d_tm, tm.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(sh.data(), d_sh, sh.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (int t = 0; t < n / 16; ++t) {
    wts[t] = 0;
    wtm[t] = -1000000;
    for (int i = 0; i < 16; ++i) {
      wts[t] += h[t * 16 + i];
      wtm[t] = std::max(wtm[t], h[t * 16 + i]);
      wsh[t * 16 + i] = h[t * 16 + (i + 3) % 16];
    }
  }
  REQUIRE(count_mismatches("tile sum", ts.data(), wts.data(), n / 16) == 0, "tile sums");
  REQUIRE(count_mismatches("tile max", tm.data(), wtm.data(), n / 16) == 0, "tile max");
  REQUIRE(count_mismatches("tile shfl", sh.data(), wsh.data(), n) == 0, "tile shfl");

  coalesced<<<blocks, threads>>>(d_in, d_cnt, d_sum, d_rank);
  CHECK_LAUNCH();
  std::vector<int> cnt(n / 32), sum(2048), rank(n);
  CHECK(cudaMemcpy(cnt.data(), d_cnt, cnt.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(sum.data(), d_sum, sum.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(rank.data(), d_rank, rank.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (int w = 0; w < n / 32; ++w) {
    int c = 0, s = 0, first = 0;
    for (int l = 0; l < 32; ++l) {
      int v = h[w * 32 + l];
      int want_rank = (v & 1) ? c : -1;
      REQUIRE(rank[w * 32 + l] == want_rank, "warp %d lane %d rank %d want %d", w, l, rank[w * 32 + l], want_rank);
      if (v & 1) {
        if (c == 0) first = v;
        ++c;
        s += v;
      }
    }
    REQUIRE(cnt[w] == c, "warp %d count %d want %d", w, cnt[w], c);
    if (c) REQUIRE(sum[w] == s && sum[w + 1024] == first, "warp %d sum %d want %d first %d want %d", w, sum[w], s,
                   sum[w + 1024], first);
  }
  std::printf("PASS tiles\n");
  return 0;
}
