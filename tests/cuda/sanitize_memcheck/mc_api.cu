// memcheck, host API misuse. MODE: free_host (cudaFree of a host pointer),
// double_free (cudaFree twice), memcpy_past (a copy of 2 KB from a 1 KB
// allocation). "MODE fixed": correct calls.
#include <cstdio>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "free_host";
  const bool fixed = argc > 2 && std::strcmp(argv[2], "fixed") == 0;
  float* d = nullptr;
  cudaMalloc(&d, 1024);
  std::vector<char> host(2048);
  cudaError_t e = cudaSuccess;
  if (!std::strcmp(mode, "free_host")) {
    e = cudaFree(fixed ? static_cast<void*>(d) : host.data());
    if (!fixed) cudaFree(d);
  } else if (!std::strcmp(mode, "double_free")) {
    cudaFree(d);
    if (!fixed) e = cudaFree(d);
  } else if (!std::strcmp(mode, "memcpy_past")) {
    e = cudaMemcpy(host.data(), d, fixed ? 1024 : 2048, cudaMemcpyDeviceToHost);
    cudaFree(d);
  }
  std::printf("%s%s: %s\n", mode, fixed ? " fixed" : "", cudaGetErrorName(e));
  return 0;
}
