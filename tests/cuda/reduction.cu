// Sum reduction: each block reduces in shared memory down to one warp, the warp
// finishes with __shfl_down_sync, and lane 0 adds the block's partial sum to the
// global result with a float atomicAdd (and an integer atomicAdd as a cross-check).
// Inputs are small integers stored as floats so that every partial sum stays
// below 2^24 and float addition is exact in ANY order: the result must equal
// the CPU sum exactly even though the atomic order is non-deterministic.
#include "check.cuh"
#include <vector>

constexpr int BLOCK = 256;

__global__ void reduce_sum(const float* in, int n, float* fsum, unsigned long long* isum) {
  __shared__ float s[BLOCK];
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride >= 32; stride >>= 1) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x < 32) {
    v = s[threadIdx.x];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if (threadIdx.x == 0) {
      atomicAdd(fsum, v);
      atomicAdd(isum, (unsigned long long)v);
    }
  }
}

// Warp-level max and broadcast through __shfl_xor_sync and __shfl_sync.
__global__ void warp_max(const float* in, float* out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int m = 16; m > 0; m >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, m));
  float from_lane_7 = __shfl_sync(0xffffffffu, in[blockIdx.x * blockDim.x + threadIdx.x], 7);
  out[2 * (blockIdx.x * blockDim.x + threadIdx.x)] = v;
  out[2 * (blockIdx.x * blockDim.x + threadIdx.x) + 1] = from_lane_7;
}

int main() {
  const int n = (1 << 21) + 13;  // max sum 7*n < 2^24
  std::vector<float> h(n);
  long long want = 0;
  for (int i = 0; i < n; ++i) {
    int v = (int)(((unsigned)i * 2654435761u) >> 29);  // 0..7
    h[i] = (float)v;
    want += v;
  }
  float* d;
  float* dsum;
  unsigned long long* disum;
  CHECK(cudaMalloc(&d, n * sizeof(float)));
  CHECK(cudaMalloc(&dsum, sizeof(float)));
  CHECK(cudaMalloc(&disum, sizeof(unsigned long long)));
  CHECK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dsum, 0, sizeof(float)));
  CHECK(cudaMemset(disum, 0, sizeof(unsigned long long)));
  reduce_sum<<<120, BLOCK>>>(d, n, dsum, disum);
  CHECK_LAUNCH();
  float got;
  unsigned long long igot;
  CHECK(cudaMemcpy(&got, dsum, sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&igot, disum, sizeof(igot), cudaMemcpyDeviceToHost));
  REQUIRE(got == (float)want, "float sum got %.1f expected %lld", got, want);
  REQUIRE(igot == (unsigned long long)want, "integer sum got %llu expected %lld", igot, want);

  // Warp max / broadcast on distinct values.
  const int wn = 4 * 64;
  std::vector<float> w(wn), wout(2 * wn), wwant(2 * wn);
  Lcg rng(3);
  for (auto& x : w) x = rng.uniform(-1000.f, 1000.f);
  for (int i = 0; i < wn; ++i) {
    int base = i & ~31;
    float m = w[base];
    for (int l = 1; l < 32; ++l) m = m > w[base + l] ? m : w[base + l];
    wwant[2 * i] = m;
    wwant[2 * i + 1] = w[base + 7];
  }
  float *dw, *dwo;
  CHECK(cudaMalloc(&dw, wn * sizeof(float)));
  CHECK(cudaMalloc(&dwo, 2 * wn * sizeof(float)));
  CHECK(cudaMemcpy(dw, w.data(), wn * sizeof(float), cudaMemcpyHostToDevice));
  warp_max<<<4, 64>>>(dw, dwo);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(wout.data(), dwo, 2 * wn * sizeof(float), cudaMemcpyDeviceToHost));
  if (count_mismatches("warp_max(out[2i]=max, out[2i+1]=lane7)", wout.data(), wwant.data(), 2 * wn)) return 1;

  CHECK(cudaFree(d));
  CHECK(cudaFree(dsum));
  CHECK(cudaFree(disum));
  CHECK(cudaFree(dw));
  CHECK(cudaFree(dwo));
  std::printf("PASS reduction\n");
  return 0;
}
