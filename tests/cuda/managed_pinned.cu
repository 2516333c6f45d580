// Managed memory (cudaMallocManaged and __managed__ variables) read and written
// by both host and device, and pinned host memory: cudaMallocHost for copies
// and cudaHostAlloc(cudaHostAllocMapped) accessed by the kernel directly
// through cudaHostGetDevicePointer (zero-copy).
#include "check.cuh"

__managed__ int m_total = 0;
__managed__ int m_vals[64];

__global__ void managed_kernel(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * 2.0f + 1.0f;
  if (i < 64) {
    atomicAdd(&m_total, m_vals[i]);
    m_vals[i] = -m_vals[i];
  }
}

__global__ void mapped_kernel(const int* in, int* mapped_out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) mapped_out[i] = in[i] * in[i];
}

int main() {
  const int n = 10000;
  float* data;
  CHECK(cudaMallocManaged(&data, n * sizeof(float)));
  for (int i = 0; i < n; ++i) data[i] = (float)(i % 100) * 0.5f;  // host writes managed memory
  int sum = 0;
  for (int i = 0; i < 64; ++i) {  // host writes __managed__ variables
    m_vals[i] = i * 3 - 50;
    sum += m_vals[i];
  }
  m_total = 7;
  managed_kernel<<<(n + 255) / 256, 256>>>(data, n);
  CHECK_LAUNCH();
  for (int i = 0; i < n; ++i) {  // host reads what the device wrote
    float want = (float)(i % 100) * 0.5f * 2.0f + 1.0f;
    REQUIRE(data[i] == want, "managed data[%d] = %f, expected %f", i, data[i], want);
  }
  REQUIRE(m_total == 7 + sum, "m_total = %d, expected %d", m_total, 7 + sum);
  for (int i = 0; i < 64; ++i) REQUIRE(m_vals[i] == -(i * 3 - 50), "m_vals[%d] = %d", i, m_vals[i]);
  CHECK(cudaFree(data));

  // Pinned memory: cudaMallocHost buffer as a copy source, mapped buffer as the kernel's output.
  int* h_in;
  int* h_mapped;
  CHECK(cudaMallocHost(&h_in, n * sizeof(int)));
  CHECK(cudaHostAlloc(&h_mapped, n * sizeof(int), cudaHostAllocMapped));
  for (int i = 0; i < n; ++i) {
    h_in[i] = i - 5000;
    h_mapped[i] = -1;
  }
  int* d_in;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice));
  int* d_mapped = nullptr;
  CHECK(cudaHostGetDevicePointer(&d_mapped, h_mapped, 0));
  REQUIRE(d_mapped != nullptr, "cudaHostGetDevicePointer returned null");
  mapped_kernel<<<(n + 127) / 128, 128>>>(d_in, d_mapped, n);
  CHECK_LAUNCH();
  for (int i = 0; i < n; ++i)
    REQUIRE(h_mapped[i] == (i - 5000) * (i - 5000), "mapped[%d] = %d, expected %d", i, h_mapped[i],
            (i - 5000) * (i - 5000));
  cudaPointerAttributes attr;
  CHECK(cudaPointerGetAttributes(&attr, h_mapped));
  REQUIRE(attr.type == cudaMemoryTypeHost, "pointer type of pinned memory is %d", (int)attr.type);
  CHECK(cudaFree(d_in));
  CHECK(cudaFreeHost(h_in));
  CHECK(cudaFreeHost(h_mapped));
  std::printf("PASS managed_pinned\n");
  return 0;
}
