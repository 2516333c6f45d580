// Device code for driver_link: a kernel calling a function and reading a
// variable defined in link_b.cu (built with -rdc=true, linked at run time).
extern __device__ float poly(float x);
extern __device__ int offset;
extern "C" __global__ void apply(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = poly(x[i]) + float(offset);
}
