// Graph memory nodes, structured like cuda-samples' graphMemoryNodes: the
// negate-squares work (alloc -> H2D copy -> kernel -> D2H copy -> free, with a
// second stream joined through events) run in a stream, captured into a graph,
// and built explicitly with alloc/free nodes; graphs relaunched with new input;
// an allocation left live by a graph freed outside it (cudaFree,
// cudaFreeAsync, a free node in another graph) and then reallocated at the
// same address by the next launch; cudaGraphInstantiateFlagAutoFreeOnLaunch.
// Every result is compared with a CPU computation.
#include <vector>

#include "../check.cuh"

constexpr int kThreads = 256;

__global__ void square_array(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * in[i];
}
__global__ void negate_array(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = -in[i];
}
// Counts elements of got that differ from -(x*x) (exact: same float ops).
__global__ void validate(const float* got, const float* x, int n, int* bad) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && got[i] != -(x[i] * x[i])) atomicAdd(bad, 1);
}

struct Arrays {
  int n = 0;
  size_t bytes = 0;
  int blocks = 0;
  std::vector<float> input, square, neg;
};

static void fill(Arrays& h, int seed) {
  Lcg g(seed);
  for (int i = 0; i < h.n; ++i) h.input[i] = g.uniform(-4.0f, 4.0f);
  for (int i = 0; i < h.n; ++i) h.square[i] = h.neg[i] = 12345.0f;  // poison
}

static long check_host(const Arrays& h, const char* what) {
  std::vector<float> ws(h.n), wn(h.n);
  for (int i = 0; i < h.n; ++i) {
    ws[i] = h.input[i] * h.input[i];
    wn[i] = -ws[i];
  }
  long bad = count_mismatches("square", h.square.data(), ws.data(), h.n);
  bad += count_mismatches("negSquare", h.neg.data(), wn.data(), h.n);
  if (bad) std::fprintf(stderr, "FAIL %s\n", what);
  return bad;
}

// The sample's doNegateSquaresInStream: stream2 copies the squares back
// while stream1 goes on; events order the two. If neg_out, d_neg is kept.
static int negate_squares_in_stream(cudaStream_t s1, Arrays& h, float** neg_out) {
  float *d_in, *d_sq, *d_neg;
  cudaStream_t s2;
  cudaEvent_t sq_done, neg_done, sq_freed;
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CHECK(cudaEventCreate(&sq_done));
  CHECK(cudaEventCreate(&neg_done));
  CHECK(cudaEventCreate(&sq_freed));
  CHECK(cudaMallocAsync(&d_in, h.bytes, s1));
  CHECK(cudaMallocAsync(&d_sq, h.bytes, s1));
  CHECK(cudaMemcpyAsync(d_in, h.input.data(), h.bytes, cudaMemcpyHostToDevice, s1));
  square_array<<<h.blocks, kThreads, 0, s1>>>(d_in, d_sq, h.n);
  CHECK(cudaEventRecord(sq_done, s1));
  CHECK(cudaStreamWaitEvent(s2, sq_done, 0));
  CHECK(cudaMemcpyAsync(h.square.data(), d_sq, h.bytes, cudaMemcpyDeviceToHost, s2));
  CHECK(cudaFreeAsync(d_in, s1));
  CHECK(cudaMallocAsync(&d_neg, h.bytes, s1));
  negate_array<<<h.blocks, kThreads, 0, s1>>>(d_sq, d_neg, h.n);
  CHECK(cudaEventRecord(neg_done, s1));
  CHECK(cudaMemcpyAsync(h.neg.data(), d_neg, h.bytes, cudaMemcpyDeviceToHost, s1));
  if (neg_out)
    *neg_out = d_neg;
  else
    CHECK(cudaFreeAsync(d_neg, s1));
  CHECK(cudaStreamWaitEvent(s2, neg_done, 0));
  CHECK(cudaFreeAsync(d_sq, s2));
  CHECK(cudaEventRecord(sq_freed, s2));
  CHECK(cudaStreamWaitEvent(s1, sq_freed, 0));
  CHECK(cudaStreamDestroy(s2));  // during a capture too: s2 has joined back
  CHECK(cudaEventDestroy(sq_done));
  CHECK(cudaEventDestroy(neg_done));
  CHECK(cudaEventDestroy(sq_freed));
  return 0;
}

// The sample's createNegateSquaresGraphExplicitly.
static int build_explicit(cudaGraph_t* out, Arrays& h, float** neg_out, float** in_out) {
  cudaMemAllocNodeParams ap;
  std::memset(&ap, 0, sizeof(ap));
  ap.bytesize = h.bytes;
  ap.poolProps.allocType = cudaMemAllocationTypePinned;
  ap.poolProps.location.type = cudaMemLocationTypeDevice;
  ap.poolProps.location.id = 0;
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphNode_t a_in, a_sq, a_neg, c_in, c_sq, c_neg, k_sq, k_neg, f_in, f_sq;
  CHECK(cudaGraphAddMemAllocNode(&a_in, g, nullptr, 0, &ap));
  float* d_in = (float*)ap.dptr;
  CHECK(cudaGraphAddMemAllocNode(&a_sq, g, &a_in, 1, &ap));
  float* d_sq = (float*)ap.dptr;
  CHECK(cudaGraphAddMemcpyNode1D(&c_in, g, &a_sq, 1, d_in, h.input.data(), h.bytes, cudaMemcpyHostToDevice));
  cudaKernelNodeParams kp{};
  kp.gridDim = dim3(h.blocks);
  kp.blockDim = dim3(kThreads);
  void* sq_args[] = {&d_in, &d_sq, &h.n};
  kp.func = (void*)square_array;
  kp.kernelParams = sq_args;
  CHECK(cudaGraphAddKernelNode(&k_sq, g, &c_in, 1, &kp));
  CHECK(cudaGraphAddMemcpyNode1D(&c_sq, g, &k_sq, 1, h.square.data(), d_sq, h.bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaGraphAddMemFreeNode(&f_in, g, &k_sq, 1, d_in));
  CHECK(cudaGraphAddMemAllocNode(&a_neg, g, &f_in, 1, &ap));
  float* d_neg = (float*)ap.dptr;
  void* neg_args[] = {&d_sq, &d_neg, &h.n};
  kp.func = (void*)negate_array;
  kp.kernelParams = neg_args;
  CHECK(cudaGraphAddKernelNode(&k_neg, g, &a_neg, 1, &kp));
  cudaGraphNode_t both[] = {c_sq, k_neg};
  CHECK(cudaGraphAddMemFreeNode(&f_sq, g, both, 2, d_sq));
  CHECK(cudaGraphAddMemcpyNode1D(&c_neg, g, &k_neg, 1, h.neg.data(), d_neg, h.bytes, cudaMemcpyDeviceToHost));
  if (neg_out) {
    *neg_out = d_neg;
  } else {
    cudaGraphNode_t f_neg;
    CHECK(cudaGraphAddMemFreeNode(&f_neg, g, &c_neg, 1, d_neg));
  }
  // Node parameters read back.
  cudaMemAllocNodeParams got;
  CHECK(cudaGraphMemAllocNodeGetParams(a_sq, &got));
  REQUIRE(got.dptr == d_sq && got.bytesize == h.bytes && got.poolProps.location.type == cudaMemLocationTypeDevice,
          "alloc node params");
  void* fp = nullptr;
  CHECK(cudaGraphMemFreeNodeGetParams(f_in, &fp));
  REQUIRE(fp == d_in, "free node params %p vs %p", fp, (void*)d_in);
  cudaGraphNodeType t;
  CHECK(cudaGraphNodeGetType(a_in, &t));
  REQUIRE(t == cudaGraphNodeTypeMemAlloc, "alloc node type %d", (int)t);
  CHECK(cudaGraphNodeGetType(f_in, &t));
  REQUIRE(t == cudaGraphNodeTypeMemFree, "free node type %d", (int)t);
  if (in_out) *in_out = d_in;
  *out = g;
  return 0;
}

static int count_type(cudaGraph_t g, cudaGraphNodeType want) {
  size_t n = 0;
  if (cudaGraphGetNodes(g, nullptr, &n) != cudaSuccess) return -1;
  std::vector<cudaGraphNode_t> nodes(n);
  if (cudaGraphGetNodes(g, nodes.data(), &n) != cudaSuccess) return -1;
  int c = 0;
  for (auto nd : nodes) {
    cudaGraphNodeType t;
    if (cudaGraphNodeGetType(nd, &t) != cudaSuccess) return -1;
    c += t == want;
  }
  return c;
}

static uint64_t graph_attr(cudaGraphMemAttributeType a) {
  uint64_t v = ~0ull;
  if (cudaDeviceGetGraphMemAttribute(0, a, &v) != cudaSuccess) return ~0ull;
  return v;
}

int main() {
  Arrays h;
  h.n = 40960;  // 163840 bytes: a multiple of softgpu's 512-byte granularity
  h.bytes = h.n * sizeof(float);
  h.blocks = (h.n + kThreads - 1) / kThreads;
  h.input.resize(h.n);
  h.square.resize(h.n);
  h.neg.resize(h.n);
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int* bad = nullptr;
  CHECK(cudaMallocManaged(&bad, sizeof(int)));
  float* d_x = nullptr;  // reference input for the device-side check
  CHECK(cudaMalloc(&d_x, h.bytes));

  // 1. In a stream.
  fill(h, 1);
  if (negate_squares_in_stream(s, h, nullptr)) return 1;
  CHECK(cudaStreamSynchronize(s));
  REQUIRE(check_host(h, "stream") == 0, "stream results");

  // 2. Captured (two streams joined by events), relaunched with new input.
  cudaGraph_t g;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  if (negate_squares_in_stream(s, h, nullptr)) return 1;
  CHECK(cudaStreamEndCapture(s, &g));
  REQUIRE(count_type(g, cudaGraphNodeTypeMemAlloc) == 3 && count_type(g, cudaGraphNodeTypeMemFree) == 3 &&
              count_type(g, cudaGraphNodeTypeKernel) == 2 && count_type(g, cudaGraphNodeTypeMemcpy) == 3,
          "captured graph shape");
  cudaGraphExec_t ge;
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  CHECK(cudaGraphDestroy(g));  // the executable graph keeps its allocations
  for (int it = 0; it < 3; ++it) {
    fill(h, 10 + it);
    CHECK(cudaGraphLaunch(ge, s));
    CHECK(cudaStreamSynchronize(s));
    REQUIRE(check_host(h, "captured graph") == 0, "captured graph launch %d", it);
  }
  // Everything the graph allocates it also frees.
  REQUIRE(graph_attr(cudaGraphMemAttrUsedMemCurrent) == 0, "graph memory still in use");
  REQUIRE(graph_attr(cudaGraphMemAttrReservedMemCurrent) == 3 * h.bytes, "reserved %llu",
          (unsigned long long)graph_attr(cudaGraphMemAttrReservedMemCurrent));
  // Execution order: alloc in, alloc sq, ..., free in, alloc neg: at most two live.
  REQUIRE(graph_attr(cudaGraphMemAttrUsedMemHigh) == 2 * h.bytes, "used high %llu",
          (unsigned long long)graph_attr(cudaGraphMemAttrUsedMemHigh));
  CHECK(cudaGraphExecDestroy(ge));
  // No graph holds the blocks any more: cached until trimmed.
  REQUIRE(graph_attr(cudaGraphMemAttrReservedMemCurrent) == 3 * h.bytes, "reserved before trim");
  CHECK(cudaDeviceGraphMemTrim(0));
  REQUIRE(graph_attr(cudaGraphMemAttrReservedMemCurrent) == 0, "reserved after trim %llu",
          (unsigned long long)graph_attr(cudaGraphMemAttrReservedMemCurrent));

  // 3. Built explicitly, launched twice.
  if (build_explicit(&g, h, nullptr, nullptr)) return 1;
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  CHECK(cudaGraphDestroy(g));
  for (int it = 0; it < 2; ++it) {
    fill(h, 20 + it);
    CHECK(cudaGraphLaunch(ge, s));
    CHECK(cudaStreamSynchronize(s));
    REQUIRE(check_host(h, "explicit graph") == 0, "explicit graph launch %d", it);
  }
  CHECK(cudaGraphExecDestroy(ge));

  // 4. d_neg left allocated by the graph and freed outside it; each relaunch
  //    allocates it again at the same address.
  float* d_neg = nullptr;
  float* d_in = nullptr;
  if (build_explicit(&g, h, &d_neg, &d_in)) return 1;
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  cudaGraphExec_t ge2;
  EXPECT_ERR(cudaGraphInstantiate(&ge2, g, 0), cudaErrorInvalidValue);  // one executable graph at a time
  cudaGraph_t clone;
  EXPECT_ERR(cudaGraphClone(&clone, g), cudaErrorNotSupported);
  CHECK(cudaGraphDestroy(g));
  auto launch_and_check = [&](int seed, const char* what) -> int {
    fill(h, seed);
    CHECK(cudaMemcpy(d_x, h.input.data(), h.bytes, cudaMemcpyHostToDevice));
    *bad = 0;
    CHECK(cudaGraphLaunch(ge, s));
    validate<<<h.blocks, kThreads, 0, s>>>(d_neg, d_x, h.n, bad);  // d_neg is live after the graph
    CHECK(cudaStreamSynchronize(s));
    REQUIRE(*bad == 0, "%s: %d device mismatches", what, *bad);
    REQUIRE(check_host(h, what) == 0, "%s host results", what);
    REQUIRE(graph_attr(cudaGraphMemAttrUsedMemCurrent) == h.bytes, "%s: used %llu", what,
            (unsigned long long)graph_attr(cudaGraphMemAttrUsedMemCurrent));
    return 0;
  };
  if (launch_and_check(30, "freed with cudaFree")) return 1;
  EXPECT_ERR(cudaGraphLaunch(ge, s), cudaErrorInvalidValue);  // d_neg still allocated
  CHECK(cudaFree(d_neg));
  EXPECT_ERR(cudaFree(d_neg), cudaErrorInvalidValue);
  EXPECT_ERR(cudaFree(d_in), cudaErrorInvalidValue);  // freed inside its own graph
  REQUIRE(graph_attr(cudaGraphMemAttrUsedMemCurrent) == 0, "used after cudaFree");
  if (launch_and_check(31, "freed with cudaFreeAsync")) return 1;
  CHECK(cudaFreeAsync(d_neg, s));
  EXPECT_ERR(cudaFreeAsync(d_neg, s), cudaErrorInvalidValue);
  // Freed by a graph holding only a free node.
  cudaGraph_t fg;
  cudaGraphNode_t fnode;
  CHECK(cudaGraphCreate(&fg, 0));
  CHECK(cudaGraphAddMemFreeNode(&fnode, fg, nullptr, 0, d_neg));
  EXPECT_ERR(cudaGraphAddMemFreeNode(&fnode, fg, nullptr, 0, d_neg), cudaErrorInvalidValue);  // twice
  cudaGraphExec_t fge;
  CHECK(cudaGraphInstantiate(&fge, fg, 0));
  CHECK(cudaGraphDestroy(fg));
  if (launch_and_check(32, "freed in another graph")) return 1;
  CHECK(cudaGraphLaunch(fge, s));
  CHECK(cudaStreamSynchronize(s));
  REQUIRE(graph_attr(cudaGraphMemAttrUsedMemCurrent) == 0, "used after the free graph");
  EXPECT_ERR(cudaGraphLaunch(fge, s), cudaErrorInvalidValue);  // nothing to free now
  if (launch_and_check(33, "relaunch after the free graph")) return 1;
  CHECK(cudaGraphLaunch(fge, s));
  CHECK(cudaGraphExecDestroy(fge));
  CHECK(cudaGraphExecDestroy(ge));

  // 5. AutoFreeOnLaunch: relaunching frees what the last launch left allocated.
  float* d_neg2 = nullptr;
  if (build_explicit(&g, h, &d_neg2, nullptr)) return 1;
  CHECK(cudaGraphInstantiate(&ge, g, cudaGraphInstantiateFlagAutoFreeOnLaunch));
  CHECK(cudaGraphDestroy(g));
  d_neg = d_neg2;
  for (int it = 0; it < 3; ++it)
    if (launch_and_check(40 + it, "auto free on launch")) return 1;
  CHECK(cudaGraphExecDestroy(ge));
  // Still allocated after its graph is gone: usable, then freed outside.
  *bad = 0;
  validate<<<h.blocks, kThreads, 0, s>>>(d_neg2, d_x, h.n, bad);
  CHECK(cudaStreamSynchronize(s));
  REQUIRE(*bad == 0, "allocation outliving its graph: %d mismatches", *bad);
  CHECK(cudaFreeAsync(d_neg2, s));
  CHECK(cudaDeviceGraphMemTrim(0));
  REQUIRE(graph_attr(cudaGraphMemAttrUsedMemCurrent) == 0, "used at the end");

  CHECK(cudaFree(d_x));
  CHECK(cudaFree(bad));
  CHECK(cudaStreamDestroy(s));
  std::printf("PASS graph_memory\n");
  return 0;
}
