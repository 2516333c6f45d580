// memcheck, the device heap. MODE: overflow (malloc 16 bytes, write 20:
// the fifth int is past the block), invalid_free (free of the block + 4),
// double_free (the block freed twice). "MODE fixed": correct use.
#include <cstdio>
#include <cstring>

__global__ void overflow(int n, int* out) {
  int* p = static_cast<int*>(malloc(16));
  if (!p) return;
  for (int k = 0; k < n; ++k) p[k] = k;
  out[0] = p[n - 1];
  free(p);
}

__global__ void bad_free(int mode, int* out) {
  char* p = static_cast<char*>(malloc(16));
  if (!p) return;
  out[0] = p[0];
  if (mode == 1) free(p + 4);   // invalid pointer
  free(p);
  if (mode == 2) free(p);       // double free
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "overflow";
  const bool fixed = argc > 2 && std::strcmp(argv[2], "fixed") == 0;
  int* out = nullptr;
  cudaMalloc(&out, sizeof(int));
  if (!std::strcmp(mode, "overflow")) overflow<<<1, 1>>>(fixed ? 4 : 5, out);
  else if (!std::strcmp(mode, "invalid_free")) bad_free<<<1, 1>>>(fixed ? 0 : 1, out);
  else if (!std::strcmp(mode, "double_free")) bad_free<<<1, 1>>>(fixed ? 0 : 2, out);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s%s: %s\n", mode, fixed ? " fixed" : "", cudaGetErrorName(e));
  if (e == cudaSuccess) cudaFree(out);
  return 0;
}
