// Stream capture: memcpy H2D, two kernels, memset, memcpy D2H captured into a
// graph, replayed with new host input each time (the memcpy node reads the
// host buffer at launch) and with a kernel scalar changed through
// cudaGraphExecKernelNodeSetParams. Every replay is checked against a CPU
// reference; capture-state queries and an illegal call during capture too.
#include <vector>

#include "../check.cuh"

__global__ void scale_add(const int* in, int* out, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * k + i;
}
__global__ void square_minus(int* buf, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) buf[i] = buf[i] * buf[i] - 3;
}

int main() {
  const int n = 1000, tail = 40;  // the memset clears the last `tail` outputs
  int *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  std::vector<int> h_in(n), h_out(n, -7);
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));

  int k = 3, nn = n;
  cudaStreamCaptureStatus cs;
  CHECK(cudaStreamIsCapturing(s, &cs));
  REQUIRE(cs == cudaStreamCaptureStatusNone, "status %d before capture", (int)cs);
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaStreamIsCapturing(s, &cs));
  REQUIRE(cs == cudaStreamCaptureStatusActive, "status %d during capture", (int)cs);
  CHECK(cudaMemcpyAsync(d_in, h_in.data(), n * sizeof(int), cudaMemcpyHostToDevice, s));
  scale_add<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_out, nn, k);
  k = 1000;  // arguments are copied at capture: this must not leak into the graph
  square_minus<<<(n + 127) / 128, 128, 0, s>>>(d_out, nn);
  CHECK(cudaMemsetAsync(d_out + (n - tail), 0, tail * sizeof(int), s));
  CHECK(cudaMemcpyAsync(h_out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost, s));
  cudaGraph_t g;
  CHECK(cudaStreamEndCapture(s, &g));
  // Nothing ran during capture.
  for (int i = 0; i < n; ++i) REQUIRE(h_out[i] == -7, "h_out[%d] written during capture", i);

  size_t count = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &count));
  REQUIRE(count == 5, "graph has %zu nodes, expected 5", count);
  std::vector<cudaGraphNode_t> nodes(count);
  CHECK(cudaGraphGetNodes(g, nodes.data(), &count));
  cudaGraphNode_t kernel_node = nullptr;
  for (auto nd : nodes) {
    cudaGraphNodeType t;
    CHECK(cudaGraphNodeGetType(nd, &t));
    if (t == cudaGraphNodeTypeKernel) {
      cudaKernelNodeParams p;
      CHECK(cudaGraphKernelNodeGetParams(nd, &p));
      if (p.func == (void*)scale_add) kernel_node = nd;
    }
  }
  REQUIRE(kernel_node, "no scale_add kernel node in the captured graph");

  cudaGraphExec_t ge;
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  for (int iter = 0; iter < 4; ++iter) {
    int kk = 3;
    if (iter >= 2) {  // change the scalar in the executable graph only
      kk = 5 + iter;
      int n2 = n;
      void* args[] = {&d_in, &d_out, &n2, &kk};
      cudaKernelNodeParams p{};
      p.func = (void*)scale_add;
      p.gridDim = dim3((n + 255) / 256);
      p.blockDim = dim3(256);
      p.kernelParams = args;
      CHECK(cudaGraphExecKernelNodeSetParams(ge, kernel_node, &p));
    }
    for (int i = 0; i < n; ++i) h_in[i] = (i * 7 + iter * 13) % 101 - 50;
    CHECK(cudaGraphLaunch(ge, s));
    CHECK(cudaStreamSynchronize(s));
    std::vector<int> want(n);
    for (int i = 0; i < n; ++i) {
      int v = h_in[i] * kk + i;
      want[i] = i >= n - tail ? 0 : v * v - 3;
    }
    REQUIRE(count_mismatches("replay", h_out.data(), want.data(), n) == 0, "iteration %d", iter);
  }

  // Synchronizing a capturing stream is illegal and invalidates the capture.
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  EXPECT_ERR(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
  CHECK(cudaStreamIsCapturing(s, &cs));
  REQUIRE(cs == cudaStreamCaptureStatusInvalidated, "status %d after illegal call", (int)cs);
  cudaGraph_t bad = nullptr;
  EXPECT_ERR(cudaStreamEndCapture(s, &bad), cudaErrorStreamCaptureInvalidated);
  REQUIRE(bad == nullptr, "an invalidated capture returned a graph");
  (void)cudaGetLastError();
  EXPECT_ERR(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal), cudaErrorStreamCaptureUnsupported);
  (void)cudaGetLastError();

  CHECK(cudaGraphExecDestroy(ge));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  std::printf("PASS graph_capture\n");
  return 0;
}
