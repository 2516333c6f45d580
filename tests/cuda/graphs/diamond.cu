// An explicitly built diamond DAG: H2D copy -> {kernel A, kernel B} -> kernel
// C -> D2H copy, plus a host node and a 4-byte-pattern memset node, edges
// added with cudaGraphAddDependencies. Run from an instantiated clone too,
// and after cudaGraphKernelNodeSetParams + cudaGraphExecUpdate. Checked
// against a CPU reference.
#include <vector>

#include "../check.cuh"

__global__ void affine(const float* x, float* y, int n, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}
__global__ void combine(const float* p, const float* q, const int* bias, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = p[i] * q[i] + (float)bias[i];
}

static int host_calls = 0;
static void on_host(void* user) { ++*static_cast<int*>(user); }

int main() {
  const int n = 777;
  float *x, *p, *q, *out;
  int* bias;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&p, n * sizeof(float)));
  CHECK(cudaMalloc(&q, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMalloc(&bias, n * sizeof(int)));
  std::vector<float> hx(n), hout(n);
  for (int i = 0; i < n; ++i) hx[i] = (float)(i % 17) * 0.25f - 2.0f;

  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphNode_t h2d, ka, kb, kc, d2h, ms, host;
  CHECK(cudaGraphAddMemcpyNode1D(&h2d, g, nullptr, 0, x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cudaMemsetParams mp{};
  mp.dst = bias;
  mp.value = 7;
  mp.elementSize = 4;
  mp.width = n;
  mp.height = 1;
  CHECK(cudaGraphAddMemsetNode(&ms, g, nullptr, 0, &mp));

  int nn = n;
  float a1 = 2.0f, b1 = 1.0f, a2 = -0.5f, b2 = 3.0f;
  void* args_a[] = {&x, &p, &nn, &a1, &b1};
  void* args_b[] = {&x, &q, &nn, &a2, &b2};
  void* args_c[] = {&p, &q, &bias, &out, &nn};
  cudaKernelNodeParams kp{};
  kp.gridDim = dim3((n + 127) / 128);
  kp.blockDim = dim3(128);
  kp.func = (void*)affine;
  kp.kernelParams = args_a;
  CHECK(cudaGraphAddKernelNode(&ka, g, nullptr, 0, &kp));
  kp.kernelParams = args_b;
  CHECK(cudaGraphAddKernelNode(&kb, g, nullptr, 0, &kp));
  kp.func = (void*)combine;
  kp.kernelParams = args_c;
  CHECK(cudaGraphAddKernelNode(&kc, g, nullptr, 0, &kp));
  CHECK(cudaGraphAddMemcpyNode1D(&d2h, g, nullptr, 0, hout.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  cudaHostNodeParams hp{on_host, &host_calls};
  CHECK(cudaGraphAddHostNode(&host, g, nullptr, 0, &hp));
  // Added in an order that is not a valid execution order: only the edges order them.
  cudaGraphNode_t from[] = {h2d, h2d, ka, kb, ms, kc, d2h};
  cudaGraphNode_t to[] = {ka, kb, kc, kc, kc, d2h, host};
  CHECK(cudaGraphAddDependencies(g, from, to, nullptr, 7));

  auto reference = [&](float ra1, float rb1) {
    std::vector<float> want(n);
    for (int i = 0; i < n; ++i) want[i] = (ra1 * hx[i] + rb1) * (a2 * hx[i] + b2) + 7.0f;
    return want;
  };

  cudaGraphExec_t ge;
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  CHECK(cudaGraphLaunch(ge, 0));
  CHECK(cudaDeviceSynchronize());
  REQUIRE(count_mismatches("diamond", hout.data(), reference(a1, b1).data(), n) == 0, "first launch");
  REQUIRE(host_calls == 1, "host node ran %d times", host_calls);

  // A clone runs the same work; new host data is read at launch.
  cudaGraph_t g2;
  CHECK(cudaGraphClone(&g2, g));
  cudaGraphExec_t ge2;
  CHECK(cudaGraphInstantiateWithFlags(&ge2, g2, 0));
  for (int i = 0; i < n; ++i) hx[i] = (float)((i * 5) % 23) * 0.5f - 4.0f;
  std::fill(hout.begin(), hout.end(), 0.0f);
  CHECK(cudaGraphLaunch(ge2, 0));
  CHECK(cudaDeviceSynchronize());
  REQUIRE(count_mismatches("clone", hout.data(), reference(a1, b1).data(), n) == 0, "clone launch");
  REQUIRE(host_calls == 2, "host node ran %d times", host_calls);

  // Change kernel A in the graph, then push it into the executable graph.
  float a1n = 1.5f, b1n = -1.0f;
  void* args_a2[] = {&x, &p, &nn, &a1n, &b1n};
  cudaKernelNodeParams got{};
  CHECK(cudaGraphKernelNodeGetParams(ka, &got));
  REQUIRE(got.func == (void*)affine && got.blockDim.x == 128, "kernel node params read back wrong");
  REQUIRE(*(float*)got.kernelParams[3] == a1, "kernel node argument read back wrong");
  got.kernelParams = args_a2;
  CHECK(cudaGraphKernelNodeSetParams(ka, &got));
  cudaGraphExecUpdateResultInfo info;
  CHECK(cudaGraphExecUpdate(ge, g, &info));
  REQUIRE(info.result == cudaGraphExecUpdateSuccess, "update result %d", (int)info.result);
  CHECK(cudaGraphLaunch(ge, 0));
  CHECK(cudaDeviceSynchronize());
  REQUIRE(count_mismatches("updated", hout.data(), reference(a1n, b1n).data(), n) == 0, "updated launch");

  // A cycle cannot be instantiated.
  cudaGraph_t g3;
  CHECK(cudaGraphCreate(&g3, 0));
  cudaGraphNode_t e1, e2;
  CHECK(cudaGraphAddEmptyNode(&e1, g3, nullptr, 0));
  CHECK(cudaGraphAddEmptyNode(&e2, g3, &e1, 1));
  CHECK(cudaGraphAddDependencies(g3, &e2, &e1, nullptr, 1));
  cudaGraphExec_t cyc;
  REQUIRE(cudaGraphInstantiate(&cyc, g3, 0) != cudaSuccess, "a cyclic graph was instantiated");
  (void)cudaGetLastError();
  CHECK(cudaGraphDestroy(g3));

  CHECK(cudaGraphExecDestroy(ge));
  CHECK(cudaGraphExecDestroy(ge2));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaGraphDestroy(g2));
  std::printf("PASS graph_diamond\n");
  return 0;
}
