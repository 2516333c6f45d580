// A wgmma mainloop in the shape of CuTe's cp.async tutorial
// (cute/tutorial/hopper/wgmma_sm90): every thread copies its part of the
// next K tile into a shared-memory stage with cp.async, waits for its own
// copies, and the warpgroup runs wgmma.mma_async on the current stage,
// commits and waits (wgmma.wait_group 0). There is no CTA barrier between
// iterations: a warp that has finished its wait copies the next tile into
// the stage its warpgroup just read, while the other three warps may not
// have reached their wgmma yet. On the GPU that is correct, because the four
// warps issue one operation together and a warp's wait cannot complete
// before the operation has read its operands; a simulator that computes each
// warp's slice when that warp reaches the instruction reads the overwritten
// stage for warps 1-3 (rows 16-63 of each 64-row block).
//
// C (M x N, f32) = A (M x K, f16, row-major) * B^T (B: N x K, f16,
// row-major), one warpgroup per 64 x 64 tile, each stage a 64 x 32 slice of
// A and of B in the ISA's K-major layout without swizzle (core matrices of
// 8 rows x 16 bytes: LBO 128 bytes between the four along K, SBO 512 bytes
// between 8-row groups), two wgmma m64n64k16 per stage accumulating into
// the same registers. Values are small integers, so every sum is exact.
// Then the errors: a warpgroup one of whose warps has exited, and (argument
// `small`) a CTA too small for a warpgroup. Arguments `clean` and `race`
// run small GEMMs for racecheck, without and with a race on a stage.
#include <cuda_fp16.h>

#include <cstdint>

#include "../check.cuh"
#include <cstdio>
#include <cstring>
#include <vector>

constexpr int kTile = 64, kStageK = 32, kStageBytes = kTile * kStageK * 2;  // 4 KB per operand

__device__ uint64_t desc(uint32_t smem_addr) {
  const uint64_t lbo = 128, sbo = 512;
  return uint64_t((smem_addr & 0x3ffff) >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32;
}

// Byte offset of element (row, k) of a stage (k < 32).
__device__ uint32_t stage_off(int row, int k) { return 16 * (row % 8) + 512 * (row / 8) + 128 * (k / 8) + 2 * (k % 8); }

// One thread's cp.async of its 16-byte chunks of the 64 x 32 slices at k0.
__device__ void copy_stage(uint32_t sa, uint32_t sb, const __half* A, const __half* B, int K, int m0, int n0, int k0) {
  for (int c = threadIdx.x; c < kTile * kStageK / 8; c += blockDim.x) {
    const int row = c / 4, k = (c % 4) * 8;
    const __half* ga = A + size_t(m0 + row) * K + k0 + k;
    const __half* gb = B + size_t(n0 + row) * K + k0 + k;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sa + stage_off(row, k)), "l"(ga) : "memory");
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sb + stage_off(row, k)), "l"(gb) : "memory");
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
}

#define R8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
              "+f"(d[i + 6]), "+f"(d[i + 7])

__device__ void mma_64x64x16(float (&d)[32], uint64_t da, uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 0, 0;\n}\n"
      : R8(0), R8(8), R8(16), R8(24)
      : "l"(da), "l"(db), "r"(accumulate));
}

// kRacy: each thread also copies the next tile into the stage being read
// between its wgmma.mma_async and its wait, a race racecheck must report
// (the four warps' operation may not have read the stage yet).
template <int kStages, bool kRacy = false>
__global__ void __launch_bounds__(128) gemm(const __half* A, const __half* B, float* C, int N, int K) {
  __shared__ alignas(128) uint8_t smem[kStages][2][kStageBytes];
  const uint32_t base = uint32_t(__cvta_generic_to_shared(smem));
  auto sa = [&](int s) { return base + uint32_t(s) * 2 * kStageBytes; };
  auto sb = [&](int s) { return sa(s) + kStageBytes; };
  const int m0 = blockIdx.y * kTile, n0 = blockIdx.x * kTile, ktiles = K / kStageK;
  for (int s = 0; s < kStages - 1; ++s) copy_stage(sa(s), sb(s), A, B, K, m0, n0, s * kStageK);
  __syncthreads();
  float d[32];
  for (float& x : d) x = 0;
  int write = kStages - 1, read = 0;
  for (int kt = 0; kt < ktiles; ++kt) {
    const int next = kt + kStages - 1 < ktiles ? kt + kStages - 1 : ktiles - 1;
    copy_stage(sa(write), sb(write), A, B, K, m0, n0, next * kStageK);
    write = write + 1 == kStages ? 0 : write + 1;
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    mma_64x64x16(d, desc(sa(read)), desc(sb(read)), kt > 0);
    mma_64x64x16(d, desc(sa(read) + 256), desc(sb(read) + 256), 1);  // k 16..31: two core matrices on
    if (kRacy) copy_stage(sa(read), sb(read), A, B, K, m0, n0, next * kStageK);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    read = read + 1 == kStages ? 0 : read + 1;
  }
  // The accumulator fragment (ISA "Register Fragments", wgmma D): warp w
  // holds rows 16w..16w+15; register i of lane l is row l/4 + 8*((i/2)%2),
  // column 8*(i/4) + 2*(l%4) + i%2.
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int i = 0; i < 32; ++i) {
    const int r = 16 * warp + lane / 4 + 8 * ((i >> 1) & 1), c = 8 * (i >> 2) + 2 * (lane % 4) + (i & 1);
    C[size_t(m0 + r) * N + n0 + c] = d[i];
  }
}

// Warp 3 leaves before the warpgroup's first wgmma: the operation can never
// run. Launched with 64 threads, the warpgroup lacks warps 2 and 3.
__global__ void warp_exits(float* out) {
  __shared__ alignas(128) uint8_t smem[2][kStageBytes];
  if (threadIdx.x / 32 == 3) return;
  for (int i = threadIdx.x; i < 2 * kStageBytes; i += 96) smem[i / kStageBytes][i % kStageBytes] = 0;
  const uint32_t base = uint32_t(__cvta_generic_to_shared(smem));
  float d[32] = {};
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  mma_64x64x16(d, desc(base), desc(base + kStageBytes), 0);
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  out[threadIdx.x] = d[0];
}

template <int kStages, bool kRacy = false>
int run(int M, int N, int K) {
  std::vector<__half> a(size_t(M) * K), b(size_t(N) * K);
  std::vector<float> fa(a.size()), fb(b.size());
  unsigned x = 2024u + K;
  auto small = [&] { x = x * 1664525u + 1013904223u; return float(int(x >> 28) % 5 - 2); };  // -2..2
  for (size_t i = 0; i < a.size(); ++i) fa[i] = small(), a[i] = __float2half(fa[i]);
  for (size_t i = 0; i < b.size(); ++i) fb[i] = small(), b[i] = __float2half(fb[i]);
  __half *da, *db;
  float* dc;
  CHECK(cudaMalloc(&da, a.size() * 2));
  CHECK(cudaMalloc(&db, b.size() * 2));
  CHECK(cudaMalloc(&dc, size_t(M) * N * 4));
  CHECK(cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dc, 0xff, size_t(M) * N * 4));
  gemm<kStages, kRacy><<<dim3(N / kTile, M / kTile), 128>>>(da, db, dc, N, K);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> c(size_t(M) * N);
  CHECK(cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost));
  int bad = 0, bad_rows_16_63 = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float want = 0;
      for (int k = 0; k < K; ++k) want += fa[size_t(i) * K + k] * fb[size_t(j) * K + k];
      const float got = c[size_t(i) * N + j];
      if (got != want) {
        bad_rows_16_63 += i % 64 >= 16;
        if (bad++ < 3) std::printf("  C[%d][%d] = %g, expected %g\n", i, j, got, want);
      }
    }
  std::printf("%dx%dx%d, %d stages: %d mismatches (%d in rows 16-63 of a tile)\n", M, N, K, kStages, bad,
              bad_rows_16_63);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return kRacy ? 0 : bad != 0;  // racy: the results are not defined
}

int main(int argc, char** argv) {
  float* out;
  CHECK(cudaMalloc(&out, 128 * 4));
  if (argc > 1 && std::strcmp(argv[1], "small") == 0) {
    warp_exits<<<1, 64>>>(out);
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("a 64-thread CTA's wgmma: %s\n", cudaGetErrorName(e));
    return e == cudaErrorIllegalInstruction ? 0 : 1;
  }
  if (argc > 1 && std::strcmp(argv[1], "race") == 0) return run<2, true>(64, 64, 64);  // for racecheck
  if (argc > 1 && std::strcmp(argv[1], "clean") == 0) return run<2>(64, 64, 64) + run<3>(64, 64, 128);
  int bad = 0;
  bad += run<2>(64, 64, 32);     // one K tile: nothing to overwrite
  bad += run<2>(128, 64, 128);   // K >= 128: the tutorial's failing sizes
  bad += run<3>(128, 128, 256);
  bad += run<2>(64, 128, 320);
  // The error: a clear deadlock report, never a hang.
  warp_exits<<<1, 128>>>(out);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("warp 3 exited before the wgmma: %s\n", cudaGetErrorName(e));
  bad += e != cudaErrorIllegalInstruction;
  if (bad) return 1;
  std::printf("PASS wgmma_pipeline\n");
  return 0;
}
