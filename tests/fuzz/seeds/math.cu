// Fuzz seed: float/double math, conversions, local arrays, printf, device calls.
#include <cstdio>
__device__ __noinline__ double poly(double x) { return ((x * 0.5 + 1.0) * x - 3.0) * x; }
__global__ void math(float* f, double* d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float loc[4];
  for (int k = 0; k < 4; ++k) loc[k] = f[(i + k) % n];
  if (i < n) {
    f[i] = sqrtf(loc[i & 3]) + __expf(loc[0]) + rsqrtf(fabsf(loc[1]) + 1.0f) + (float)(i >> 2);
    d[i] = poly(d[i]) + fma(d[i], 2.0, 1.0) + (double)__float2int_rn(f[i]);
  }
  if (i == 0) printf("n=%d f=%f\n", n, f[0]);
}
