// racecheck WAR: the classic double-use tile. Each iteration loads a tile,
// waits, reads another warp's half, and (seeded bug) loads the next tile
// without a second __syncthreads(); "fixed" adds it.
#include <cstdio>
#include <cstring>

__global__ void tiles(const int* in, int* out, bool sync) {
  __shared__ int tile[64];
  const int t = threadIdx.x;
  int acc = 0;
  for (int it = 0; it < 2; ++it) {
    tile[t] = in[it * 64 + t];
    __syncthreads();
    acc += tile[63 - t];
    if (sync) __syncthreads();
  }
  out[t] = acc;
}

int main(int argc, char** argv) {
  const bool fixed = argc > 1 && std::strcmp(argv[1], "fixed") == 0;
  int h[128], r[64], *in, *out;
  for (int i = 0; i < 128; ++i) h[i] = i + 1;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, sizeof r);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  tiles<<<1, 64>>>(in, out, fixed);
  cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int t = 0; t < 64; ++t) bad += r[t] != (64 - t) + (128 - t);
  std::printf("%d wrong\n", bad);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
