// Programs in the shapes of NVIDIA's compute-sanitizer samples (synccheck:
// a barrier skipped by the tail of the last chunk, a __syncwarp whose mask
// leaves out a lane that calls it; racecheck: a warp-level and a
// block-level shared-memory race), written for softgpu's tests. As the
// samples do, every launch is checked with assert(cudaPeekAtLastError() ==
// cudaSuccess) straight after it: the kernel's error is asynchronous, so the
// check passes and the program runs to its end after the reports.
#include <cassert>
#include <cstdio>
#include <cstring>

#define CHECK_LAUNCH(...) assert(((__VA_ARGS__), cudaPeekAtLastError()) == cudaSuccess)

constexpr int kThreads = 64, kChunks = 8, kSize = kThreads * kChunks - 16;

// Sums data in chunks of kThreads; the barrier sits inside the bounds
// check, so in the last chunk threads 48-63 (half of warp 1) skip it.
__global__ void chunked_sum(const int* data, int* out) {
  __shared__ int acc[kThreads];
  const int t = threadIdx.x;
  acc[t] = 0;
  __syncthreads();
  for (int c = 0; c < kChunks; ++c) {
    const int i = c * kThreads + t;
    if (i < kSize) {
      acc[t] += data[i];
      __syncthreads();
    }
  }
  if (t == 0) {
    int s = 0;
    for (int j = 0; j < kThreads; ++j) s += acc[j];
    *out = s;
  }
}

// The mask holds lanes 0-15; lanes 0-16 enter the branch, so lane 16 calls
// __syncwarp with a mask that does not name it.
__global__ void half_warp_sync(int* out) {
  __shared__ int v[32];
  const int t = threadIdx.x;
  const unsigned mask = __ballot_sync(0xffffffffu, t < 16);
  if (t <= 16) {
    v[t] = t;
    __syncwarp(mask);
    if (t == 0) {
      int s = 0;
      for (int j = 0; j < 16; ++j) s += v[j];
      *out = s;
    }
  }
  __syncthreads();
}

// Warp race: lane 0 reads what the other lanes of its warp write, with no
// __syncwarp between (the sample's warp_error shape).
__global__ void warp_race(int* out) {
  __shared__ int v[32];
  const int t = threadIdx.x;
  v[t] = t;
  if (t == 0) {
    int s = 0;
    for (int j = 0; j < 32; ++j) s += v[j];
    *out = s;
  }
}

// Block race: thread 0 reads what every warp of the block writes, with no
// __syncthreads between (the sample's block_error shape).
__global__ void block_race(int* out) {
  __shared__ int v[kThreads];
  const int t = threadIdx.x;
  v[t] = t;
  if (t == 0) {
    int s = 0;
    for (int j = 0; j < kThreads; ++j) s += v[j];
    *out = s;
  }
}

int main(int argc, char** argv) {
  const char* c = argc > 1 ? argv[1] : "";
  int *data = nullptr, *out = nullptr;
  assert(cudaMalloc(&data, kSize * sizeof(int)) == cudaSuccess);
  assert(cudaMalloc(&out, sizeof(int)) == cudaSuccess);
  assert(cudaMemset(data, 0, kSize * sizeof(int)) == cudaSuccess);
  if (!std::strcmp(c, "divergent")) CHECK_LAUNCH(chunked_sum<<<1, kThreads>>>(data, out));
  else if (!std::strcmp(c, "syncwarp")) CHECK_LAUNCH(half_warp_sync<<<1, 32>>>(out));
  else if (!std::strcmp(c, "warp")) CHECK_LAUNCH(warp_race<<<1, 32>>>(out));
  else if (!std::strcmp(c, "block")) CHECK_LAUNCH(block_race<<<1, kThreads>>>(out));
  else {
    std::printf("unknown case '%s'\n", c);
    return 2;
  }
  std::printf("%s: %s\n", c, cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(data);
  cudaFree(out);
  return 0;
}
