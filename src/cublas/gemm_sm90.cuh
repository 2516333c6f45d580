// The Hopper (sm_90a) main loop of softgpu's cuBLASLt matmul, as NVIDIA's
// library runs its large GEMMs on an H100: warp-specialized, operands
// brought into shared memory by the Tensor Memory Accelerator and
// multiplied by warpgroup MMA (wgmma) straight from shared memory.
//
// A CTA of three warpgroups computes a 128 x BN tile of op(A) op(B) (BN
// 128 or 256, as cuBLAS's 128x128 and 128x256 Hopper tiles): warpgroup 0
// is the producer (one thread issues the TMA copies), warpgroups 1 and 2
// the consumers, each 64 rows x BN columns with wgmma m64nBN. K goes through a ring of kStages shared-memory stages, 128
// bytes of K a stage (64 f16/bf16 elements, 128 fp8): the producer waits
// until a stage is empty (its `empty` mbarrier, one arrival per consumer),
// expects its bytes on the stage's `full` mbarrier and starts two tiled
// TMA copies (A's 128 rows and B's BN columns of the stage's K slice) that
// complete on it; a consumer waits for `full`, issues the stage's four
// wgmma (k16 each, k32 for fp8) as one commit group, and once the previous
// stage's group has retired (wgmma.wait_group 1) releases that stage.
//
// A K-major operand (op(A) = A^T, op(B) = B of column-major storage: the
// "TN" layout, the only one for FP8) fills a stage row by row, one
// 128-byte line of K each, written by TMA with the 128-byte swizzle, the
// canonical layout the wgmma descriptors name (8-row groups 1024 bytes
// apart, SBO; the swizzle repeats every 8 rows). An MN-major one (op(A) =
// A, op(B) = B^T; f16 and bf16, wgmma's imm-trans 1) comes as boxes of 64
// rows (128 bytes) x the stage's 64 K, one K row a 128-byte line, 8-K-row
// groups 1024 bytes apart (SBO) and the boxes 8 KB apart (LBO). TMA fills
// rows and K past the matrix with zeros, so any m, n, k works; the
// epilogue writes only elements inside D.
//
// Shared memory: kStages x (A 16 KB + B 16 or 32 KB) at a 1024-byte boundary,
// then 2 x kStages mbarriers.
//
// Below the main loop: the kernel (main loop, then D = alpha acc + beta C
// straight from the accumulator fragments) and its host launcher, which
// libcublas (kernels_sm90.cu, for cublasGemmEx and friends) and libcublasLt
// (src/cublaslt/kernels_sm90.cu) both compile. Include from one .cu file
// per library, compiled for compute_90a (which an sm_90 device runs) and
// compute_80 (the kernels empty and never launched: the host launches them
// on sm_90 only), so that the fatbinary loads on every GPU.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "gemm_tile.cuh"  // widen, narrow

namespace softgpu::gemm_sm90 {

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define SOFTGPU_SM90_DEVICE 1
#endif

constexpr int kBM = 128;       // the tile's rows; its columns BN are 128 or 256
constexpr int kRowBytes = 128;  // K bytes per stage
constexpr int kStages = 4;
constexpr int kThreads = 384;  // producer warpgroup + two consumer warpgroups
template <int BN> constexpr int kStageBytes = (kBM + BN) * kRowBytes;
template <int BN> constexpr int kSmemBytes = 1024 + kStages * kStageBytes<BN> + 2 * kStages * 8;

// The wgmma multiplicand types.
enum class In { f16, bf16, e4m3 };
template <In I> constexpr int kElemBytes = I == In::e4m3 ? 1 : 2;
template <In I> constexpr int kStageK = kRowBytes / kElemBytes<I>;

#ifdef SOFTGPU_SM90_DEVICE
__device__ __forceinline__ uint32_t smem_u32(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void bar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void bar_wait(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred done;\nwait_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_%=;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void bar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void bar_expect(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
// One box of a 3-D tensor map (K, rows, batch) into shared memory.
__device__ __forceinline__ void tma_load(uint32_t dst, const CUtensorMap* map, int k, int row, int z, uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
      "[%5];" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(k), "r"(row), "r"(z), "r"(bar)
      : "memory");
}

// An operand with the 128-byte swizzle: start address, LBO, SBO 1024 bytes
// (between 8-row groups: of MN rows for a K-major operand, of K rows for an
// MN-major one), layout type 1 (128B swizzle) in bits 62-63. LBO is unused
// for a K-major operand (1) and the distance between 64-element MN chunks
// (8 KB, one TMA box) for an MN-major one.
__device__ __forceinline__ uint64_t desc_sw128(uint32_t addr, uint32_t lbo) {
  return uint64_t((addr & 0x3ffff) >> 4) | uint64_t(lbo >> 4) << 16 | uint64_t(1024 >> 4) << 32 | uint64_t(1) << 62;
}

#define SG_ACC8(i)                                                                                      \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), \
      "+f"(d[i + 7])
#define SG_ACC64(i) SG_ACC8(i), SG_ACC8(i + 8), SG_ACC8(i + 16), SG_ACC8(i + 24), SG_ACC8(i + 32), SG_ACC8(i + 40), \
                    SG_ACC8(i + 48), SG_ACC8(i + 56)
#define SG_REGS64 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, " \
  "%21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, " \
  "%40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, " \
  "%59, %60, %61, %62, %63" "}"
#define SG_REGS128 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, " \
  "%21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, " \
  "%40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, " \
  "%59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, " \
  "%78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, " \
  "%97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, " \
  "%113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" "}"
// scale-d is a predicate: 1, d accumulates (the registers start at zero).
#define SG_SCALE_D(n) "{\n.reg .pred p;\nsetp.ne.b32 p, %" #n ", 0;\n"
#define SG_WGMMA(shape, types, regs, a, b, tail) \
  SG_SCALE_D(tail) "wgmma.mma_async.sync.aligned." shape ".f32." types " " regs ", %" #a ", %" #b ", p, 1, 1"

// d += A (64 x k-step, shared) * B (BN x k-step, shared)^T, accumulating;
// kMnA / kMnB: the operand is MN-major (imm-trans 1, 16-bit types only).
template <In I, int BN, bool kMnA, bool kMnB>
__device__ __forceinline__ void mma(float (&d)[BN / 2], uint64_t da, uint64_t db) {
  static_assert(BN == 128 || BN == 256, "tile widths 128 and 256");
  static_assert(I != In::e4m3 || (!kMnA && !kMnB), "FP8 operands are K-major");
  constexpr int ta = kMnA, tb = kMnB;
  if constexpr (BN == 128) {
    if constexpr (I == In::f16) {
      asm volatile(SG_WGMMA("m64n128k16", "f16.f16", SG_REGS64, 64, 65, 66) ", %67, %68;\n}\n"
                   : SG_ACC64(0) : "l"(da), "l"(db), "n"(1), "n"(ta), "n"(tb));
    } else if constexpr (I == In::bf16) {
      asm volatile(SG_WGMMA("m64n128k16", "bf16.bf16", SG_REGS64, 64, 65, 66) ", %67, %68;\n}\n"
                   : SG_ACC64(0) : "l"(da), "l"(db), "n"(1), "n"(ta), "n"(tb));
    } else {
      asm volatile(SG_WGMMA("m64n128k32", "e4m3.e4m3", SG_REGS64, 64, 65, 66) ";\n}\n"
                   : SG_ACC64(0) : "l"(da), "l"(db), "n"(1));
    }
  } else {
    if constexpr (I == In::f16) {
      asm volatile(SG_WGMMA("m64n256k16", "f16.f16", SG_REGS128, 128, 129, 130) ", %131, %132;\n}\n"
                   : SG_ACC64(0), SG_ACC64(64) : "l"(da), "l"(db), "n"(1), "n"(ta), "n"(tb));
    } else if constexpr (I == In::bf16) {
      asm volatile(SG_WGMMA("m64n256k16", "bf16.bf16", SG_REGS128, 128, 129, 130) ", %131, %132;\n}\n"
                   : SG_ACC64(0), SG_ACC64(64) : "l"(da), "l"(db), "n"(1), "n"(ta), "n"(tb));
    } else {
      asm volatile(SG_WGMMA("m64n256k32", "e4m3.e4m3", SG_REGS128, 128, 129, 130) ";\n}\n"
                   : SG_ACC64(0), SG_ACC64(64) : "l"(da), "l"(db), "n"(1));
    }
  }
}
#undef SG_ACC8
#undef SG_ACC64
#undef SG_REGS64
#undef SG_REGS128
#undef SG_SCALE_D
#undef SG_WGMMA
#endif

// The CTA's main loop over the whole of K for the tile at (row0, col0) of
// batch entry z. Returns true in consumer threads, whose d then holds their
// m64nBN fragment of rows row0 + 64 (warpgroup - 1) ...; false in the
// producer warpgroup (nothing to write). Every thread of the CTA must call it.
template <In I, int BN, bool kMnA, bool kMnB>
__device__ bool accumulate(unsigned char* smem_raw, const CUtensorMap* map_a, const CUtensorMap* map_b, int k,
                           int row0, int col0, int z, float (&d)[BN / 2]) {
#ifdef SOFTGPU_SM90_DEVICE
  const uint32_t raw = smem_u32(smem_raw);
  const uint32_t base = (raw + 1023u) & ~1023u;
  const uint32_t bars = base + kStages * kStageBytes<BN>;
  auto stage_a = [&](int s) { return base + uint32_t(s) * kStageBytes<BN>; };
  auto stage_b = [&](int s) { return stage_a(s) + kBM * kRowBytes; };
  auto full = [&](int s) { return bars + 8u * uint32_t(s); };
  auto empty = [&](int s) { return bars + 8u * uint32_t(kStages + s); };
  const int wg = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      bar_init(full(s), 1);
      bar_init(empty(s), 2);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  constexpr int kk = kStageK<I>;
  const int ktiles = (k + kk - 1) / kk;
  if (wg == 0) {
    if (threadIdx.x == 0) {
      for (int kt = 0; kt < ktiles; ++kt) {
        const int s = kt % kStages, round = kt / kStages;
        if (round > 0) bar_wait(empty(s), (round - 1) & 1);
        bar_expect(full(s), kStageBytes<BN>);
        // K-major: one box of 128 K bytes x all rows; MN-major: boxes of 64
        // rows (128 bytes) x the stage's K, 8 KB apart.
        if constexpr (kMnA) {
          for (int c = 0; c < kBM / 64; ++c) tma_load(stage_a(s) + 8192u * c, map_a, row0 + 64 * c, kt * kk, z, full(s));
        } else {
          tma_load(stage_a(s), map_a, kt * kk, row0, z, full(s));
        }
        if constexpr (kMnB) {
          for (int c = 0; c < BN / 64; ++c) tma_load(stage_b(s) + 8192u * c, map_b, col0 + 64 * c, kt * kk, z, full(s));
        } else {
          tma_load(stage_b(s), map_b, kt * kk, col0, z, full(s));
        }
      }
    }
    return false;
  }
  for (float& x : d) x = 0.f;
  // This consumer's 64 rows of A: 64 K-major rows of 128 bytes, or the
  // second MN-major box. A k-step is 32 bytes along a K-major row, or 16
  // K rows of 128 bytes in an MN-major box.
  const uint32_t a_rows = uint32_t(wg - 1) * 64 * kRowBytes;
  constexpr uint32_t a_step = kMnA ? 16 * kRowBytes : 32, b_step = kMnB ? 16 * kRowBytes : 32;
  constexpr uint32_t a_lbo = kMnA ? 8192 : 16, b_lbo = kMnB ? 8192 : 16;
  for (int kt = 0; kt < ktiles; ++kt) {
    const int s = kt % kStages;
    bar_wait(full(s), (kt / kStages) & 1);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int j = 0; j < 4; ++j)  // four k-steps of 32 bytes
      mma<I, BN, kMnA, kMnB>(d, desc_sw128(stage_a(s) + a_rows + a_step * j, a_lbo),
                             desc_sw128(stage_b(s) + b_step * j, b_lbo));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    // The previous stage's group has read its operands: release it.
    if (kt > 0 && threadIdx.x % 128 == 0) bar_arrive(empty((kt - 1) % kStages));
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  return true;
#else
  (void)smem_raw, (void)map_a, (void)map_b, (void)k, (void)row0, (void)col0, (void)z, (void)d;
  __trap();  // never launched: the host picks this kernel on sm_90 only
  return false;
#endif
}

// Calls f(row, col, value) for each accumulator of a consumer thread's
// fragment (ISA "Register Fragments" of wgmma D, m64nN: warp w of the
// warpgroup holds rows 16w..16w+15; register i of lane l is row
// l/4 + 8 ((i/2) % 2), column 8 (i/4) + 2 (l%4) + i%2), row and col
// relative to the CTA's tile.
template <int BN, class F>
__device__ __forceinline__ void for_each(const float (&d)[BN / 2], F f) {
  const int wg = threadIdx.x / 128, warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int r0 = 64 * (wg - 1) + 16 * warp + lane / 4;
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) f(r0 + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * (lane % 4) + (i & 1), d[i]);
}

// --- the kernel ----------------------------------------------------------

// Where D (and C, which may be D) lie: element (r, c) of batch z at
// d + z sd + r d_rs + c d_cs (column-major: d_rs 1, d_cs ld).
struct Out {
  int m, n, k, z0;
  const void* c;
  int64_t c_rs, c_cs, sc;
  void* d;
  int64_t d_rs, d_cs, sd;
};

extern __shared__ __align__(128) unsigned char sm90_gemm_smem[];

// D = alpha op(A) op(B) + beta C over the 128 x BN tiles of grid x, y and
// the batch entries of grid z (from p.z0); alpha == 0 reads neither A nor
// B, beta == 0 never reads C. TO: C and D, TS: the scalars.
template <In I, int BN, bool kMnA, bool kMnB, typename TO, typename TS>
__global__ void __launch_bounds__(kThreads)
    sm90_gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, Out p,
                     TS alpha, const TS* alpha_dev, TS beta, const TS* beta_dev) {
  using gemm_tile::narrow;
  using gemm_tile::scalar;
  using gemm_tile::widen;
  const int z = p.z0 + int(blockIdx.z);
  const int row0 = blockIdx.x * kBM, col0 = blockIdx.y * BN;
  const float al = widen(scalar(alpha, alpha_dev));
  float d[BN / 2];
  if (al != 0.f) {  // uniform
    if (!accumulate<I, BN, kMnA, kMnB>(sm90_gemm_smem, &map_a, &map_b, p.k, row0, col0, z, d)) return;
  } else {
    if (threadIdx.x < 128) return;
    for (float& x : d) x = 0.f;
  }
  const float be = widen(scalar(beta, beta_dev));
  const TO* c = static_cast<const TO*>(p.c) + p.sc * z;
  TO* out = static_cast<TO*>(p.d) + p.sd * z;
  for_each<BN>(d, [&](int tr, int tc, float v) {
    const int r = row0 + tr, cl = col0 + tc;
    if (r >= p.m || cl >= p.n) return;
    const float ab = al == 0.f ? 0.f : al * v;
    out[r * p.d_rs + cl * p.d_cs] = narrow<TO>(be == 0.f ? ab : fmaf(be, widen(c[r * p.c_rs + cl * p.c_cs]), ab));
  });
}

// --- the host side ---------------------------------------------------------

// One call, column-major as BLAS (m, n, k in out): op(A) = A^T (ta: A stored k x m, K-major)
// or A (stored m x k, MN-major), op(B) = B (!tb: stored k x n, K-major) or
// B^T (stored n x k, MN-major), ld lda / ldb; MN-major operands for the
// 16-bit types only. Batch i at a + i sa, b + i sb (elements); scalars
// from the host values or device pointers (which win when non-null).
struct Call {
  bool ta, tb;
  int batch;
  const void* a;
  int64_t lda, sa;
  const void* b;
  int64_t ldb, sb;
  Out out;  // m, n, k, C and D (z0 unused)
  const void *alpha_host, *alpha_dev, *beta_host, *beta_dev;
};

// Whether the current device is an sm_90 GPU.
inline bool on_sm90() {
  int dev = 0, major = 0;
  return cudaGetDevice(&dev) == cudaSuccess &&
         cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess && major == 9;
}

// SOFTGPU_CUBLAS_TC_TILE=64, 128x128 or 128x64 forces one of the mma.sync
// kernels (tests); =wgmma128x128 / wgmma128x256 one width of this one.
inline bool mma_sync_forced() {
  const char* f = std::getenv("SOFTGPU_CUBLAS_TC_TILE");
  return f && (!std::strcmp(f, "64") || !std::strcmp(f, "128x128") || !std::strcmp(f, "128x64"));
}

// The tile width: 256 (half the L2 traffic per flop of 128, what an H100's
// L2 bandwidth needs to keep its tensor cores busy) unless the grid then
// takes more wave-time than with 128 (small problems: fewer, longer CTAs).
inline int pick_tile_n(int m, int n, int batch) {
  if (const char* f = std::getenv("SOFTGPU_CUBLAS_TC_TILE")) {
    if (!std::strcmp(f, "wgmma128x128")) return 128;
    if (!std::strcmp(f, "wgmma128x256")) return 256;
  }
  int dev = 0, sms = 1;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms < 1)
    sms = 1;
  const int64_t rows = (m + kBM - 1) / kBM;
  const int64_t w128 = (rows * ((n + 127) / 128) * batch + sms - 1) / sms;
  const int64_t w256 = (rows * ((n + 255) / 256) * batch + sms - 1) / sms;
  return 2 * w256 <= w128 ? 256 : 128;
}

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

inline EncodeTiled encoder() {
  static const EncodeTiled fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      return EncodeTiled(nullptr);
    return reinterpret_cast<EncodeTiled>(f);
  }();
  return fn;
}

// The tensor map of an operand stored as `outer` lines of `inner`
// contiguous elements, ld elements apart, `batch` entries `stride` elements
// apart (K-major: inner k, outer the rows; MN-major: inner the rows, outer
// k); boxes of 128 bytes of the inner dimension x box_outer lines, with the
// 128-byte swizzle. False when TMA cannot describe it (alignment, strides).
inline bool operand_map(CUtensorMap* map, CUtensorMapDataType type, int elem, const void* base, int inner,
                        int outer, int64_t ld, int batch, int64_t stride, int box_outer) {
  const uint64_t row_bytes = uint64_t(ld) * elem;
  const uint64_t batch_bytes = batch > 1 ? uint64_t(stride) * elem : row_bytes * uint64_t(outer);
  if (reinterpret_cast<uintptr_t>(base) % 16 || row_bytes % 16 || batch_bytes % 16 || (batch > 1 && stride <= 0))
    return false;
  const cuuint64_t dims[3] = {cuuint64_t(inner), cuuint64_t(outer), cuuint64_t(batch)};
  const cuuint64_t strides[2] = {row_bytes, batch_bytes};
  const cuuint32_t box[3] = {cuuint32_t(kRowBytes / elem), cuuint32_t(box_outer), 1};
  const cuuint32_t estr[3] = {1, 1, 1};
  EncodeTiled enc = encoder();
  return enc && enc(map, type, 3, const_cast<void*>(base), dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                    CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

template <In I, int BN, bool kMnA, bool kMnB, typename TO, typename TS>
cudaError_t launch_width(cudaStream_t s, const Call& c, bool& ran) {
  constexpr int es = kElemBytes<I>;
  constexpr CUtensorMapDataType type = I == In::f16    ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                       : I == In::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                       : CU_TENSOR_MAP_DATA_TYPE_UINT8;
  CUtensorMap ma, mb;
  constexpr int kk = kStageK<I>;
  const bool a_ok = kMnA ? operand_map(&ma, type, es, c.a, c.out.m, c.out.k, c.lda, c.batch, c.sa, kk)
                         : operand_map(&ma, type, es, c.a, c.out.k, c.out.m, c.lda, c.batch, c.sa, kBM);
  const bool b_ok = kMnB ? operand_map(&mb, type, es, c.b, c.out.n, c.out.k, c.ldb, c.batch, c.sb, kk)
                         : operand_map(&mb, type, es, c.b, c.out.k, c.out.n, c.ldb, c.batch, c.sb, BN);
  if (!a_ok || !b_ok) return cudaSuccess;  // not for this kernel: ran stays false
  auto* kernel = sm90_gemm_kernel<I, BN, kMnA, kMnB, TO, TS>;
  constexpr int smem = kSmemBytes<BN>;
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
      e != cudaSuccess)
    return e;
  ran = true;
  TS al{}, be{};
  if (c.alpha_host) std::memcpy(&al, c.alpha_host, sizeof(TS));
  if (c.beta_host) std::memcpy(&be, c.beta_host, sizeof(TS));
  Out p = c.out;
  constexpr int kMaxZ = 65535;
  for (int b0 = 0; b0 < c.batch; b0 += kMaxZ) {
    const int nb = c.batch - b0 < kMaxZ ? c.batch - b0 : kMaxZ;
    p.z0 = b0;
    const dim3 grid((c.out.m + kBM - 1) / kBM, (c.out.n + BN - 1) / BN, nb);
    kernel<<<grid, kThreads, smem, s>>>(ma, mb, p, al, static_cast<const TS*>(c.alpha_dev), be,
                                        static_cast<const TS*>(c.beta_dev));
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

template <In I, bool kMnA, bool kMnB, typename TO, typename TS>
cudaError_t launch_layout(cudaStream_t s, const Call& c, bool& ran) {
  return pick_tile_n(c.out.m, c.out.n, c.batch) == 256 ? launch_width<I, 256, kMnA, kMnB, TO, TS>(s, c, ran)
                                                : launch_width<I, 128, kMnA, kMnB, TO, TS>(s, c, ran);
}

// Launches the call on this kernel, or leaves `ran` false (and launches
// nothing) when it cannot take it: an MN-major FP8 operand (wgmma reads FP8
// K-major only), or a layout TMA cannot describe (16-byte alignment of A,
// B, ld and batch strides). The caller has checked that the device is
// sm_90.
template <In I, typename TO, typename TS>
cudaError_t launch(cudaStream_t s, const Call& c, bool& ran) {
  ran = false;
  if constexpr (I == In::e4m3) {
    if (!c.ta || c.tb) return cudaSuccess;
    return launch_layout<I, false, false, TO, TS>(s, c, ran);
  } else {
    if (c.ta) return c.tb ? launch_layout<I, false, true, TO, TS>(s, c, ran) : launch_layout<I, false, false, TO, TS>(s, c, ran);
    return c.tb ? launch_layout<I, true, true, TO, TS>(s, c, ran) : launch_layout<I, true, false, TO, TS>(s, c, ran);
  }
}

}  // namespace softgpu::gemm_sm90
