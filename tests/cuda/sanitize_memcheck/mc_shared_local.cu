// memcheck, shared and local memory. MODE: shared_oob (18 threads index
// dynamic shared memory of 64 bytes: threads 16 and 17 are past it),
// shared_misaligned (an int store at byte 2 of shared memory), local_oob (a
// local array indexed past its end). "MODE fixed": within bounds.
#include <cstdio>
#include <cstring>

__global__ void shared_oob(int* out) {
  extern __shared__ int s[];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x + 1) % 16];
}

__global__ void shared_misaligned(int* out, int offset) {
  extern __shared__ int s[];  // dynamic: a static __shared__ array would be laid out for every kernel of the module
  *reinterpret_cast<int*>(reinterpret_cast<char*>(s) + offset) = 7;
  __syncthreads();
  out[0] = s[1];
}

__global__ void local_oob(int* out, int idx) {
  int v[8];
  for (int k = 0; k < 8; ++k) v[k] = out[k] + k;
  v[idx] = 100;  // a runtime index keeps v in local memory
  int sum = 0;
  for (int k = 0; k < 8; ++k) sum += v[k];
  out[threadIdx.x] = sum;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "shared_oob";
  const bool fixed = argc > 2 && std::strcmp(argv[2], "fixed") == 0;
  int* out = nullptr;
  cudaMalloc(&out, 64 * sizeof(int));
  cudaMemset(out, 0, 64 * sizeof(int));
  if (!std::strcmp(mode, "shared_oob")) {
    shared_oob<<<1, fixed ? 16 : 18, 64>>>(out);
  } else if (!std::strcmp(mode, "shared_misaligned")) {
    shared_misaligned<<<1, 1, 32>>>(out, fixed ? 4 : 2);
  } else if (!std::strcmp(mode, "local_oob")) {
    local_oob<<<1, 1>>>(out, fixed ? 7 : 8);
  }
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s%s: %s\n", mode, fixed ? " fixed" : "", cudaGetErrorName(e));
  return 0;
}
