// cuda::barrier<thread_scope_block> (an mbarrier in shared memory): several
// phases of a shared-memory stencil synchronized by arrive_and_wait, a split
// arrive()/wait(token), and cuda::memcpy_async completing on the barrier.
// Integer data: the CPU reference is exact.
#include <cuda/barrier>

// The barrier is constructed by init(), not by a constructor (the documented pattern).
#pragma nv_diag_suppress static_var_with_dynamic_init

#include <vector>

#include "../check.cuh"

using block_barrier = cuda::barrier<cuda::thread_scope_block>;
constexpr int kThreads = 256;
constexpr int kSteps = 6;

__global__ void stencil(const int* in, int* out) {
  __shared__ int a[kThreads], b[kThreads];
  __shared__ block_barrier bar;
  __shared__ __align__(16) int staged[kThreads];
  const int t = threadIdx.x;
  if (t == 0) init(&bar, blockDim.x);
  __syncthreads();
  // Stage the block's input through memcpy_async on the barrier.
  if (t == 0) cuda::memcpy_async(staged, in + blockIdx.x * kThreads, sizeof(int) * kThreads, bar);
  bar.arrive_and_wait();
  a[t] = staged[t];
  bar.arrive_and_wait();
  for (int s = 0; s < kSteps; ++s) {
    b[t] = a[t] + 2 * a[(t + 1) % kThreads] - a[(t + kThreads - 1) % kThreads] + s;
    auto token = bar.arrive();  // split phase: nothing of the next phase before everyone wrote b
    bar.wait(std::move(token));
    a[t] = b[t] % 1000003;
    bar.arrive_and_wait();
  }
  out[blockIdx.x * kThreads + t] = a[t];
}

int main() {
  const int blocks = 3;
  std::vector<int> h(blocks * kThreads), want(h.size()), got(h.size());
  Lcg g(11);
  for (auto& v : h) v = int(g.next() % 2000) - 1000;
  for (int blk = 0; blk < blocks; ++blk) {
    std::vector<int> a(h.begin() + blk * kThreads, h.begin() + (blk + 1) * kThreads), b(kThreads);
    for (int s = 0; s < kSteps; ++s) {
      for (int t = 0; t < kThreads; ++t)
        b[t] = a[t] + 2 * a[(t + 1) % kThreads] - a[(t + kThreads - 1) % kThreads] + s;
      for (int t = 0; t < kThreads; ++t) a[t] = b[t] % 1000003;
    }
    for (int t = 0; t < kThreads; ++t) want[blk * kThreads + t] = a[t];
  }
  int *din, *dout;
  CHECK(cudaMalloc(&din, h.size() * sizeof(int)));
  CHECK(cudaMalloc(&dout, h.size() * sizeof(int)));
  CHECK(cudaMemcpy(din, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice));
  stencil<<<blocks, kThreads>>>(din, dout);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(got.data(), dout, h.size() * sizeof(int), cudaMemcpyDeviceToHost));
  if (count_mismatches("stencil", got.data(), want.data(), long(h.size()))) return 1;
  std::printf("PASS barrier\n");
  return 0;
}
