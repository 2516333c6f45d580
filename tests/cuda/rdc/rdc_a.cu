// Separate compilation (-rdc=true): the kernel here calls device functions and
// reads a __device__ variable that are defined in rdc_b.cu, so the device code
// only works if the two modules are linked together.
#include "../check.cuh"
#include <vector>

extern __device__ int poly(int x);        // defined in rdc_b.cu
extern __device__ int g_offset;           // defined in rdc_b.cu
extern __device__ int count_calls(void);  // defined in rdc_b.cu; increments a counter there

__global__ void apply(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = poly(in[i]) + g_offset;
    count_calls();
  }
}

int host_poly(int x) { return 3 * x * x - 2 * x + 7; }  // must match rdc_b.cu
int set_offset(int v);                                   // host function in rdc_b.cu
int read_calls(int* calls);                              // host function in rdc_b.cu

int main() {
  const int n = 4099;
  std::vector<int> in(n), out(n), want(n);
  for (int i = 0; i < n; ++i) in[i] = i % 301 - 150;
  if (set_offset(1000)) return 1;
  for (int i = 0; i < n; ++i) want[i] = host_poly(in[i]) + 1000;
  int *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  apply<<<(n + 127) / 128, 128>>>(din, dout, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  if (count_mismatches("out", out.data(), want.data(), n)) return 1;
  int calls = -1;
  if (read_calls(&calls)) return 1;
  REQUIRE(calls == n, "counter in rdc_b.cu = %d, expected %d", calls, n);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  std::printf("PASS rdc\n");
  return 0;
}
