// Kernels the driver-API tests load as a fatbinary (nvcc -fatbin) and as
// PTX (nvcc -ptx): extern "C" names, a C++-mangled template instance, and a
// __device__ variable.
__device__ int scale = 3;

extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

template <class T>
__global__ void scaled(T* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= scale;
}
template __global__ void scaled<int>(int*, int);
