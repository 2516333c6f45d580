// initcheck: memory written by one kernel and read by the next is fine;
// memory freed and allocated again is uninitialized again, for cudaMalloc
// and for a cudaMallocAsync pool block. Modes: seeded (default), fixed
// (a cudaMemset after each new allocation).
#include <cstdio>
#include <cstring>

__global__ void produce(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = 2.0f * i;
}

__global__ void consume(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] + 1.0f;
}

int main(int argc, char** argv) {
  const bool fixed = argc > 1 && std::strcmp(argv[1], "fixed") == 0;
  const int n = 64;
  const size_t bytes = n * sizeof(float);
  float *a = nullptr, *b = nullptr;
  cudaMalloc(&a, bytes);
  cudaMalloc(&b, bytes);
  produce<<<2, 32>>>(a, n);
  consume<<<2, 32>>>(a, b, n);  // fine: produce wrote every element
  cudaDeviceSynchronize();

  void* old = a;
  cudaFree(a);
  cudaMalloc(&a, bytes);
  std::printf("same address: %s\n", old == a ? "yes" : "no");
  if (fixed) cudaMemset(a, 0, bytes);
  consume<<<1, 1>>>(a, b, 1);  // seeded: reads a[0] of the new allocation

  cudaStream_t s;
  cudaStreamCreate(&s);
  float* p = nullptr;
  cudaMallocAsync(&p, bytes, s);
  produce<<<2, 32, 0, s>>>(p, n);
  cudaFreeAsync(p, s);
  float* q = nullptr;
  cudaMallocAsync(&q, bytes, s);  // the pool's cached block again
  std::printf("pool reused: %s\n", p == q ? "yes" : "no");
  if (fixed) cudaMemsetAsync(q, 0, bytes, s);
  consume<<<1, 32, 0, s>>>(q + 32, b, 1);  // seeded: reads q[32]
  cudaFreeAsync(q, s);
  cudaStreamSynchronize(s);
  cudaStreamDestroy(s);
  cudaFree(a);
  cudaFree(b);
  return 0;
}
