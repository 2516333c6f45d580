// Kernel faults. Usage: faults MODE. Each mode runs in its own process because
// a device fault leaves the context unusable (a "sticky" error). The faulting
// access is made by one thread (block 3, thread 5) so that the simulator's
// report can name it. Every mode checks the exact error code and prints
// "PASS faults MODE" only if the runtime behaved as CUDA specifies.
//   oob_read    load far outside any allocation -> cudaErrorIllegalAddress
//   oob_write   store far outside any allocation -> cudaErrorIllegalAddress
//   misaligned  4-byte load from an odd address -> cudaErrorMisalignedAddress
//   trap        __trap()                         -> cudaErrorLaunchFailure
//   asm_trap    asm("trap;")                     -> cudaErrorLaunchFailure
//   timeout     a kernel that never ends          -> cudaErrorLaunchTimeout
//               (needs a watchdog: softgpu run --watchdog 2; a GPU without a
//               display watchdog would wait forever, so never run it natively)
//   sticky      after an illegal address, later calls keep failing
#include "check.cuh"

// 1 GiB past the start of a 4 KiB allocation: outside the allocation in the
// simulator, and in unmapped virtual memory on a real GPU.
constexpr long long kFar = 1LL << 28;  // in ints

__device__ bool is_culprit() { return blockIdx.x == 3 && threadIdx.x == 5; }

__global__ void oob_read_kernel(const int* p, long long off, int* out) {
  long long i = is_culprit() ? off : threadIdx.x;
  out[blockIdx.x * blockDim.x + threadIdx.x] = p[i];
}

__global__ void oob_write_kernel(int* p, long long off) {
  long long i = is_culprit() ? off : threadIdx.x;
  p[i] = (int)threadIdx.x;
}

__global__ void misaligned_kernel(const char* bytes, int* out) {
  int shift = is_culprit() ? 1 : 0;  // only the culprit uses the odd address
  out[blockIdx.x * blockDim.x + threadIdx.x] = *reinterpret_cast<const int*>(bytes + 4 * threadIdx.x + shift);
}

__global__ void trap_kernel(int* out) {
  if (is_culprit()) __trap();
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

__global__ void asm_trap_kernel(int* out) {
  if (is_culprit()) asm volatile("trap;");
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

__global__ void spin_kernel(volatile int* flag) {
  while (*flag == 0) {
  }  // the host never sets the flag
}

__global__ void fill_kernel(int* out, int v) { out[threadIdx.x] = v; }

static int run(const char* mode) {
  const int blocks = 4, threads = 32, n = blocks * threads;
  int* buf;  // 4 KiB
  int* out;
  CHECK(cudaMalloc(&buf, 1024 * sizeof(int)));
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  CHECK(cudaMemset(buf, 0, 1024 * sizeof(int)));
  CHECK(cudaDeviceSynchronize());

  if (!std::strcmp(mode, "oob_read")) {
    oob_read_kernel<<<blocks, threads>>>(buf, kFar, out);
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  } else if (!std::strcmp(mode, "oob_write")) {
    oob_write_kernel<<<blocks, threads>>>(buf, kFar);
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  } else if (!std::strcmp(mode, "misaligned")) {
    misaligned_kernel<<<blocks, threads>>>(reinterpret_cast<const char*>(buf), out);
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorMisalignedAddress);
  } else if (!std::strcmp(mode, "trap")) {
    trap_kernel<<<blocks, threads>>>(out);
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  } else if (!std::strcmp(mode, "asm_trap")) {
    asm_trap_kernel<<<blocks, threads>>>(out);
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  } else if (!std::strcmp(mode, "timeout")) {
    spin_kernel<<<1, 32>>>(buf);  // buf is all zeros
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorLaunchTimeout);
  } else if (!std::strcmp(mode, "sticky")) {
    oob_write_kernel<<<blocks, threads>>>(buf, kFar);
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    // The context is now unusable: every later call reports the same error,
    // and cudaGetLastError cannot clear it.
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    int* more = nullptr;
    EXPECT_ERR(cudaMalloc(&more, 64), cudaErrorIllegalAddress);
    int h[4] = {0, 0, 0, 0};
    EXPECT_ERR(cudaMemcpy(buf, h, sizeof(h), cudaMemcpyHostToDevice), cudaErrorIllegalAddress);
    EXPECT_ERR(cudaGetLastError(), cudaErrorIllegalAddress);
    fill_kernel<<<1, 32>>>(out, 1);
    EXPECT_ERR(cudaGetLastError(), cudaErrorIllegalAddress);
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  } else {
    std::fprintf(stderr, "FAIL faults: unknown mode '%s'\n", mode);
    return 2;
  }
  std::printf("PASS faults %s\n", mode);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: faults oob_read|oob_write|misaligned|trap|asm_trap|timeout|sticky\n");
    return 2;
  }
  return run(argv[1]);
}
