// Cooperative groups reductions checked against CPU sums: cg::reduce over
// 16- and 32-thread tiles, a block sum built from them, and tiles of 64 and 128
// threads, which use the reserved shared memory (%reserved_smem_offset_1).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "../check.cuh"

namespace cg = cooperative_groups;

__global__ void tile_sums(const int* in, int* warp_out, int* half_out, int* block_out) {
  cg::thread_block block = cg::this_thread_block();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  auto tile32 = cg::tiled_partition<32>(block);
  int s32 = cg::reduce(tile32, v, cg::plus<int>());
  if (tile32.thread_rank() == 0) warp_out[i / 32] = s32;
  auto tile16 = cg::tiled_partition<16>(block);
  int s16 = cg::reduce(tile16, v, cg::plus<int>());
  if (tile16.thread_rank() == 0) half_out[i / 16] = s16;
  // A block-wide sum through the warp sums (shared memory and a barrier).
  __shared__ int part[32];
  if (tile32.thread_rank() == 0) part[tile32.meta_group_rank()] = s32;
  block.sync();
  if (threadIdx.x == 0) {
    int t = 0;
    for (unsigned w = 0; w < tile32.meta_group_size(); ++w) t += part[w];
    block_out[blockIdx.x] = t;
  }
}

// Tiles wider than a warp (tiled_partition<64>, <128>) keep their barriers and
// exchange slots in the reserved shared memory from sm_80 on: the kernel finds
// it through %reserved_smem_offset_1 (cooperative_groups/details/memory.h).
// The kernel's own shared array must survive the tiles' use of that region.
__global__ void big_tile_sums(const int* in, int* out64, int* out128, int* guard_ok) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ int mine[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  mine[threadIdx.x] = -i;
  block.sync();
  auto t64 = cg::tiled_partition<64>(block);
  int s64 = cg::reduce(t64, in[i], cg::plus<int>());
  if (t64.thread_rank() == 0) out64[i / 64] = s64;
  auto t128 = cg::tiled_partition<128>(block);
  int s128 = cg::reduce(t128, in[i] * 3, cg::plus<int>());
  if (t128.thread_rank() == 0) out128[i / 128] = s128;
  block.sync();
  if (mine[threadIdx.x] != -i) atomicExch(guard_ok, 0);
}

int main() {
  const int blocks = 3, threads = 128, n = blocks * threads;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = (i * 7919) % 1000 - 300;
  int *in, *w, *hf, *b, *b64, *b3, *ok;
  CHECK(cudaMalloc(&in, sizeof h));
  CHECK(cudaMalloc(&w, n / 32 * sizeof(int)));
  CHECK(cudaMalloc(&hf, n / 16 * sizeof(int)));
  CHECK(cudaMalloc(&b, blocks * sizeof(int)));
  CHECK(cudaMalloc(&b3, blocks * sizeof(int)));
  CHECK(cudaMalloc(&b64, n / 64 * sizeof(int)));
  CHECK(cudaMalloc(&ok, sizeof(int)));
  const int one = 1;
  CHECK(cudaMemcpy(ok, &one, sizeof one, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  tile_sums<<<blocks, threads>>>(in, w, hf, b);
  CHECK_LAUNCH();
  big_tile_sums<<<blocks, threads>>>(in, b64, b3, ok);
  CHECK_LAUNCH();
  int rw[n / 32], rh[n / 16], rb[blocks], rb3[blocks], r64[n / 64], rok = 0;
  CHECK(cudaMemcpy(rw, w, sizeof rw, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(rh, hf, sizeof rh, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(rb, b, sizeof rb, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(rb3, b3, sizeof rb3, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(r64, b64, sizeof r64, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&rok, ok, sizeof rok, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int g = 0; g < n / 16; ++g) {
    int s = 0;
    for (int k = 0; k < 16; ++k) s += h[g * 16 + k];
    if (rh[g] != s) { std::printf("FAIL tile16 %d: %d, expected %d\n", g, rh[g], s); ++bad; }
  }
  if (rok != 1) { std::printf("FAIL the kernel's shared array was overwritten\n"); ++bad; }
  for (int g = 0; g < n / 64; ++g) {
    int s = 0;
    for (int k = 0; k < 64; ++k) s += h[g * 64 + k];
    if (r64[g] != s) { std::printf("FAIL tile64 %d: %d, expected %d\n", g, r64[g], s); ++bad; }
  }
  for (int g = 0; g < n / 32; ++g) {
    int s = 0;
    for (int k = 0; k < 32; ++k) s += h[g * 32 + k];
    if (rw[g] != s) { std::printf("FAIL tile32 %d: %d, expected %d\n", g, rw[g], s); ++bad; }
  }
  for (int g = 0; g < blocks; ++g) {
    int s = 0;
    for (int k = 0; k < threads; ++k) s += h[g * threads + k];
    if (rb[g] != s) { std::printf("FAIL block %d: %d, expected %d\n", g, rb[g], s); ++bad; }
    if (rb3[g] != 3 * s) { std::printf("FAIL block x3 %d: %d, expected %d\n", g, rb3[g], 3 * s); ++bad; }
  }
  if (bad) return 1;
  std::printf("PASS cg_reduce %d %d %d\n", rb[0], rb[1], rb[2]);
  return 0;
}
