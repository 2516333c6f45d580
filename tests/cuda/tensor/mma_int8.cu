// Integer tensor-core GEMMs through inline-asm mma.sync: s8 x s8 with
// m16n8k32 (wrapping s32 accumulation) and u8 x u8 with m16n8k16.satfinite
// starting near INT32_MAX (clamping). Fragments are loaded from global memory
// as the PTX ISA lays them out; results must equal a CPU GEMM exactly.
#include <cstdio>
#include <cstdint>
#include <climits>
#include <vector>
#include "../check.cuh"

// One warp per 16x8 tile. A row-major MxK, Bt = B transposed (NxK), C/D row-major.
__global__ void gemm_s8(const int8_t* A, const int8_t* Bt, const int* C, int* D, int M, int N, int K) {
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int tile = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int m0 = (tile / (N / 8)) * 16, n0 = (tile % (N / 8)) * 8;
  if (m0 >= M) return;
  int d[4];
  for (int e = 0; e < 4; ++e) d[e] = C[(m0 + g + 8 * (e / 2)) * N + n0 + 2 * t + (e % 2)];
  for (int k0 = 0; k0 < K; k0 += 32) {
    uint32_t a[4], b[2];
    for (int j = 0; j < 4; ++j)
      a[j] = *(const uint32_t*)&A[(m0 + g + 8 * (j & 1)) * K + k0 + 4 * t + 16 * (j >> 1)];
    for (int j = 0; j < 2; ++j) b[j] = *(const uint32_t*)&Bt[(n0 + g) * K + k0 + 4 * t + 16 * j];
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
  for (int e = 0; e < 4; ++e) D[(m0 + g + 8 * (e / 2)) * N + n0 + 2 * t + (e % 2)] = d[e];
}

__global__ void gemm_u8_sat(const uint8_t* A, const uint8_t* Bt, const int* C, int* D, int M, int N, int K) {
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int tile = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int m0 = (tile / (N / 8)) * 16, n0 = (tile % (N / 8)) * 8;
  if (m0 >= M) return;
  int d[4];
  for (int e = 0; e < 4; ++e) d[e] = C[(m0 + g + 8 * (e / 2)) * N + n0 + 2 * t + (e % 2)];
  for (int k0 = 0; k0 < K; k0 += 16) {
    uint32_t a[2], b;
    for (int j = 0; j < 2; ++j) a[j] = *(const uint32_t*)&A[(m0 + g + 8 * j) * K + k0 + 4 * t];
    b = *(const uint32_t*)&Bt[(n0 + g) * K + k0 + 4 * t];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.satfinite.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b));
  }
  for (int e = 0; e < 4; ++e) D[(m0 + g + 8 * (e / 2)) * N + n0 + 2 * t + (e % 2)] = d[e];
}

template <class T, class Kern>
int run(const char* name, Kern kern, int M, int N, int K, bool sat, int cbase) {
  std::vector<T> a(M * K), bt(N * K);
  std::vector<int> c(M * N), d(M * N);
  unsigned s = 99;
  auto rnd = [&] { s = s * 1664525u + 1013904223u; return int(s >> 24); };
  for (auto& v : a) v = T(rnd());
  for (auto& v : bt) v = T(rnd());
  for (auto& v : c) v = cbase + (rnd() - 128) * 16;
  T *da, *db;
  int *dc, *dd;
  CHECK(cudaMalloc(&da, a.size()));
  CHECK(cudaMalloc(&db, bt.size()));
  CHECK(cudaMalloc(&dc, c.size() * 4));
  CHECK(cudaMalloc(&dd, d.size() * 4));
  CHECK(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, bt.data(), bt.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, c.data(), c.size() * 4, cudaMemcpyHostToDevice));
  const int tiles = (M / 16) * (N / 8);
  kern<<<(tiles + 3) / 4, 128>>>(da, db, dc, dd, M, N, K);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(d.data(), dd, d.size() * 4, cudaMemcpyDeviceToHost));
  long bad = 0, clamped = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      long long want = c[i * N + j];
      for (int k = 0; k < K; ++k) want += (long long)a[i * K + k] * bt[j * K + k];
      if (sat) {
        if (want > INT_MAX) { want = INT_MAX; ++clamped; }
        if (want < INT_MIN) want = INT_MIN;
      } else {
        want = (int)(uint32_t)want;
      }
      if (d[i * N + j] != want && bad++ < 5) std::fprintf(stderr, "%s: D(%d,%d) = %d, want %lld\n", name, i, j, d[i * N + j], want);
    }
  cudaFree(da); cudaFree(db); cudaFree(dc); cudaFree(dd);
  if (bad) { std::fprintf(stderr, "FAIL %s: %ld mismatches\n", name, bad); return 1; }
  if (sat && clamped == 0) { std::fprintf(stderr, "FAIL %s: no result reached the clamp\n", name); return 1; }
  std::printf("ok %s\n", name);
  return 0;
}

int main() {
  int fails = 0;
  fails += run<int8_t>("s8 m16n8k32", gemm_s8, 64, 64, 128, false, 0);
  fails += run<uint8_t>("u8 m16n8k16 satfinite", gemm_u8_sat, 32, 32, 64, true, INT_MAX - 500000);
  if (fails) return 1;
  std::printf("PASS mma_int8\n");
  return 0;
}
