// Recursive non-inlined functions, local arrays, structs by value, indirect calls.
#include <cstdio>
struct Pair { int a; float b; double c; };
struct Big { float v[4]; };

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ __noinline__ Pair make_pair(int a, Big b) { Pair p; p.a = a; p.b = b.v[0] + b.v[3]; p.c = a * 2.0; return p; }
__device__ __noinline__ float twice(float x) { return 2 * x; }
__device__ __noinline__ float thrice(float x) { return 3 * x; }
typedef float (*fn_t)(float);
__device__ fn_t fns[2] = {twice, thrice};

__global__ void use_funcs(int* out, Pair p, Big b, int which) {
  int local[32];
  for (int i = 0; i < 32; ++i) local[i] = i * out[i];
  Pair q = make_pair(local[threadIdx.x % 32], b);
  out[threadIdx.x] = fib(threadIdx.x) + q.a + (int)q.b + p.a + (int)fns[which & 1]((float)p.b);
  switch (out[0]) {
    case 0: out[1] = 5; break; case 1: out[2] = 7; break; case 2: out[3] = 1; break;
    case 3: out[4] = 9; break; case 4: out[5] = 2; break; case 5: out[6] = 11; break;
    default: break;
  }
}
__global__ void __launch_bounds__(128, 4) bounded(float* x) { x[threadIdx.x] *= 2.0f; }
