// Device memory as a GPU has it. Usage: arena MODE.
//   huge      60 GB on an 80 GB GPU (run with --gpu a100 or h100): works,
//             pages at both ends read back, capacity is enforced
//   big4g     a 4 GiB cudaMalloc, written at both ends and read back
//   before    a kernel reads one row before its matrix (Rodinia srad_v2's
//             north neighbour of row 0): no fault, in-bounds results exact
//   far       a load 1 TiB past an allocation -> cudaErrorIllegalAddress
//   many      100k live allocations, then kernels writing 1000 of them
//   meminfo   cudaMemGetInfo against what was allocated and freed
//   budget    (run with --host-memory-limit 64M) writing more device memory
//             than the host may back -> cudaErrorMemoryAllocation
// Each prints "PASS arena MODE" only if the runtime behaved as checked.
#include <vector>

#include "../check.cuh"

constexpr size_t kMiB = size_t(1) << 20;

__global__ void write_ends(unsigned long long* p, size_t n, int k) {
  int i = threadIdx.x;  // k elements at each end
  if (i < k) {
    p[i] = 1000 + i;
    p[n - 1 - i] = 2000 + i;
  }
}

// srad_v2-style stencil: the north neighbour of row 0 is read (one row
// before the array) and only clamped afterwards, as srad_v2 does.
__global__ void north_minus_center(const float* J, float* dN, int rows, int cols) {
  int r = blockIdx.x, c = threadIdx.x;
  if (r >= rows || c >= cols) return;
  int idx = r * cols + c;
  float n = J[idx - cols];  // row -1 for r == 0
  if (r == 0) n = J[idx];
  dN[idx] = n - J[idx];
}

__global__ void load_at(const int* p, long long off, int* out) { *out = p[off]; }

__global__ void store_each(int** ptrs, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) *ptrs[i] = i * 3 + 1;
}

__global__ void fill_strided(char* p, size_t bytes, size_t stride) {
  size_t i = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) * stride;
  if (i < bytes) p[i] = 1;
}

static int ends(size_t bytes) {
  unsigned long long* p = nullptr;
  CHECK(cudaMalloc(&p, bytes));
  const size_t n = bytes / sizeof(*p);
  const int k = 512;  // 4 KiB at each end
  write_ends<<<1, k>>>(p, n, k);
  CHECK_LAUNCH();
  std::vector<unsigned long long> lo(k), hi(k);
  CHECK(cudaMemcpy(lo.data(), p, k * sizeof(*p), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hi.data(), p + n - k, k * sizeof(*p), cudaMemcpyDeviceToHost));
  for (int i = 0; i < k; ++i)
    if (lo[i] != 1000ull + i || hi[k - 1 - i] != 2000ull + i) {
      std::fprintf(stderr, "FAIL arena: element %d: %llu %llu\n", i, lo[i], hi[k - 1 - i]);
      return 1;
    }
  CHECK(cudaFree(p));
  return 0;
}

static int huge() {
  size_t free0 = 0, total = 0;
  CHECK(cudaMemGetInfo(&free0, &total));
  if (total < (size_t(70) << 30)) {
    std::fprintf(stderr, "FAIL arena huge: needs an 80 GB GPU (got %zu bytes)\n", total);
    return 1;
  }
  const size_t big = size_t(60) << 30;
  unsigned long long* p = nullptr;
  CHECK(cudaMalloc(&p, big));
  const size_t n = big / sizeof(*p);
  write_ends<<<1, 512>>>(p, n, 512);
  CHECK_LAUNCH();
  unsigned long long v[2] = {0, 0};
  CHECK(cudaMemcpy(&v[0], p + 3, sizeof(v[0]), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&v[1], p + n - 4, sizeof(v[1]), cudaMemcpyDeviceToHost));
  if (v[0] != 1003 || v[1] != 2003) {
    std::fprintf(stderr, "FAIL arena huge: read back %llu %llu\n", v[0], v[1]);
    return 1;
  }
  size_t free1 = 0;
  CHECK(cudaMemGetInfo(&free1, &total));
  if (free0 - free1 < big) {
    std::fprintf(stderr, "FAIL arena huge: free went from %zu to %zu\n", free0, free1);
    return 1;
  }
  // More than is left does not fit; once the 60 GB are freed it does.
  void* q = nullptr;
  const size_t more = free1 + (size_t(64) << 20);
  EXPECT_ERR(cudaMalloc(&q, more), cudaErrorMemoryAllocation);
  EXPECT_ERR(cudaGetLastError(), cudaErrorMemoryAllocation);
  CHECK(cudaGetLastError());  // not sticky
  CHECK(cudaFree(p));
  CHECK(cudaMalloc(&q, more));
  CHECK(cudaFree(q));
  return ends(size_t(8) << 30);
}

static int before() {
  const int rows = 64, cols = 128;  // one row is 512 bytes
  std::vector<float> h(rows * cols);
  for (int i = 0; i < rows * cols; ++i) h[i] = float((i * 37) % 101);
  float *J = nullptr, *dN = nullptr;
  CHECK(cudaMalloc(&J, h.size() * sizeof(float)));
  CHECK(cudaMalloc(&dN, h.size() * sizeof(float)));
  CHECK(cudaMemcpy(J, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  north_minus_center<<<rows, cols>>>(J, dN, rows, cols);
  CHECK_LAUNCH();
  std::vector<float> out(h.size());
  CHECK(cudaMemcpy(out.data(), dN, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const int i = r * cols + c;
      const float want = r == 0 ? 0.0f : h[i - cols] - h[i];
      if (out[i] != want) {
        std::fprintf(stderr, "FAIL arena before: (%d,%d) = %g, want %g\n", r, c, out[i], want);
        return 1;
      }
    }
  return 0;
}

static int far() {
  int *p = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&p, 4096));
  CHECK(cudaMalloc(&out, sizeof(int)));
  load_at<<<1, 1>>>(p, (1LL << 40) / 4, out);  // 1 TiB on: past any GPU's memory
  EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  return 0;
}

static int many() {
  const int n = 100000, used = 1000;
  std::vector<int*> ptrs(n);
  for (int i = 0; i < n; ++i) CHECK(cudaMalloc(&ptrs[i], 64));
  // Every 100th allocation gets written by a kernel.
  std::vector<int*> chosen(used);
  for (int i = 0; i < used; ++i) chosen[i] = ptrs[i * (n / used)];
  int** dptrs = nullptr;
  CHECK(cudaMalloc(&dptrs, used * sizeof(int*)));
  CHECK(cudaMemcpy(dptrs, chosen.data(), used * sizeof(int*), cudaMemcpyHostToDevice));
  for (int rep = 0; rep < 10; ++rep) {
    store_each<<<(used + 127) / 128, 128>>>(dptrs, used);
    CHECK_LAUNCH();
  }
  for (int i = 0; i < used; ++i) {
    int v = 0;
    CHECK(cudaMemcpy(&v, chosen[i], sizeof v, cudaMemcpyDeviceToHost));
    if (v != i * 3 + 1) {
      std::fprintf(stderr, "FAIL arena many: allocation %d holds %d\n", i, v);
      return 1;
    }
  }
  for (int i = 0; i < n; ++i) CHECK(cudaFree(ptrs[i]));
  CHECK(cudaFree(dptrs));
  return 0;
}

static int meminfo() {
  size_t free0 = 0, total0 = 0, f = 0, t = 0;
  CHECK(cudaMemGetInfo(&free0, &total0));
  if (free0 == 0 || free0 > total0) {
    std::fprintf(stderr, "FAIL arena meminfo: free %zu total %zu\n", free0, total0);
    return 1;
  }
  // k allocations of 64 MiB take at least 64 MiB each, and at most one 2 MiB
  // page more each; freeing them gives it all back.
  std::vector<void*> ps;
  for (int k = 1; k <= 4; ++k) {
    void* p = nullptr;
    CHECK(cudaMalloc(&p, 64 * kMiB));
    ps.push_back(p);
    CHECK(cudaMemGetInfo(&f, &t));
    const size_t taken = free0 - f;
    if (t != total0 || taken < k * 64 * kMiB || taken > k * 66 * kMiB) {
      std::fprintf(stderr, "FAIL arena meminfo: %d allocations took %zu bytes\n", k, taken);
      return 1;
    }
  }
  for (void* p : ps) CHECK(cudaFree(p));
  CHECK(cudaMemGetInfo(&f, &t));
  if (f != free0) {
    std::fprintf(stderr, "FAIL arena meminfo: free %zu after freeing, %zu before\n", f, free0);
    return 1;
  }
  void* p = nullptr;
  EXPECT_ERR(cudaMalloc(&p, total0 + 1), cudaErrorMemoryAllocation);
  CHECK(cudaGetLastError() == cudaErrorMemoryAllocation ? cudaSuccess : cudaErrorUnknown);
  return 0;
}

static int budget() {
  const size_t bytes = 1024 * kMiB;
  char* p = nullptr;
  CHECK(cudaMalloc(&p, bytes));  // address space: fine
  CHECK(cudaMemset(p, 7, 4 * kMiB));  // within the budget
  EXPECT_ERR(cudaMemset(p, 1, bytes), cudaErrorMemoryAllocation);
  CHECK(cudaGetLastError() == cudaErrorMemoryAllocation ? cudaSuccess : cudaErrorUnknown);
  char c = 0;
  CHECK(cudaMemcpy(&c, p + 4 * kMiB - 1, 1, cudaMemcpyDeviceToHost));
  if (c != 7) {
    std::fprintf(stderr, "FAIL arena budget: byte is %d\n", c);
    return 1;
  }
  // A kernel touching one byte per 4 KiB page of the whole gigabyte.
  fill_strided<<<(bytes / 4096 + 255) / 256, 256>>>(p, bytes, 4096);  // may fail at launch or at the sync
  EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorMemoryAllocation);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: arena huge|big4g|before|far|many|meminfo|budget\n");
    return 2;
  }
  const char* m = argv[1];
  int rc = !std::strcmp(m, "huge")      ? huge()
           : !std::strcmp(m, "big4g")   ? ends(size_t(4) << 30)
           : !std::strcmp(m, "before")  ? before()
           : !std::strcmp(m, "far")     ? far()
           : !std::strcmp(m, "many")    ? many()
           : !std::strcmp(m, "meminfo") ? meminfo()
           : !std::strcmp(m, "budget")  ? budget()
                                        : 2;
  if (rc == 2) std::fprintf(stderr, "FAIL arena: unknown mode '%s'\n", m);
  if (rc == 0) std::printf("PASS arena %s\n", m);
  return rc;
}
