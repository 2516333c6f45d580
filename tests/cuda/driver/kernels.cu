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

// Point-sampled 2-D texture reads at pixel centres (driver_arrays).
extern "C" __global__ void tex_read(cudaTextureObject_t t, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) out[y * w + x] = tex2D<float>(t, x + 0.5f, y + 0.5f);
}

// The same from a uchar4 texture read as normalized floats: all four channels summed.
extern "C" __global__ void tex_read4(cudaTextureObject_t t, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) {
    float4 v = tex2D<float4>(t, x + 0.5f, y + 0.5f);
    out[y * w + x] = v.x + 2 * v.y + 4 * v.z + 8 * v.w;
  }
}
