// A kernel fault is reported asynchronously, as on a GPU: the launch returns
// cudaSuccess, and so do cudaPeekAtLastError/cudaGetLastError straight after
// it; the next synchronizing call returns the fault's code, which is sticky
// from then on. Launch-time errors (a bad configuration) stay immediate.
// Usage: async_faults MODE
//   illegal       out-of-bounds store -> cudaErrorIllegalAddress (700) at cudaDeviceSynchronize
//   trap          __trap()            -> cudaErrorLaunchFailure (719)
//   assert        failing assert()    -> cudaErrorAssert (710)
//   stream | event | memcpy | stream_query | event_query | free
//                 the fault reported by cudaStreamSynchronize, cudaEventSynchronize,
//                 a blocking cudaMemcpy, cudaStreamQuery, cudaEventQuery, cudaFree
//   queued        work issued after the faulting kernel: launches and async
//                 calls succeed, a 1025-thread launch and a null memset or
//                 copy still fail at once (cudaErrorInvalidValue), a host
//                 function is never called
//                 ("not called in the event of an error in the CUDA context",
//                 cudaLaunchHostFunc); the fault comes at cudaDeviceSynchronize
#include <cassert>

#include "../check.cuh"

constexpr long long kFar = 1LL << 28;  // ints: 1 GiB past a 4 KiB allocation

__device__ bool is_culprit() { return blockIdx.x == 2 && threadIdx.x == 7; }

__global__ void oob_write(int* p, long long off) {
  const long long i = is_culprit() ? off : threadIdx.x;
  p[i] = (int)threadIdx.x;
}

__global__ void trap_kernel(int* out) {
  if (is_culprit()) __trap();
  out[threadIdx.x] = 1;
}

__global__ void assert_kernel(const int* v, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(v[i] < 100);
  out[i] = v[i];
}

__global__ void fill(int* out, int v) { out[threadIdx.x] = v; }

static void set_flag(void* p) { *static_cast<int*>(p) = 1; }

// The launch and the queries straight after it succeed.
#define EXPECT_LAUNCH_QUIET()                              \
  do {                                                     \
    EXPECT_ERR(cudaPeekAtLastError(), cudaSuccess);        \
    EXPECT_ERR(cudaGetLastError(), cudaSuccess);           \
  } while (0)

// After the synchronizing call: sticky, never cleared by reading it.
#define EXPECT_STICKY(code)                                \
  do {                                                     \
    EXPECT_ERR(cudaPeekAtLastError(), code);               \
    EXPECT_ERR(cudaGetLastError(), code);                  \
    EXPECT_ERR(cudaGetLastError(), code);                  \
    EXPECT_ERR(cudaDeviceSynchronize(), code);             \
  } while (0)

static int run(const char* mode) {
  int *buf, *out;
  CHECK(cudaMalloc(&buf, 1024 * sizeof(int)));
  CHECK(cudaMalloc(&out, 1024 * sizeof(int)));
  CHECK(cudaMemset(buf, 0, 1024 * sizeof(int)));
  CHECK(cudaDeviceSynchronize());
  cudaStream_t s;
  cudaEvent_t e;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaEventCreate(&e));
  int h[64] = {};

  if (!std::strcmp(mode, "illegal")) {
    oob_write<<<4, 32>>>(buf, kFar);
    EXPECT_LAUNCH_QUIET();
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    EXPECT_STICKY(cudaErrorIllegalAddress);
  } else if (!std::strcmp(mode, "trap")) {
    trap_kernel<<<4, 32>>>(out);
    EXPECT_LAUNCH_QUIET();
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
    EXPECT_STICKY(cudaErrorLaunchFailure);
  } else if (!std::strcmp(mode, "assert")) {
    for (int i = 0; i < 64; ++i) h[i] = i == 45 ? 1000 : i;  // block 1, thread 13
    CHECK(cudaMemcpy(buf, h, sizeof h, cudaMemcpyHostToDevice));
    assert_kernel<<<2, 32>>>(buf, out);
    EXPECT_LAUNCH_QUIET();
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorAssert);
    EXPECT_STICKY(cudaErrorAssert);
  } else if (!std::strcmp(mode, "stream")) {
    oob_write<<<4, 32, 0, s>>>(buf, kFar);
    EXPECT_LAUNCH_QUIET();
    EXPECT_ERR(cudaStreamSynchronize(s), cudaErrorIllegalAddress);
    EXPECT_STICKY(cudaErrorIllegalAddress);
  } else if (!std::strcmp(mode, "event")) {
    oob_write<<<4, 32, 0, s>>>(buf, kFar);
    CHECK(cudaEventRecord(e, s));  // not a synchronizing call
    EXPECT_LAUNCH_QUIET();
    EXPECT_ERR(cudaEventSynchronize(e), cudaErrorIllegalAddress);
    EXPECT_STICKY(cudaErrorIllegalAddress);
  } else if (!std::strcmp(mode, "memcpy")) {
    oob_write<<<4, 32>>>(buf, kFar);
    EXPECT_LAUNCH_QUIET();
    EXPECT_ERR(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost), cudaErrorIllegalAddress);
    EXPECT_STICKY(cudaErrorIllegalAddress);
  } else if (!std::strcmp(mode, "stream_query")) {
    oob_write<<<4, 32, 0, s>>>(buf, kFar);
    EXPECT_LAUNCH_QUIET();
    // Poll as programs do: NotReady while it runs, then the fault.
    cudaError_t q;
    while ((q = cudaStreamQuery(s)) == cudaErrorNotReady) {
    }
    EXPECT_ERR(q, cudaErrorIllegalAddress);
    EXPECT_STICKY(cudaErrorIllegalAddress);
  } else if (!std::strcmp(mode, "event_query")) {
    oob_write<<<4, 32, 0, s>>>(buf, kFar);
    CHECK(cudaEventRecord(e, s));
    EXPECT_LAUNCH_QUIET();
    cudaError_t q;
    while ((q = cudaEventQuery(e)) == cudaErrorNotReady) {
    }
    EXPECT_ERR(q, cudaErrorIllegalAddress);
    EXPECT_STICKY(cudaErrorIllegalAddress);
  } else if (!std::strcmp(mode, "free")) {
    oob_write<<<4, 32>>>(buf, kFar);
    EXPECT_LAUNCH_QUIET();
    EXPECT_ERR(cudaFree(out), cudaErrorIllegalAddress);
    EXPECT_STICKY(cudaErrorIllegalAddress);
  } else if (!std::strcmp(mode, "queued")) {
    int flag = 0;
    oob_write<<<4, 32>>>(buf, kFar);
    fill<<<1, 32>>>(out, 7);
    EXPECT_LAUNCH_QUIET();
    fill<<<1, 1025>>>(out, 8);  // a bad configuration is refused by the launch itself
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess);  // and is not sticky
    CHECK(cudaLaunchHostFunc(0, set_flag, &flag));
    CHECK(cudaMemsetAsync(out, 0, 64, s));
    CHECK(cudaMemcpyAsync(out, h, sizeof h, cudaMemcpyHostToDevice, s));
    // Their arguments are still checked when they are issued.
    EXPECT_ERR(cudaMemsetAsync(nullptr, 0, 64, s), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpyAsync(out, nullptr, 64, cudaMemcpyDeviceToDevice, s), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
    EXPECT_LAUNCH_QUIET();
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    REQUIRE(flag == 0, "the host function ran behind a faulted kernel");
    EXPECT_STICKY(cudaErrorIllegalAddress);
  } else {
    std::fprintf(stderr, "FAIL async_faults: unknown mode '%s'\n", mode);
    return 2;
  }
  std::printf("PASS async_faults %s\n", mode);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  return run(argv[1]);
}
