#include "native.h"

#include <algorithm>
#include <cmath>

namespace softgpu::bench {

void native_sgemm(const float* __restrict a, const float* __restrict b, float* __restrict c, int n) {
  for (int i = 0; i < n * n; ++i) c[i] = 0.f;
  for (int i = 0; i < n; ++i) {
    float* __restrict ci = c + size_t(i) * size_t(n);
    for (int k = 0; k < n; ++k) {
      const float aik = a[size_t(i) * size_t(n) + size_t(k)];
      const float* __restrict bk = b + size_t(k) * size_t(n);
      for (int j = 0; j < n; ++j) ci[j] += aik * bk[j];
    }
  }
}

void native_stencil5(const float* __restrict in, float* __restrict out, int nx, int ny) {
  for (int y = 1; y < ny - 1; ++y) {
    const float* r = in + size_t(y) * size_t(nx);
    float* o = out + size_t(y) * size_t(nx);
    for (int x = 1; x < nx - 1; ++x) o[x] = 0.2f * (r[x] + r[x - 1] + r[x + 1] + r[x - nx] + r[x + nx]);
  }
}

float native_sum(const float* __restrict in, size_t n) {
  constexpr size_t kLanes = 16;
  float part[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (size_t l = 0; l < kLanes; ++l) part[l] += in[i + l];
  for (; i < n; ++i) part[0] += in[i];
  float s = 0.f;
  for (float p : part) s += p;
  return s;
}

void native_gelu_quant(const float* __restrict in, float* __restrict out, int n, unsigned cols) {
  for (int i = 0; i < n; ++i) {
    const unsigned row = unsigned(i) / cols, col = unsigned(i) % cols;
    const float x = std::fma(float(row & 7), -0.125f, std::fma(float(col), 1.0f / 1024.0f, in[i]));
    const float e = std::exp2(-2.4554669f * x);
    const float g = x * (1.0f / (1.0f + e));
    out[i] = float(int(std::nearbyint(g * 127.0f))) * (1.0f / 127.0f);
  }
}

void native_mandel(int* out, int w, int h, int maxit) {
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float cr = -2.0f + 3.0f * float(x) / float(w), ci = -1.2f + 2.4f * float(y) / float(h);
      float zr = 0.f, zi = 0.f;
      int it = 0;
      while (it < maxit && zr * zr + zi * zi < 4.0f) {
        const float t = zr * zr - zi * zi + cr;
        zi = std::fma(zr + zr, zi, ci);
        zr = t;
        ++it;
      }
      out[y * w + x] = it;
    }
}

void native_conv3x3_u8(const unsigned char* __restrict in, unsigned char* __restrict out, int w, int h,
                       const float filter[9]) {
  auto px = [&](int x, int y) { return float(in[std::clamp(y, 0, h - 1) * w + std::clamp(x, 0, w - 1)]); };
  for (int y = 0; y < h; ++y) {
    const bool edge_row = y == 0 || y == h - 1;
    for (int x = 0; x < w; ++x) {
      float s = 0.f;
      if (edge_row || x == 0 || x == w - 1) {
        for (int k = 0; k < 9; ++k) s += filter[k] * px(x + k % 3 - 1, y + k / 3 - 1);
      } else {
        const unsigned char* r = in + (y - 1) * w + x - 1;
        for (int k = 0; k < 9; ++k) s += filter[k] * float(r[(k / 3) * w + k % 3]);
      }
      out[y * w + x] = (unsigned char)std::min(std::max(s + 0.5f, 0.f), 255.f);
    }
  }
}

}  // namespace softgpu::bench
