// racecheck WAW: threads 0 and 32 (two warps) of block 1 both write s[0]
// with different values (seeded); "fixed": only thread 0 writes; "same":
// both write the same value, which changes nothing and is not reported
// (compute-sanitizer's INFO level).
#include <cstdio>
#include <cstring>

__global__ void flag(int* out, int mode) {
  __shared__ int s[1];
  const int t = threadIdx.x;
  if (t == 0) s[0] = 1;
  __syncthreads();
  if (t == 0 || (mode != 1 && t == 32)) s[0] = mode == 2 ? 7 : t + 7;
  __syncthreads();
  if (t == 0) out[blockIdx.x] = s[0];
}

int main(int argc, char** argv) {
  const int mode = argc < 2 ? 0 : std::strcmp(argv[1], "fixed") == 0 ? 1 : std::strcmp(argv[1], "same") == 0 ? 2 : 0;
  int* out;
  int r[2];
  cudaMalloc(&out, sizeof r);
  flag<<<2, 64>>>(out, mode);
  cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
  std::printf("%d %d\n", r[0], r[1]);
  cudaFree(out);
  return 0;
}
