// synccheck: correct synchronization of the kinds real code has, which must
// give no report: a tiled sgemm with __syncthreads in uniform code, a block
// reduction with __syncthreads_count, warp-shuffle reductions after an early
// return of part of a warp (threads that returned have exited), and
// cooperative-groups tiles of 16 threads with tile.sync() and tile shuffles,
// __syncwarp() reached from the two sides of a branch (sm_70+ pairs them),
// __syncthreads() after part of a warp, or a whole warp, returned; a
// producer warp and a consumer warp handing over through named barriers
// (bar.arrive / bar.sync, as warp-specialized kernels do). Exits 1 when the
// handover's result is wrong.
#include <cooperative_groups.h>
#include <cstdio>

namespace cg = cooperative_groups;
constexpr int T = 16;

__global__ void sgemm(const float* a, const float* b, float* c, int n) {
  __shared__ float as[T][T], bs[T][T];
  const int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  float acc = 0;
  for (int k0 = 0; k0 < n; k0 += T) {
    as[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
    bs[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < T; ++k) acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

// n is not a multiple of 32: the last warp is partly past the end.
__global__ void warp_sums(const float* in, float* out, int* count, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int big = __syncthreads_count(i < n && in[i] > 0.5f);
  if (threadIdx.x == 0) atomicAdd(count, big);
  if (i >= n) return;
  float v = in[i];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  __syncwarp();
  if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}

__global__ void tiles(const int* in, int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  __shared__ int s[64];
  int v = in[threadIdx.x];
  s[threadIdx.x] = v;
  tile.sync();
  v += s[tile.meta_group_rank() * 16 + (tile.thread_rank() + 1) % 16];
  for (int o = tile.size() / 2; o > 0; o /= 2) v += tile.shfl_down(v, o);
  if (tile.meta_group_rank() % 2 == 0) v = tile.shfl(v, 0);  // one tile of each warp
  block.sync();
  if (tile.thread_rank() == 0) out[tile.meta_group_rank()] = v;
}

__global__ void split_syncwarp(int* out) {
  __shared__ int s[32];
  const int t = threadIdx.x;
  if (t & 1) {
    s[t] = t * 3;
    __syncwarp();
    out[t] = s[t ^ 1];
  } else {
    s[t] = t + 100;
    __syncwarp();
    out[t] = s[t ^ 1] * 2;
  }
}

__global__ void early_exit(const int* in, int* out, int n) {
  __shared__ int s[64];
  const int i = threadIdx.x;
  if (i >= n) return;
  s[i] = in[i];
  __syncthreads();
  out[i] = s[(i + 1) % n];
}

__global__ void producer_consumer(int* out) {
  __shared__ int s[32];
  const int t = threadIdx.x;
  for (int it = 0; it < 3; ++it) {
    if (t < 32) {
      s[t] = t + it;
      asm volatile("bar.arrive 1, 64;" ::: "memory");  // full
      asm volatile("bar.sync 2, 64;" ::: "memory");    // wait until empty
    } else {
      asm volatile("bar.sync 1, 64;" ::: "memory");
      out[t - 32] += s[63 - t];
      asm volatile("bar.arrive 2, 64;" ::: "memory");
    }
  }
}

int main() {
  const int n = 64;
  float *a, *b, *c, *sum;
  int *in, *out, *count;
  cudaMallocManaged(&a, n * n * sizeof(float));
  cudaMallocManaged(&b, n * n * sizeof(float));
  cudaMallocManaged(&c, n * n * sizeof(float));
  cudaMallocManaged(&sum, sizeof(float));
  cudaMallocManaged(&count, sizeof(int));
  cudaMallocManaged(&in, 64 * sizeof(int));
  cudaMallocManaged(&out, 64 * sizeof(int));
  for (int i = 0; i < n * n; ++i) a[i] = float(i % 7) / 7, b[i] = float(i % 5) / 5;
  for (int i = 0; i < 64; ++i) in[i] = i;
  *sum = 0;
  *count = 0;
  sgemm<<<dim3(n / T, n / T), dim3(T, T)>>>(a, b, c, n);
  warp_sums<<<2, 64>>>(a, sum, count, 100);
  tiles<<<1, 64>>>(in, out);
  split_syncwarp<<<1, 32>>>(in);
  early_exit<<<1, 64>>>(in, out, 40);  // warp 1: lanes 8-31 returned
  early_exit<<<1, 64>>>(in, out, 20);  // warp 1 returned whole
  int* pc = nullptr;
  cudaMallocManaged(&pc, 32 * sizeof(int));
  for (int i = 0; i < 32; ++i) pc[i] = 0;
  producer_consumer<<<1, 64>>>(pc);
  cudaError_t e = cudaDeviceSynchronize();
  bool ok = e == cudaSuccess;
  for (int i = 0; i < 32; ++i) ok &= pc[i] == 3 * (31 - i) + 3;
  std::printf("clean: %s c[5]=%g sum=%g count=%d out=%d,%d,%d,%d\n", cudaGetErrorName(e), c[5], *sum, *count,
              out[0], out[1], out[2], out[3]);
  std::printf("%s producer_consumer\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
