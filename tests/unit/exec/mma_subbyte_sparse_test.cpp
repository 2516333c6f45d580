// Sub-byte integer mma (.s4/.u4, .b1 xor/and popc) and sparse mma.sp /
// mma.sp::ordered_metadata, run through the executor and compared with a
// plain CPU GEMM D = A * B + C on the dense matrices. The fragment layouts
// here are the PTX ISA's formulas, written out per shape (not the
// executor's tensor_layout.h); a sparse A is built densely on the CPU from
// its stored values and 2:4 (4:8 by pairs, tf32 1:2) metadata.
//
// Where the ISA gives only a figure (the metadata layouts, and B of the
// sparse shapes with no dense twin), the test follows CUTLASS and CuTe,
// whose sparse GEMMs run on GPUs: one metadata register holds the fields
// of 128 stored bits of a row (CUTLASS's kElementsPerElementE), the two
// rows g and g + 8 in its halves for 16- and 32-bit types (CuTe's SM90
// ELayout_64x32/64x16), in consecutive threads for 8- and 4-bit types
// (ELayout_64x64, SM120_SPARSE_16x8x64; CUTLASS's reorder_meta and ldmatrix
// for m16n8k128 .s4); B continues the dense K/2 pattern (CuTe's SM120 B).
// The ISA's m16n8k256 .b1 A formula says "(threadID_in_group * 32) + i for
// i < 64", which would make lanes overlap; the test uses (i & 0x1F), as in
// every other shape (and its B formula).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "exec/float_util.h"
#include "tensor_harness.h"

namespace softgpu::exec {
namespace {

using namespace test;
using Pos = std::pair<uint32_t, uint32_t>;              // (row, col)
using LayoutFn = std::function<Pos(uint32_t g, uint32_t t, uint32_t i)>;  // groupID, threadID_in_group

enum class Ty { S4, U4, B1, S8, U8, F16, BF16, TF32, E4M3, E5M2, S32, F32 };
uint32_t bits_of(Ty t) {
  switch (t) {
    case Ty::S4: case Ty::U4: return 4;
    case Ty::B1: return 1;
    case Ty::S8: case Ty::U8: case Ty::E4M3: case Ty::E5M2: return 8;
    case Ty::F16: case Ty::BF16: return 16;
    default: return 32;
  }
}
// Small values, exact in every type and in every sum below.
int draw(Ty t, std::mt19937& rng) {
  auto in = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  switch (t) {
    case Ty::S4: return in(-8, 7);
    case Ty::U4: return in(0, 15);
    case Ty::B1: return in(0, 1);
    case Ty::S8: return in(-128, 127);
    case Ty::U8: return in(0, 255);
    default: return in(-4, 4);  // floating types
  }
}
uint32_t encode(Ty t, double v) {
  switch (t) {
    case Ty::S4: case Ty::U4: return uint32_t(int(v)) & 15;
    case Ty::B1: return uint32_t(v) & 1;
    case Ty::S8: case Ty::U8: return uint32_t(int(v)) & 255;
    case Ty::S32: return uint32_t(int32_t(v));
    case Ty::F16: return f32_to_f16_rn(float(v));
    case Ty::BF16: return std::bit_cast<uint32_t>(float(v)) >> 16;  // small integers: exact
    case Ty::E4M3: return encode_mini(v, kE4M3, Round::Rn);
    case Ty::E5M2: return encode_mini(v, kE5M2, Round::Rn);
    default: return std::bit_cast<uint32_t>(float(v));  // f32, tf32
  }
}
double decode_acc(Ty t, uint32_t bits) {
  if (t == Ty::S32) return int32_t(bits);
  if (t == Ty::F16) return f16_to_f32(uint16_t(bits));
  return std::bit_cast<float>(bits);
}

// Packs matrix X (by layout) into registers first.. of the harness.
void pack(Harness& h, uint32_t first, uint32_t nelem, Ty t, const LayoutFn& at,
          const std::vector<std::vector<double>>& x) {
  const uint32_t eb = bits_of(t), per = 32 / eb;
  for (uint32_t r = 0; r < (nelem + per - 1) / per; ++r)
    for (uint32_t l = 0; l < 32; ++l) h.reg(first + r)[l] = 0;
  for (uint32_t l = 0; l < 32; ++l)
    for (uint32_t i = 0; i < nelem; ++i) {
      auto [r, c] = at(l / 4, l % 4, i);
      h.reg(first + i / per)[l] |= uint64_t(encode(t, x.at(r).at(c))) << (i % per * eb);
    }
}

// ---- ISA fragment formulas ----
Pos c16x8(uint32_t g, uint32_t t, uint32_t i) { return {g + 8 * (i >= 2), 2 * t + (i & 1)}; }
Pos c8x8(uint32_t g, uint32_t t, uint32_t i) { return {g, 2 * t + i}; }

struct Case {
  std::string mods;
  uint32_t M, K;  // N = 8
  Ty a, b, acc;
  uint32_t na, nb;  // fragment elements per lane (A: stored elements when sparse)
  LayoutFn fa, fb;
  bool sparse = false;
  uint32_t selector = 0;
  enum class Bop { None, Xor, And } bop = Bop::None;
  bool satfinite = false;
  bool big_c = false;  // C near the s32 limits (satfinite / wrap)
};

// 2:4 index pairs (idx0 < idx1), as a metadata nibble: idx1 << 2 | idx0.
constexpr uint32_t kPairs[6][2] = {{0, 1}, {0, 2}, {1, 2}, {0, 3}, {1, 3}, {2, 3}};

void run_case(const Case& cs, uint32_t seed) {
  SCOPED_TRACE(cs.mods + " selector " + std::to_string(cs.selector) + " seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  const uint32_t M = cs.M, N = 8, K = cs.K;
  std::vector<std::vector<double>> A(M, std::vector<double>(K, 0)), B(K, std::vector<double>(N)),
      C(M, std::vector<double>(N));
  for (auto& row : B) for (auto& v : row) v = draw(cs.b, rng);
  for (auto& row : C)
    for (auto& v : row)
      v = cs.big_c ? (rng() & 1 ? 2147483000.0 : -2147483000.0) + draw(Ty::S8, rng) : draw(Ty::S8, rng);
  Harness h;
  const uint32_t rd = 0, ra = 20, rb = 40, rc = 60, re = 80;
  if (!cs.sparse) {
    for (auto& row : A) for (auto& v : row) v = draw(cs.a, rng);
    pack(h, ra, cs.na, cs.a, cs.fa, A);
  } else {
    // Stored values S (M x K/2) and per-chunk metadata; A = their expansion.
    const bool tf32 = cs.a == Ty::TF32, four = bits_of(cs.a) == 4;
    const uint32_t chunk = tf32 ? 2 : four ? 8 : 4, chunks = K / chunk;
    std::vector<std::vector<double>> S(M, std::vector<double>(K / 2));
    std::vector<std::vector<uint32_t>> nib(M, std::vector<uint32_t>(chunks));
    for (uint32_t r = 0; r < M; ++r)
      for (uint32_t c = 0; c < chunks; ++c) {
        for (uint32_t j = 0; j < chunk / 2; ++j) {
          double v = draw(cs.a, rng);
          if (v == 0) v = 1;  // a stored zero would hide a misplaced column
          S[r][c * chunk / 2 + j] = v;
        }
        const uint32_t p = (r * chunks + c + seed) % 6;
        if (tf32) {
          const bool second = rng() & 1;
          nib[r][c] = second ? 0b1110 : 0b0100;
          A[r][2 * c + second] = S[r][c];
        } else if (four) {  // pairs: sub-chunks idx0, idx1 of two elements each
          nib[r][c] = kPairs[p][1] << 2 | kPairs[p][0];
          for (uint32_t q = 0; q < 2; ++q)
            for (uint32_t e = 0; e < 2; ++e) A[r][8 * c + 2 * kPairs[p][q] + e] = S[r][4 * c + 2 * q + e];
        } else {
          nib[r][c] = kPairs[p][1] << 2 | kPairs[p][0];
          for (uint32_t q = 0; q < 2; ++q) A[r][4 * c + kPairs[p][q]] = S[r][2 * c + q];
        }
      }
    pack(h, ra, cs.na, cs.a, cs.fa, S);
    // Metadata: lane 4g + selector*n + j (n = chunks / 4 per group) holds
    // the fields of 128 stored bits of A: 16- and 32-bit types chunks
    // 4j..4j+3 of rows g (bits 0-15) and g + 8 (bits 16-31); 8- and 4-bit
    // types chunks 8(j / 2)..8(j / 2) + 7 of row g + 8(j % 2). The other
    // lanes hold noise, which must not matter.
    const uint32_t n = chunks / 4;
    const bool narrow = bits_of(cs.a) <= 8;
    for (uint32_t l = 0; l < 32; ++l) {
      const uint32_t g = l / 4, t = l % 4, j = t % n;
      uint64_t e = rng();
      if (t / n == cs.selector) {
        e = 0;
        for (uint32_t q = 0; q < 8; ++q) {
          const uint32_t row = narrow ? g + 8 * (j % 2) : g + 8 * (q / 4);
          const uint32_t chunk = narrow ? 8 * (j / 2) + q : 4 * j + q % 4;
          e |= uint64_t(nib[row][chunk]) << (4 * q);
        }
      }
      h.reg(re)[l] = e & 0xffffffffu;
    }
  }
  pack(h, rb, cs.nb, cs.b, cs.fb, B);
  const LayoutFn fc = M == 8 ? LayoutFn(c8x8) : LayoutFn(c16x8);
  const uint32_t nc = M * N / 32, cregs = nc * bits_of(cs.acc) / 32;
  pack(h, rc, nc, cs.acc, fc, C);
  const uint32_t aregs = cs.na * bits_of(cs.a) / 32, bregs = cs.nb * bits_of(cs.b) / 32;
  Inst in = cs.sparse ? make(isa::Opcode::Mma, cs.mods,
                             {h.vec(rd, cregs), h.vec(ra, aregs), h.vec(rb, bregs), h.vec(rc, cregs), R(re),
                              Imm(cs.selector)})
                      : make(isa::Opcode::Mma, cs.mods,
                             {h.vec(rd, cregs), h.vec(ra, aregs), h.vec(rb, bregs), h.vec(rc, cregs)});
  ASSERT_TRUE(h.run(in));
  const uint32_t per = 32 / bits_of(cs.acc);
  uint32_t bad = 0;
  for (uint32_t l = 0; l < 32; ++l)
    for (uint32_t i = 0; i < nc; ++i) {
      auto [r, c] = fc(l / 4, l % 4, i);
      double want = C[r][c];
      for (uint32_t k = 0; k < K; ++k) {
        if (cs.bop == Case::Bop::Xor) want += double(A[r][k] != B[k][c]);
        else want += A[r][k] * B[k][c];
      }
      if (cs.acc == Ty::S32) {
        if (cs.satfinite) want = std::min(2147483647.0, std::max(-2147483648.0, want));
        else want = double(int32_t(uint32_t(int64_t(want))));  // wraps
      }
      const uint64_t reg = h.reg(rd + i / per)[l];
      const uint32_t raw = uint32_t(reg >> (i % per * bits_of(cs.acc))) & (per == 1 ? ~0u : 0xffffu);
      if (decode_acc(cs.acc, raw) != want && bad++ < 5)
        ADD_FAILURE() << "lane " << l << " d" << i << " (" << r << "," << c << "): " << decode_acc(cs.acc, raw)
                      << " want " << want;
    }
  EXPECT_EQ(bad, 0u);
}

// ---- dense sub-byte shapes (ISA "Matrix Fragments for mma.m8n8k32" etc.) ----
Case s4_m8n8k32(Ty a, Ty b) {
  return {"", 8, 32, a, b, Ty::S32, 8, 8, [](uint32_t g, uint32_t t, uint32_t i) { return Pos{g, 8 * t + i}; },
          [](uint32_t g, uint32_t t, uint32_t i) { return Pos{8 * t + i, g}; }};
}
Case s4_m16n8k32(Ty a, Ty b) {
  return {"", 16, 32, a, b, Ty::S32, 16, 8,
          [](uint32_t g, uint32_t t, uint32_t i) { return Pos{g + 8 * (i >= 8), 8 * t + (i & 7)}; },
          [](uint32_t g, uint32_t t, uint32_t i) { return Pos{8 * t + i, g}; }};
}
Case s4_m16n8k64(Ty a, Ty b) {
  return {"", 16, 64, a, b, Ty::S32, 32, 16,
          [](uint32_t g, uint32_t t, uint32_t i) {
            return Pos{(i < 8 || (i >= 16 && i < 24)) ? g : g + 8, 8 * t + (i & 7) + 32 * (i >= 16)};
          },
          [](uint32_t g, uint32_t t, uint32_t i) { return Pos{8 * t + (i & 7) + 32 * (i >= 8), g}; }};
}
const char* name(Ty t) {
  switch (t) {
    case Ty::S4: return ".s4"; case Ty::U4: return ".u4"; case Ty::S8: return ".s8"; case Ty::U8: return ".u8";
    case Ty::F16: return ".f16"; case Ty::BF16: return ".bf16"; case Ty::TF32: return ".tf32";
    case Ty::E4M3: return ".e4m3"; case Ty::E5M2: return ".e5m2"; case Ty::F32: return ".f32";
    default: return ".s32";
  }
}
std::string shape(const Case& c) { return ".m" + std::to_string(c.M) + "n8k" + std::to_string(c.K); }

TEST(MmaSubByte, S4U4AllSignMixesAllShapes) {
  const Ty ts[2] = {Ty::S4, Ty::U4};
  uint32_t seed = 1;
  for (auto make_case : {s4_m8n8k32, s4_m16n8k32, s4_m16n8k64})
    for (Ty a : ts)
      for (Ty b : ts) {
        Case c = make_case(a, b);
        c.mods = ".sync.aligned" + shape(c) + ".row.col.s32" + name(a) + name(b) + ".s32";
        run_case(c, seed++);
      }
}

TEST(MmaSubByte, S4SatfiniteClampsAndPlainWraps) {
  for (bool sat : {true, false}) {
    Case c = s4_m16n8k64(Ty::S4, Ty::U4);
    c.satfinite = sat;
    c.big_c = true;  // C +-(2^31 - 648) and 64 products up to +-120: crosses the limits
    c.mods = std::string(".sync.aligned.m16n8k64.row.col") + (sat ? ".satfinite" : "") + ".s32.s4.u4.s32";
    run_case(c, 7);
  }
}

TEST(MmaSubByte, B1XorAndPopc) {
  uint32_t seed = 20;
  for (Case::Bop op : {Case::Bop::Xor, Case::Bop::And}) {
    const std::string bop = op == Case::Bop::Xor ? ".xor.popc" : ".and.popc";
    Case m8{"", 8, 128, Ty::B1, Ty::B1, Ty::S32, 32, 32,
            [](uint32_t g, uint32_t t, uint32_t i) { return Pos{g, 32 * t + i}; },
            [](uint32_t g, uint32_t t, uint32_t i) { return Pos{32 * t + i, g}; }};
    Case k128{"", 16, 128, Ty::B1, Ty::B1, Ty::S32, 64, 32,
              [](uint32_t g, uint32_t t, uint32_t i) { return Pos{g + 8 * (i >= 32), 32 * t + (i & 31)}; },
              [](uint32_t g, uint32_t t, uint32_t i) { return Pos{32 * t + i, g}; }};
    Case k256{"", 16, 256, Ty::B1, Ty::B1, Ty::S32, 128, 64,
              [](uint32_t g, uint32_t t, uint32_t i) {
                return Pos{(i < 32 || (i >= 64 && i < 96)) ? g : g + 8, 32 * t + (i & 31) + 128 * (i >= 64)};
              },
              [](uint32_t g, uint32_t t, uint32_t i) { return Pos{32 * t + (i & 31) + 128 * (i >= 32), g}; }};
    for (Case c : {m8, k128, k256}) {
      c.bop = op;
      c.mods = ".sync.aligned" + shape(c) + ".row.col.s32.b1.b1.s32" + bop;
      run_case(c, seed++);
    }
  }
}

// ---- sparse (ISA "Matrix fragments for multiply-accumulate operation with sparse matrix A") ----
// A: (row, stored column); the ISA gives the dense [firstcol, lastcol] of
// each element's chunk, of which the stored columns are the first half.
Case sp_f16(uint32_t K, Ty ab, Ty acc) {
  Case c;
  c.M = 16, c.K = K, c.a = c.b = ab, c.acc = acc, c.sparse = true;
  if (K == 16) {
    c.na = 4, c.nb = 4;
    c.fa = [](uint32_t g, uint32_t t, uint32_t i) { return Pos{g + 8 * (i >= 2), 4 * t / 2 + (i & 1)}; };
    c.fb = [](uint32_t g, uint32_t t, uint32_t i) { return Pos{2 * t + (i & 1) + 8 * (i >= 2), g}; };
  } else {
    c.na = 8, c.nb = 8;
    c.fa = [](uint32_t g, uint32_t t, uint32_t i) {
      const bool lo = i < 2 || (i >= 4 && i < 6);
      return Pos{lo ? g : g + 8, (4 * t + 16 * (i >= 4)) / 2 + (i & 1)};
    };
    c.fb = [](uint32_t g, uint32_t t, uint32_t i) { return Pos{2 * t + (i & 1) + 8 * (i >> 1), g}; };
  }
  return c;
}
Case sp_tf32(uint32_t K) {
  Case c;
  c.M = 16, c.K = K, c.a = c.b = Ty::TF32, c.acc = Ty::F32, c.sparse = true;
  if (K == 8) {
    c.na = 2, c.nb = 2;
    c.fa = [](uint32_t g, uint32_t t, uint32_t i) { return Pos{g + 8 * i, 2 * t / 2}; };
  } else {
    c.na = 4, c.nb = 4;
    c.fa = [](uint32_t g, uint32_t t, uint32_t i) { return Pos{g + 8 * (i & 1), (2 * t + 8 * (i >= 2)) / 2}; };
  }
  c.fb = [](uint32_t g, uint32_t t, uint32_t i) { return Pos{t + 4 * i, g}; };
  return c;
}
Case sp_8bit(uint32_t K, Ty a, Ty b, Ty acc) {
  Case c;
  c.M = 16, c.K = K, c.a = a, c.b = b, c.acc = acc, c.sparse = true;
  if (K == 32) {
    c.na = 8, c.nb = 8;
    c.fa = [](uint32_t g, uint32_t t, uint32_t i) { return Pos{g + 8 * (i >= 4), 8 * t / 2 + (i & 3)}; };
  } else {
    c.na = 16, c.nb = 16;
    c.fa = [](uint32_t g, uint32_t t, uint32_t i) {
      const bool lo = i < 4 || (i >= 8 && i < 12);
      return Pos{lo ? g : g + 8, (8 * t + 32 * (i >= 8)) / 2 + (i & 3)};
    };
  }
  c.fb = [](uint32_t g, uint32_t t, uint32_t i) { return Pos{4 * t + (i & 3) + 16 * (i >> 2), g}; };
  return c;
}
Case sp_4bit(uint32_t K, Ty a, Ty b) {
  Case c;
  c.M = 16, c.K = K, c.a = a, c.b = b, c.acc = Ty::S32, c.sparse = true;
  if (K == 64) {
    c.na = 16, c.nb = 16;
    c.fa = [](uint32_t g, uint32_t t, uint32_t i) { return Pos{g + 8 * (i >= 8), 16 * t / 2 + (i & 7)}; };
  } else {
    c.na = 32, c.nb = 32;
    c.fa = [](uint32_t g, uint32_t t, uint32_t i) {
      const bool lo = i < 8 || (i >= 16 && i < 24);
      return Pos{lo ? g : g + 8, (16 * t + 64 * (i >= 16)) / 2 + (i & 7)};
    };
  }
  c.fb = [](uint32_t g, uint32_t t, uint32_t i) { return Pos{8 * t + (i & 7) + 32 * (i >> 3), g}; };
  return c;
}

// Every selector the ISA allows (4 / contributing threads a group), both spellings.
void run_sparse(Case c, const std::string& types, uint32_t& seed) {
  const uint32_t chunk = c.a == Ty::TF32 ? 2 : bits_of(c.a) == 4 ? 8 : 4, sels = 4 / (c.K / chunk / 4);
  for (const char* sp : {".sp", ".sp::ordered_metadata"})
    for (uint32_t s = 0; s < sels; ++s) {
      c.selector = s;
      c.mods = std::string(sp) + ".sync.aligned" + shape(c) + ".row.col" + (c.satfinite ? ".satfinite" : "") + types;
      run_case(c, seed++);
    }
}

TEST(MmaSparse, F16Bf16) {
  uint32_t seed = 100;
  for (uint32_t K : {16u, 32u}) {
    run_sparse(sp_f16(K, Ty::F16, Ty::F32), ".f32.f16.f16.f32", seed);
    run_sparse(sp_f16(K, Ty::F16, Ty::F16), ".f16.f16.f16.f16", seed);
    run_sparse(sp_f16(K, Ty::BF16, Ty::F32), ".f32.bf16.bf16.f32", seed);
  }
}

TEST(MmaSparse, Tf32) {
  uint32_t seed = 200;
  for (uint32_t K : {8u, 16u}) run_sparse(sp_tf32(K), ".f32.tf32.tf32.f32", seed);
}

TEST(MmaSparse, Int8AndFp8) {
  uint32_t seed = 300;
  for (uint32_t K : {32u, 64u}) {
    run_sparse(sp_8bit(K, Ty::S8, Ty::S8, Ty::S32), ".s32.s8.s8.s32", seed);
    run_sparse(sp_8bit(K, Ty::U8, Ty::S8, Ty::S32), ".s32.u8.s8.s32", seed);
    run_sparse(sp_8bit(K, Ty::S8, Ty::U8, Ty::S32), ".s32.s8.u8.s32", seed);
  }
  run_sparse(sp_8bit(64, Ty::E4M3, Ty::E5M2, Ty::F32), ".f32.e4m3.e5m2.f32", seed);
  run_sparse(sp_8bit(64, Ty::E5M2, Ty::E4M3, Ty::F32), ".f32.e5m2.e4m3.f32", seed);
}

TEST(MmaSparse, Int4) {
  uint32_t seed = 400;
  for (uint32_t K : {64u, 128u}) {
    run_sparse(sp_4bit(K, Ty::S4, Ty::S4), ".s32.s4.s4.s32", seed);
    run_sparse(sp_4bit(K, Ty::U4, Ty::S4), ".s32.u4.s4.s32", seed);
  }
  Case sat = sp_4bit(128, Ty::S4, Ty::U4);
  sat.satfinite = sat.big_c = true;
  run_sparse(sat, ".s32.s4.u4.s32", seed);
}

// Metadata outside the ISA's meaningful values (equal or decreasing
// indices, all of 0x0-0xf) is undefined: any result, but no fault or crash.
TEST(MmaSparse, InvalidMetadataDoesNotCrash) {
  for (const char* mods : {".sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32",
                           ".sp.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32",
                           ".sp.sync.aligned.m16n8k128.row.col.s32.s4.s4.s32"}) {
    Harness h;
    for (uint32_t l = 0; l < 32; ++l)
      for (uint32_t r = 0; r < 90; ++r) h.reg(r)[l] = 0x3c003c00u;
    for (uint32_t v = 0; v < 16; ++v) {
      for (uint32_t l = 0; l < 32; ++l) h.reg(80)[l] = v * 0x11111111u;
      Inst in = make(isa::Opcode::Mma, mods,
                     {h.vec(0, 4), h.vec(20, 4), h.vec(40, 4), h.vec(60, 4), R(80), Imm(0)});
      EXPECT_TRUE(h.run(in)) << mods << " metadata " << v;
    }
  }
}

TEST(MmaSparse, SelectorsOutsideTheFormAreNotBound) {
  Harness h;
  auto bound = [&](const char* mods, uint32_t na, uint32_t nb, int64_t sel) {
    return h.bind(make(isa::Opcode::Mma, mods,
                       {h.vec(0, 4), h.vec(20, na), h.vec(40, nb), h.vec(60, 4), R(80), Imm(sel)})) != nullptr;
  };
  EXPECT_TRUE(bound(".sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 2, 2, 3));
  EXPECT_FALSE(bound(".sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 2, 2, 4));
  EXPECT_TRUE(bound(".sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", 4, 4, 1));
  EXPECT_FALSE(bound(".sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", 4, 4, 2));
  EXPECT_TRUE(bound(".sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32", 4, 4, 0));
  EXPECT_FALSE(bound(".sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32", 4, 4, 1));
  EXPECT_FALSE(bound(".sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 4, 2, 0));  // dense A size
  EXPECT_FALSE(bound(".sp.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", 1, 1, 0));    // no such shape
}

}  // namespace
}  // namespace softgpu::exec
