// memcheck, global memory. MODE: read_past (threads 6 and 7 of 8 read past a
// 6-int array), write_before (threads 0 and 1 write 2 and 1 ints before it),
// misaligned (an int load from a char* + 1), many (5 threads of block 1
// write past a 1000-float array), next (an int past 512 bytes, see --padding). "MODE fixed": no bug.
#include <cstdio>
#include <cstring>

__global__ void read_past(const int* a, int* out, int n, bool bad) {
  int i = threadIdx.x;
  out[i] = (bad || i < n) ? a[i] : 0;
}

__global__ void write_before(int* a, int shift) {
  int i = threadIdx.x;
  a[i - shift] = i;
}

__global__ void misaligned(const char* p, int* out, int offset) {
  out[threadIdx.x] = *reinterpret_cast<const int*>(p + offset);
}

__global__ void many(float* a, int limit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < limit) a[i] = 1.0f;
}

__global__ void store(int* a, int i) { a[i] = 1; }

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "read_past";
  const bool fixed = argc > 2 && std::strcmp(argv[2], "fixed") == 0;
  int *a = nullptr, *out = nullptr;
  cudaMalloc(&a, 6 * sizeof(int));
  cudaMalloc(&out, 64 * sizeof(int));
  if (!std::strcmp(mode, "read_past")) {
    read_past<<<1, 8>>>(a, out, 6, !fixed);
  } else if (!std::strcmp(mode, "write_before")) {
    write_before<<<1, 4>>>(a, fixed ? 0 : 2);
  } else if (!std::strcmp(mode, "misaligned")) {
    misaligned<<<1, 1>>>(reinterpret_cast<const char*>(a), out, fixed ? 4 : 1);
  } else if (!std::strcmp(mode, "many")) {
    float* f = nullptr;
    cudaMalloc(&f, 1000 * sizeof(float));
    many<<<2, 512>>>(f, fixed ? 1000 : 1005);
  } else if (!std::strcmp(mode, "next")) {
    int *x = nullptr, *y = nullptr;
    cudaMalloc(&x, 512);
    cudaMalloc(&y, 512);
    store<<<1, 1>>>(x, fixed ? 127 : 128);
  }
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s%s: %s\n", mode, fixed ? " fixed" : "", cudaGetErrorName(e));
  return 0;
}
