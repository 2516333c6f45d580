// racecheck RAW/WAR across warps: a tree reduction of 64 values (2 warps)
// whose first __syncthreads() is missing (seeded) or present ("fixed").
// Warp 0 reads s[32..63] before warp 1 has written them: 32 words, 128
// byte hazards between one load and one store.
#include <cstdio>
#include <cstring>

__global__ void reduce(const int* in, int* out, bool sync) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  s[t] = in[t];
  if (sync) __syncthreads();
  for (int stride = 32; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) *out = s[0];
}

int main(int argc, char** argv) {
  const bool fixed = argc > 1 && std::strcmp(argv[1], "fixed") == 0;
  int h[64], *in, *out, r = 0;
  for (int i = 0; i < 64; ++i) h[i] = i + 1;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, sizeof(int));
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  reduce<<<1, 64>>>(in, out, fixed);
  cudaMemcpy(&r, out, sizeof r, cudaMemcpyDeviceToHost);
  std::printf("sum %d (expected 2080)\n", r);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
