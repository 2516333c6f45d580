// Vector add with a grid-stride loop. The grid is deliberately smaller than the
// data so each thread handles several elements; guard elements after the end
// check that nothing is written past n.
#include "check.cuh"
#include <vector>

__global__ void vadd(const float* a, const float* b, float* c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}

int main() {
  const int n = (1 << 20) + 7;  // not a multiple of the block size
  const int guard = 64;         // sentinel elements after the end
  std::vector<float> a(n), b(n), c(n + guard), want(n + guard);
  Lcg rng(1);
  for (int i = 0; i < n; ++i) {
    a[i] = rng.uniform(-100.f, 100.f);
    b[i] = rng.uniform(-100.f, 100.f);
    want[i] = a[i] + b[i];  // IEEE add is exactly rounded on both sides
  }
  for (int i = n; i < n + guard; ++i) want[i] = -12345.0f;

  float *da, *db, *dc;
  CHECK(cudaMalloc(&da, n * sizeof(float)));
  CHECK(cudaMalloc(&db, n * sizeof(float)));
  CHECK(cudaMalloc(&dc, (n + guard) * sizeof(float)));
  CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, want.data(), (n + guard) * sizeof(float), cudaMemcpyHostToDevice));
  // Overwrite the result part with garbage so stale data cannot pass.
  CHECK(cudaMemset(dc, 0xFF, n * sizeof(float)));

  vadd<<<96, 256>>>(da, db, dc, n);  // 24576 threads for ~1M elements: ~43 iterations each
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(c.data(), dc, (n + guard) * sizeof(float), cudaMemcpyDeviceToHost));
  if (count_mismatches("c", c.data(), want.data(), n + guard)) return 1;

  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  std::printf("PASS vector_add\n");
  return 0;
}
