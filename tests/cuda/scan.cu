// Multi-pass inclusive prefix sum of integers: (1) each block scans its chunk
// (per-thread serial scan, warp scan with __shfl_up_sync, then a scan of the
// warp totals in shared memory) and writes its total; (2) the block totals are
// scanned recursively with the same kernels; (3) each block adds the scanned
// total of the blocks before it. Integer addition is exact.
#include "check.cuh"
#include <vector>

constexpr int BLOCK = 256;
constexpr int PER_THREAD = 4;
constexpr int CHUNK = BLOCK * PER_THREAD;  // elements per block

__global__ void scan_blocks(const unsigned* in, unsigned* out, unsigned* block_totals, int n) {
  __shared__ unsigned warp_totals[BLOCK / 32];
  int base = blockIdx.x * CHUNK + threadIdx.x * PER_THREAD;
  unsigned v[PER_THREAD];
  unsigned run = 0;
  for (int k = 0; k < PER_THREAD; ++k) {
    run += (base + k < n) ? in[base + k] : 0u;
    v[k] = run;
  }
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned x = run;  // inclusive warp scan of the per-thread totals
  for (int off = 1; off < 32; off <<= 1) {
    unsigned y = __shfl_up_sync(0xffffffffu, x, off);
    if (lane >= off) x += y;
  }
  if (lane == 31) warp_totals[warp] = x;
  __syncthreads();
  if (warp == 0) {
    unsigned t = lane < BLOCK / 32 ? warp_totals[lane] : 0u;
    for (int off = 1; off < 32; off <<= 1) {
      unsigned y = __shfl_up_sync(0xffffffffu, t, off);
      if (lane >= off) t += y;
    }
    if (lane < BLOCK / 32) warp_totals[lane] = t;
  }
  __syncthreads();
  unsigned prefix = (x - run) + (warp > 0 ? warp_totals[warp - 1] : 0u);
  for (int k = 0; k < PER_THREAD; ++k)
    if (base + k < n) out[base + k] = v[k] + prefix;
  if (threadIdx.x == BLOCK - 1) block_totals[blockIdx.x] = warp_totals[BLOCK / 32 - 1];
}

__global__ void add_offsets(unsigned* out, const unsigned* scanned_totals, int n) {
  if (blockIdx.x == 0) return;  // first chunk has nothing before it
  unsigned add = scanned_totals[blockIdx.x - 1];
  for (int k = 0; k < PER_THREAD; ++k) {
    int i = blockIdx.x * CHUNK + k * BLOCK + threadIdx.x;
    if (i < n) out[i] += add;
  }
}

// Scans d_in[0..n) into d_out; recursion depth is log_CHUNK(n).
static int scan(const unsigned* d_in, unsigned* d_out, int n, int* levels) {
  ++*levels;
  int blocks = (n + CHUNK - 1) / CHUNK;
  unsigned *totals, *scanned;
  CHECK(cudaMalloc(&totals, blocks * sizeof(unsigned)));
  CHECK(cudaMalloc(&scanned, blocks * sizeof(unsigned)));
  scan_blocks<<<blocks, BLOCK>>>(d_in, d_out, totals, n);
  CHECK(cudaGetLastError());
  if (blocks > 1) {
    if (scan(totals, scanned, blocks, levels)) return 1;
    add_offsets<<<blocks, BLOCK>>>(d_out, scanned, n);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(totals));
  CHECK(cudaFree(scanned));
  return 0;
}

int main() {
  const int n = 1048576 + 4097;  // three levels: 1029 blocks, then 2, then 1
  std::vector<unsigned> in(n), out(n), want(n);
  Lcg rng(5);
  unsigned run = 0;
  for (int i = 0; i < n; ++i) {
    in[i] = rng.next() % 1000;
    run += in[i];
    want[i] = run;
  }
  unsigned *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&dout, n * sizeof(unsigned)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dout, 0xAB, n * sizeof(unsigned)));
  int levels = 0;
  if (scan(din, dout, n, &levels)) return 1;
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  if (count_mismatches("scan", out.data(), want.data(), n)) return 1;
  REQUIRE(levels == 3, "expected 3 scan levels, ran %d", levels);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  std::printf("PASS scan\n");
  return 0;
}
