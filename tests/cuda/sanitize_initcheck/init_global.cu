// initcheck, global memory. Modes (argv[1]):
//   partial  40 ints, the host copies the first 32; a kernel of 40 threads
//            reads all: threads 32..39 read bytes nothing wrote (seeded)
//   memset   the same after a cudaMemset of the whole buffer (fixed)
//   nocopy   a cudaMalloc'd buffer read with nothing written (seeded)
//   copyback the host copies back a buffer a kernel wrote only half of:
//            the copy's source is reported (seeded)
#include <cstdio>
#include <cstring>

__global__ void sum(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1;
}

__global__ void half(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 2) out[i] = i;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "partial";
  const int n = 40;
  int host[n];
  for (int i = 0; i < n; ++i) host[i] = i;
  int *in = nullptr, *out = nullptr;
  cudaMalloc(&in, n * sizeof(int));
  cudaMalloc(&out, n * sizeof(int));
  if (std::strcmp(mode, "copyback") == 0) {
    half<<<1, n>>>(out, n);
    cudaMemcpy(host, out, n * sizeof(int), cudaMemcpyDeviceToHost);
  } else {
    if (std::strcmp(mode, "memset") == 0) cudaMemset(in, 0, n * sizeof(int));
    if (std::strcmp(mode, "nocopy") != 0) cudaMemcpy(in, host, 32 * sizeof(int), cudaMemcpyHostToDevice);
    sum<<<1, n>>>(in, out, n);
    cudaMemcpy(host, out, n * sizeof(int), cudaMemcpyDeviceToHost);
  }
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s: %s, host[1] = %d\n", mode, cudaGetErrorName(e), host[1]);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
