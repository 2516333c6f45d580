// Device printf (lowered to a call of vprintf with a packed argument buffer).
// Launched with grid 2, block 4 and arguments (x = 7, f = 2.5f), each thread
// with threadIdx.x < 2 prints one line:
//   "hello block B thread T x=7 f=2.50 s=ptx\n"  for B in {0,1}, T in {0,1}
// (4 lines, in an undefined order between threads).
#include <cstdio>

extern "C" __global__ void hello(int x, float f) {
  if (threadIdx.x < 2) printf("hello block %d thread %d x=%d f=%.2f s=%s\n", blockIdx.x, threadIdx.x, x, f, "ptx");
}
