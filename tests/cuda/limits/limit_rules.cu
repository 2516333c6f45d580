// cudaDeviceSetLimit / cudaDeviceGetLimit as cuda_runtime_api.h documents
// them (on the default sm_90 GPU). Usage: limit_rules values|stack|overflow
//   values    a stack above the 512 KB of local memory a thread may have
//             (SIZE_MAX, 64 MB) is cudaErrorInvalidValue; a printf FIFO or
//             malloc heap larger than the device's memory (SIZE_MAX) is
//             cudaErrorMemoryAllocation; the limits keep their values; an
//             unknown cudaLimit, and cudaLimitDevRuntimeSyncDepth on compute
//             capability 9.0, are cudaErrorUnsupportedLimit (215); the L2
//             fetch granularity is clamped to 128 bytes
//   stack     a 512 KB stack is accepted and honoured: a recursion needing
//             about 300 KB of stack runs and returns the right sum
//   overflow  the same recursion with the default stack (1 KB; a kernel whose
//             stack ptxas cannot bound gets no more) overflows:
//             cudaErrorHardwareStackError (714) at the next synchronization
#include "../check.cuh"

// Each level keeps a 1 KB array in local memory (indexed with run-time
// values) that is read after the inner call returns, so that depth 300 needs
// about 300 KB of stack and the recursion cannot become a loop.
__device__ __noinline__ int deep(volatile int* seed, int depth) {
  int a[256];
  for (int i = 0; i < 256; ++i) a[(i * seed[0]) & 255] = i + depth;
  if (depth == 0) return a[seed[1] & 255];
  const int r = deep(seed, depth - 1);
  return a[(r + depth) & 255] + r;
}

__global__ void recurse(volatile int* seed, int depth, int* out) { out[threadIdx.x] = deep(seed, depth); }

// What deep() returns with seed {1, 5}: a[k] = k + depth at every level.
static int expect_deep(int depth) {
  int r = 5;
  for (int d = 1; d <= depth; ++d) r += ((r + d) & 255) + d;
  return r;
}

static int values() {
  size_t v = 0;
  CHECK(cudaDeviceGetLimit(&v, cudaLimitStackSize));
  const size_t stack0 = v;
  EXPECT_ERR(cudaDeviceSetLimit(cudaLimitStackSize, SIZE_MAX), cudaErrorInvalidValue);
  EXPECT_ERR(cudaDeviceSetLimit(cudaLimitStackSize, 64u << 20), cudaErrorInvalidValue);
  EXPECT_ERR(cudaDeviceSetLimit(cudaLimitStackSize, (512u << 10) + 1), cudaErrorInvalidValue);
  CHECK(cudaDeviceGetLimit(&v, cudaLimitStackSize));
  REQUIRE(v == stack0, "stack limit %zu after refused requests, was %zu", v, stack0);
  EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);  // recorded, not sticky
  EXPECT_ERR(cudaGetLastError(), cudaSuccess);

  const cudaLimit reserved[] = {cudaLimitPrintfFifoSize, cudaLimitMallocHeapSize};
  for (cudaLimit l : reserved) {
    size_t before = 0;
    CHECK(cudaDeviceGetLimit(&before, l));
    EXPECT_ERR(cudaDeviceSetLimit(l, SIZE_MAX), cudaErrorMemoryAllocation);
    CHECK(cudaDeviceGetLimit(&v, l));
    REQUIRE(v == before && v != SIZE_MAX, "limit %d is %zu after SIZE_MAX, was %zu", (int)l, v, before);
    CHECK(cudaDeviceSetLimit(l, 2u << 20));
    CHECK(cudaDeviceGetLimit(&v, l));
    REQUIRE(v == (2u << 20), "limit %d is %zu, set to 2 MB", (int)l, v);
  }

  const cudaLimit unknown = static_cast<cudaLimit>(0x7777);
  EXPECT_ERR(cudaDeviceSetLimit(unknown, 1), cudaErrorUnsupportedLimit);
  EXPECT_ERR(cudaDeviceGetLimit(&v, unknown), cudaErrorUnsupportedLimit);
  EXPECT_ERR(cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, 4), cudaErrorUnsupportedLimit);
  EXPECT_ERR(cudaDeviceGetLimit(&v, cudaLimitDevRuntimeSyncDepth), cudaErrorUnsupportedLimit);
  CHECK(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, 4096));
  CHECK(cudaDeviceGetLimit(&v, cudaLimitMaxL2FetchGranularity));
  REQUIRE(v == 128, "L2 fetch granularity %zu, expected 128 (clamped)", v);
  (void)cudaGetLastError();
  std::printf("PASS limit_rules values\n");
  return 0;
}

static int recursion(bool big_stack) {
  const int depth = 300;
  int* seed;
  int* out;
  CHECK(cudaMalloc(&seed, 2 * sizeof(int)));
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  const int h[2] = {1, 5};
  CHECK(cudaMemcpy(seed, h, sizeof h, cudaMemcpyHostToDevice));
  if (big_stack) {
    CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 512u << 10));
    size_t v = 0;
    CHECK(cudaDeviceGetLimit(&v, cudaLimitStackSize));
    REQUIRE(v == (512u << 10), "stack limit %zu, set to 512 KB", v);
  }
  recurse<<<1, 32>>>(seed, depth, out);
  CHECK(cudaGetLastError());
  if (!big_stack) {
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorHardwareStackError);
    std::printf("PASS limit_rules overflow\n");
    return 0;
  }
  CHECK(cudaDeviceSynchronize());
  int r[32];
  CHECK(cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost));
  for (int t = 0; t < 32; ++t) REQUIRE(r[t] == expect_deep(depth), "thread %d: %d, expected %d", t, r[t], expect_deep(depth));
  std::printf("PASS limit_rules stack %d\n", r[0]);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  if (!std::strcmp(argv[1], "values")) return values();
  if (!std::strcmp(argv[1], "stack")) return recursion(true);
  if (!std::strcmp(argv[1], "overflow")) return recursion(false);
  return 2;
}
