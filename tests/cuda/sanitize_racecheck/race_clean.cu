// racecheck must report nothing on correct code: a tiled sgemm with
// __syncthreads(), a warp-shuffle block reduction, a __syncwarp() warp
// reduction in shared memory, a cooperative-groups tile reduction, a
// double-buffered cp.async pipeline, shared-memory atomics (histogram),
// a cuda::barrier (mbarrier) exchange and a release/acquire flag. Every
// result is checked.
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda_pipeline.h>

#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;
constexpr int T = 16, N = 64;

__global__ void sgemm(const float* a, const float* b, float* c) {
  __shared__ float as[T][T], bs[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0;
  for (int k0 = 0; k0 < N; k0 += T) {
    as[ty][tx] = a[row * N + k0 + tx];
    bs[ty][tx] = b[(k0 + ty) * N + col];
    __syncthreads();
    for (int k = 0; k < T; ++k) acc += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * N + col] = acc;
}

__global__ void shfl_reduce(const int* in, int* out) {
  __shared__ int warp_sums[8];
  const int t = threadIdx.x, lane = t % 32;
  int v = in[blockIdx.x * 256 + t];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if (lane == 0) warp_sums[t / 32] = v;
  __syncthreads();
  if (t < 32) {
    v = lane < 8 ? warp_sums[lane] : 0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (t == 0) out[blockIdx.x] = v;
  }
}

__global__ void syncwarp_reduce(const int* in, int* out) {
  __shared__ int s[64];
  const int t = threadIdx.x, lane = t % 32;
  s[t] = in[t];
  __syncwarp();
  for (int o = 16; o > 0; o >>= 1) {
    if (lane < o) s[t] += s[t + o];
    __syncwarp();
  }
  if (lane == 0) out[t / 32] = s[t];
}

__global__ void tile_reduce(const int* in, int* out) {
  __shared__ int s[64];
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  const int t = threadIdx.x, r = tile.thread_rank();
  s[t] = in[t];
  tile.sync();
  for (int o = 16; o > 0; o >>= 1) {
    int v = r < o ? s[t + o] : 0;
    tile.sync();
    if (r < o) s[t] += v;
    tile.sync();
  }
  if (r == 0) out[t / 32] = s[t];
}

// 128 threads consume 8 chunks of 128 ints through two buffers: chunk i+1
// is in flight while chunk i is used; each thread reads another's element.
__global__ void pipeline(const int* in, int* out) {
  __shared__ int buf[2][128];
  const int t = threadIdx.x;
  int acc = 0;
  __pipeline_memcpy_async(&buf[0][t], &in[t], sizeof(int));
  __pipeline_commit();
  for (int i = 0; i < 8; ++i) {
    if (i + 1 < 8) __pipeline_memcpy_async(&buf[(i + 1) % 2][t], &in[(i + 1) * 128 + t], sizeof(int));
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    acc += buf[i % 2][(t + 1) % 128];
    __syncthreads();
  }
  out[t] = acc;
}

__global__ void histogram(const int* in, int n, int* out) {
  __shared__ int h[64];
  const int t = threadIdx.x;
  h[t] = 0;
  __syncthreads();
  for (int i = t; i < n; i += 64) atomicAdd(&h[in[i] % 64], 1);
  __syncthreads();
  atomicAdd(&out[t], h[t]);
}

#pragma nv_diag_suppress static_var_with_dynamic_init
__global__ void mbarrier_exchange(const int* in, int* out) {
  __shared__ int s[64];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  const int t = threadIdx.x;
  if (t == 0) init(&bar, 64);
  __syncthreads();
  s[t] = in[t];
  bar.arrive_and_wait();
  out[t] = s[63 - t];
}

// A release/acquire flag (cuda::atomic_ref) hands warp 0's data to thread 32.
__global__ void flag_handoff(int* out) {
  __shared__ int data[32], flag;
  const int t = threadIdx.x;
  if (t == 0) flag = 0;
  __syncthreads();
  cuda::atomic_ref<int, cuda::thread_scope_block> f(flag);
  if (t < 32) {
    data[t] = 3 * t;
    __syncwarp();
    if (t == 0) f.store(1, cuda::memory_order_release);
  } else if (t == 32) {
    while (f.load(cuda::memory_order_acquire) == 0) {
    }
    int sum = 0;
    for (int i = 0; i < 32; ++i) sum += data[i];
    out[0] = sum;
  }
}

template <class V>
int check(const char* what, const V& got, const V& want) {
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) bad += got[i] != want[i];
  std::printf("%s: %s\n", what, bad ? "WRONG" : "ok");
  return bad;
}

template <class V>
typename V::value_type* dev(const V& h) {
  typename V::value_type* d = nullptr;
  cudaMalloc(&d, h.size() * sizeof(h[0]));
  cudaMemcpy(d, h.data(), h.size() * sizeof(h[0]), cudaMemcpyHostToDevice);
  return d;
}

int main() {
  int bad = 0;
  {
    std::vector<float> a(N * N), b(N * N), c(N * N), want(N * N, 0);
    for (int i = 0; i < N * N; ++i) a[i] = float(i % 7), b[i] = float(i % 5);
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j)
        for (int k = 0; k < N; ++k) want[i * N + j] += a[i * N + k] * b[k * N + j];
    float *da = dev(a), *db = dev(b), *dc = dev(c);
    sgemm<<<dim3(N / T, N / T), dim3(T, T)>>>(da, db, dc);
    cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost);
    bad += check("sgemm", c, want);
  }
  std::vector<int> in(1024), want;
  for (int i = 0; i < 1024; ++i) in[i] = i % 13;
  int* din = dev(in);
  std::vector<int> r(1024, 0);
  int* dr = dev(r);
  shfl_reduce<<<4, 256>>>(din, dr);
  cudaMemcpy(r.data(), dr, 16, cudaMemcpyDeviceToHost);
  want.assign(4, 0);
  for (int i = 0; i < 1024; ++i) want[i / 256] += in[i];
  bad += check("shfl_reduce", std::vector<int>(r.begin(), r.begin() + 4), want);
  want.assign(2, 0);
  for (int i = 0; i < 64; ++i) want[i / 32] += in[i];
  syncwarp_reduce<<<1, 64>>>(din, dr);
  cudaMemcpy(r.data(), dr, 8, cudaMemcpyDeviceToHost);
  bad += check("syncwarp_reduce", std::vector<int>(r.begin(), r.begin() + 2), want);
  tile_reduce<<<1, 64>>>(din, dr);
  cudaMemcpy(r.data(), dr, 8, cudaMemcpyDeviceToHost);
  bad += check("tile_reduce", std::vector<int>(r.begin(), r.begin() + 2), want);
  pipeline<<<1, 128>>>(din, dr);
  cudaMemcpy(r.data(), dr, 512, cudaMemcpyDeviceToHost);
  want.assign(128, 0);
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < 8; ++i) want[t] += in[i * 128 + (t + 1) % 128];
  bad += check("pipeline", std::vector<int>(r.begin(), r.begin() + 128), want);
  cudaMemset(dr, 0, 256);
  histogram<<<2, 64>>>(din, 1024, dr);
  cudaMemcpy(r.data(), dr, 256, cudaMemcpyDeviceToHost);
  want.assign(64, 0);
  for (int i = 0; i < 1024; ++i) want[in[i] % 64] += 2;
  bad += check("histogram", std::vector<int>(r.begin(), r.begin() + 64), want);
  mbarrier_exchange<<<1, 64>>>(din, dr);
  cudaMemcpy(r.data(), dr, 256, cudaMemcpyDeviceToHost);
  want.assign(64, 0);
  for (int t = 0; t < 64; ++t) want[t] = in[63 - t];
  bad += check("mbarrier_exchange", std::vector<int>(r.begin(), r.begin() + 64), want);
  flag_handoff<<<1, 64>>>(dr);
  cudaMemcpy(r.data(), dr, 4, cudaMemcpyDeviceToHost);
  bad += check("flag_handoff", std::vector<int>(r.begin(), r.begin() + 1), std::vector<int>{3 * 31 * 32 / 2});
  std::printf("%s\n", bad ? "FAILED" : "all ok");
  return bad ? 1 : 0;
}
