// Findings for softgpu sanitize's --save/--xml/--suppressions workflow, in
// the shapes of NVIDIA's compute-sanitizer Suppressions samples. Each
// argument runs one step, in order:
//   alloc   find the largest power-of-two allocation from 2^45 bytes down:
//           every refused size is a cudaErrorMemoryAllocation API error
//   oob     a kernel writes one int past its buffer (memcheck), then the
//           synchronize fails (cudaErrorLaunchFailure)
//   uninit  a kernel reads a buffer whose last byte nothing wrote (initcheck)
//   abort   the program dies (abort())
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

__global__ void fill(int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = i;  // OOB-WRITE: i == n is one past the end
}

__global__ void doubled(const int* in, int* out, int n) {
  const int i = threadIdx.x;
  if (i < n) out[i] = 2 * in[i];  // UNINIT-READ: in[n-1]'s last byte was never written
}

int main(int argc, char** argv) {
  const int n = 100;
  for (int a = 1; a < argc; ++a) {
    if (!std::strcmp(argv[a], "alloc")) {
      void* p = nullptr;
      int shift = 45;
      while (shift > 0 && cudaMalloc(&p, 1ull << shift) != cudaSuccess) --shift;
      std::printf("largest allocation: 2^%d bytes\n", shift);
      cudaFree(p);
    } else if (!std::strcmp(argv[a], "oob")) {
      int* d = nullptr;
      cudaMalloc(&d, n * sizeof(int));
      fill<<<1, 128>>>(d, n);
      std::printf("oob: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    } else if (!std::strcmp(argv[a], "uninit")) {
      int *in = nullptr, *out = nullptr;
      cudaMalloc(&in, n * sizeof(int));
      cudaMemset(in, 0, n * sizeof(int) - 1);
      cudaMalloc(&out, n * sizeof(int));
      doubled<<<1, n>>>(in, out, n);
      std::printf("uninit: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
      cudaFree(in);
      cudaFree(out);
    } else if (!std::strcmp(argv[a], "abort")) {
      std::fflush(stdout);
      std::abort();
    } else {
      std::fprintf(stderr, "unknown step %s\n", argv[a]);
      return 2;
    }
  }
  return 0;
}
