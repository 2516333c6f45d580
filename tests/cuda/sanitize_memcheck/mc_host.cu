// memcheck, host memory the kernel reaches: a cudaHostRegister'd buffer and
// mapped pinned memory (cudaHostAllocMapped). MODE: registered (thread 64
// writes one int past the 64 registered ints), mapped (the same past 64
// mapped ints). "MODE fixed": within bounds.
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void fill(int* p, int n) {
  int i = threadIdx.x;
  if (i < n) p[i] = i;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "registered";
  const bool fixed = argc > 2 && std::strcmp(argv[2], "fixed") == 0;
  const int n = fixed ? 64 : 65;
  int* host = nullptr;
  int* dev = nullptr;
  if (!std::strcmp(mode, "registered")) {
    host = static_cast<int*>(std::aligned_alloc(4096, 4096 * 4));
    cudaHostRegister(host + 1024 - 64, 64 * sizeof(int), cudaHostRegisterMapped);
    cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev), host + 1024 - 64, 0);
  } else {
    cudaHostAlloc(reinterpret_cast<void**>(&host), 64 * sizeof(int), cudaHostAllocMapped);
    cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev), host, 0);
  }
  fill<<<1, 96>>>(dev, n);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s%s: %s\n", mode, fixed ? " fixed" : "", cudaGetErrorName(e));
  return 0;
}
