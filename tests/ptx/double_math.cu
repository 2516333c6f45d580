// Double-precision arithmetic and libdevice math. For i < n, x = in[i] > 0:
//   out[4i+0] = sqrt(x)        IEEE exact (0 ulp)
//   out[4i+1] = exp(x)         CUDA bound 1 ulp
//   out[4i+2] = sin(x)         CUDA bound 2 ulp
//   out[4i+3] = x * x + 1 / x  mul/div exact per operation; the compiler may
//                              contract x*x + r into one fma, so compare with
//                              fma(x, x, 1.0 / x) or allow 1 ulp
extern "C" __global__ void dmath(const double* in, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = in[i];
  out[4 * i + 0] = sqrt(x);
  out[4 * i + 1] = exp(x);
  out[4 * i + 2] = sin(x);
  out[4 * i + 3] = x * x + 1.0 / x;
}
