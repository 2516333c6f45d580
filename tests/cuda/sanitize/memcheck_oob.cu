// memcheck: a kernel that writes past the end of its array (seeded) or
// checks its bound (run with "fixed"). 3 blocks of 34 threads over 100
// elements: threads 32 and 33 of block 2 are past the end.
#include <cstdio>
#include <cstring>

__global__ void fill(int* a, int n, bool check) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (check && i >= n) return;
  a[i] = i;
}

int main(int argc, char** argv) {
  const bool fixed = argc > 1 && std::strcmp(argv[1], "fixed") == 0;
  int* a = nullptr;
  cudaMalloc(&a, 100 * sizeof(int));
  fill<<<3, 34>>>(a, 100, fixed);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("sync: %s\n", cudaGetErrorName(e));
  cudaFree(a);
  return 0;
}
