// Device assert(): nvcc lowers a failing assert to __assertfail(message, file,
// line, function, charSize). On hardware each failing thread prints
//   FILE:LINE: FUNCTION: block: [bx,by,bz], thread: [tx,ty,tz] Assertion `COND` failed.
// and the launch ends with cudaErrorAssert (710), a sticky error.
// Usage: device_assert pass|fail
#include <cassert>

#include "../check.cuh"

__global__ void checked(const int* v, int* out, int limit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(v[i] < limit);
  out[i] = v[i] * 2;
}

static int run(bool fail) {
  const int n = 64;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  if (fail) h[37] = 1000;  // block 1, thread 5 (blocks of 32)
  int *v, *out;
  CHECK(cudaMalloc(&v, n * sizeof(int)));
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  CHECK(cudaMemcpy(v, h, sizeof h, cudaMemcpyHostToDevice));
  checked<<<2, 32>>>(v, out, 100);
  if (!fail) {
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int r[n];
    CHECK(cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
      if (r[i] != 2 * i) {
        std::printf("FAIL out[%d] = %d, expected %d\n", i, r[i], 2 * i);
        return 1;
      }
    std::printf("PASS device_assert pass\n");
    return 0;
  }
  EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorAssert);
  // Sticky: the context is unusable from now on.
  EXPECT_ERR(cudaGetLastError(), cudaErrorAssert);
  EXPECT_ERR(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost), cudaErrorAssert);
  void* p = nullptr;
  EXPECT_ERR(cudaMalloc(&p, 16), cudaErrorAssert);
  EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorAssert);
  std::printf("PASS device_assert fail\n");
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  return run(std::strcmp(argv[1], "fail") == 0);
}
