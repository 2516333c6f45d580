// Sparse warpgroup MMA (wgmma.mma_async.sp, sm_90a) against a CPU GEMM:
// one warpgroup computes D (64 x 16) = A (64 x K, 2:4 structured sparse) *
// B (K x 16). A is stored compressed (K/2 columns: the two kept elements of
// every chunk of four) in shared memory in the ISA's K-major layout without
// swizzle, or in registers (the A fragment of the dense K/2 form); each
// thread passes a 32-bit metadata register laid out as the ISA's sparse
// metadata figures give it: in each warp, the threads of every group of
// four that the sparsity selector names hold the 4-bit fields (two 2-bit
// indices of the kept elements) of 128 stored bits of A a thread: for f16
// four chunks of rows groupID (bits 0-15) and groupID + 8 (bits 16-31), for
// s8 eight chunks of one of the two rows; the other threads' metadata is
// garbage, which must not matter. f16 (K 32, selectors 0 and 1, A from
// shared memory or registers) and s8 (K 64, selector 0). Small integer
// values: every sum is exact.
#include <cuda_fp16.h>

#include <cstdint>

#include "../check.cuh"
#include <cstdio>
#include <cstring>
#include <vector>

constexpr int M = 64, N = 16;

// K-major, no swizzle: 16-byte core-matrix rows, LBO between core matrices
// along K (128 bytes), SBO between 8-row groups (row bytes / 16 * 128).
__host__ __device__ uint32_t kmajor_off(int row, int kbyte, int row_bytes) {
  return 16 * (row % 8) + (row_bytes / 16) * 128 * (row / 8) + 128 * (kbyte / 16) + kbyte % 16;
}
__device__ uint64_t desc(uint32_t addr, int row_bytes) {
  const uint64_t lbo = 128, sbo = uint64_t(row_bytes / 16) * 128;
  return uint64_t((addr & 0x3ffff) >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32;
}

#define D8 "{%0, %1, %2, %3, %4, %5, %6, %7}"
#define OUT8(T) T(d[0]), T(d[1]), T(d[2]), T(d[3]), T(d[4]), T(d[5]), T(d[6]), T(d[7])

// Form 0: f16 from shared memory, 1: f16 A from registers, 2: s8 from shared memory.
template <int kForm, int kSel>
__global__ void sparse_mma(const uint8_t* a_stored, const uint8_t* b, const uint32_t* meta, const uint32_t* afrag,
                           uint32_t* out) {
  constexpr int e = kForm == 2 ? 1 : 2, K = kForm == 2 ? 64 : 32;
  constexpr int a_row = K / 2 * e, b_row = K * e;  // bytes
  __shared__ alignas(128) uint8_t sa[M * a_row], sb[N * b_row];
  for (int i = threadIdx.x; i < M * a_row; i += blockDim.x) sa[kmajor_off(i / a_row, i % a_row, a_row)] = a_stored[i];
  for (int i = threadIdx.x; i < N * b_row; i += blockDim.x) sb[kmajor_off(i / b_row, i % b_row, b_row)] = b[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const uint64_t da = desc(uint32_t(__cvta_generic_to_shared(sa)), a_row);
  const uint64_t db = desc(uint32_t(__cvta_generic_to_shared(sb)), b_row);
  const uint32_t m = meta[threadIdx.x];
  uint32_t d[8] = {};
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  if constexpr (kForm == 0) {
    asm volatile("wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16 " D8 ", %8, %9, %10, %11, 0, 1, 1, 0, 0;"
                 : OUT8("+r") : "l"(da), "l"(db), "r"(m), "n"(kSel));
  } else if constexpr (kForm == 1) {
    const uint32_t* f = afrag + 4 * threadIdx.x;
    asm volatile("wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16 " D8
                 ", {%8, %9, %10, %11}, %12, %13, %14, 0, 1, 1, 0;"
                 : OUT8("+r") : "r"(f[0]), "r"(f[1]), "r"(f[2]), "r"(f[3]), "l"(db), "r"(m), "n"(kSel));
  } else {
    asm volatile("wgmma.mma_async.sp.sync.aligned.m64n16k64.s32.s8.s8 " D8 ", %8, %9, %10, %11, 0;"
                 : OUT8("+r") : "l"(da), "l"(db), "r"(m), "n"(kSel));
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  // The accumulator fragment: register i of lane l of warp w is row
  // 16w + l/4 + 8*((i/2)%2), column 8*(i/4) + 2*(l%4) + i%2.
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
  for (int i = 0; i < 8; ++i) out[(16 * w + l / 4 + 8 * ((i >> 1) & 1)) * N + 8 * (i >> 2) + 2 * (l % 4) + (i & 1)] = d[i];
}

template <int kForm, int kSel>
int run(const char* name) {
  constexpr int e = kForm == 2 ? 1 : 2, K = kForm == 2 ? 64 : 32, KS = K / 2;
  unsigned x = 7u + kForm * 3 + kSel;
  auto rnd = [&] { x = x * 1664525u + 1013904223u; return x >> 8; };
  // Dense A with two kept elements in each chunk of four, their indices.
  std::vector<int> dense(M * K, 0), stored(M * KS), b(K * N);
  std::vector<uint8_t> nib(M * (K / 4));
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < K / 4; ++c) {
      int i0 = rnd() % 4, i1 = rnd() % 3;
      if (i1 >= i0) ++i1;
      if (i0 > i1) std::swap(i0, i1);
      nib[r * (K / 4) + c] = uint8_t(i0 | i1 << 2);
      const int v0 = int(rnd() % 7) - 3, v1 = int(rnd() % 7) - 3;
      dense[r * K + 4 * c + i0] = v0, dense[r * K + 4 * c + i1] = v1;
      stored[r * KS + 2 * c] = v0, stored[r * KS + 2 * c + 1] = v1;
    }
  for (int& v : b) v = int(rnd() % 9) - 4;
  // Bytes as the kernel copies them: A row-major (M x K/2), B as N rows of K.
  std::vector<uint8_t> ab(M * KS * e), bb(N * K * e);
  auto put = [&](uint8_t* p, int v) {
    if (e == 1) *p = uint8_t(int8_t(v));
    else { const __half h = __float2half(float(v)); std::memcpy(p, &h, 2); }
  };
  for (int i = 0; i < M * KS; ++i) put(&ab[i * e], stored[i]);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) put(&bb[(n * K + k) * e], b[k * N + n]);
  // Metadata of warp w in the threads 4g + 2*sel + j: f16 chunks 4j..4j+3 of
  // rows g (bits 0-15) and g+8 (bits 16-31); s8 chunks 8(j/2)..8(j/2)+7 of
  // row g + 8(j%2) (CuTe's ELayout_64x32 and ELayout_64x64).
  std::vector<uint32_t> meta(128, 0xdeadbeefu);
  const int per_group = K / 4 / 4;  // threads of a group holding metadata: 2 (f16), 4 (s8)
  for (int t = 0; t < 128; ++t) {
    const int w = t / 32, l = t % 32, g = l / 4, j = l % 4 - kSel * per_group;
    if (j < 0 || j >= per_group) continue;  // not a selected thread: garbage stays
    uint32_t v = 0;
    for (int q = 0; q < 8; ++q) {
      const int row = e == 1 ? g + 8 * (j % 2) : g + 8 * (q / 4), c = e == 1 ? 8 * (j / 2) + q : 4 * j + q % 4;
      v |= uint32_t(nib[(16 * w + row) * (K / 4) + c]) << (4 * q);
    }
    meta[t] = v;
  }
  // A fragments (registers) of the dense m16n8k16 f16 layout over the stored columns.
  std::vector<uint32_t> frag(128 * 4, 0);
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < 8; ++i) {
      const int w = t / 32, l = t % 32, row = 16 * w + l / 4 + 8 * ((i / 2) % 2), col = 2 * (l % 4) + i % 2 + 8 * (i / 4);
      const __half h = __float2half(float(stored[row * KS + col]));
      uint16_t bits;
      std::memcpy(&bits, &h, 2);
      frag[4 * t + i / 2] |= uint32_t(bits) << (16 * (i % 2));
    }
  uint8_t *da, *db;
  uint32_t *dm, *df, *dout;
  CHECK(cudaMalloc(&da, ab.size()));
  CHECK(cudaMalloc(&db, bb.size()));
  CHECK(cudaMalloc(&dm, 128 * 4));
  CHECK(cudaMalloc(&df, frag.size() * 4));
  CHECK(cudaMalloc(&dout, M * N * 4));
  CHECK(cudaMemcpy(da, ab.data(), ab.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, bb.data(), bb.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dm, meta.data(), 128 * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(df, frag.data(), frag.size() * 4, cudaMemcpyHostToDevice));
  sparse_mma<kForm, kSel><<<1, 128>>>(da, db, dm, df, dout);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<uint32_t> out(M * N);
  CHECK(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int r = 0; r < M; ++r)
    for (int n = 0; n < N; ++n) {
      int want = 0;
      for (int k = 0; k < K; ++k) want += dense[r * K + k] * b[k * N + n];
      float f;
      std::memcpy(&f, &out[r * N + n], 4);
      const double got = kForm == 2 ? double(int32_t(out[r * N + n])) : double(f);
      if (got != want && bad++ < 3) std::printf("  %s: D[%d][%d] = %g, expected %d\n", name, r, n, got, want);
    }
  std::printf("%s: %d mismatches\n", name, bad);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dm);
  cudaFree(df);
  cudaFree(dout);
  return bad != 0;
}

int main() {
  int bad = 0;
  bad += run<0, 0>("f16 k32 smem sel 0");
  bad += run<0, 1>("f16 k32 smem sel 1");
  bad += run<1, 0>("f16 k32 A regs sel 0");
  bad += run<1, 1>("f16 k32 A regs sel 1");
  bad += run<2, 0>("s8 k64 smem sel 0");
  if (bad) return 1;
  std::printf("PASS wgmma_sparse\n");
  return 0;
}
