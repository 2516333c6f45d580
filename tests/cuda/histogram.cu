// 256-bin histogram: per-block counts with shared-memory atomicAdd, merged into
// global memory with global atomicAdd. Integer atomics are exact, so the result
// must equal the CPU histogram bit for bit. A second kernel exercises the other
// integer atomics (min, max, inc, cas, exch, and, or, xor) with exact results.
#include "check.cuh"
#include <vector>

constexpr int BINS = 256;

__global__ void histo(const unsigned char* data, int n, unsigned int* bins) {
  __shared__ unsigned int local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    if (local[b]) atomicAdd(&bins[b], local[b]);
}

// r[0]=min, r[1]=max, r[2]=inc counter (wraps at 99), r[3]=cas-based add,
// r[4]=and, r[5]=or, r[6]=xor, r[7]=number of exch calls that saw the initial value.
__global__ void misc_atomics(const int* vals, int n, int* r) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = vals[i];
  atomicMin(&r[0], v);
  atomicMax(&r[1], v);
  atomicInc((unsigned int*)&r[2], 99u);
  int old = r[3], assumed;
  do {  // add 3*v through a compare-and-swap loop
    assumed = old;
    old = atomicCAS(&r[3], assumed, assumed + 3 * v);
  } while (old != assumed);
  atomicAnd(&r[4], ~(1 << (i % 31)));
  atomicOr(&r[5], 1 << (i % 29));
  atomicXor(&r[6], v);
  if (atomicExch(&r[8], i) == -7) atomicAdd(&r[7], 1);  // exactly one thread sees -7
}

int main() {
  const int n = 1000 * 1000 + 11;
  std::vector<unsigned char> data(n);
  std::vector<unsigned int> want(BINS, 0), got(BINS);
  Lcg rng(11);
  for (int i = 0; i < n; ++i) {
    // Skewed distribution so some bins are hot (heavy atomic contention).
    unsigned r = rng.next();
    data[i] = (r & 3) == 0 ? (unsigned char)(r >> 8) : (unsigned char)((r >> 8) & 7);
    want[data[i]]++;
  }
  unsigned char* dd;
  unsigned int* db;
  CHECK(cudaMalloc(&dd, n));
  CHECK(cudaMalloc(&db, BINS * sizeof(unsigned)));
  CHECK(cudaMemcpy(dd, data.data(), n, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(db, 0, BINS * sizeof(unsigned)));
  histo<<<64, 256>>>(dd, n, db);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(got.data(), db, BINS * sizeof(unsigned), cudaMemcpyDeviceToHost));
  if (count_mismatches("bins", got.data(), want.data(), BINS)) return 1;

  const int m = 5000;
  std::vector<int> vals(m);
  for (int i = 0; i < m; ++i) vals[i] = (int)(rng.next() % 200001) - 100000;
  int init[9] = {0x7fffffff, (int)0x80000000, 0, 5, -1, 0, 0, 0, -7};
  int wantr[8];
  wantr[0] = 0x7fffffff; wantr[1] = (int)0x80000000; wantr[3] = 5; wantr[4] = -1; wantr[5] = 0; wantr[6] = 0;
  for (int i = 0; i < m; ++i) {
    wantr[0] = vals[i] < wantr[0] ? vals[i] : wantr[0];
    wantr[1] = vals[i] > wantr[1] ? vals[i] : wantr[1];
    wantr[3] += 3 * vals[i];
    wantr[4] &= ~(1 << (i % 31));
    wantr[5] |= 1 << (i % 29);
    wantr[6] ^= vals[i];
  }
  wantr[2] = m % 100;  // atomicInc with limit 99 counts 0..99 and wraps
  wantr[7] = 1;
  int *dv, *dr;
  CHECK(cudaMalloc(&dv, m * sizeof(int)));
  CHECK(cudaMalloc(&dr, sizeof(init)));
  CHECK(cudaMemcpy(dv, vals.data(), m * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dr, init, sizeof(init), cudaMemcpyHostToDevice));
  misc_atomics<<<(m + 127) / 128, 128>>>(dv, m, dr);
  CHECK_LAUNCH();
  int gotr[9];
  CHECK(cudaMemcpy(gotr, dr, sizeof(gotr), cudaMemcpyDeviceToHost));
  if (count_mismatches("misc_atomics r", gotr, wantr, 8)) return 1;
  REQUIRE(gotr[8] >= 0 && gotr[8] < m, "atomicExch final value %d is not a thread index", gotr[8]);

  CHECK(cudaFree(dd));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dv));
  CHECK(cudaFree(dr));
  std::printf("PASS histogram\n");
  return 0;
}
