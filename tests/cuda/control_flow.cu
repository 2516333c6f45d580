// Divergent, nested and data-dependent control flow with early returns. The
// per-element function is __host__ __device__, so the CPU runs the very same
// source as the reference: any difference is an execution bug (reconvergence,
// predication, loop exits), not a numeric one. All integer, compared exactly.
#include "check.cuh"
#include <vector>

__host__ __device__ int collatz_steps(unsigned x) {
  int steps = 0;
  while (x != 1 && steps < 1000) {  // data-dependent trip count
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++steps;
  }
  return steps;
}

__host__ __device__ int classify(int v) {
  if (v < 0) return -1;  // early return
  int acc = 0;
  switch (v % 7) {  // may become a jump table or a compare chain
    case 0: acc = 10; break;
    case 1: acc = v * 3; break;
    case 2:
    case 3: acc = v ^ 0x55; break;
    case 4: acc = -v; break;
    case 5:
      for (int i = 0; i < (v & 15); ++i) {  // nested loops with break/continue
        if (i == 11) break;
        if (i % 3 == 0) continue;
        for (int j = i; j < 20; j += 3) {
          if ((i * j) % 5 == 4) break;
          acc += i * j;
        }
      }
      break;
    default: acc = collatz_steps((unsigned)v + 1); break;
  }
  if (acc > 1000) return acc % 1000;  // another early exit
  return acc + (v & 1 ? 1 : 2);
}

// out[i] = classify(in[i]), with an early return for the tail and for odd
// multiples of 5 (which write a marker first), so lanes of one warp leave at
// different points.
__global__ void flow(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  if (v % 10 == 5 || v % 10 == -5) {
    out[i] = 77777;
    return;
  }
  int r = classify(v);
  if (r & 1) {
    if (r & 2) r += 100;
    else r -= 100;
  } else if (r > 50) {
    r *= 2;
  }
  out[i] = r;
}

// Warp votes in converged code over data-dependent predicates; results are
// written per warp by lane 0. The grid exactly covers n (multiple of 32).
__global__ void votes(const int* in, unsigned* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  unsigned ballot = __ballot_sync(0xffffffffu, v > 0);
  int any = __any_sync(0xffffffffu, v == 12345);
  int all = __all_sync(0xffffffffu, v > -1000000);
  if ((threadIdx.x & 31) == 0) {
    int w = i / 32;
    out[3 * w] = ballot;
    out[3 * w + 1] = (unsigned)any;
    out[3 * w + 2] = (unsigned)all + 2u * (unsigned)__popc(ballot);
  }
}

int main() {
  const int n = 100003;
  std::vector<int> in(n), out(n), want(n);
  Lcg rng(9);
  for (int i = 0; i < n; ++i) in[i] = (int)(rng.next() % 4001) - 1000;
  for (int i = 0; i < n; ++i) {
    int v = in[i];
    if (v % 10 == 5 || v % 10 == -5) { want[i] = 77777; continue; }
    int r = classify(v);
    if (r & 1) r += (r & 2) ? 100 : -100;
    else if (r > 50) r *= 2;
    want[i] = r;
  }
  int *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dout, 0, n * sizeof(int)));
  flow<<<(n + 127) / 128, 128>>>(din, dout, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  if (count_mismatches("flow", out.data(), want.data(), n)) return 1;

  const int vn = 64 * 32;
  std::vector<int> vin(vn);
  for (int i = 0; i < vn; ++i) vin[i] = (int)(rng.next() % 200) - 100;
  for (int i = 0; i < 32; ++i) vin[32 * 5 + i] = i + 1;  // warp 5: all positive
  vin[32 * 9 + 17] = 12345;                               // warp 9: any() true
  vin[32 * 11 + 3] = -2000000;                            // warp 11: all() false
  std::vector<unsigned> vout(3 * 64), vwant(3 * 64);
  for (int w = 0; w < 64; ++w) {
    unsigned b = 0;
    int any = 0, all = 1;
    for (int l = 0; l < 32; ++l) {
      int v = vin[32 * w + l];
      if (v > 0) b |= 1u << l;
      any |= v == 12345;
      all &= v > -1000000;
    }
    vwant[3 * w] = b;
    vwant[3 * w + 1] = (unsigned)any;
    vwant[3 * w + 2] = (unsigned)all + 2u * (unsigned)__builtin_popcount(b);
  }
  int* dvin;
  unsigned* dvout;
  CHECK(cudaMalloc(&dvin, vn * sizeof(int)));
  CHECK(cudaMalloc(&dvout, 3 * 64 * sizeof(unsigned)));
  CHECK(cudaMemcpy(dvin, vin.data(), vn * sizeof(int), cudaMemcpyHostToDevice));
  votes<<<vn / 128, 128>>>(dvin, dvout);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(vout.data(), dvout, 3 * 64 * sizeof(unsigned), cudaMemcpyDeviceToHost));
  if (count_mismatches("votes", vout.data(), vwant.data(), 3 * 64)) return 1;

  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(dvin));
  CHECK(cudaFree(dvout));
  std::printf("PASS control_flow\n");
  return 0;
}
