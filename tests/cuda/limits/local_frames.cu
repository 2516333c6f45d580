// Local memory per thread. Usage: local_frames big|too_big|recursion
//   big        a 200 KB local array per thread, indexed with run-time values
//              (real local memory, not registers): correct sums
//   too_big    a 600 KB frame, beyond the 512 KB a thread may have: the
//              launch fails with cudaErrorLaunchOutOfResources (701), which is
//              not sticky: the next launch works
//   recursion  runaway recursion overflows the stack: the launch ends with
//              cudaErrorHardwareStackError (714), sticky
#include "../check.cuh"

constexpr int kBig = 200 * 1024 / 4;      // ints in 200 KB
constexpr int kTooBig = 600 * 1024 / 4;   // ints in 600 KB

__global__ void big_kernel(const int* stride, long long* out) {
  int a[kBig];
  const int s = stride[threadIdx.x];  // run-time stride: the array must live in memory
  for (int i = 0; i < kBig; ++i) a[(i * s) % kBig] = i + (int)threadIdx.x;
  long long sum = 0;
  for (int k = 0; k < 64; ++k) sum += a[(k * 3203 + (int)threadIdx.x * 11) % kBig];
  out[threadIdx.x] = sum;
}

__global__ void too_big_kernel(const int* stride, int* out) {
  int a[kTooBig];
  const int s = stride[threadIdx.x];
  for (int i = 0; i < kTooBig; ++i) a[(i * s) % kTooBig] = i;
  out[threadIdx.x] = a[(s * 7) % kTooBig];
}

__device__ __noinline__ int runaway(volatile int* p, int n) {
  int v = p[n & 7];
  return v + runaway(p, n + 1);  // never stops
}

__global__ void recursion_kernel(volatile int* p, int* out) { out[threadIdx.x] = runaway(p, threadIdx.x); }

__global__ void fill_kernel(int* out) { out[threadIdx.x] = 7; }

// What big_kernel computes, on the CPU.
static long long expect_big(int t, int s) {
  static int a[kBig];
  for (int i = 0; i < kBig; ++i) a[(int)(((long long)i * s) % kBig)] = i + t;
  long long sum = 0;
  for (int k = 0; k < 64; ++k) sum += a[(k * 3203 + t * 11) % kBig];
  return sum;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const char* mode = argv[1];
  const int n = 8;
  // Strides coprime to kBig = 51200 = 2^11 * 5^2: each visits every slot once.
  int h[n] = {1, 3, 7, 9, 11, 13, 17, 19};
  int* stride;
  int* out;
  long long* sums;
  CHECK(cudaMalloc(&stride, sizeof h));
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  CHECK(cudaMalloc(&sums, n * sizeof(long long)));
  CHECK(cudaMemcpy(stride, h, sizeof h, cudaMemcpyHostToDevice));
  if (!std::strcmp(mode, "big")) {
    big_kernel<<<2, n / 2>>>(stride, sums);  // two blocks, so --threads 2 runs them at once
    big_kernel<<<1, n>>>(stride, sums);
    CHECK_LAUNCH();
    long long r[n];
    CHECK(cudaMemcpy(r, sums, sizeof r, cudaMemcpyDeviceToHost));
    for (int t = 0; t < n; ++t) {
      long long want = expect_big(t, h[t]);
      if (r[t] != want) {
        std::printf("FAIL thread %d: %lld, expected %lld\n", t, r[t], want);
        return 1;
      }
    }
    std::printf("PASS local_frames big %lld\n", r[n - 1]);
    return 0;
  }
  if (!std::strcmp(mode, "too_big")) {
    too_big_kernel<<<1, n>>>(stride, out);
    EXPECT_ERR(cudaGetLastError(), cudaErrorLaunchOutOfResources);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess);  // not sticky
    fill_kernel<<<1, n>>>(out);
    CHECK_LAUNCH();
    int r[n];
    CHECK(cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost));
    if (r[3] != 7) return 1;
    std::printf("PASS local_frames too_big\n");
    return 0;
  }
  if (!std::strcmp(mode, "recursion")) {
    recursion_kernel<<<2, 32>>>(reinterpret_cast<volatile int*>(stride), out);
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorHardwareStackError);
    EXPECT_ERR(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost), cudaErrorHardwareStackError);
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorHardwareStackError);
    std::printf("PASS local_frames recursion\n");
    return 0;
  }
  return 2;
}
