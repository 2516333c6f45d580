// 2-D transpose through a shared tile padded to TILE+1 columns (avoids bank
// conflicts on hardware; here it checks 2-D indexing, __syncthreads and edge
// handling for sizes that are not multiples of the tile).
#include "check.cuh"
#include <vector>

constexpr int TILE = 32;
constexpr int ROWS = 8;  // block is TILE x ROWS; each thread moves TILE/ROWS elements

__global__ void transpose(const int* in, int* out, int width, int height) {
  __shared__ int tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;  // swapped block coordinates
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
  const int width = 1000, height = 777;  // out is height columns x width rows
  const long n = (long)width * height;
  std::vector<int> in(n), out(n), want(n);
  for (long i = 0; i < n; ++i) in[i] = (int)(i * 2654435761u);
  for (int r = 0; r < height; ++r)
    for (int c = 0; c < width; ++c) want[(long)c * height + r] = in[(long)r * width + c];

  int *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dout, 0, n * sizeof(int)));
  dim3 block(TILE, ROWS);
  dim3 grid((width + TILE - 1) / TILE, (height + TILE - 1) / TILE);
  transpose<<<grid, block>>>(din, dout, width, height);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  if (count_mismatches("out", out.data(), want.data(), n)) return 1;
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  std::printf("PASS transpose\n");
  return 0;
}
