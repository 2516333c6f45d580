// The timing model's validation kernels as one ordinary CUDA program, timed
// with cudaEvents: run natively on a GPU it measures, run under `softgpu
// run --timing --gpu KEY` it predicts (scripts/native-validate.sh puts the
// two side by side in docs/validation.md). Shapes as in the held-out set
// (tests/timing/heldout.json): gpu-stream-like streams of doubles, one per
// thread, at 2 CTAs per SM (block 256, a dynamic shared-memory spoiler) and
// at full occupancy (block 1024); a gpu-cache-like sum, every SM's one CTA
// of 256 threads re-reading one buffer, 32 loads in flight per warp; a
// one-thread pointer chase per cache level (cycles per load from clock64()
// and from the events). Each result is checked on the host.
//
// Usage: validation_kernels [--n DOUBLES] [--reps R] [--passes P]
// Prints one line per kernel: "kernel=NAME us=T value=V unit=U"
// (T the best of R runs; V the figure the held-out set or the configs
// publish: GB/s, or cycles per load), then "PASS validation_kernels".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../check.cuh"

namespace {

__global__ void st_init(double* a, double v, size_t n) {
  extern __shared__ char spoiler[];
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) a[i] = v;
  if (v < 0) spoiler[threadIdx.x] = 0;  // never: keeps the spoiler
}

// Reads a; stores only when the value is one it never has (no writes).
__global__ void st_read(const double* a, double* sink, size_t n) {
  extern __shared__ char spoiler[];
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    const double x = a[i];
    if (x == -1.0) sink[i] = x + double(spoiler[0]);
  }
}

__global__ void st_scale(double* b, const double* a, double s, size_t n) {
  extern __shared__ char spoiler[];
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) b[i] = s * a[i];
  if (s < 0) spoiler[threadIdx.x] = 0;
}

__global__ void st_triad(double* a, const double* b, const double* c, double s, size_t n) {
  extern __shared__ char spoiler[];
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i] + s * c[i];
  if (s < 0) spoiler[threadIdx.x] = 0;
}

// Thread t of the one CTA per SM sums floats t, t+256, ... of b, `passes`
// times; 32 independent loads per unrolled step. The pointer moves by
// `zero` (0, unknown to the compiler) each pass, so that nvcc cannot keep
// a small buffer's values in registers across passes. Stored only if the
// sum is a value it never reaches.
template <int PerThread>
__global__ void cache_sum(float* out, const float* __restrict__ b, int passes, int zero) {
  float sum = 0;
  const float* p = b + threadIdx.x;
  // Buffers of fewer than 32 floats a thread: passes unrolled to 32 loads.
#pragma unroll (PerThread >= 32 ? 1 : 32 / PerThread)
  for (int pass = 0; pass < passes; ++pass) {
    p += zero;
#pragma unroll 32
    for (int k = 0; k < PerThread; ++k) sum += p[k * 256];
    sum *= 1.3f;
  }
  if (sum == 1233.0f) out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// One thread follows `steps` links of a ring; cycles per link by clock64().
__global__ void chase(const unsigned* ring, unsigned steps, unsigned* end, long long* cycles) {
  unsigned j = 0;
  const long long t0 = clock64();
  for (unsigned s = 0; s < steps; ++s) j = ring[j];
  const long long t1 = clock64();
  *end = j;
  *cycles = t1 - t0;
}

struct Timer {
  cudaEvent_t a, b;
  Timer() { cudaEventCreate(&a); cudaEventCreate(&b); }
  ~Timer() { cudaEventDestroy(a); cudaEventDestroy(b); }
};

int reps = 3;

// Best of `runs` runs of `launch` between two events, in microseconds; < 0 on error.
template <class F>
double time_us(F launch, int runs = reps) {
  Timer t;
  double best = -1;
  for (int r = 0; r < runs; ++r) {
    if (cudaEventRecord(t.a) != cudaSuccess) return -1;
    launch();
    if (cudaGetLastError() != cudaSuccess || cudaEventRecord(t.b) != cudaSuccess ||
        cudaEventSynchronize(t.b) != cudaSuccess)
      return -1;
    float ms = 0;
    if (cudaEventElapsedTime(&ms, t.a, t.b) != cudaSuccess) return -1;
    if (best < 0 || ms * 1000.0 < best) best = ms * 1000.0;
  }
  return best;
}

void report(const char* name, double us, double value, const char* unit) {
  std::printf("kernel=%s us=%.3f value=%.1f unit=%s\n", name, us, value, unit);
}

int streams(size_t n, const cudaDeviceProp& prop) {
  double *a, *b, *c, *sink;
  CHECK(cudaMalloc(&a, n * 8));
  CHECK(cudaMalloc(&b, n * 8));
  CHECK(cudaMalloc(&c, n * 8));
  CHECK(cudaMalloc(&sink, 8));
  for (int block : {256, 1024}) {
    // Block 256: a spoiler of half the SM's shared memory (less the
    // per-CTA reserve) leaves room for 2 CTAs per SM, 16 warps.
    const size_t smem = block == 256 ? prop.sharedMemPerMultiprocessor / 2 - 2048 : 0;
    for (const void* k : {(const void*)st_init, (const void*)st_read, (const void*)st_scale, (const void*)st_triad})
      CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    const unsigned grid = unsigned(n / block + 1);
    char name[64];
    struct Run { const char* kernel; int arrays; double us; };
    Run runs[4] = {{"init", 1, 0}, {"read", 1, 0}, {"scale", 2, 0}, {"triad", 3, 0}};
    runs[0].us = time_us([&] { st_init<<<grid, block, smem>>>(c, 2.0, n); });
    CHECK(cudaDeviceSynchronize());
    st_init<<<grid, block, smem>>>(b, 1.0, n);
    runs[1].us = time_us([&] { st_read<<<grid, block, smem>>>(b, sink, n); });
    runs[2].us = time_us([&] { st_scale<<<grid, block, smem>>>(a, b, 3.0, n); });
    runs[3].us = time_us([&] { st_triad<<<grid, block, smem>>>(a, b, c, 0.5, n); });
    for (const Run& r : runs) {
      if (r.us <= 0) { std::printf("FAIL stream %s block %d did not run\n", r.kernel, block); return 1; }
      std::snprintf(name, sizeof name, "stream.%s.b%d", r.kernel, block);
      report(name, r.us, double(r.arrays) * double(n) * 8 / (r.us * 1e-6) / 1e9, "GB/s");
    }
  }
  // a = b + 0.5 c = 1 + 0.5 x 2 = 2, checked at both ends and the middle.
  for (size_t i : {size_t(0), n / 2, n - 1}) {
    double v = 0;
    CHECK(cudaMemcpy(&v, a + i, 8, cudaMemcpyDeviceToHost));
    if (v != 2.0) { std::printf("FAIL triad a[%zu] = %g, expected 2\n", i, v); return 1; }
  }
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
  CHECK(cudaFree(sink));
  return 0;
}

template <int PerThread>
int cache(const char* name, const cudaDeviceProp& prop, int passes) {
  const size_t floats = size_t(PerThread) * 256, bytes = floats * 4;
  float *b, *out;
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMalloc(&out, size_t(prop.multiProcessorCount) * 256 * 4));
  CHECK(cudaMemset(b, 0, bytes));
  // The rate between two pass counts: the cold first pass and the launch cancel.
  const double t1 = time_us([&] { cache_sum<PerThread><<<prop.multiProcessorCount, 256>>>(out, b, passes, 0); });
  const double t2 = time_us([&] { cache_sum<PerThread><<<prop.multiProcessorCount, 256>>>(out, b, 2 * passes, 0); });
  if (t1 <= 0 || t2 <= t1) { std::printf("FAIL cache %s: %g then %g us\n", name, t1, t2); return 1; }
  report(name, t2 - t1, double(bytes) * prop.multiProcessorCount * passes / ((t2 - t1) * 1e-6) / 1e9, "GB/s");
  CHECK(cudaFree(b));
  CHECK(cudaFree(out));
  return 0;
}

// A ring over `bytes` with `stride` bytes between links (the next line, so
// that each link is its own access), followed `steps` times after one
// warming lap (L1/L2 rings) or cold (the DRAM ring, larger than any L2, is
// only lapped once).
int chase_level(const char* name, size_t bytes, size_t stride, unsigned steps, bool warm) {
  const size_t links = bytes / stride, per = stride / 4;
  std::vector<unsigned> h(links * per, 0);
  for (size_t i = 0; i < links; ++i) h[i * per] = unsigned(((i + 1) % links) * per);
  unsigned *ring, *end;
  long long* cycles;
  CHECK(cudaMalloc(&ring, h.size() * 4));
  CHECK(cudaMalloc(&end, 4));
  CHECK(cudaMalloc(&cycles, 8));
  CHECK(cudaMemcpy(ring, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  if (warm) {
    chase<<<1, 1>>>(ring, unsigned(links), end, cycles);
    CHECK(cudaDeviceSynchronize());
  }
  // Once: a second run would find the DRAM ring's start in the L2.
  const double us = time_us([&] { chase<<<1, 1>>>(ring, steps, end, cycles); }, 1);
  long long c = 0;
  unsigned e = 0;
  CHECK(cudaMemcpy(&c, cycles, 8, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&e, end, 4, cudaMemcpyDeviceToHost));
  if (us <= 0 || e != unsigned((steps % links) * per)) { std::printf("FAIL chase %s ended at %u\n", name, e); return 1; }
  report(name, us, double(c) / steps, "cycles/load");
  CHECK(cudaFree(ring));
  CHECK(cudaFree(end));
  CHECK(cudaFree(cycles));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  size_t n = size_t(1) << 27;  // 1 GiB of doubles per array, about gpu-stream's 134,217,730
  int passes = 64;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--n")) n = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--passes")) passes = std::atoi(argv[i + 1]);
    else { std::fprintf(stderr, "usage: %s [--n DOUBLES] [--reps R] [--passes P]\n", argv[0]); return 2; }
  }
  if (n < 1024 || reps < 1 || passes < 1) { std::fprintf(stderr, "bad arguments\n"); return 2; }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device=%s sms=%d\n", prop.name, prop.multiProcessorCount);
  if (streams(n, prop)) return 1;
  if (cache<2>("cache.read.2kB", prop, passes * 16)) return 1;           // 2 KB
  if (cache<64>("cache.read.64kB", prop, passes)) return 1;              // 64 KB
  if (cache<7584>("cache.read.7584kB", prop, 1)) return 1;               // 7.4 MB
  if (chase_level("chase.l1", 8 << 10, 128, 4096, true)) return 1;       // 8 KB ring
  if (chase_level("chase.l2", 8 << 20, 1024, 4096, true)) return 1;      // 8 MB ring, beyond any L1
  if (chase_level("chase.dram", size_t(256) << 20, 4096, 2048, false)) return 1;  // 256 MB, cold
  std::printf("PASS validation_kernels\n");
  return 0;
}
