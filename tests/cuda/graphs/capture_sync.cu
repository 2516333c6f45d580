// cudaDeviceSynchronize (and cudaMalloc, cudaFree, a blocking cudaMemcpy)
// during stream capture, by the rules of
// cudaThreadExchangeStreamCaptureMode: a potentially unsafe call is
// prohibited (cudaErrorStreamCaptureUnsupported, 900) while the calling
// thread has a capture not begun in relaxed mode, or, when the thread's own
// mode is global, while any other thread has a global-mode capture; the
// prohibited call invalidates that capture, whose cudaStreamEndCapture then
// fails with cudaErrorStreamCaptureInvalidated (901) and returns no graph.
// Permitted calls leave the capture intact: it ends with a graph that runs.
#include <thread>

#include "../check.cuh"

__global__ void add(int* v, int x) { v[threadIdx.x] += x; }

namespace {

int* g_buf = nullptr;

// Ends the capture on s and checks the outcome: a graph that adds `x` to
// every element when the capture was valid, else 901 and no graph.
int end_capture(cudaStream_t s, bool valid, int x) {
  cudaGraph_t g = reinterpret_cast<cudaGraph_t>(0x1);
  if (!valid) {
    EXPECT_ERR(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    REQUIRE(g == nullptr, "an invalidated capture returned a graph");
    EXPECT_ERR(cudaGetLastError(), cudaErrorStreamCaptureInvalidated);
    return 0;
  }
  CHECK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t ge;
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  CHECK(cudaMemset(g_buf, 0, 32 * sizeof(int)));
  CHECK(cudaGraphLaunch(ge, s));
  CHECK(cudaStreamSynchronize(s));
  int h[32];
  CHECK(cudaMemcpy(h, g_buf, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i) REQUIRE(h[i] == x, "h[%d] = %d after the graph, expected %d", i, h[i], x);
  CHECK(cudaGraphExecDestroy(ge));
  CHECK(cudaGraphDestroy(g));
  return 0;
}

// This thread captures in `capture_mode` with its own interaction mode
// `thread_mode`; cudaDeviceSynchronize is expected to return `want`.
int same_thread(cudaStreamCaptureMode capture_mode, cudaStreamCaptureMode thread_mode, cudaError_t want) {
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaStreamCaptureMode m = thread_mode;
  CHECK(cudaThreadExchangeStreamCaptureMode(&m));
  CHECK(cudaStreamBeginCapture(s, capture_mode));
  add<<<1, 32, 0, s>>>(g_buf, 5);
  EXPECT_ERR(cudaDeviceSynchronize(), want);
  if (want != cudaSuccess) EXPECT_ERR(cudaGetLastError(), want);
  cudaStreamCaptureStatus st;
  CHECK(cudaStreamIsCapturing(s, &st));
  REQUIRE(st == (want == cudaSuccess ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusInvalidated),
          "capture status %d", (int)st);
  if (end_capture(s, want == cudaSuccess, 5)) return 1;
  CHECK(cudaThreadExchangeStreamCaptureMode(&m));  // back to the previous mode
  CHECK(cudaStreamDestroy(s));
  return 0;
}

// This thread captures in `capture_mode`; another thread, whose own mode is
// `other_mode`, calls cudaDeviceSynchronize and gets `want`.
int other_thread(cudaStreamCaptureMode capture_mode, cudaStreamCaptureMode other_mode, cudaError_t want) {
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaStreamBeginCapture(s, capture_mode));
  add<<<1, 32, 0, s>>>(g_buf, 3);
  cudaError_t got = cudaErrorUnknown;
  std::thread t([&] {
    cudaStreamCaptureMode m = other_mode;
    if (cudaThreadExchangeStreamCaptureMode(&m) == cudaSuccess) got = cudaDeviceSynchronize();
  });
  t.join();
  EXPECT_ERR(got, want);
  if (end_capture(s, want == cudaSuccess, 3)) return 1;
  CHECK(cudaStreamDestroy(s));
  return 0;
}

// The other potentially unsafe calls (which=0 cudaMalloc, 1 cudaFree,
// 2 a blocking cudaMemcpy) during this thread's global-mode capture, with the
// thread's own mode `thread_mode`: refused with 900 and the capture
// invalidated, or, in relaxed mode, done with the capture intact.
int unsafe_call(int which, cudaStreamCaptureMode thread_mode, cudaError_t want) {
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int* spare = nullptr;
  if (which == 1) CHECK(cudaMalloc(&spare, 64));
  int h[32] = {};
  cudaStreamCaptureMode m = thread_mode;
  CHECK(cudaThreadExchangeStreamCaptureMode(&m));
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  add<<<1, 32, 0, s>>>(g_buf, 4);
  void* p = nullptr;
  cudaError_t got = which == 0 ? cudaMalloc(&p, 64)
                  : which == 1 ? cudaFree(spare)
                               : cudaMemcpy(h, g_buf, sizeof h, cudaMemcpyDeviceToHost);
  EXPECT_ERR(got, want);
  if (want != cudaSuccess) EXPECT_ERR(cudaGetLastError(), want);
  if (end_capture(s, want == cudaSuccess, 4)) return 1;
  CHECK(cudaThreadExchangeStreamCaptureMode(&m));
  if (which == 0 && p) CHECK(cudaFree(p));
  if (which == 1 && want != cudaSuccess) CHECK(cudaFree(spare));  // it was not freed
  CHECK(cudaStreamDestroy(s));
  return 0;
}

}  // namespace

int main() {
  CHECK(cudaMalloc(&g_buf, 32 * sizeof(int)));
  const auto G = cudaStreamCaptureModeGlobal, T = cudaStreamCaptureModeThreadLocal, R = cudaStreamCaptureModeRelaxed;
  const cudaError_t U = cudaErrorStreamCaptureUnsupported;
  // The calling thread's own capture.
  if (same_thread(G, G, U) || same_thread(T, G, U) || same_thread(G, T, U) || same_thread(T, T, U) ||
      same_thread(R, G, cudaSuccess) || same_thread(G, R, cudaSuccess))
    return 1;
  // Another thread's capture forbids it only when both are global.
  if (other_thread(G, G, U) || other_thread(G, T, cudaSuccess) || other_thread(G, R, cudaSuccess) ||
      other_thread(T, G, cudaSuccess) || other_thread(R, G, cudaSuccess))
    return 1;
  for (int which = 0; which < 3; ++which)
    if (unsafe_call(which, G, U) || unsafe_call(which, T, U) || unsafe_call(which, R, cudaSuccess)) return 1;
  CHECK(cudaDeviceSynchronize());  // no capture left: permitted
  std::printf("PASS capture_sync\n");
  return 0;
}
