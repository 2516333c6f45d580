// Under `softgpu run --timing`: the classic copy/compute overlap. The same
// work (H2D copy, kernel, D2H copy of 4 chunks) issued on one stream and
// then on four streams, timed with events on the legacy stream. With one
// copy engine per direction and one compute engine (timing/session.h), the
// four-stream version hides most of the copies: the timeline for 4 chunks
// of copy time C each way and kernel time K is about C + 4*max(C, K) + ... in
// place of 4*(2C + K). The program checks the results on the CPU and prints
// both times; the test asserts the ratio. A third pass captures the
// four-stream version into a CUDA graph (fork and join through events) and
// launches it: its independent branches overlap the same way.
#include <cstdio>
#include <vector>

#include "../check.cuh"

__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 2.0f + 1.0f;
}

int main() {
  const int chunks = 4, n = 1 << 20;  // 4 MiB per chunk
  float* h = nullptr;
  CHECK(cudaMallocHost(&h, size_t(chunks) * n * sizeof(float)));
  float* d = nullptr;
  CHECK(cudaMalloc(&d, size_t(chunks) * n * sizeof(float)));
  cudaStream_t s[chunks];
  for (auto& x : s) CHECK(cudaStreamCreate(&x));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  cudaEvent_t fork, join[chunks];
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  for (auto& e : join) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  // Returns 1 after a failed call (CHECK's return), 0 when all were issued.
  auto issue = [&](int pass) -> int {
    for (int c = 0; c < chunks; ++c) {
      cudaStream_t st = pass == 0 ? s[0] : s[c];
      float* dc = d + size_t(c) * n;
      float* hc = h + size_t(c) * n;
      CHECK(cudaMemcpyAsync(dc, hc, n * sizeof(float), cudaMemcpyHostToDevice, st));
      scale<<<n / 256, 256, 0, st>>>(dc, n);
      CHECK(cudaMemcpyAsync(hc, dc, n * sizeof(float), cudaMemcpyDeviceToHost, st));
    }
    return 0;
  };
  // The graph: s[0] forks to s[1..3] and joins them again.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s[0], cudaStreamCaptureModeGlobal));
  CHECK(cudaEventRecord(fork, s[0]));
  for (int c = 1; c < chunks; ++c) CHECK(cudaStreamWaitEvent(s[c], fork));
  if (issue(1)) return 1;
  for (int c = 1; c < chunks; ++c) {
    CHECK(cudaEventRecord(join[c], s[c]));
    CHECK(cudaStreamWaitEvent(s[0], join[c]));
  }
  CHECK(cudaStreamEndCapture(s[0], &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  float ms[3];
  for (int pass = 0; pass < 3; ++pass) {
    for (int i = 0; i < chunks * n; ++i) h[i] = float(i % 1000);
    CHECK(cudaEventRecord(a));
    if (pass < 2) {
      if (issue(pass)) return 1;
    } else {
      CHECK(cudaGraphLaunch(exec, s[0]));
    }
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaEventElapsedTime(&ms[pass], a, b));
    for (int i = 0; i < chunks * n; i += 997) REQUIRE(h[i] == float(i % 1000) * 2 + 1, "element %d", i);
  }
  std::printf("one stream: %.3f ms\nfour streams: %.3f ms\nratio: %.3f\n", ms[0], ms[1], ms[1] / ms[0]);
  std::printf("graph: %.3f ms\ngraph ratio: %.3f\n", ms[2], ms[2] / ms[0]);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  return 0;
}
