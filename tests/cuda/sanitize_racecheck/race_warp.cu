// racecheck within a warp: each lane writes s[lane] and reads its
// neighbour's s[lane+1] without __syncwarp() (seeded: a warp-level
// programming hazard, a warning); "fixed" puts __syncwarp() between.
#include <cstdio>
#include <cstring>

__global__ void rotate(const int* in, int* out, bool sync) {
  __shared__ int s[32];
  const int t = threadIdx.x;
  s[t] = in[t];
  if (sync) __syncwarp();
  out[t] = s[(t + 1) % 32];
}

int main(int argc, char** argv) {
  const bool fixed = argc > 1 && std::strcmp(argv[1], "fixed") == 0;
  int h[32], r[32], *in, *out;
  for (int i = 0; i < 32; ++i) h[i] = i + 1;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, sizeof r);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  rotate<<<1, 32>>>(in, out, fixed);
  cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int t = 0; t < 32; ++t) bad += r[t] != (t + 1) % 32 + 1;
  std::printf("%d wrong\n", bad);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
