// atomicAdd on __half, __half2 and __nv_bfloat16. Every partial sum is exactly
// representable (integers up to 2048 in f16, up to 256 in bf16), so the result
// is independent of the order of the additions and compared exactly. Also a
// bf16 histogram whose bins stay below 256, and the old values returned by
// atomicAdd (a permutation of 0..n-1 for a unit increment).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "../check.cuh"

__global__ void adds(__half* h, __half2* h2, __nv_bfloat16* b, float* old_h, int nb) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  __half prev = atomicAdd(h, __float2half(1.0f));
  old_h[t] = __half2float(prev);
  atomicAdd(h2, __floats2half2_rn(0.5f, -2.0f));
  if (t < nb) atomicAdd(b, __float2bfloat16(1.0f));
}

__global__ void histogram(const int* keys, __nv_bfloat16* bins, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) atomicAdd(&bins[keys[t]], __float2bfloat16(0.5f));
}

static float bf2f(uint16_t b) { uint32_t u = uint32_t(b) << 16; float f; std::memcpy(&f, &u, 4); return f; }
static float h2f(uint16_t h) {  // f16 -> f32 for normal values and zero (all results here are)
  if ((h & 0x7fff) == 0) return (h & 0x8000) ? -0.0f : 0.0f;
  uint32_t u = (uint32_t(h & 0x8000) << 16) | ((((h >> 10) & 0x1f) + 112) << 23) | (uint32_t(h & 0x3ff) << 13);
  float f; std::memcpy(&f, &u, 4); return f;
}

int main() {
  const int threads = 1024, nb = 256;
  __half* dh; __half2* dh2; __nv_bfloat16* db; float* dold;
  CHECK(cudaMalloc(&dh, 2));
  CHECK(cudaMalloc(&dh2, 4));
  CHECK(cudaMalloc(&db, 2));
  CHECK(cudaMalloc(&dold, threads * sizeof(float)));
  CHECK(cudaMemset(dh, 0, 2));
  CHECK(cudaMemset(dh2, 0, 4));
  CHECK(cudaMemset(db, 0, 2));
  adds<<<threads / 256, 256>>>(dh, dh2, db, dold, nb);
  CHECK_LAUNCH();
  uint16_t rh, rb, rh2[2];
  std::vector<float> old(threads);
  CHECK(cudaMemcpy(&rh, dh, 2, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(rh2, dh2, 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&rb, db, 2, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(old.data(), dold, threads * sizeof(float), cudaMemcpyDeviceToHost));
  REQUIRE(h2f(rh) == 1024.0f, "__half sum %g, want 1024", h2f(rh));
  REQUIRE(h2f(rh2[0]) == 512.0f && h2f(rh2[1]) == -2048.0f, "__half2 sum (%g, %g), want (512, -2048)",
          h2f(rh2[0]), h2f(rh2[1]));
  REQUIRE(bf2f(rb) == 256.0f, "bf16 sum %g, want 256", bf2f(rb));
  std::sort(old.begin(), old.end());
  for (int i = 0; i < threads; ++i) REQUIRE(old[i] == float(i), "old values: sorted[%d] = %g", i, old[i]);

  const int n = 3000, nbins = 16;
  std::vector<int> keys(n);
  std::vector<float> want(nbins, 0.0f);
  Lcg g(13);
  for (int i = 0; i < n; ++i) {
    // Skewed keys; every partial sum is a multiple of 0.5 at most 128 (8 significant bits: exact in bf16).
    keys[i] = int(g.next() % 100) < 50 ? int(g.next() % 8) : 8 + int(g.next() % 8);
    want[keys[i]] += 0.5f;
  }
  int* dk; __nv_bfloat16* dbins;
  CHECK(cudaMalloc(&dk, n * sizeof(int)));
  CHECK(cudaMalloc(&dbins, nbins * 2));
  CHECK(cudaMemcpy(dk, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dbins, 0, nbins * 2));
  histogram<<<(n + 255) / 256, 256>>>(dk, dbins, n);
  CHECK_LAUNCH();
  std::vector<uint16_t> bins(nbins);
  std::vector<float> got(nbins);
  CHECK(cudaMemcpy(bins.data(), dbins, nbins * 2, cudaMemcpyDeviceToHost));
  for (int i = 0; i < nbins; ++i) got[i] = bf2f(bins[i]);
  for (int i = 0; i < nbins; ++i) REQUIRE(want[i] <= 128.0f, "bin %d too full for an exact bf16 sum", i);
  if (count_mismatches("bins", got.data(), want.data(), nbins)) return 1;
  std::printf("PASS half_atomics\n");
  return 0;
}
