// Conformance: wgmma.mma_async (sm_90a), through the machinery of
// tests/cuda/hopper (wgmma_run.cuh: shared-memory tiles in the canonical
// layouts and swizzles, descriptors, register fragments). One check per
// element of D, bit for bit, for products whose sums are exact in every
// accumulator type (so the layouts, transposes, negation, scale-d and the
// fragment layouts are what is compared). DATA lines record D for inputs
// whose sums round (the ISA leaves the accumulation order and intermediate
// precision open; softgpu sums exactly and rounds once) and tf32 inputs
// with their low mantissa bits set (truncated or rounded?).
#include "conf.h"
#include "../cuda/hopper/wgmma_run.cuh"

static Lay K(int swz, int alt = 0, int shift = 0) { return Lay{0, swz, alt, 0, 0, 0, shift}; }
static Lay MN(int swz, int alt = 0, int shift = 0) { return Lay{1, swz, alt, 0, 0, 0, shift}; }

static std::string form_of(const Case& c) {
  std::string f = std::string("wgmma:") + c.name;
  for (char& ch : f)
    if (ch == ' ') ch = '_';
  return f;
}

template <class Op, int SA, int SB, int TA, int TB, bool REGS>
static int exact(Conf& conf, Case c) {
  const int width = c.d == F16 ? 16 : 32;
  return run_case<Op, SA, SB, TA, TB, REGS>(c, [&](int r, int col, uint32_t got, double want) {
    conf.bits(form_of(c), "r=" + std::to_string(r) + ",c=" + std::to_string(col), encode(c.d, want), got, width);
  });
}

template <class Op, int SA, int SB, int TA, int TB, bool REGS>
static int data(Conf& conf, Case c) {
  c.big = true;
  const int width = c.d == F16 ? 16 : 32;
  return run_case<Op, SA, SB, TA, TB, REGS>(c, [&](int r, int col, uint32_t got, double) {
    if ((r * 7 + col) % 13 == 0)  // a sample of the elements
      conf.data(form_of(c), "r=" + std::to_string(r) + ",c=" + std::to_string(col), got, width);
  });
}

int main(int argc, char** argv) {
  Conf conf("conf_wgmma", argc, argv);
  int err = 0;
  err |= exact<F16F32_N64, 1, 1, 0, 0, false>(conf, {"f16 n64 sw128", F32, F16, F16, 64, 4, 1, K(128), K(128)});
  err |= exact<F16F32_N8, 1, 1, 0, 0, false>(conf, {"f16 n8 none scale-d 0", F32, F16, F16, 8, 2, 0, K(0), K(0, 1)});
  err |= exact<F16F32_N256, 1, 1, 0, 0, false>(conf, {"f16 n256 sw32", F32, F16, F16, 256, 1, 1, K(32), K(32)});
  err |= exact<F16F32_N128, 1, 1, 0, 0, false>(conf, {"f16 n128 sw64", F32, F16, F16, 128, 2, 1, K(64), K(64)});
  err |= exact<F16F32_N64, 1, 1, 1, 1, false>(conf, {"f16 n64 trans a+b sw128", F32, F16, F16, 64, 2, 1, MN(128),
                                                      MN(128)});
  err |= exact<F16F32_N128, 1, 1, 1, 0, false>(conf, {"f16 n128 trans a none", F32, F16, F16, 128, 3, 1, MN(0, 1),
                                                       K(128)});
  err |= exact<F16F32_N64, -1, -1, 0, 1, false>(conf, {"f16 n64 -a -b trans b sw32", F32, F16, F16, 64, 2, 1, K(32),
                                                        MN(32)});
  err |= exact<F16F32_N64, 1, 1, 0, 0, false>(conf, {"f16 n64 sw128 base offset", F32, F16, F16, 64, 2, 1,
                                                      K(128, 0, 512), K(64, 0, 384)});
  err |= exact<F16F32_N64_RS, -1, 1, 0, 1, true>(conf, {"f16 n64 A regs -a trans b", F32, F16, F16, 64, 2, 1, K(0),
                                                         MN(64)});
  err |= exact<F16F16_N64, 1, 1, 0, 0, false>(conf, {"f16->f16 n64 sw128", F16, F16, F16, 64, 4, 1, K(128), K(128)});
  err |= exact<BF16_N128, 1, 1, 0, 1, false>(conf, {"bf16 n128 trans b sw128", F32, BF16, BF16, 128, 2, 1, K(128),
                                                     MN(128)});
  err |= exact<TF32_N128_RS, 1, -1, 0, 0, true>(conf, {"tf32 n128 A regs -b sw32", F32, TF32, TF32, 128, 2, 1, K(0),
                                                        K(32)});
  err |= exact<E4M3E5M2F16_N64, -1, 1, 0, 0, false>(conf, {"e4m3 x e5m2 -> f16 n64 -a sw64", F16, E4M3, E5M2, 64, 2,
                                                           1, K(64), K(64)});
  Case s8{"s8 n64 sw128", S32, S8, S8, 64, 4, 1, K(128), K(128), true};
  err |= exact<S8_N64, 1, 1, 0, 0, false>(conf, s8);
  Case sat{"u8 n128 satfinite sw128", S32, U8, U8, 128, 2, 1, K(128), K(128), true};
  sat.cbase = INT_MAX - 200000, sat.sat = true;
  err |= exact<U8_N128_SAT, 1, 1, 0, 0, false>(conf, sat);
  Case ws{"warp-specialized f16 n128 sw128", F32, F16, F16, 128, 4, 1, K(128), K(128)};
  ws.ws = true;
  err |= exact<F16F32_N128, 1, 1, 0, 0, false>(conf, ws);
  // Sums that round.
  err |= data<F16F32_N64, 1, 1, 0, 0, false>(conf, {"rounding f16 n64 f32", F32, F16, F16, 64, 4, 1, K(128), K(128)});
  err |= data<F16F16_N64, 1, 1, 0, 0, false>(conf, {"rounding f16 n64 f16", F16, F16, F16, 64, 4, 1, K(128), K(128)});
  err |= data<TF32_N64, 1, 1, 0, 0, false>(conf, {"rounding tf32 n64", F32, TF32, TF32, 64, 4, 1, K(128), K(128)});
  err |= data<E4M3_N128, 1, 1, 0, 0, false>(conf, {"rounding e4m3 n128", F32, E4M3, E4M3, 128, 2, 1, K(128),
                                                   K(128)});
  if (err) std::printf("FAIL conf_wgmma: a CUDA error or elect.sync\n");
  return conf.finish() | err;
}
