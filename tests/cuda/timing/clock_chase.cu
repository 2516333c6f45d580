// A pointer-chasing latency microbenchmark as people write them for real
// GPUs: one thread follows a ring of pointers (p = *p) and times the walk
// with clock64(). Under `softgpu run --timing` clock64() and %globaltimer
// read the model's simulated time, so the cycles per step are the modelled
// load latency of the level the ring lives in (L1, the near L2 partition,
// the far one for a ring of 3/4 of the L2, DRAM), the figures pointer-chase
// papers publish. Arguments: the GPU config's l1/l2/l2-far/dram latencies; a level passes when its cycles per step are within 2% + 1
// cycle of it and %globaltimer agrees at the device's clock rate. Where
// the walk ends is checked too.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../check.cuh"

__global__ void chase(const void* const* ring, int warm, int steps, const void** end, long long* cycles,
                      unsigned long long* ns) {
  const void* const* p = ring;
  for (int i = 0; i < warm; ++i) p = static_cast<const void* const*>(*p);
  // Wait for the warm-up's last load before reading the clock (a clock
  // read does not wait for loads in flight, on the GPU either).
  if (reinterpret_cast<unsigned long long>(p) == 1) *cycles = -1;
  unsigned long long g0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  const long long t0 = clock64();
  for (int i = 0; i < steps; ++i) p = static_cast<const void* const*>(*p);
  const long long t1 = clock64();
  unsigned long long g1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  *end = p;
  *cycles = t1 - t0;
  *ns = g1 - g0;
}

struct Level {
  const char* name;
  size_t bytes, stride;  // ring size and step, bytes
  int warm, steps;
  double latency;
};

int main(int argc, char** argv) {
  if (argc != 5) { std::printf("usage: clock_chase l1 l2 l2far dram\n"); return 2; }
  int l2_bytes = 0;
  CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, 0));
  const Level levels[] = {
      {"l1", 8 << 10, 128, 64, 256, std::atof(argv[1])},          // 64 lines: in the L1 after one pass
      {"l2", 1 << 20, 128, 8192, 4096, std::atof(argv[2])},       // 8192 lines: over the L1, in the L2
      // Over half the L2 (the near partition's share), within the whole.
      {"l2far", size_t(l2_bytes) / 4 * 3 / 128 * 128, 128, l2_bytes / 4 * 3 / 128, 4096, std::atof(argv[3])},
      {"dram", 64 << 20, 32 << 10, 0, 2048, std::atof(argv[4])},  // first touches: every step misses
  };
  int clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  int failures = 0;
  for (const Level& L : levels) {
    const size_t n = L.bytes / sizeof(void*), s = L.stride / sizeof(void*);
    void** dring;
    const void** dend;
    long long* dcycles;
    unsigned long long* dns;
    CHECK(cudaMalloc(&dring, L.bytes));
    CHECK(cudaMalloc(&dend, sizeof(void*)));
    CHECK(cudaMalloc(&dcycles, sizeof(long long)));
    CHECK(cudaMalloc(&dns, sizeof(unsigned long long)));
    std::vector<void*> ring(n, nullptr);
    for (size_t i = 0; i < n; i += s) ring[i] = dring + (i + s) % n;
    CHECK(cudaMemcpy(dring, ring.data(), L.bytes, cudaMemcpyHostToDevice));
    if (L.warm == 0) {
      // The copy went through the L2 (it is memory-side) and left the
      // ring's end there: write twice the L2 elsewhere so that every step
      // of the DRAM level misses.
      void* scratch;
      CHECK(cudaMalloc(&scratch, size_t(l2_bytes) * 2));
      CHECK(cudaMemset(scratch, 0, size_t(l2_bytes) * 2));
      CHECK(cudaFree(scratch));
    }
    chase<<<1, 1>>>(dring, L.warm, L.steps, dend, dcycles, dns);
    CHECK(cudaGetLastError());
    const void* end = nullptr;
    long long cycles = 0;
    unsigned long long ns = 0;
    CHECK(cudaMemcpy(&end, dend, sizeof end, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&cycles, dcycles, sizeof cycles, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&ns, dns, sizeof ns, cudaMemcpyDeviceToHost));
    const void* want_end = dring + ((size_t(L.warm) + size_t(L.steps)) % (n / s)) * s;
    const double per = double(cycles) / L.steps, want = L.latency;
    // %globaltimer advances with the SM clock: ns x clock rate = cycles.
    const double timer_cycles = double(ns) * clock_khz / 1e6;
    const bool ok = end == want_end && per >= want * 0.98 - 1 && per <= want * 1.02 + 1 &&
                    timer_cycles >= double(cycles) * 0.99 && timer_cycles <= double(cycles) * 1.01 + 4;
    std::printf("%-4s %8.1f cycles per step (latency %g), globaltimer %llu ns = %.0f cycles%s\n", L.name, per,
                L.latency, ns, timer_cycles, ok ? "" : "  <-- FAIL");
    failures += !ok;
    CHECK(cudaFree(dring));
    CHECK(cudaFree(dend));
    CHECK(cudaFree(dcycles));
    CHECK(cudaFree(dns));
  }
  if (failures) { std::printf("FAIL timing_clock\n"); return 1; }
  std::printf("PASS timing_clock\n");
  return 0;
}
