// softgpu demo: SAXPY, a shared-memory reduction and device printf, each
// checked against a CPU computation. Build and run with scripts/demo.sh:
//   nvcc -cudart shared -o demo examples/demo.cu && softgpu run ./demo
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t err_ = (call);                                                             \
    if (err_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,       \
                   cudaGetErrorString(err_), cudaGetErrorName(err_));                      \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

constexpr int kBlock = 256;

__constant__ float c_alpha;

__global__ void saxpy(int n, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = c_alpha * x[i] + y[i];
}

// Each block sums kBlock elements in shared memory and adds its partial sum
// to the total with one atomic.
__global__ void block_sum(int n, const int* in, unsigned long long* total) {
  __shared__ int partial[kBlock];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, (unsigned long long)partial[0]);
}

__global__ void hello(int value) {
  if (blockIdx.x == 1 && threadIdx.x == 3)
    printf("hello from block %d thread %d of the simulated GPU: value=%d\n", blockIdx.x, threadIdx.x, value);
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, compute capability %d.%d, %d SMs\n", prop.name, prop.major, prop.minor,
              prop.multiProcessorCount);
  int failures = 0;

  // 1. SAXPY
  const int n = 100000;
  const float alpha = 2.5f;
  std::vector<float> x(n), y(n), expect(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.001f * i;
    y[i] = 1.0f - 0.0005f * i;
    expect[i] = alpha * x[i] + y[i];
  }
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpyToSymbol(c_alpha, &alpha, sizeof alpha));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  saxpy<<<(n + kBlock - 1) / kBlock, kBlock>>>(n, dx, dy);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (std::fabs(y[i] - expect[i]) > 1e-5f * std::fabs(expect[i]) + 1e-6f) ++bad;
  std::printf("saxpy      n=%d: %s (%d mismatches, %.2f us by cudaEvents)\n", n, bad ? "FAIL" : "ok", bad, ms * 1000.0f);
  failures += bad != 0;

  // 2. Shared-memory reduction
  std::vector<int> values(n);
  unsigned long long cpu_sum = 0;
  for (int i = 0; i < n; ++i) {
    values[i] = (i * 7919) % 1000 - 300;
    cpu_sum += (unsigned long long)(long long)values[i];
  }
  int* dvalues;
  unsigned long long* dtotal;
  CHECK(cudaMalloc(&dvalues, n * sizeof(int)));
  CHECK(cudaMalloc(&dtotal, sizeof(unsigned long long)));
  CHECK(cudaMemcpy(dvalues, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dtotal, 0, sizeof(unsigned long long)));
  block_sum<<<(n + kBlock - 1) / kBlock, kBlock>>>(n, dvalues, dtotal);
  CHECK(cudaGetLastError());
  unsigned long long gpu_sum = 0;
  CHECK(cudaMemcpy(&gpu_sum, dtotal, sizeof gpu_sum, cudaMemcpyDeviceToHost));
  bool sum_ok = gpu_sum == cpu_sum;
  std::printf("reduction  n=%d: %s (gpu %lld, cpu %lld)\n", n, sum_ok ? "ok" : "FAIL", (long long)gpu_sum,
              (long long)cpu_sum);
  failures += !sum_ok;

  // 3. Device printf from one thread
  std::fflush(stdout);
  hello<<<2, 32>>>(42);
  CHECK(cudaDeviceSynchronize());

  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  CHECK(cudaFree(dvalues));
  CHECK(cudaFree(dtotal));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  std::printf("demo: %s\n", failures ? "FAILED" : "all checks passed");
  return failures ? 1 : 0;
}
