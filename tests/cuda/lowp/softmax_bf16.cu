// Row softmax on bf16 data, one warp per row: max and sum reduced with
// __shfl_xor_sync, exp in f32, the result rounded to bf16.
// Tolerance: the device and the CPU both compute in f32 (expf within 2 ulp,
// sums in different orders: relative differences ~1e-6), then round to bf16
// (8 significant bits). Two f32 values that close can round to neighbouring
// bf16 values, so a result may differ from the reference by one bf16 ulp:
// |got - want| <= 2^-7 * |want| (+ 2^-133 for values near zero).
#include <cuda_bf16.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "../check.cuh"

constexpr int kCols = 96;  // three elements per lane

__global__ void softmax(const __nv_bfloat16* x, __nv_bfloat16* y, int rows) {
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  float v[kCols / 32];
  float m = -INFINITY;
  for (int k = 0; k < kCols / 32; ++k) {
    v[k] = __bfloat162float(x[row * kCols + lane + 32 * k]);
    m = fmaxf(m, v[k]);
  }
  for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  float s = 0;
  for (int k = 0; k < kCols / 32; ++k) { v[k] = expf(v[k] - m); s += v[k]; }
  for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  for (int k = 0; k < kCols / 32; ++k) y[row * kCols + lane + 32 * k] = __float2bfloat16_rn(v[k] / s);
}

// Host bf16 helpers, independent of cuda_bf16.h.
static float bf2f(uint16_t b) { uint32_t u = uint32_t(b) << 16; float f; std::memcpy(&f, &u, 4); return f; }
static uint16_t f2bf(float f) {
  uint32_t u; std::memcpy(&u, &f, 4);
  u += 0x7fffu + ((u >> 16) & 1);  // round to nearest even (inputs are finite)
  return uint16_t(u >> 16);
}

int main() {
  const int rows = 40;
  std::vector<uint16_t> hx(rows * kCols), hy(rows * kCols);
  Lcg g(3);
  for (auto& b : hx) b = f2bf(g.uniform(-6, 6));
  __nv_bfloat16 *dx, *dy;
  CHECK(cudaMalloc(&dx, hx.size() * 2));
  CHECK(cudaMalloc(&dy, hy.size() * 2));
  CHECK(cudaMemcpy(dx, hx.data(), hx.size() * 2, cudaMemcpyHostToDevice));
  softmax<<<(rows + 3) / 4, 128>>>(dx, dy, rows);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(hy.data(), dy, hy.size() * 2, cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int r = 0; r < rows; ++r) {
    double m = -INFINITY, s = 0;
    for (int c = 0; c < kCols; ++c) m = std::fmax(m, bf2f(hx[r * kCols + c]));
    for (int c = 0; c < kCols; ++c) s += std::exp(double(bf2f(hx[r * kCols + c])) - m);
    double rowsum = 0;
    for (int c = 0; c < kCols; ++c) {
      const double want = std::exp(double(bf2f(hx[r * kCols + c])) - m) / s;
      const double got = bf2f(hy[r * kCols + c]);
      rowsum += got;
      if (std::fabs(got - want) > 0x1p-7 * want + 0x1p-133) {
        if (bad++ < 8) std::fprintf(stderr, "MISMATCH y[%d][%d]: got %.8g want %.8g\n", r, c, got, want);
      }
    }
    // Each of 96 outputs carries at most half a bf16 ulp of rounding: the row sums to 1 within 96 * 2^-9.
    if (std::fabs(rowsum - 1.0) > kCols * 0x1p-9) {
      if (bad++ < 8) std::fprintf(stderr, "MISMATCH row %d sums to %.8g\n", r, rowsum);
    }
  }
  REQUIRE(bad == 0, "%ld mismatches", bad);
  std::printf("PASS softmax_bf16\n");
  return 0;
}
