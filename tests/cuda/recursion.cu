// Recursive and __noinline__ device functions: real calls with a stack
// (recursion depth depends on data), mutual recursion, structs passed and
// returned by value, many parameters, and a local array passed by pointer into
// a recursive sort. The CPU runs the same __host__ __device__ source as the
// reference; integers, exact. (Indirect calls: function_pointers.cu.)
#include "check.cuh"
#include <vector>

struct Pair { int a; long long b; };

__host__ __device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__host__ __device__ __noinline__ bool is_odd(unsigned n);
__host__ __device__ __noinline__ bool is_even(unsigned n) { return n == 0 ? true : is_odd(n - 1); }
__host__ __device__ __noinline__ bool is_odd(unsigned n) { return n == 0 ? false : is_even(n - 1); }

__host__ __device__ __noinline__ int ackermann(int m, int n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann(m - 1, 1);
  return ackermann(m - 1, ackermann(m, n - 1));
}

__host__ __device__ __noinline__ Pair combine(Pair p, int x, int y, int z, int w, int u, int v,
                                            long long s, char c, short h) {
  Pair r;
  r.a = p.a * 3 + x - y + z * w - u + v + c + h;
  r.b = p.b * 7 + s - x * (long long)y;
  return r;
}

// Recursive quicksort on a per-thread local array (exercises the local stack
// frames and pointers into local memory).
__host__ __device__ __noinline__ void qsort_rec(int* a, int lo, int hi) {
  if (lo >= hi) return;
  int p = a[(lo + hi) / 2], i = lo, j = hi;
  while (i <= j) {
    while (a[i] < p) ++i;
    while (a[j] > p) --j;
    if (i <= j) { int t = a[i]; a[i] = a[j]; a[j] = t; ++i; --j; }
  }
  qsort_rec(a, lo, j);
  qsort_rec(a, i, hi);
}

__host__ __device__ unsigned long long compute(int seed) {
  unsigned long long r = fib(seed % 12);
  r = r * 3 + (is_even((unsigned)seed % 301) ? 1 : 2);
  r = r * 5 + ackermann(seed % 3, seed % 5);
  Pair p{seed, seed * 11LL};
  p = combine(p, seed, seed + 1, seed % 9, 3, 4, -5, 1LL << 40, (char)(seed & 63), (short)-seed);
  r ^= (unsigned long long)(p.a + p.b);
  int arr[24];
  for (int k = 0; k < 24; ++k) arr[k] = (seed * 7919 + k * 104729) % 1000 - 500;
  qsort_rec(arr, 0, 23);
  for (int k = 0; k < 24; ++k) r = r * 31 + (unsigned)arr[k];  // unsigned: wraps, no UB
  return r;
}

__global__ void run(unsigned long long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = compute(i);
}

int main() {
  const int n = 640;
  // Recursion and local arrays need more than the default per-thread stack on
  // some configurations; ask for plenty (valid on every CUDA device).
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 16 * 1024));
  unsigned long long* d;
  CHECK(cudaMalloc(&d, n * sizeof(unsigned long long)));
  run<<<(n + 63) / 64, 64>>>(d, n);
  CHECK_LAUNCH();
  std::vector<unsigned long long> got(n), want(n);
  CHECK(cudaMemcpy(got.data(), d, n * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) want[i] = compute(i);
  if (count_mismatches("run", got.data(), want.data(), n)) return 1;
  CHECK(cudaFree(d));
  std::printf("PASS recursion\n");
  return 0;
}
