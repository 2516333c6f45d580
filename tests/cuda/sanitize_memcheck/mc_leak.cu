// memcheck --leak-check full. MODE: leak (cudaMalloc 1000 bytes,
// cudaMallocManaged 256, a device malloc of 16 left allocated at exit),
// reset (the same, then cudaDeviceReset: reported there, not again at
// exit, where only a 512-byte cudaMalloc made after the reset is left), pool (two cudaMallocAsync blocks, one freed: the pool keeps it,
// but only the other is a leak). "MODE fixed": everything freed.
#include <cstdio>
#include <cstring>

__global__ void keep(void** slot) { *slot = malloc(16); }
__global__ void drop(void** slot) { free(*slot); }

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "leak";
  const bool fixed = argc > 2 && std::strcmp(argv[2], "fixed") == 0;
  if (!std::strcmp(mode, "pool")) {
    cudaStream_t s;
    cudaStreamCreate(&s);
    void *a = nullptr, *b = nullptr;
    cudaMallocAsync(&a, 4096, s);
    cudaMallocAsync(&b, 1536, s);
    cudaFreeAsync(a, s);
    if (fixed) cudaFreeAsync(b, s);
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
    std::printf("pool%s: done\n", fixed ? " fixed" : "");
    return 0;
  }
  void *d = nullptr, *m = nullptr;
  void** slot = nullptr;
  cudaMalloc(&d, 1000);
  cudaMallocManaged(&m, 256);
  cudaMalloc(&slot, sizeof(void*));
  keep<<<1, 1>>>(slot);
  cudaDeviceSynchronize();
  if (fixed) {
    drop<<<1, 1>>>(slot);
    cudaDeviceSynchronize();
    cudaFree(d);
    cudaFree(m);
  }
  cudaFree(slot);
  if (!std::strcmp(mode, "reset")) {
    cudaDeviceReset();
    void* after = nullptr;  // the new context's leak, reported at exit
    cudaMalloc(&after, 512);
    if (fixed) cudaFree(after);
  }
  std::printf("%s%s: done\n", mode, fixed ? " fixed" : "");
  return 0;
}
