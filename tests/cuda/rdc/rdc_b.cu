// Device functions and variables used from rdc_a.cu (see there).
#include "../check.cuh"

__device__ int g_offset;
__device__ int g_calls;

__device__ __noinline__ int poly(int x) { return 3 * x * x - 2 * x + 7; }

__device__ int count_calls(void) { return atomicAdd(&g_calls, 1); }

// Symbols are registered per translation unit, so the host-side accesses to
// this file's variables live here too.
int set_offset(int v) {
  int zero = 0;
  CHECK(cudaMemcpyToSymbol(g_offset, &v, sizeof(int)));
  CHECK(cudaMemcpyToSymbol(g_calls, &zero, sizeof(int)));
  return 0;
}

int read_calls(int* calls) {
  CHECK(cudaMemcpyFromSymbol(calls, g_calls, sizeof(int)));
  return 0;
}
