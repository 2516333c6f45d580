// Launch overhead of kernels replayed from a CUDA graph against the same
// kernels sent to a stream one by one, timed with cudaEvents. Each kernel
// adds 1 to a counter, so the result checks that all of them ran. Under
// `softgpu run --timing` a stream launch costs the config's
// kernel_launch_us and a graph's kernel node graph_kernel_launch_us
// (H100: 2.5 and 1.37 us, gpu-benches gpu-small-kernels): the graph saves
// 1.13 us per kernel. On a GPU it prints the measured figures.
#include <cstdio>

#include "../check.cuh"

__global__ void bump(int* c) { atomicAdd(c, 1); }

int main() {
  constexpr int kKernels = 20;
  int* counter = nullptr;
  CHECK(cudaMalloc(&counter, sizeof(int)));
  CHECK(cudaMemset(counter, 0, sizeof(int)));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaEvent_t a, b, c;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  CHECK(cudaEventCreate(&c));

  cudaGraph_t g;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < kKernels; ++i) bump<<<1, 32, 0, s>>>(counter);
  CHECK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t ge;
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  CHECK(cudaGraphLaunch(ge, s));  // a warm-up replay, as benchmarks do
  CHECK(cudaStreamSynchronize(s));

  CHECK(cudaEventRecord(a, s));
  for (int i = 0; i < kKernels; ++i) bump<<<1, 32, 0, s>>>(counter);
  CHECK(cudaEventRecord(b, s));
  CHECK(cudaGraphLaunch(ge, s));
  CHECK(cudaEventRecord(c, s));
  CHECK(cudaEventSynchronize(c));
  float stream_ms = 0, graph_ms = 0;
  CHECK(cudaEventElapsedTime(&stream_ms, a, b));
  CHECK(cudaEventElapsedTime(&graph_ms, b, c));
  int got = 0;
  CHECK(cudaMemcpy(&got, counter, sizeof(int), cudaMemcpyDeviceToHost));
  if (got != 3 * 32 * kKernels) {
    std::printf("FAIL: counter %d, expected %d\n", got, 3 * 32 * kKernels);
    return 1;
  }
  std::printf("per kernel: stream %.3f us, graph %.3f us\n", 1e3 * stream_ms / kKernels, 1e3 * graph_ms / kKernels);
  std::printf("graph/stream: %.3f, saved per kernel: %.3f us\n", graph_ms / stream_ms,
              1e3 * (stream_ms - graph_ms) / kKernels);
  CHECK(cudaGraphExecDestroy(ge));
  CHECK(cudaGraphDestroy(g));
  std::printf("PASS graph_replay\n");
  return 0;
}
