// LayerNorm over bf16 rows, one warp per row. Inputs are multiples of 1/16 in
// [-8, 8), so the row sum is an exact integer number of sixteenths: the mean
// comes from __reduce_add_sync on those integers (redux.sync) and is exact.
// The variance is reduced in f32 with __shfl_xor_sync.
// Tolerance: the device's f32 variance and rsqrtf differ from the double
// reference by a few f32 ulps (~1e-6 relative); the output is then rounded to
// bf16, so allow one bf16 ulp of the value plus 1e-5 absolute:
// |got - want| <= 2^-7 * |want| + 1e-5.
#include <cuda_bf16.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "../check.cuh"

constexpr int kCols = 128;

__global__ void layernorm(const __nv_bfloat16* x, const __nv_bfloat16* gamma, const __nv_bfloat16* beta,
                          __nv_bfloat16* y, int rows, float eps) {
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  float v[kCols / 32];
  int sixteenths = 0;
  for (int k = 0; k < kCols / 32; ++k) {
    v[k] = __bfloat162float(x[row * kCols + lane + 32 * k]);
    sixteenths += int(v[k] * 16.0f);  // exact: inputs are multiples of 1/16
  }
  const int total = __reduce_add_sync(0xffffffffu, sixteenths);
  const float mean = float(total) / (16.0f * kCols);  // exact: kCols * 16 is a power of two
  float sq = 0;
  for (int k = 0; k < kCols / 32; ++k) { const float d = v[k] - mean; sq += d * d; }
  for (int o = 16; o; o >>= 1) sq += __shfl_xor_sync(0xffffffffu, sq, o);
  const float inv = rsqrtf(sq / kCols + eps);
  for (int k = 0; k < kCols / 32; ++k) {
    const int c = lane + 32 * k;
    const float r = (v[k] - mean) * inv * __bfloat162float(gamma[c]) + __bfloat162float(beta[c]);
    y[row * kCols + c] = __float2bfloat16_rn(r);
  }
}

static float bf2f(uint16_t b) { uint32_t u = uint32_t(b) << 16; float f; std::memcpy(&f, &u, 4); return f; }
static uint16_t f2bf(float f) {
  uint32_t u; std::memcpy(&u, &f, 4);
  u += 0x7fffu + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}

int main() {
  const int rows = 24;
  const float eps = 1e-5f;
  std::vector<uint16_t> hx(rows * kCols), hg(kCols), hb(kCols), hy(rows * kCols);
  Lcg g(5);
  for (auto& b : hx) b = f2bf(float(int(g.next() % 256) - 128) / 16.0f);  // exact in bf16 (<= 8 significant bits)
  for (auto& b : hg) b = f2bf(g.uniform(0.5f, 1.5f));
  for (auto& b : hb) b = f2bf(g.uniform(-0.5f, 0.5f));
  __nv_bfloat16 *dx, *dg, *db, *dy;
  CHECK(cudaMalloc(&dx, hx.size() * 2));
  CHECK(cudaMalloc(&dg, kCols * 2));
  CHECK(cudaMalloc(&db, kCols * 2));
  CHECK(cudaMalloc(&dy, hy.size() * 2));
  CHECK(cudaMemcpy(dx, hx.data(), hx.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dg, hg.data(), kCols * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, hb.data(), kCols * 2, cudaMemcpyHostToDevice));
  layernorm<<<(rows + 3) / 4, 128>>>(dx, dg, db, dy, rows, eps);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(hy.data(), dy, hy.size() * 2, cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int c = 0; c < kCols; ++c) mean += bf2f(hx[r * kCols + c]);
    mean /= kCols;
    for (int c = 0; c < kCols; ++c) { double d = bf2f(hx[r * kCols + c]) - mean; var += d * d; }
    var /= kCols;
    for (int c = 0; c < kCols; ++c) {
      const double want = (bf2f(hx[r * kCols + c]) - mean) / std::sqrt(var + eps) * bf2f(hg[c]) + bf2f(hb[c]);
      const double got = bf2f(hy[r * kCols + c]);
      if (std::fabs(got - want) > 0x1p-7 * std::fabs(want) + 1e-5) {
        if (bad++ < 8) std::fprintf(stderr, "MISMATCH y[%d][%d]: got %.8g want %.8g\n", r, c, got, want);
      }
    }
  }
  REQUIRE(bad == 0, "%ld mismatches", bad);
  std::printf("PASS layernorm_bf16\n");
  return 0;
}
