// Sparse and sub-byte tensor-core GEMMs through inline asm:
//   * mma.sp::ordered_metadata m16n8k32 f16 -> f32, sparsity selector 0;
//   * mma.sp::ordered_metadata m16n8k32 s8 -> s32, sparsity selector 1;
//   * mma.sync m16n8k64 s4 x u4 -> s32.
// A is 2:4 structured sparse (a random one of the 6 index pairs per chunk
// of 4), stored compressed (M x K/2) with one 4-bit metadata field a chunk
// (idx1 << 2 | idx0); results must equal a CPU GEMM on the dense A exactly.
// The metadata register of lane 4g + t (t one of the selector's pair) holds
// the fields of 128 stored bits of A (as CUTLASS's SparseMma and CuTe's
// sparse ELayouts place them): for f16, chunks 4(t % 2) .. 4(t % 2) + 3 of
// the k-step's rows g (bits 0-15) and g + 8 (bits 16-31); for s8, the 8
// chunks of row g + 8(t % 2).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_fp16.h>
#include "../check.cuh"

// One warp per 16x8 tile. S: stored A (M x K/2, row-major), meta: one byte
// per (row, chunk of 4) holding the nibble, Bt: B transposed (N x K).
template <int Sel, bool Narrow>
__device__ uint32_t meta_reg(const uint8_t* meta, int K, int m0, int k0) {
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  if (t / 2 != Sel) return 0xdeadbeefu;  // not read by the selector
  uint32_t e = 0;
  const int chunks = K / 4;
  for (int q = 0; q < 8; ++q) {
    const int row = Narrow ? g + 8 * (t % 2) : g + 8 * (q / 4), c = Narrow ? q : 4 * (t % 2) + q % 4;
    e |= uint32_t(meta[(m0 + row) * chunks + k0 / 4 + c]) << (4 * q);
  }
  return e;
}

__global__ void gemm_sp_f16(const __half* S, const uint8_t* meta, const __half* Bt, float* D, int M, int N, int K) {
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int tile = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int m0 = (tile / (N / 8)) * 16, n0 = (tile % (N / 8)) * 8;
  if (m0 >= M) return;
  float d[4] = {0, 0, 0, 0};
  for (int k0 = 0; k0 < K; k0 += 32) {
    uint32_t a[4], b[4];
    // a_{2j}, a_{2j+1}: row g + 8 (j & 1), stored columns 2t + 8 (j >> 1) + {0, 1}.
    for (int j = 0; j < 4; ++j)
      a[j] = *(const uint32_t*)&S[(m0 + g + 8 * (j & 1)) * (K / 2) + k0 / 2 + 2 * t + 8 * (j >> 1)];
    for (int j = 0; j < 4; ++j) b[j] = *(const uint32_t*)&Bt[(n0 + g) * K + k0 + 2 * t + 8 * j];
    const uint32_t e = meta_reg<0, false>(meta, K, m0, k0);
    asm volatile(
        "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, 0x0;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(e));
  }
  for (int i = 0; i < 4; ++i) D[(m0 + g + 8 * (i / 2)) * N + n0 + 2 * t + (i % 2)] = d[i];
}

__global__ void gemm_sp_s8(const int8_t* S, const uint8_t* meta, const int8_t* Bt, int* D, int M, int N, int K) {
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int tile = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int m0 = (tile / (N / 8)) * 16, n0 = (tile % (N / 8)) * 8;
  if (m0 >= M) return;
  int d[4] = {0, 0, 0, 0};
  for (int k0 = 0; k0 < K; k0 += 32) {
    uint32_t a[2], b[2];
    // a0..a3: row g, a4..a7: row g + 8; stored columns 4t .. 4t + 3.
    for (int j = 0; j < 2; ++j) a[j] = *(const uint32_t*)&S[(m0 + g + 8 * j) * (K / 2) + k0 / 2 + 4 * t];
    for (int j = 0; j < 2; ++j) b[j] = *(const uint32_t*)&Bt[(n0 + g) * K + k0 + 4 * t + 16 * j];
    const uint32_t e = meta_reg<1, true>(meta, K, m0, k0);
    asm volatile(
        "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, "
        "{%0,%1,%2,%3}, %8, 0x1;\n"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(e));
  }
  for (int i = 0; i < 4; ++i) D[(m0 + g + 8 * (i / 2)) * N + n0 + 2 * t + (i % 2)] = d[i];
}

// A (s4) and Bt (u4) packed two a byte, the lower k in the low nibble.
__global__ void gemm_s4(const uint8_t* A, const uint8_t* Bt, int* D, int M, int N, int K) {
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int tile = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int m0 = (tile / (N / 8)) * 16, n0 = (tile % (N / 8)) * 8;
  if (m0 >= M) return;
  int d[4] = {0, 0, 0, 0};
  for (int k0 = 0; k0 < K; k0 += 64) {
    uint32_t a[4], b[2];
    // a_{8j..8j+7}: row g + 8 (j & 1), columns 8t + 32 (j >> 1) + 0..7.
    for (int j = 0; j < 4; ++j)
      a[j] = *(const uint32_t*)&A[((m0 + g + 8 * (j & 1)) * K + k0 + 8 * t + 32 * (j >> 1)) / 2];
    for (int j = 0; j < 2; ++j) b[j] = *(const uint32_t*)&Bt[((n0 + g) * K + k0 + 8 * t + 32 * j) / 2];
    asm volatile(
        "mma.sync.aligned.m16n8k64.row.col.s32.s4.u4.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
  for (int i = 0; i < 4; ++i) D[(m0 + g + 8 * (i / 2)) * N + n0 + 2 * t + (i % 2)] = d[i];
}

unsigned seed = 12345;
int rnd(int lo, int hi) {
  seed = seed * 1664525u + 1013904223u;
  return lo + int((seed >> 8) % unsigned(hi - lo + 1));
}
constexpr int kPairs[6][2] = {{0, 1}, {0, 2}, {1, 2}, {0, 3}, {1, 3}, {2, 3}};

// A random 2:4 sparse A: dense values, stored values and metadata.
struct Sparse {
  std::vector<int> dense, stored;
  std::vector<uint8_t> meta;
  int pairs_seen = 0;
};
Sparse make_sparse(int M, int K, int lo, int hi) {
  Sparse s;
  s.dense.assign(M * K, 0);
  s.stored.resize(M * K / 2);
  s.meta.resize(M * K / 4);
  int seen[6] = {};
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < K / 4; ++c) {
      const int p = rnd(0, 5);
      seen[p] = 1;
      s.meta[r * (K / 4) + c] = uint8_t(kPairs[p][1] << 2 | kPairs[p][0]);
      for (int q = 0; q < 2; ++q) {
        int v = rnd(lo, hi);
        if (v == 0) v = 1;
        s.stored[r * (K / 2) + 2 * c + q] = v;
        s.dense[r * K + 4 * c + kPairs[p][q]] = v;
      }
    }
  for (int p = 0; p < 6; ++p) s.pairs_seen += seen[p];
  return s;
}

// A device copy of v; exits on a CUDA error (CHECK returns an int).
template <class T>
T* upload(const std::vector<T>& v) {
  T* d = nullptr;
  auto put = [&]() -> int {
    CHECK(cudaMalloc(&d, v.size() * sizeof(T)));
    CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return 0;
  };
  if (put()) std::exit(1);
  return d;
}

template <class Out>
int compare(const char* name, const std::vector<Out>& d, const std::vector<int>& a, const std::vector<int>& bt, int M,
            int N, int K) {
  long bad = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      long long want = 0;
      for (int k = 0; k < K; ++k) want += (long long)a[i * K + k] * bt[j * K + k];
      if (d[i * N + j] != Out(want) && bad++ < 5)
        std::fprintf(stderr, "%s: D(%d,%d) = %g, want %lld\n", name, i, j, double(d[i * N + j]), want);
    }
  if (bad) { std::fprintf(stderr, "FAIL %s: %ld mismatches\n", name, bad); return 1; }
  std::printf("ok %s\n", name);
  return 0;
}

int sparse_f16(int M, int N, int K) {
  Sparse a = make_sparse(M, K, -4, 4);
  std::vector<int> bt(N * K);
  for (auto& v : bt) v = rnd(-4, 4);
  std::vector<__half> s(a.stored.size()), b(bt.size());
  for (size_t i = 0; i < s.size(); ++i) s[i] = __float2half(float(a.stored[i]));
  for (size_t i = 0; i < b.size(); ++i) b[i] = __float2half(float(bt[i]));
  __half *ds = upload(s), *db = upload(b);
  uint8_t* dm = upload(a.meta);
  float* dd;
  CHECK(cudaMalloc(&dd, M * N * sizeof(float)));
  gemm_sp_f16<<<(M / 16) * (N / 8) / 4, 128>>>(ds, dm, db, dd, M, N, K);
  CHECK_LAUNCH();
  std::vector<float> d(M * N);
  CHECK(cudaMemcpy(d.data(), dd, d.size() * sizeof(float), cudaMemcpyDeviceToHost));
  cudaFree(ds); cudaFree(db); cudaFree(dm); cudaFree(dd);
  if (a.pairs_seen != 6) { std::fprintf(stderr, "FAIL: only %d index pairs drawn\n", a.pairs_seen); return 1; }
  return compare("mma.sp f16 m16n8k32 selector 0", d, a.dense, bt, M, N, K);
}

int sparse_s8(int M, int N, int K) {
  Sparse a = make_sparse(M, K, -128, 127);
  std::vector<int> bt(N * K);
  for (auto& v : bt) v = rnd(-128, 127);
  std::vector<int8_t> s(a.stored.begin(), a.stored.end()), b(bt.begin(), bt.end());
  int8_t *ds = upload(s), *db = upload(b);
  uint8_t* dm = upload(a.meta);
  int* dd;
  CHECK(cudaMalloc(&dd, M * N * sizeof(int)));
  gemm_sp_s8<<<(M / 16) * (N / 8) / 4, 128>>>(ds, dm, db, dd, M, N, K);
  CHECK_LAUNCH();
  std::vector<int> d(M * N);
  CHECK(cudaMemcpy(d.data(), dd, d.size() * sizeof(int), cudaMemcpyDeviceToHost));
  cudaFree(ds); cudaFree(db); cudaFree(dm); cudaFree(dd);
  return compare("mma.sp s8 m16n8k32 selector 1", d, a.dense, bt, M, N, K);
}

int dense_s4(int M, int N, int K) {
  std::vector<int> a(M * K), bt(N * K);
  for (auto& v : a) v = rnd(-8, 7);
  for (auto& v : bt) v = rnd(0, 15);
  auto packed = [](const std::vector<int>& x) {
    std::vector<uint8_t> p(x.size() / 2);
    for (size_t i = 0; i < p.size(); ++i) p[i] = uint8_t((x[2 * i] & 15) | (x[2 * i + 1] & 15) << 4);
    return p;
  };
  uint8_t *da = upload(packed(a)), *db = upload(packed(bt));
  int* dd;
  CHECK(cudaMalloc(&dd, M * N * sizeof(int)));
  gemm_s4<<<(M / 16) * (N / 8) / 4, 128>>>(da, db, dd, M, N, K);
  CHECK_LAUNCH();
  std::vector<int> d(M * N);
  CHECK(cudaMemcpy(d.data(), dd, d.size() * sizeof(int), cudaMemcpyDeviceToHost));
  cudaFree(da); cudaFree(db); cudaFree(dd);
  return compare("mma s4 x u4 m16n8k64", d, a, bt, M, N, K);
}

int main() {
  int fails = 0;
  fails += sparse_f16(32, 32, 128);
  fails += sparse_s8(32, 32, 128);
  fails += dense_s4(32, 32, 256);
  if (fails) return 1;
  std::printf("PASS mma_sparse\n");
  return 0;
}
