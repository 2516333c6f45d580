// mul + add/sub without rounding modifiers, fused into one fma where ptxas
// fuses them (program/contract.cpp), left as two roundings where it does not.
// The PTX is written as inline asm so that NVVM cannot decide for it. The
// reference: the CPU's fma or its two roundings, exactly; which pattern ptxas
// fuses was read from its SASS (`ptxas -arch=sm_90`, CUDA 13.0: DFMA/FFMA
// against DMUL+DADD/FMUL+FADD). Each check also requires the two answers to
// differ for some inputs, so that it can tell them apart.
#include "check.cuh"

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

// CuPy's float64 remainder: in0 - floor(in0 / in1) * in1 (SASS: one DFMA).
__global__ void remainder_kernel(const double* a, double b, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double r;
  asm("{ .reg .f64 q, p;\n"
      "  div.rn.f64 q, %1, %2;\n"
      "  cvt.rmi.f64.f64 q, q;\n"
      "  mul.f64 p, q, %2;\n"
      "  sub.f64 %0, %1, p; }"
      : "=d"(r) : "d"(a[i]), "d"(b));
  out[i] = r;
}

// out[0]: the product feeds an add and a sub, both fused (two FFMAs);
// out[1]: p - c, fused as fma(a, b, -c);
// out[2]: the product is also stored: FMUL + FADD;
// out[3]: mul.ftz with a plain add: FMUL.FTZ + FADD;
// out[4]: add.rn: not fused;
// out[5]: a - b*c written as sub with the product second: fma(-b, c, a).
__global__ void f32_kernel(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[3 * i], b = x[3 * i + 1], c = x[3 * i + 2];
  float o0, o0s, o1, o2, o2p, o3, o4, o5;
  asm("{ .reg .f32 p;\n"
      "  mul.f32 p, %2, %3;\n"
      "  add.f32 %0, p, %4;\n"
      "  sub.f32 %1, %4, p; }"
      : "=f"(o0), "=f"(o0s) : "f"(a), "f"(b), "f"(c));
  asm("{ .reg .f32 p;\n mul.f32 p, %1, %2;\n sub.f32 %0, p, %3; }" : "=f"(o1) : "f"(a), "f"(b), "f"(c));
  asm("{ .reg .f32 p;\n mul.f32 p, %2, %3;\n add.f32 %0, p, %4;\n mov.f32 %1, p; }"
      : "=f"(o2), "=f"(o2p) : "f"(a), "f"(b), "f"(c));
  asm("{ .reg .f32 p;\n mul.ftz.f32 p, %1, %2;\n add.f32 %0, p, %3; }" : "=f"(o3) : "f"(a), "f"(b), "f"(c));
  asm("{ .reg .f32 p;\n mul.f32 p, %1, %2;\n add.rn.f32 %0, p, %3; }" : "=f"(o4) : "f"(a), "f"(b), "f"(c));
  asm("{ .reg .f32 p;\n mul.f32 p, %2, %3;\n sub.f32 %0, %1, p; }" : "=f"(o5) : "f"(c), "f"(a), "f"(b));
  float* o = out + 8 * i;
  o[0] = o0; o[1] = o0s; o[2] = o1; o[3] = o2; o[4] = o2p; o[5] = o3; o[6] = o4; o[7] = o5;
}

static bool same(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }
static bool same(float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; }

int main() {
  const int n = 4096;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> dist(-300.0, 300.0);
  std::vector<double> a(n), out(n);
  for (auto& v : a) v = dist(rng);
  double *da, *dout;
  CHECK(cudaMalloc(&da, n * sizeof(double)));
  CHECK(cudaMalloc(&dout, n * sizeof(double)));
  CHECK(cudaMemcpy(da, a.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  for (double b : {1.2, 0.7, 6.283185307179586}) {
    remainder_kernel<<<(n + 255) / 256, 256>>>(da, b, dout, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dout, n * sizeof(double), cudaMemcpyDeviceToHost));
    int differ = 0;
    for (int i = 0; i < n; ++i) {
      const double q = std::floor(a[i] / b);
      const double fused = std::fma(-q, b, a[i]);
      volatile double prod = q * b;  // two roundings, for the count only
      differ += !same(fused, a[i] - prod);
      if (!same(out[i], fused)) {
        std::printf("FAIL remainder(%.17g, %.17g) = %.17g, fused %.17g\n", a[i], b, out[i], fused);
        return 1;
      }
    }
    if (differ == 0) {
      std::printf("FAIL remainder: no input tells fused from unfused for b = %g\n", b);
      return 1;
    }
  }

  std::uniform_real_distribution<float> fd(-10.0f, 10.0f);
  std::vector<float> x(3 * n), fo(8 * n);
  for (auto& v : x) v = fd(rng);
  float *dx, *dfo;
  CHECK(cudaMalloc(&dx, x.size() * sizeof(float)));
  CHECK(cudaMalloc(&dfo, fo.size() * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  f32_kernel<<<(n + 255) / 256, 256>>>(dx, dfo, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(fo.data(), dfo, fo.size() * sizeof(float), cudaMemcpyDeviceToHost));
  int differ = 0;
  for (int i = 0; i < n; ++i) {
    const float a0 = x[3 * i], b0 = x[3 * i + 1], c0 = x[3 * i + 2];
    volatile float p = a0 * b0;
    const float two = p + c0;
    const float want[8] = {std::fma(a0, b0, c0), std::fma(-a0, b0, c0), std::fma(a0, b0, -c0), two, p, two, two,
                           std::fma(-a0, b0, c0)};
    differ += !same(want[0], two);
    for (int k = 0; k < 8; ++k)
      if (!same(fo[8 * i + k], want[k])) {
        std::printf("FAIL f32 case %d: a=%.9g b=%.9g c=%.9g got %.9g want %.9g\n", k, a0, b0, c0, fo[8 * i + k],
                    want[k]);
        return 1;
      }
  }
  if (differ == 0) {
    std::printf("FAIL f32: no input tells fused from unfused\n");
    return 1;
  }
  CHECK(cudaFree(da));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dfo));
  std::printf("PASS contraction\n");
  return 0;
}
