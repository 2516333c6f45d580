// Dynamic shared memory (extern __shared__) sized at launch time, alone and
// together with a static __shared__ array, and more than the 48 KiB default
// after opting in with cudaFuncSetAttribute.
#include "check.cuh"
#include <vector>

// Reverses each block's chunk of `in` through a dynamic shared buffer of
// blockDim.x ints, then adds a value from a static shared array.
__global__ void reverse_chunks(const int* in, int* out) {
  extern __shared__ int buf[];
  __shared__ int bonus[4];
  if (threadIdx.x < 4) bonus[threadIdx.x] = 1000 * (threadIdx.x + 1);
  int base = blockIdx.x * blockDim.x;
  buf[threadIdx.x] = in[base + threadIdx.x];
  __syncthreads();
  out[base + threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x] + bonus[threadIdx.x & 3];
}

// Uses the dynamic buffer as two differently typed arrays: `words` doubles
// followed by `words` ints. Each thread sums a strided slice written by others.
__global__ void mixed_types(int words, double* out) {
  extern __shared__ double dbuf[];
  int* ibuf = reinterpret_cast<int*>(dbuf + words);
  for (int i = threadIdx.x; i < words; i += blockDim.x) {
    dbuf[i] = 0.5 * i;
    ibuf[i] = i * 3;
  }
  __syncthreads();
  double acc = 0;
  for (int i = (threadIdx.x + 1) % blockDim.x; i < words; i += blockDim.x) acc += dbuf[i] + ibuf[i];
  out[threadIdx.x] = acc;
}

static int run_reverse(int block) {
  const int blocks = 37, n = blocks * block;
  std::vector<int> in(n), out(n), want(n);
  for (int i = 0; i < n; ++i) in[i] = i * 7 - 3;
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < block; ++t) want[b * block + t] = in[b * block + block - 1 - t] + 1000 * ((t & 3) + 1);
  int *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  reverse_chunks<<<blocks, block, block * sizeof(int)>>>(din, dout);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  if (count_mismatches("reverse_chunks", out.data(), want.data(), n)) return 1;
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  return 0;
}

static int run_mixed(int words, int threads) {
  size_t bytes = words * (sizeof(double) + sizeof(int));
  double* dout;
  CHECK(cudaMalloc(&dout, threads * sizeof(double)));
  mixed_types<<<1, threads, bytes>>>(words, dout);
  CHECK_LAUNCH();
  std::vector<double> out(threads), want(threads, 0.0);
  CHECK(cudaMemcpy(out.data(), dout, threads * sizeof(double), cudaMemcpyDeviceToHost));
  for (int t = 0; t < threads; ++t)
    for (int i = (t + 1) % threads; i < words; i += threads) want[t] += 0.5 * i + i * 3;  // exact: halves, < 2^53
  if (count_mismatches("mixed_types", out.data(), want.data(), threads)) return 1;
  CHECK(cudaFree(dout));
  return 0;
}

int main() {
  for (int block : {32, 96, 256, 1024})
    if (run_reverse(block)) return 1;
  if (run_mixed(1000, 128)) return 1;  // 12 000 bytes
  // 64 KiB + 8 KiB of dynamic shared memory needs an explicit opt-in; every
  // device of compute capability 8.0 or later allows it.
  const int big_words = 6144;  // 6144 * 12 bytes = 73 728 bytes
  CHECK(cudaFuncSetAttribute(mixed_types, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)(big_words * (sizeof(double) + sizeof(int)))));
  if (run_mixed(big_words, 256)) return 1;
  std::printf("PASS dynamic_smem\n");
  return 0;
}
