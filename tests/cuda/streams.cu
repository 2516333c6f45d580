// Two streams with pinned host buffers, cudaMemcpyAsync in both directions,
// kernels in each stream, events for timing and a cross-stream dependency
// (cudaStreamWaitEvent): stream 1's kernel consumes stream 0's output.
#include "check.cuh"
#include <vector>

__global__ void scale_add(const int* in, int* out, int n, int mul, int add) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = in[i] * mul + add;
}

__global__ void combine(const int* a, const int* b, int* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = a[i] - b[n - 1 - i];
}

int main() {
  const int n = 1 << 18, chunks = 8, cn = n / chunks;
  int *h_in, *h_out, *h_comb;
  CHECK(cudaMallocHost(&h_in, n * sizeof(int)));
  CHECK(cudaMallocHost(&h_out, n * sizeof(int)));
  CHECK(cudaHostAlloc(&h_comb, n * sizeof(int), cudaHostAllocDefault));
  for (int i = 0; i < n; ++i) h_in[i] = (i * 37) % 1001 - 500;

  int *d_in, *d_out, *d_comb;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMalloc(&d_comb, n * sizeof(int)));
  cudaStream_t s[2];
  CHECK(cudaStreamCreate(&s[0]));
  CHECK(cudaStreamCreateWithFlags(&s[1], cudaStreamNonBlocking));
  cudaEvent_t start, stop, done0;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventCreateWithFlags(&done0, cudaEventDisableTiming));

  CHECK(cudaEventRecord(start, s[0]));
  // Chunks alternate between the streams: copy in, compute, copy out.
  for (int c = 0; c < chunks; ++c) {
    cudaStream_t st = s[c & 1];
    int off = c * cn;
    CHECK(cudaMemcpyAsync(d_in + off, h_in + off, cn * sizeof(int), cudaMemcpyHostToDevice, st));
    scale_add<<<16, 128, 0, st>>>(d_in + off, d_out + off, cn, 3 + (c & 1), c);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h_out + off, d_out + off, cn * sizeof(int), cudaMemcpyDeviceToHost, st));
  }
  // Stream 1 must not start `combine` before stream 0's chunks are done.
  CHECK(cudaEventRecord(done0, s[0]));
  CHECK(cudaStreamWaitEvent(s[1], done0, 0));
  combine<<<32, 256, 0, s[1]>>>(d_out, d_out, d_comb, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(h_comb, d_comb, n * sizeof(int), cudaMemcpyDeviceToHost, s[1]));
  CHECK(cudaEventRecord(stop, s[1]));
  CHECK(cudaEventSynchronize(stop));
  CHECK(cudaStreamSynchronize(s[0]));
  CHECK(cudaStreamSynchronize(s[1]));
  CHECK(cudaEventQuery(stop));  // complete, so cudaSuccess
  CHECK(cudaStreamQuery(s[0]));
  float ms = -1.0f;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  REQUIRE(ms >= 0.0f, "elapsed time %f ms is negative", ms);

  std::vector<int> want(n), wantc(n);
  for (int c = 0; c < chunks; ++c)
    for (int i = c * cn; i < (c + 1) * cn; ++i) want[i] = h_in[i] * (3 + (c & 1)) + c;
  for (int i = 0; i < n; ++i) wantc[i] = want[i] - want[n - 1 - i];
  if (count_mismatches("h_out", h_out, want.data(), n)) return 1;
  if (count_mismatches("h_comb", h_comb, wantc.data(), n)) return 1;

  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaEventDestroy(done0));
  CHECK(cudaStreamDestroy(s[0]));
  CHECK(cudaStreamDestroy(s[1]));
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_comb));
  CHECK(cudaFreeHost(h_in));
  CHECK(cudaFreeHost(h_out));
  CHECK(cudaFreeHost(h_comb));
  std::printf("PASS streams (%.3f ms)\n", ms);
  return 0;
}
