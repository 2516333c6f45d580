// One instruction softgpu does not implement fails only the kernels that
// reach it, at their launch, with cudaErrorNotSupported (not sticky); the
// module's other kernels load and run. The two bad kernels use sm_90
// instructions softgpu lacks (multimem: NVLink multicast memory), one
// directly, one through a device function. multimem needs a multicast
// address (cuMulticast*), so the kernels run it only when asked (never,
// here): on a real H100/H200 every launch succeeds, which the program
// accepts too (it prints "ran" instead of the error).
#include <cstdio>
#include <vector>

#include "../check.cuh"

__global__ void fill(int* a, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = v + i;
}

__global__ void saxpy(float k, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = k * x[i] + y[i];
}

__global__ void uses_multimem(int* out, int go) {
  float v = 1;
  if (go) asm volatile("multimem.ld_reduce.relaxed.sys.global.add.f32 %0, [%1];" : "=f"(v) : "l"(out) : "memory");
  out[threadIdx.x] = int(v);
}

__device__ __noinline__ void multimem_helper(int* out, int go) {
  if (go) asm volatile("multimem.red.relaxed.sys.global.add.u32 [%0], 1;" ::"l"(out) : "memory");
  out[threadIdx.x] = 2;
}

__global__ void calls_multimem_helper(int* out, int go) { multimem_helper(out, go); }

// The bad kernel's launch: cudaErrorNotSupported under softgpu, and then
// nothing sticks (synchronize and the last error are clean).
static int launch_bad(const char* name, void (*kernel)(int*, int), int* out) {
  kernel<<<1, 128>>>(out, 0);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) {
    CHECK(cudaDeviceSynchronize());
    std::printf("%s: ran\n", name);
    return 0;
  }
  std::printf("%s: %s (%d): %s\n", name, cudaGetErrorName(e), (int)e, cudaGetErrorString(e));
  if (e != cudaErrorNotSupported) return 1;
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  return 0;
}

static int run_ordinary(int n, int* d_a, float* d_x, float* d_y, int round) {
  fill<<<(n + 127) / 128, 128>>>(d_a, n, 7 * round);
  CHECK_LAUNCH();
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = 0.5f * i, y[i] = float(round) - i;
  CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  saxpy<<<(n + 127) / 128, 128>>>(3.0f, d_x, d_y, n);
  CHECK_LAUNCH();
  std::vector<int> a(n);
  std::vector<float> got(n);
  CHECK(cudaMemcpy(a.data(), d_a, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(got.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    bad += a[i] != 7 * round + i;
    bad += got[i] != 3.0f * x[i] + y[i];
  }
  std::printf("ordinary kernels, round %d: %d mismatches\n", round, bad);
  return bad != 0;
}

int main() {
  const int n = 1000;
  int *d_a, *d_out;
  float *d_x, *d_y;
  CHECK(cudaMalloc(&d_a, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, 128 * sizeof(int)));
  CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CHECK(cudaMalloc(&d_y, n * sizeof(float)));
  if (run_ordinary(n, d_a, d_x, d_y, 1)) return 1;
  if (launch_bad("uses_multimem", uses_multimem, d_out)) return 1;
  if (launch_bad("calls_multimem_helper", calls_multimem_helper, d_out)) return 1;
  if (run_ordinary(n, d_a, d_x, d_y, 2)) return 1;
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_y));
  std::printf("PASS unimplemented\n");
  return 0;
}
