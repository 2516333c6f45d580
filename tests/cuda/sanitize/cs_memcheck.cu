// In the shape of NVIDIA's memcheck sample (its kernels, written anew):
// MODE demo: a store at byte 1 of a __device__ int, then a store just past
// a 1000-byte cudaMalloc'd buffer from a device function inlined into its kernel,
// each launch followed by cudaDeviceSynchronize; the buffer is not freed
// (for --leak-check). atomic: an atomicAdd at byte 2 of the buffer.
// launch: a launch with more threads per block than the GPU has.
#include <cstdio>
#include <cstring>

__device__ int word;

__global__ void unaligned_store() { *reinterpret_cast<int*>(reinterpret_cast<char*>(&word) + 1) = 42; }

__device__ __forceinline__ void store_at(int* p, int i) { p[i] = 42; }

__global__ void past_the_end(int* p, int n) { store_at(p, n); }

__global__ void unaligned_atomic(int* p) { atomicAdd(reinterpret_cast<int*>(reinterpret_cast<char*>(p) + 2), 1); }

static void synchronize(const char* kernel) {
  std::printf("%s: %s\n", kernel, cudaGetErrorString(cudaDeviceSynchronize()));
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "demo";
  int* buf = nullptr;
  cudaMalloc(&buf, 1000);
  if (!std::strcmp(mode, "demo")) {
    unaligned_store<<<1, 1>>>();
    synchronize("unaligned_store");
    past_the_end<<<1, 1>>>(buf, 250);
    synchronize("past_the_end");
    return 0;  // buf leaks
  }
  if (!std::strcmp(mode, "atomic")) {
    unaligned_atomic<<<1, 1>>>(buf);
    synchronize("unaligned_atomic");
  } else if (!std::strcmp(mode, "launch")) {
    past_the_end<<<1, 2048>>>(buf, 0);
    std::printf("launch: %s\n", cudaGetErrorString(cudaGetLastError()));
  }
  cudaFree(buf);
  return 0;
}
