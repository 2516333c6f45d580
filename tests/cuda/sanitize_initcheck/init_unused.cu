// initcheck --track-unused-memory: MODE unused: a 400-byte buffer of which
// a memset writes bytes 0-319 and a kernel bytes 360-363, freed; and a
// 1-byte buffer nothing writes, never freed. "fixed": both fully written.
#include <cstdio>
#include <cstring>

__global__ void put(int* p, int i) { p[i] = 7; }

int main(int argc, char** argv) {
  const bool fixed = argc > 1 && std::strcmp(argv[1], "fixed") == 0;
  int* a = nullptr;
  char* b = nullptr;
  cudaMalloc(&a, 400);
  cudaMalloc(&b, 1);
  cudaMemset(a, 0, fixed ? 400 : 320);
  put<<<1, 1>>>(a, 90);
  if (fixed) cudaMemset(b, 1, 1);
  std::printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(a);
  return 0;
}
