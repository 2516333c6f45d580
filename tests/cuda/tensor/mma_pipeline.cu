// f16 GEMM through inline-asm tensor-core instructions: cp.async copies
// global tiles into double-buffered shared memory, ldmatrix.x4 builds the
// mma.m16n8k16 fragments, and mma.sync accumulates in f32. Checked exactly
// against a CPU GEMM (small-integer inputs make every sum exact).
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdint>
#include <vector>
#include "../check.cuh"

constexpr int BM = 64, BN = 64, BK = 32;  // block tile; 4 warps of 32x32
constexpr int LDS = BK + 8;               // padded shared row (halves), keeps 16-byte alignment

__device__ inline uint32_t smem_addr(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ inline void cp16(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(dst)), "l"(src));
}

// A row-major MxK, Bt = B transposed (row-major NxK), C row-major MxN.
__global__ void gemm(const __half* A, const __half* Bt, float* C, int M, int N, int K) {
  __shared__ __align__(16) __half sa[2][BM][LDS];
  __shared__ __align__(16) __half sb[2][BN][LDS];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;
  float acc[2][4][4] = {};
  auto load_stage = [&](int stage, int k0) {
    for (int c = tid; c < BM * BK / 8; c += blockDim.x) {  // 16-byte chunks
      int r = c / (BK / 8), col = (c % (BK / 8)) * 8;
      cp16(&sa[stage][r][col], A + (size_t)(m0 + r) * K + k0 + col);
      cp16(&sb[stage][r][col], Bt + (size_t)(n0 + r) * K + k0 + col);
    }
    asm volatile("cp.async.commit_group;\n" ::);
  };
  const int tiles = K / BK;
  load_stage(0, 0);
  for (int t = 0; t < tiles; ++t) {
    const int cur = t & 1;
    if (t + 1 < tiles) {
      load_stage(cur ^ 1, (t + 1) * BK);
      asm volatile("cp.async.wait_group 1;\n" ::);
    } else {
      asm volatile("cp.async.wait_group 0;\n" ::);
    }
    __syncthreads();
    for (int kk = 0; kk < BK; kk += 16) {
      uint32_t a[2][4], b[2][4];
      for (int i = 0; i < 2; ++i) {  // A: matrices (rows 0-7|8-15) x (k 0-7|8-15)
        const __half* p = &sa[cur][wm + i * 16 + (lane % 8) + 8 * ((lane / 8) % 2)][kk + 8 * (lane / 16)];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(a[i][0]), "=r"(a[i][1]), "=r"(a[i][2]), "=r"(a[i][3]) : "r"(smem_addr(p)));
      }
      for (int j = 0; j < 2; ++j) {  // B: two n8 tiles x (k 0-7|8-15)
        const __half* p = &sb[cur][wn + j * 16 + (lane % 8) + 8 * (lane / 16)][kk + 8 * ((lane / 8) % 2)];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(b[j][0]), "=r"(b[j][1]), "=r"(b[j][2]), "=r"(b[j][3]) : "r"(smem_addr(p)));
      }
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j) {
          const uint32_t b0 = b[j / 2][(j % 2) * 2], b1 = b[j / 2][(j % 2) * 2 + 1];
          float* d = acc[i][j];
          asm volatile(
              "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
              "{%0,%1,%2,%3};\n"
              : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
              : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b0), "r"(b1));
        }
    }
    __syncthreads();  // the next iteration's cp.async overwrites this stage
  }
  const int g = lane / 4, t4 = lane % 4;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int e = 0; e < 4; ++e) {
        int r = m0 + wm + i * 16 + g + 8 * (e / 2), c = n0 + wn + j * 8 + 2 * t4 + (e % 2);
        C[(size_t)r * N + c] = acc[i][j][e];
      }
}

int main() {
  const int M = 128, N = 192, K = 256;
  std::vector<__half> a(M * K), bt(N * K);
  std::vector<float> ha(M * K), hb(N * K), c(M * N);
  unsigned s = 777;
  auto rnd = [&] { s = s * 1664525u + 1013904223u; return float(int((s >> 16) % 9) - 4) * 0.5f; };
  for (int i = 0; i < M * K; ++i) { ha[i] = rnd(); a[i] = __float2half(ha[i]); }
  for (int i = 0; i < N * K; ++i) { hb[i] = rnd(); bt[i] = __float2half(hb[i]); }
  __half *da, *db;
  float* dc;
  CHECK(cudaMalloc(&da, a.size() * 2));
  CHECK(cudaMalloc(&db, bt.size() * 2));
  CHECK(cudaMalloc(&dc, c.size() * 4));
  CHECK(cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, bt.data(), bt.size() * 2, cudaMemcpyHostToDevice));
  gemm<<<dim3(N / BN, M / BM), 128>>>(da, db, dc, M, N, K);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int k = 0; k < K; ++k) want += double(ha[i * K + k]) * hb[j * K + k];
      if (c[i * N + j] != want && bad++ < 5) std::fprintf(stderr, "C(%d,%d) = %g, want %g\n", i, j, c[i * N + j], want);
    }
  if (bad) { std::fprintf(stderr, "FAIL mma_pipeline: %ld mismatches\n", bad); return 1; }
  std::printf("PASS mma_pipeline\n");
  return 0;
}
