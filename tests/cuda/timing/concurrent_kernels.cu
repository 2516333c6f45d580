// Under `softgpu run --timing`: concurrent kernel execution, as NVIDIA's
// concurrentKernels sample shows it. Eight one-block kernels (a dependent
// chain of FMAs in one warp, so each is latency-bound and needs one SM) are
// issued on one stream and then on eight streams, timed with events on the
// legacy stream. On one stream they run one after the other; on eight
// streams they run side by side on eight SMs (timing/session.cpp), so the
// time is about an eighth. The results are checked on the CPU.
#include <cstdio>
#include <vector>

#include "../check.cuh"

__global__ void chain(float* out, int iters, float seed) {
  float x = seed + threadIdx.x;
  for (int i = 0; i < iters; ++i) x = x * 0.999f + 0.5f;
  out[threadIdx.x] = x;
}

int main() {
  const int kernels = 8, iters = 2000, threads = 32;
  float* d = nullptr;
  CHECK(cudaMalloc(&d, kernels * threads * sizeof(float)));
  cudaStream_t s[kernels];
  for (auto& x : s) CHECK(cudaStreamCreate(&x));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  float ms[2];
  for (int pass = 0; pass < 2; ++pass) {
    CHECK(cudaEventRecord(a));
    for (int k = 0; k < kernels; ++k)
      chain<<<1, threads, 0, pass == 0 ? s[0] : s[k]>>>(d + k * threads, iters, float(k));
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaEventElapsedTime(&ms[pass], a, b));
    std::vector<float> h(kernels * threads);
    CHECK(cudaMemcpy(h.data(), d, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int k = 0; k < kernels; ++k)
      for (int t = 0; t < threads; ++t) {
        float x = float(k) + t;
        for (int i = 0; i < iters; ++i) x = x * 0.999f + 0.5f;  // same order of operations; nvcc fuses to fma
        const float got = h[k * threads + t];
        REQUIRE(std::fabs(got - x) <= 1e-3f * std::fabs(x), "kernel %d thread %d: %f vs %f", k, t, got, x);
      }
  }
  std::printf("one stream: %.4f ms\neight streams: %.4f ms\nratio: %.3f\n", ms[0], ms[1], ms[1] / ms[0]);
  return 0;
}
