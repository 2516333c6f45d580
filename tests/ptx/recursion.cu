// Recursive, non-inlined device function: out[i] = fib(ns[i]) for i < n,
// with fib(0) = 0, fib(1) = 1 (naive recursion, real call/ret with a stack).
__device__ __noinline__ int fib(int k) { return k < 2 ? k : fib(k - 1) + fib(k - 2); }

extern "C" __global__ void fib_kernel(const int* ns, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fib(ns[i]);
}
