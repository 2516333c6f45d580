// racecheck and cp.async: a double-buffered pipeline of 8 chunks of 64 ints
// (2 warps), each thread reading its neighbour's element. Seeded bug: no
// __syncthreads() between cp.async.wait_group and the reads, so a thread
// reads an element whose copy another thread issued and waited for alone;
// "fixed" has the barrier.
#include <cuda_pipeline.h>

#include <cstdio>
#include <cstring>

__global__ void pipeline(const int* in, int* out, bool sync) {
  __shared__ int buf[2][64];
  const int t = threadIdx.x;
  int acc = 0;
  __pipeline_memcpy_async(&buf[0][t], &in[t], sizeof(int));
  __pipeline_commit();
  for (int i = 0; i < 8; ++i) {
    if (i + 1 < 8) __pipeline_memcpy_async(&buf[(i + 1) % 2][t], &in[(i + 1) * 64 + t], sizeof(int));
    __pipeline_commit();
    __pipeline_wait_prior(1);
    if (sync) __syncthreads();
    acc += buf[i % 2][(t + 1) % 64];
    __syncthreads();
  }
  out[t] = acc;
}

int main(int argc, char** argv) {
  const bool fixed = argc > 1 && std::strcmp(argv[1], "fixed") == 0;
  int h[512], r[64], *in, *out;
  for (int i = 0; i < 512; ++i) h[i] = i + 1;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, sizeof r);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  pipeline<<<1, 64>>>(in, out, fixed);
  cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int t = 0; t < 64; ++t) {
    int want = 0;
    for (int i = 0; i < 8; ++i) want += h[i * 64 + (t + 1) % 64];
    bad += r[t] != want;
  }
  std::printf("%d wrong\n", bad);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
