// API misuse that must return an exact error code without breaking the
// context. Usage: misuse MODE. After the expected error, each mode checks that
// a valid kernel still runs and computes the right result (these errors are
// not sticky).
//   too_many_threads  <<<1, 1025>>>: cudaGetLastError -> cudaErrorInvalidValue
//                     (CUDA 13.0 with driver 580 on an H200 returns InvalidValue
//                     here, not the cudaErrorInvalidConfiguration of older
//                     releases; this test asserts what the real stack does)
//   too_much_smem     1 MiB dynamic shared memory -> cudaErrorInvalidValue
//   memcpy_past_end   copy 4 bytes too many, or 64 MiB, out of / into a 4 KiB
//                     allocation -> cudaErrorInvalidValue
//   memcpy_null       cudaMemcpy from a null device pointer -> cudaErrorInvalidValue
//   double_free       cudaFree of a freed pointer -> cudaErrorInvalidValue
#include "check.cuh"
#include <vector>

__global__ void fill_kernel(int* out, int v) { out[blockIdx.x * blockDim.x + threadIdx.x] = v + threadIdx.x; }

__global__ void smem_kernel(int* out) {
  extern __shared__ int s[];
  s[threadIdx.x] = threadIdx.x;
  out[threadIdx.x] = s[threadIdx.x];
}

// Runs a correct kernel and checks its output, proving the context still works.
static int still_works() {
  int* d;
  CHECK(cudaMalloc(&d, 256 * sizeof(int)));
  fill_kernel<<<2, 128>>>(d, 40);
  CHECK_LAUNCH();
  int h[256];
  CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 256; ++i) REQUIRE(h[i] == 40 + i % 128, "after the error, out[%d] = %d", i, h[i]);
  CHECK(cudaFree(d));
  return 0;
}

static int run(const char* mode) {
  int* d;
  CHECK(cudaMalloc(&d, 1024 * sizeof(int)));  // 4 KiB
  if (!std::strcmp(mode, "too_many_threads")) {
    fill_kernel<<<1, 1025>>>(d, 0);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess);  // reading the error cleared it
    dim3 too_big_z(1, 1, 65);                      // blockDim.z limit is 64
    fill_kernel<<<1, too_big_z>>>(d, 0);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
  } else if (!std::strcmp(mode, "too_much_smem")) {
    smem_kernel<<<1, 32, 1 << 20>>>(d);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess);
  } else if (!std::strcmp(mode, "memcpy_past_end")) {
    const size_t big = 64u << 20;
    std::vector<char> h(big);
    EXPECT_ERR(cudaMemcpy(h.data(), d, 4096 + 4, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(d + 1, h.data(), 4096, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(h.data(), d, big, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);  // also recorded as the last error
    EXPECT_ERR(cudaMemcpy(d, h.data(), big, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
  } else if (!std::strcmp(mode, "memcpy_null")) {
    int h[4];
    EXPECT_ERR(cudaMemcpy(h, nullptr, sizeof(h), cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(nullptr, h, sizeof(h), cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
  } else if (!std::strcmp(mode, "double_free")) {
    int* p;
    CHECK(cudaMalloc(&p, 256));
    CHECK(cudaFree(p));
    EXPECT_ERR(cudaFree(p), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
    CHECK(cudaFree(nullptr));  // freeing null is always allowed
  } else {
    std::fprintf(stderr, "FAIL misuse: unknown mode '%s'\n", mode);
    return 2;
  }
  EXPECT_ERR(cudaGetLastError(), cudaSuccess);
  if (still_works()) return 1;
  CHECK(cudaFree(d));
  std::printf("PASS misuse %s\n", mode);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: misuse too_many_threads|too_much_smem|memcpy_past_end|memcpy_null|double_free\n");
    return 2;
  }
  return run(argv[1]);
}
