// Kernel faults in a program built with nvcc -lineinfo: the report names the
// CUDA file and line of the faulting statement, and for code inlined from a
// device function also the line of the call. The lines are found by
// tests.cmake from the "LINE:" markers, so editing this file keeps the test
// right. Usage: lineinfo MODE
//   oob_write    a store far outside any allocation, in the kernel itself
//   oob_inlined  the same store in a __forceinline__ device function
// Each mode expects cudaErrorIllegalAddress and prints "PASS lineinfo MODE".
#include "../check.cuh"

constexpr long long kFar = 1LL << 28;  // in ints: 1 GiB past a 4 KiB allocation

__device__ bool is_culprit() { return blockIdx.x == 1 && threadIdx.x == 7; }

__device__ __forceinline__ void poke(int* p, long long i, int v) {
  p[i] = v;  // LINE:poke
}

__global__ void oob_write_kernel(int* p, long long off) {
  long long i = is_culprit() ? off : threadIdx.x;
  p[i] = (int)threadIdx.x;  // LINE:oob_write
}

__global__ void oob_inlined_kernel(int* p, long long off) {
  long long i = is_culprit() ? off : threadIdx.x;
  poke(p, i, (int)threadIdx.x);  // LINE:poke_call
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: lineinfo oob_write|oob_inlined\n");
    return 2;
  }
  int* buf;
  CHECK(cudaMalloc(&buf, 1024 * sizeof(int)));
  if (!std::strcmp(argv[1], "oob_write")) {
    oob_write_kernel<<<2, 32>>>(buf, kFar);
  } else if (!std::strcmp(argv[1], "oob_inlined")) {
    oob_inlined_kernel<<<2, 32>>>(buf, kFar);
  } else {
    std::fprintf(stderr, "FAIL lineinfo: unknown mode '%s'\n", argv[1]);
    return 2;
  }
  EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  std::printf("PASS lineinfo %s\n", argv[1]);
  return 0;
}
