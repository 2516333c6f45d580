// Device printf of integers, floats, doubles, strings, chars and pointers. The
// ctest compares stdout with printf.expected (as a sorted set of lines, since
// the order of lines from different threads is not defined) and checks that
// the two pointer renderings agree (check_printf.cmake).
#include "check.cuh"

__device__ const char d_word[] = "softgpu";

__global__ void fmt_kernel(const int* p, int k, float f, double d) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    printf("ints: %d %i %u %x %X %o %lld %llu\n", 42, -17, 4000000000u, 0xbeefu, 0xcafeu, 8, -1234567890123LL,
           18446744073709551615ULL);
    printf("widths: [%5d] [%-5d] [%05d] [%+d] [%3s] [%-4s|]\n", 7, 7, 42, 9, "ab", "cd");
    printf("floats: %f %.3f %e %g %g %.1f\n", f, 3.140625f, 1234.5, 0.0001, 1e20, -0.375);
    printf("double: %.10f %.15g\n", d, d / 3.0);
    printf("strings: %s|%s|%c%c\n", d_word, "literal", 'o', 'k');
    printf("ptr %p hex %llx\n", (const void*)p, (unsigned long long)p);
    printf("percent: 100%% done, k=%d\n", k);
    printf("many: %d %d %d %d %d %d %d %d %d %d %d %d\n", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
  }
  // Several threads and blocks print; only the set of lines is checked.
  if (threadIdx.x < 3) printf("block %d thread %d value %d\n", blockIdx.x, threadIdx.x, p[blockIdx.x * 3 + threadIdx.x]);
}

int main() {
  int h[6] = {10, 11, 12, 20, 21, 22};
  int* d;
  CHECK(cudaMalloc(&d, sizeof(h)));
  CHECK(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
  std::fflush(stdout);
  fmt_kernel<<<2, 64>>>(d, 5, 1.5f, 2.718281828459045);
  CHECK_LAUNCH();  // device printf output is flushed at the synchronization
  CHECK(cudaFree(d));
  std::printf("PASS printf\n");
  return 0;
}
