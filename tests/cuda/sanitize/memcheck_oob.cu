// memcheck: a kernel that writes past the end of its array (seeded) or
// checks its bound (run with "fixed"). 3 blocks of 34 threads over 100
// elements: threads 32 and 33 of block 2 are past the end. "abort" and
// "kill": the same bug, then the program dies (abort(), SIGKILL) before its
// end, after the reports.
#include <csignal>
#include <cstdio>
#include <cstdlib>
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
  std::fflush(stdout);
  if (argc > 1 && std::strcmp(argv[1], "abort") == 0) std::abort();
  if (argc > 1 && std::strcmp(argv[1], "kill") == 0) std::raise(SIGKILL);
  cudaFree(a);
  return 0;
}
