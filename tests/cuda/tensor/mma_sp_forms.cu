// Every sm_80 mma.sp form, once with .sp and once with .sp::ordered_metadata,
// with every sparsity selector it allows, against a CPU reference: one warp,
// one instruction, D (16 x 8) = A (16 x K, structured sparse) * B + C.
//
// The host builds a random sparse A (2:4 for f16/bf16/s8/u8, 1:2 for tf32,
// 4:8 by pairs for s4/u4), keeps its stored half and one 4-bit metadata
// field a chunk, and packs every operand into the registers of each lane by
// the PTX ISA's fragment formulas ("Matrix fragments for multiply-accumulate
// operation with sparse matrix A"); the kernel only loads them, executes the
// instruction and stores D. The metadata register of each selected thread
// holds the fields of 128 stored bits of a row, as CUTLASS's SparseMma
// (kElementsPerElementE) and CuTe's sparse ELayouts place them: for
// 16/32-bit types four chunks of rows g (bits 0-15) and g + 8 (bits 16-31),
// the next thread the next four; for 8/4-bit types eight chunks of row g,
// the next thread the same chunks of row g + 8, the two after them the next
// eight. Threads the selector leaves out hold noise. Small integer values:
// every sum is exact, .satfinite clamps and plain s32 wraps.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../check.cuh"

// Per lane 16 words in: A at 0..3, B at 4..7, C at 8..11, metadata at 12.
#define LOAD                                          \
  const uint32_t* p = in + 16 * (threadIdx.x % 32);   \
  uint32_t d[4] = {0, 0, 0, 0};
#define STORE \
  for (int i = 0; i < 4; ++i) out[4 * (threadIdx.x % 32) + i] = d[i];
// Register counts (A, B, C/D).
#define K224(NAME, OP)                                                                                      \
  template <int S>                                                                                          \
  __global__ void NAME(const uint32_t* in, uint32_t* out) {                                                 \
    LOAD asm volatile(OP " {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%8,%9,%10,%11}, %12, %13;"                     \
                      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                      \
                      : "r"(p[0]), "r"(p[1]), "r"(p[4]), "r"(p[5]), "r"(p[8]), "r"(p[9]), "r"(p[10]),       \
                        "r"(p[11]), "r"(p[12]), "n"(S));                                                    \
    STORE                                                                                                   \
  }
#define K444(NAME, OP)                                                                                      \
  template <int S>                                                                                          \
  __global__ void NAME(const uint32_t* in, uint32_t* out) {                                                 \
    LOAD asm volatile(OP " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, {%12,%13,%14,%15}, %16, %17;"     \
                      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                      \
                      : "r"(p[0]), "r"(p[1]), "r"(p[2]), "r"(p[3]), "r"(p[4]), "r"(p[5]), "r"(p[6]),        \
                        "r"(p[7]), "r"(p[8]), "r"(p[9]), "r"(p[10]), "r"(p[11]), "r"(p[12]), "n"(S));       \
    STORE                                                                                                   \
  }
#define K222(NAME, OP)                                                                                      \
  template <int S>                                                                                          \
  __global__ void NAME(const uint32_t* in, uint32_t* out) {                                                 \
    LOAD asm volatile(OP " {%0,%1}, {%2,%3}, {%4,%5}, {%6,%7}, %8, %9;"                                     \
                      : "=r"(d[0]), "=r"(d[1])                                                              \
                      : "r"(p[0]), "r"(p[1]), "r"(p[4]), "r"(p[5]), "r"(p[8]), "r"(p[9]), "r"(p[12]),       \
                        "n"(S));                                                                            \
    STORE                                                                                                   \
  }
#define K442(NAME, OP)                                                                                      \
  template <int S>                                                                                          \
  __global__ void NAME(const uint32_t* in, uint32_t* out) {                                                 \
    LOAD asm volatile(OP " {%0,%1}, {%2,%3,%4,%5}, {%6,%7,%8,%9}, {%10,%11}, %12, %13;"                     \
                      : "=r"(d[0]), "=r"(d[1])                                                              \
                      : "r"(p[0]), "r"(p[1]), "r"(p[2]), "r"(p[3]), "r"(p[4]), "r"(p[5]), "r"(p[6]),        \
                        "r"(p[7]), "r"(p[8]), "r"(p[9]), "r"(p[12]), "n"(S));                               \
    STORE                                                                                                   \
  }
// Both spellings of one form: NAME_sp and NAME_om.
#define BOTH(KM, NAME, TAIL) \
  KM(NAME##_sp, "mma.sp.sync.aligned." TAIL) KM(NAME##_om, "mma.sp::ordered_metadata.sync.aligned." TAIL)

BOTH(K224, f16_k16_f32, "m16n8k16.row.col.f32.f16.f16.f32")
BOTH(K222, f16_k16_f16, "m16n8k16.row.col.f16.f16.f16.f16")
BOTH(K444, f16_k32_f32, "m16n8k32.row.col.f32.f16.f16.f32")
BOTH(K442, f16_k32_f16, "m16n8k32.row.col.f16.f16.f16.f16")
BOTH(K224, bf16_k16, "m16n8k16.row.col.f32.bf16.bf16.f32")
BOTH(K444, bf16_k32, "m16n8k32.row.col.f32.bf16.bf16.f32")
BOTH(K224, tf32_k8, "m16n8k8.row.col.f32.tf32.tf32.f32")
BOTH(K444, tf32_k16, "m16n8k16.row.col.f32.tf32.tf32.f32")
BOTH(K224, s8_k32, "m16n8k32.row.col.s32.s8.s8.s32")
BOTH(K224, u8s8_k32_sat, "m16n8k32.row.col.satfinite.s32.u8.s8.s32")
BOTH(K444, s8_k64, "m16n8k64.row.col.s32.s8.s8.s32")
BOTH(K444, u8_k64, "m16n8k64.row.col.s32.u8.u8.s32")
BOTH(K444, s8u8_k64_sat, "m16n8k64.row.col.satfinite.s32.s8.u8.s32")
BOTH(K224, s4_k64, "m16n8k64.row.col.s32.s4.s4.s32")
BOTH(K224, u4s4_k64_sat, "m16n8k64.row.col.satfinite.s32.u4.s4.s32")
BOTH(K444, s4_k128, "m16n8k128.row.col.s32.s4.s4.s32")
BOTH(K444, u4_k128, "m16n8k128.row.col.s32.u4.u4.s32")
BOTH(K444, u4s4_k128_sat, "m16n8k128.row.col.satfinite.s32.u4.s4.s32")
BOTH(K444, s4u4_k128_sat, "m16n8k128.row.col.s32.s4.u4.s32.satfinite")  // CUTLASS's spelling

enum Ty { F16, BF16, TF32, F32, S8, U8, S4, U4, S32 };
int bits(Ty t) { return t == S4 || t == U4 ? 4 : t == S8 || t == U8 ? 8 : t == F16 || t == BF16 ? 16 : 32; }

typedef void (*Kernel)(const uint32_t*, uint32_t*);
struct Case {
  const char* name;
  Kernel k;
  int sel;
  Ty a, b, acc;
  int K;
  bool sat;
  bool big;  // C near the s32 limits (satfinite clamps, plain wraps)
};
#define C1(N, ...) {#N " sel 0", N<0>, 0, __VA_ARGS__}
#define C2(N, ...) C1(N, __VA_ARGS__), {#N " sel 1", N<1>, 1, __VA_ARGS__}
#define C4(N, ...) C2(N, __VA_ARGS__), {#N " sel 2", N<2>, 2, __VA_ARGS__}, {#N " sel 3", N<3>, 3, __VA_ARGS__}
#define F2(CN, N, ...) CN(N##_sp, __VA_ARGS__), CN(N##_om, __VA_ARGS__)
const Case kCases[] = {
    F2(C4, f16_k16_f32, F16, F16, F32, 16, false, false), F2(C4, f16_k16_f16, F16, F16, F16, 16, false, false),
    F2(C2, f16_k32_f32, F16, F16, F32, 32, false, false), F2(C2, f16_k32_f16, F16, F16, F16, 32, false, false),
    F2(C4, bf16_k16, BF16, BF16, F32, 16, false, false),  F2(C2, bf16_k32, BF16, BF16, F32, 32, false, false),
    F2(C4, tf32_k8, TF32, TF32, F32, 8, false, false),    F2(C2, tf32_k16, TF32, TF32, F32, 16, false, false),
    F2(C2, s8_k32, S8, S8, S32, 32, false, false),        F2(C2, u8s8_k32_sat, U8, S8, S32, 32, true, true),
    F2(C1, s8_k64, S8, S8, S32, 64, false, true),         F2(C1, u8_k64, U8, U8, S32, 64, false, false),
    F2(C1, s8u8_k64_sat, S8, U8, S32, 64, true, true),    F2(C2, s4_k64, S4, S4, S32, 64, false, false),
    F2(C2, u4s4_k64_sat, U4, S4, S32, 64, true, true),    F2(C1, s4_k128, S4, S4, S32, 128, false, true),
    F2(C1, u4_k128, U4, U4, S32, 128, false, false),      F2(C1, u4s4_k128_sat, U4, S4, S32, 128, true, true),
    F2(C1, s4u4_k128_sat, S4, U4, S32, 128, true, true),
};

unsigned rng_state = 1;
unsigned rnd() {
  rng_state = rng_state * 1664525u + 1013904223u;
  return rng_state >> 8;
}
int draw(Ty t) {
  auto in = [](int lo, int hi) { return lo + int(rnd() % unsigned(hi - lo + 1)); };
  switch (t) {
    case S4: return in(-8, 7);
    case U4: return in(0, 15);
    case S8: return in(-128, 127);
    case U8: return in(0, 255);
    default: return in(-4, 4);  // floating types: small integers, exact everywhere
  }
}
uint32_t encode(Ty t, int v) {
  switch (t) {
    case F16: { __half h = __float2half(float(v)); uint16_t u; std::memcpy(&u, &h, 2); return u; }
    case BF16: { __nv_bfloat16 h = __float2bfloat16(float(v)); uint16_t u; std::memcpy(&u, &h, 2); return u; }
    case TF32: case F32: { float f = float(v); uint32_t u; std::memcpy(&u, &f, 4); return u; }
    default: return uint32_t(v) & (bits(t) == 32 ? ~0u : (1u << bits(t)) - 1);
  }
}
double decode(Ty t, uint32_t u) {
  if (t == F16) { uint16_t h16 = uint16_t(u); __half h; std::memcpy(&h, &h16, 2); return __half2float(h); }
  if (t == F32) { float f; std::memcpy(&f, &u, 4); return f; }
  return int32_t(u);
}

// ISA fragment formulas, g = groupID, t = threadID_in_group. A gives (row,
// stored column): the ISA's dense [firstcol, lastcol] of each register's
// elements halved. 16-, 8- and 4-bit A: registers alternate rows g, g + 8,
// the second half of them K / 2 further on; tf32 k16: a0/a2 row g, a1/a3
// row g + 8, a2/a3 columns 8 further on.
void a_at(Ty a, int K, int g, int t, int i, int& r, int& c) {
  const int w = bits(a), per = 32 / w, reg = i / per;
  if (w == 32) {
    r = K == 8 ? g + 8 * i : g + 8 * (i & 1), c = t + (K == 8 ? 0 : 4 * (i >> 1));
    return;
  }
  r = g + 8 * (reg & 1), c = per * t + i % per + (reg >= 2 ? K / 4 : 0);
}
// B (row = k, column = n): the dense layouts, continued one register per
// further block of rows in the shapes without a dense twin.
void b_at(Ty b, int g, int t, int i, int& r, int& c) {
  c = g;
  switch (bits(b)) {
    case 16: r = 2 * t + (i & 1) + 8 * (i >> 1); break;  // f16/bf16 k16, k32
    case 32: r = t + 4 * i; break;                       // tf32 k8, k16
    case 8: r = 4 * t + (i & 3) + 16 * (i >> 2); break;  // 8-bit k32, k64
    default: r = 8 * t + (i & 7) + 32 * (i >> 3);        // 4-bit k64, k128
  }
}

int run_case(const Case& cs, int seed) {
  rng_state = 1000u + 7919u * unsigned(seed);
  const int M = 16, N = 8, K = cs.K, KS = K / 2, wa = bits(cs.a);
  const int chunk = wa == 32 ? 2 : wa == 4 ? 8 : 4, chunks = K / chunk;
  static const int kPairs[6][2] = {{0, 1}, {0, 2}, {1, 2}, {0, 3}, {1, 3}, {2, 3}};
  std::vector<int> A(M * K, 0), S(M * KS), B(K * N), nib(M * chunks);
  std::vector<long long> C(M * N);
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < chunks; ++c) {
      const int keep = chunk / 2;
      for (int j = 0; j < keep; ++j) {
        int v = draw(cs.a);
        S[r * KS + c * keep + j] = v == 0 ? 1 : v;  // a stored zero would hide a misplaced column
      }
      if (chunk == 2) {  // 0b0100: the first element kept, 0b1110: the second
        const int second = rnd() & 1;
        nib[r * chunks + c] = second ? 0xe : 0x4;
        A[r * K + 2 * c + second] = S[r * KS + c];
        continue;
      }
      const int* pr = kPairs[rnd() % 6];
      nib[r * chunks + c] = pr[1] << 2 | pr[0];
      const int unit = chunk / 4;  // 1 element, or a pair for 4-bit types
      for (int q = 0; q < 2; ++q)
        for (int e = 0; e < unit; ++e) A[r * K + chunk * c + unit * pr[q] + e] = S[r * KS + c * keep + unit * q + e];
    }
  for (int& v : B) v = draw(cs.b);
  for (long long& v : C) {
    if (!cs.big) { v = draw(S8); continue; }
    const bool top = rnd() & 1;
    const long long off = rnd() % 600;  // products cross the limit in some elements
    v = top ? 2147483647LL - off : -2147483648LL + off;
  }
  // Registers.
  std::vector<uint32_t> in(32 * 16, 0), out(32 * 4, 0);
  const int na = KS * M / 32, nb = K * N / 32, wb = bits(cs.b), wc = bits(cs.acc);
  for (int l = 0; l < 32; ++l) {
    const int g = l / 4, t = l % 4;
    uint32_t* p = &in[16 * l];
    for (int i = 0; i < na; ++i) {
      int r, c;
      a_at(cs.a, K, g, t, i, r, c);
      p[i / (32 / wa)] |= encode(cs.a, S[r * KS + c]) << (i % (32 / wa) * wa);
    }
    for (int i = 0; i < nb; ++i) {
      int r, c;
      b_at(cs.b, g, t, i, r, c);
      p[4 + i / (32 / wb)] |= encode(cs.b, B[r * N + c]) << (i % (32 / wb) * wb);
    }
    for (int i = 0; i < 4; ++i)
      p[8 + i / (32 / wc)] |= encode(cs.acc, int(C[(g + 8 * (i >> 1)) * N + 2 * t + (i & 1)])) << (i % (32 / wc) * wc);
    const int per_group = chunks / 4, j = t - cs.sel * per_group;
    if (j < 0 || j >= per_group) { p[12] = rnd() ^ 0x5a5a5a5au; continue; }  // noise
    uint32_t e = 0;
    for (int q = 0; q < 8; ++q) {
      const int row = wa <= 8 ? g + 8 * (j % 2) : g + 8 * (q / 4), c = wa <= 8 ? 8 * (j / 2) + q : 4 * j + q % 4;
      e |= uint32_t(nib[row * chunks + c]) << (4 * q);
    }
    p[12] = e;
  }
  uint32_t *din, *dout;
  CHECK(cudaMalloc(&din, in.size() * 4));
  CHECK(cudaMalloc(&dout, out.size() * 4));
  CHECK(cudaMemcpy(din, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
  cs.k<<<1, 32>>>(din, dout);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  int bad = 0;
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 4; ++i) {
      const int r = l / 4 + 8 * (i >> 1), c = 2 * (l % 4) + (i & 1);
      long long want = C[r * N + c];
      for (int k = 0; k < K; ++k) want += (long long)A[r * K + k] * B[k * N + c];
      if (cs.acc == S32) {
        if (cs.sat) want = want > 2147483647LL ? 2147483647LL : want < -2147483648LL ? -2147483648LL : want;
        else want = int32_t(uint32_t(uint64_t(want)));  // wraps modulo 2^32
      }
      const uint32_t word = out[4 * l + i / (32 / wc)];
      const uint32_t raw = wc == 32 ? word : (word >> (i % 2 * 16)) & 0xffffu;
      const double got = decode(cs.acc, raw);
      if (got != double(want) && bad++ < 4)
        std::printf("FAIL %s: D[%d][%d] = %.0f, want %lld\n", cs.name, r, c, got, want);
    }
  return bad != 0;
}

int main() {
  int failed = 0, n = 0;
  for (const Case& cs : kCases) failed += run_case(cs, n++);
  if (failed) {
    std::printf("FAIL mma_sp_forms: %d of %d forms wrong\n", failed, n);
    return 1;
  }
  std::printf("PASS mma_sp_forms (%d forms and selectors)\n", n);
  return 0;
}
