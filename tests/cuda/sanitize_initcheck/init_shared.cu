// initcheck, shared memory: each of 8 threads writes its slot, then reads
// its neighbour's after __syncthreads; seeded: thread 5 skips its write, so
// thread 4 reads a slot no thread of the block wrote. Two blocks: each
// block's shared memory starts uninitialized.
#include <cstdio>
#include <cstring>

__global__ void neighbours(int* out, bool seeded) {
  __shared__ int s[8];
  const int t = threadIdx.x;
  if (!(seeded && t == 5 && blockIdx.x == 1)) s[t] = t * 10;
  __syncthreads();
  out[blockIdx.x * 8 + t] = s[(t + 1) % 8];
}

int main(int argc, char** argv) {
  const bool fixed = argc > 1 && std::strcmp(argv[1], "fixed") == 0;
  int* out = nullptr;
  cudaMalloc(&out, 16 * sizeof(int));
  neighbours<<<2, 8>>>(out, !fixed);
  int host[16];
  cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  std::printf("out[12] = %d\n", host[12]);
  cudaFree(out);
  return 0;
}
