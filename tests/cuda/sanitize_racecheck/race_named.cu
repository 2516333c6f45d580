// racecheck and named barriers: warp 0 produces 4 rounds of 32 values into
// a shared buffer, warp 1 consumes them. "full" (barrier 1): the producer
// bar.arrive's, the consumer bar.sync's; "empty" (barrier 2): the reverse.
// Seeded bug: the consumer signals "empty" before it reads the buffer, so
// the producer's refill races with the reads (WAR between warps); "fixed"
// signals after reading.
#include <cstdio>
#include <cstring>

__device__ __forceinline__ void arrive(int id) { asm volatile("bar.arrive %0, 64;" ::"r"(id) : "memory"); }
__device__ __forceinline__ void sync(int id) { asm volatile("bar.sync %0, 64;" ::"r"(id) : "memory"); }

__global__ void produce_consume(int* out, bool fixed) {
  __shared__ int buf[32];
  const int lane = threadIdx.x % 32;
  int acc = 0;
  for (int round = 0; round < 4; ++round) {
    if (threadIdx.x < 32) {
      if (round > 0) sync(2);
      buf[lane] = round * 100 + lane;
      arrive(1);
    } else {
      sync(1);
      if (!fixed && round < 3) arrive(2);
      acc += buf[31 - lane];
      if (fixed && round < 3) arrive(2);
    }
  }
  if (threadIdx.x >= 32) out[lane] = acc;
}

int main(int argc, char** argv) {
  const bool fixed = argc > 1 && std::strcmp(argv[1], "fixed") == 0;
  int r[32], *out;
  cudaMalloc(&out, sizeof r);
  produce_consume<<<1, 64>>>(out, fixed);
  cudaError_t e = cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int l = 0; l < 32; ++l) bad += r[l] != 600 + 4 * (31 - l);
  std::printf("%s, %d wrong\n", cudaGetErrorName(e), bad);
  cudaFree(out);
  return 0;
}
