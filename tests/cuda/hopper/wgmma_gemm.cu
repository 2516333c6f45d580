// Hopper warpgroup MMA (wgmma, sm_90a) through inline PTX, checked against a
// CPU GEMM: one warpgroup (128 threads) computes D (64 x N) = A * B (+ C)
// over several k-steps, each a wgmma.mma_async committed in its own group,
// then waits for them all. The kernel writes A and B into shared memory
// itself, in the canonical layouts of the PTX ISA ("Shared Memory Matrix
// Layout": core matrices of 8 rows x 16 bytes, K-major or MN-major, with
// no swizzle or the 32/64/128-byte swizzle of the absolute shared address)
// and builds the matrix descriptors (one thread, chosen by elect.sync,
// writes the table; fence.proxy.async makes the writes visible to wgmma).
// A comes from shared memory or from registers (the ISA's register
// fragment layout); D goes through the accumulator fragment layout. All
// values are small multiples of 1/2 (or integers), so every sum is exact
// in every accumulator type and the results must match exactly.
#include <cstdio>

#include "wgmma_run.cuh"

template <class Op, int SA, int SB, int TA, int TB, bool REGS>
static int run(Case c) {
  int bad = 0;
  int err = run_case<Op, SA, SB, TA, TB, REGS>(c, [&](int r, int col, uint32_t got_bits, double want) {
    const double got = decode(c.d, got_bits);
    if (got != want && bad++ < 5) std::printf("  %s: D[%d][%d] = %g, expected %g\n", c.name, r, col, got, want);
  });
  std::printf("%s: %d mismatches\n", c.name, bad);
  return bad != 0 || err;
}

// K-major / MN-major, swizzle bytes, core-matrix arrangement (no swizzle).
static Lay K(int swz, int alt = 0, int shift = 0) { return Lay{0, swz, alt, 0, 0, 0, shift}; }
static Lay MN(int swz, int alt = 0, int shift = 0) { return Lay{1, swz, alt, 0, 0, 0, shift}; }

int main() {
  int bad = 0;
  // f16 -> f32: N, swizzles, arrangements, scale-d, k-steps.
  bad += run<F16F32_N64, 1, 1, 0, 0, false>({"f16 n64 sw128", F32, F16, F16, 64, 4, 1, K(128), K(128)});
  bad += run<F16F32_N8, 1, 1, 0, 0, false>({"f16 n8 none", F32, F16, F16, 8, 2, 0, K(0), K(0, 1)});
  bad += run<F16F32_N128, 1, 1, 0, 0, false>({"f16 n128 sw64", F32, F16, F16, 128, 2, 1, K(64), K(64)});
  bad += run<F16F32_N256, 1, 1, 0, 0, false>({"f16 n256 sw32", F32, F16, F16, 256, 1, 1, K(32), K(32)});
  bad += run<F16F32_N256, 1, 1, 0, 0, false>({"f16 n256 none scale-d 0", F32, F16, F16, 256, 2, 0, K(0, 1), K(0)});
  // Transposes (MN-major), negation.
  bad += run<F16F32_N64, 1, 1, 1, 1, false>({"f16 n64 trans a+b sw128", F32, F16, F16, 64, 2, 1, MN(128), MN(128)});
  bad += run<F16F32_N128, 1, 1, 0, 1, false>({"f16 n128 trans b none", F32, F16, F16, 128, 2, 1, K(0), MN(0)});
  bad += run<F16F32_N128, 1, 1, 1, 0, false>({"f16 n128 trans a none alt", F32, F16, F16, 128, 3, 1, MN(0, 1), K(128)});
  bad += run<F16F32_N64, -1, 1, 1, 0, false>({"f16 n64 -a trans a sw64", F32, F16, F16, 64, 2, 1, MN(64), K(64)});
  bad += run<F16F32_N64, -1, -1, 0, 1, false>({"f16 n64 -a -b trans b sw32", F32, F16, F16, 64, 2, 1, K(32), MN(32)});
  bad += run<F16F32_N64, 1, -1, 0, 0, false>({"f16 n64 -b sw128", F32, F16, F16, 64, 1, 0, K(128), K(128)});
  bad += run<F16F32_N64, 1, 1, 0, 0, false>({"f16 n64 sw128 base offset", F32, F16, F16, 64, 2, 1, K(128, 0, 512),
                                               K(64, 0, 384)});
  bad += run<F16F32_N64, 1, 1, 1, 0, false>({"f16 n64 trans a sw32 base offset", F32, F16, F16, 64, 2, 1,
                                               MN(32, 0, 128), K(128, 0, 640)});
  // A from registers.
  bad += run<F16F32_N64_RS, 1, 1, 0, 0, true>({"f16 n64 A regs sw128", F32, F16, F16, 64, 4, 1, K(0), K(128)});
  bad += run<F16F32_N64_RS, -1, 1, 0, 1, true>({"f16 n64 A regs -a trans b", F32, F16, F16, 64, 2, 1, K(0), MN(64)});
  // f16 accumulators, bf16.
  bad += run<F16F16_N64, 1, 1, 0, 0, false>({"f16->f16 n64 sw128", F16, F16, F16, 64, 4, 1, K(128), K(128)});
  bad += run<F16F16_N256, 1, 1, 0, 0, false>({"f16->f16 n256 sw64", F16, F16, F16, 256, 2, 1, K(64), K(64)});
  bad += run<BF16_N128, 1, 1, 0, 1, false>({"bf16 n128 trans b sw128", F32, BF16, BF16, 128, 2, 1, K(128), MN(128)});
  bad += run<BF16_N8_RS, 1, -1, 0, 0, true>({"bf16 n8 A regs -b", F32, BF16, BF16, 8, 2, 1, K(0), K(0)});
  // tf32, fp8, integers.
  bad += run<TF32_N64, 1, 1, 0, 0, false>({"tf32 n64 sw128", F32, TF32, TF32, 64, 4, 1, K(128), K(128)});
  bad += run<TF32_N128_RS, 1, -1, 0, 0, true>({"tf32 n128 A regs -b sw32", F32, TF32, TF32, 128, 2, 1, K(0), K(32)});
  bad += run<E4M3_N128, 1, 1, 0, 0, false>({"e4m3 n128 sw128", F32, E4M3, E4M3, 128, 4, 1, K(128), K(128)});
  bad += run<E4M3E5M2F16_N64, -1, 1, 0, 0, false>({"e4m3 x e5m2 -> f16 n64 -a sw64", F16, E4M3, E5M2, 64, 2, 1,
                                                     K(64), K(64)});
  bad += run<E5M2_N256_RS, 1, 1, 0, 0, true>({"e5m2 n256 A regs none", F32, E5M2, E5M2, 256, 1, 0, K(0), K(0, 1)});
  bad += run<S8_N8, 1, 1, 0, 0, false>({"s8 n8 none", S32, S8, S8, 8, 2, 1, K(0), K(0)});
  bad += run<S8_N64, 1, 1, 0, 0, false>({"s8 n64 sw128", S32, S8, S8, 64, 4, 1, K(128), K(128), true});
  Case wrap{"s8 n256 sw64 wraps", S32, S8, S8, 256, 2, 1, K(64), K(64), true};
  wrap.cbase = INT_MAX - 2000;
  bad += run<S8_N256, 1, 1, 0, 0, false>(wrap);
  bad += run<S8U8_N64_RS, 1, 1, 0, 0, true>({"s8 x u8 n64 A regs sw32", S32, S8, U8, 64, 2, 1, K(0), K(32), true});
  Case sat{"u8 n128 satfinite sw128", S32, U8, U8, 128, 2, 1, K(128), K(128), true};
  sat.cbase = INT_MAX - 200000, sat.sat = true;
  bad += run<U8_N128_SAT, 1, 1, 0, 0, false>(sat);
  // Warp-specialized: setmaxnreg, the consumer is the second warpgroup.
  Case ws{"warp-specialized f16 n128 sw128", F32, F16, F16, 128, 4, 1, K(128), K(128)};
  ws.ws = true;
  bad += run<F16F32_N128, 1, 1, 0, 0, false>(ws);
  Case ws_regs{"warp-specialized s8 n64 A regs", S32, S8, S8, 64, 2, 1, K(0), K(64), true};
  ws_regs.ws = true;
  bad += run<S8_N64_RS, 1, 1, 0, 0, true>(ws_regs);
  if (bad) {
    std::printf("FAIL wgmma_gemm: %d cases\n", bad);
    return 1;
  }
  std::printf("PASS wgmma_gemm\n");
  return 0;
}
