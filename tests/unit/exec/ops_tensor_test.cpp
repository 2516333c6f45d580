// Tensor-core instruction tests: fragment layouts against the PTX ISA
// figures (hand-computed lanes) and against wmma layouts measured on an
// NVIDIA H200, and mma/wmma/ldmatrix results against a CPU GEMM. Inputs are
// small integers (times powers of two), so every expected value is exact.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "exec/float_util.h"
#include "exec/tensor_layout.h"
#include "exec/warp.h"
#include "tensor_harness.h"

namespace softgpu::exec {
namespace {

using program::Inst;
using program::Operand;
using namespace tensor;
using namespace test;

// ---- mma layouts: hand-computed from the ISA formulas for chosen lanes ----
TEST(TensorLayout, MmaM16n8k16F16MatchesIsaFigure) {
  // lane 5: groupID 1, threadID_in_group 1.
  const RC a5[8] = {{1, 2}, {1, 3}, {9, 2}, {9, 3}, {1, 10}, {1, 11}, {9, 10}, {9, 11}};
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(mma::a_f16_k16(5, i), a5[i]) << i;
  const RC b30[4] = {{4, 7}, {5, 7}, {12, 7}, {13, 7}};  // lane 30: g 7, t 2
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(mma::b_f16_k16(30, i), b30[i]) << i;
  const RC c30[4] = {{7, 4}, {7, 5}, {15, 4}, {15, 5}};
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(mma::c_16x8(30, i), c30[i]) << i;
}

TEST(TensorLayout, MmaOtherShapesMatchIsaFigures) {
  // m16n8k8 tf32, lane 6 (g 1, t 2): a0 (g,t) a1 (g+8,t) a2 (g,t+4) a3 (g+8,t+4).
  EXPECT_EQ(mma::a_tf32_k8(6, 0), (RC{1, 2}));
  EXPECT_EQ(mma::a_tf32_k8(6, 1), (RC{9, 2}));
  EXPECT_EQ(mma::a_tf32_k8(6, 2), (RC{1, 6}));
  EXPECT_EQ(mma::b_tf32_k8(6, 1), (RC{6, 1}));
  EXPECT_EQ(mma::a_tf32_k4(6, 1), (RC{9, 2}));
  // m16n8k32 s8, lane 7 (g 1, t 3): a9 row g col 12+1+16; a13 row g+8 col 29.
  EXPECT_EQ(mma::a_i8_k32(7, 9), (RC{1, 29}));
  EXPECT_EQ(mma::a_i8_k32(7, 13), (RC{9, 29}));
  EXPECT_EQ(mma::a_i8_k32(7, 4), (RC{9, 12}));
  EXPECT_EQ(mma::b_i8_k32(7, 6), (RC{30, 1}));
  EXPECT_EQ(mma::a_i8_k16(7, 5), (RC{9, 13}));
  EXPECT_EQ(mma::b_i8_k16(7, 2), (RC{14, 1}));
  // m16n8k8 f16, lane 9 (g 2, t 1).
  EXPECT_EQ(mma::a_f16_k8(9, 3), (RC{10, 3}));
  EXPECT_EQ(mma::b_f16_k8(9, 1), (RC{3, 2}));
  // m8n8k4 f64, lane 13 (g 3, t 1).
  EXPECT_EQ(mma::a_f64_m8n8k4(13, 0), (RC{3, 1}));
  EXPECT_EQ(mma::b_f64_m8n8k4(13, 0), (RC{1, 3}));
  EXPECT_EQ(mma::c_8x8(13, 1), (RC{3, 3}));
  // m8n8k4 f16, lane 18 (high group, lane%4 = 2).
  EXPECT_EQ(mma::a_f16_m8n8k4(18, 3, true), (RC{6, 3}));
  EXPECT_EQ(mma::a_f16_m8n8k4(18, 3, false), (RC{7, 2}));
  EXPECT_EQ(mma::b_f16_m8n8k4(18, 1, true), (RC{2, 5}));
  EXPECT_EQ(mma::b_f16_m8n8k4(18, 1, false), (RC{1, 6}));
  EXPECT_EQ(mma::c_f16_m8n8k4(18, 7), (RC{6, 7}));
  // f32 accumulator: X = (lane&1) + (i&2) (+4 high), col = (i&4) + (lane&2) + (i&1).
  EXPECT_EQ(mma::c_f32_m8n8k4(19, 7), (RC{7, 7}));
  EXPECT_EQ(mma::c_f32_m8n8k4(2, 5), (RC{0, 7}));
}

// ---- wmma layouts measured on an H200 (wmma::load_matrix_sync, fragment.x[i]) ----
struct HwRow { uint32_t m, n, k; char mat; const char* type; uint32_t lane; const char* rc; };
const HwRow kHardware[] = {
    {16, 16, 16, 'a', "f16", 5, "1,2 1,3 9,2 9,3 1,10 1,11 9,10 9,11 1,2 1,3 9,2 9,3 1,10 1,11 9,10 9,11"},
    {16, 16, 16, 'a', "f16", 22, "5,4 5,5 13,4 13,5 5,12 5,13 13,12 13,13 5,4 5,5 13,4 13,5 5,12 5,13 13,12 13,13"},
    {16, 16, 16, 'b', "f16", 5, "2,1 3,1 10,1 11,1 2,9 3,9 10,9 11,9 2,1 3,1 10,1 11,1 2,9 3,9 10,9 11,9"},
    {16, 16, 16, 'b', "f16", 22, "4,5 5,5 12,5 13,5 4,13 5,13 12,13 13,13 4,5 5,5 12,5 13,5 4,13 5,13 12,13 13,13"},
    {16, 16, 16, 'c', "f32", 5, "1,2 1,3 9,2 9,3 1,10 1,11 9,10 9,11"},
    {16, 16, 16, 'c', "f32", 22, "5,4 5,5 13,4 13,5 5,12 5,13 13,12 13,13"},
    {16, 16, 16, 'c', "f16", 5, "1,2 1,3 9,2 9,3 1,10 1,11 9,10 9,11"},
    {16, 16, 16, 'c', "f16", 22, "5,4 5,5 13,4 13,5 5,12 5,13 13,12 13,13"},
    {32, 8, 16, 'a', "f16", 5, "1,2 1,3 9,2 9,3 1,10 1,11 9,10 9,11"},
    {32, 8, 16, 'a', "f16", 22, "5,4 5,5 13,4 13,5 5,12 5,13 13,12 13,13"},
    {32, 8, 16, 'b', "f16", 5, "2,1 3,1 10,1 11,1 2,1 3,1 10,1 11,1 2,1 3,1 10,1 11,1 2,1 3,1 10,1 11,1"},
    {32, 8, 16, 'b', "f16", 22, "4,5 5,5 12,5 13,5 4,5 5,5 12,5 13,5 4,5 5,5 12,5 13,5 4,5 5,5 12,5 13,5"},
    {32, 8, 16, 'c', "f32", 5, "1,2 1,3 9,2 9,3 17,2 17,3 25,2 25,3"},
    {32, 8, 16, 'c', "f32", 22, "5,4 5,5 13,4 13,5 21,4 21,5 29,4 29,5"},
    {32, 8, 16, 'c', "f16", 5, "1,2 1,3 9,2 9,3 17,2 17,3 25,2 25,3"},
    {32, 8, 16, 'c', "f16", 22, "5,4 5,5 13,4 13,5 21,4 21,5 29,4 29,5"},
    {8, 32, 16, 'a', "f16", 5, "1,2 1,3 1,10 1,11 1,2 1,3 1,10 1,11 1,2 1,3 1,10 1,11 1,2 1,3 1,10 1,11"},
    {8, 32, 16, 'a', "f16", 22, "5,4 5,5 5,12 5,13 5,4 5,5 5,12 5,13 5,4 5,5 5,12 5,13 5,4 5,5 5,12 5,13"},
    {8, 32, 16, 'b', "f16", 5, "2,1 3,1 2,9 3,9 10,1 11,1 10,9 11,9"},
    {8, 32, 16, 'b', "f16", 22, "4,5 5,5 4,13 5,13 12,5 13,5 12,13 13,13"},
    {8, 32, 16, 'c', "f32", 5, "2,1 3,1 2,9 3,9 2,17 3,17 2,25 3,25"},
    {8, 32, 16, 'c', "f32", 22, "4,5 5,5 4,13 5,13 4,21 5,21 4,29 5,29"},
    {16, 16, 16, 'a', "bf16", 5, "1,2 1,3 9,2 9,3 1,10 1,11 9,10 9,11"},
    {16, 16, 16, 'a', "bf16", 22, "5,4 5,5 13,4 13,5 5,12 5,13 13,12 13,13"},
    {16, 16, 16, 'b', "bf16", 5, "2,1 3,1 10,1 11,1 2,9 3,9 10,9 11,9"},
    {16, 16, 16, 'b', "bf16", 22, "4,5 5,5 12,5 13,5 4,13 5,13 12,13 13,13"},
    {16, 16, 16, 'a', "u8", 5, "1,4 1,5 1,6 1,7 9,4 9,5 9,6 9,7"},
    {16, 16, 16, 'a', "u8", 22, "5,8 5,9 5,10 5,11 13,8 13,9 13,10 13,11"},
    {16, 16, 16, 'b', "u8", 5, "4,1 5,1 6,1 7,1 4,9 5,9 6,9 7,9"},
    {16, 16, 16, 'b', "u8", 22, "8,5 9,5 10,5 11,5 8,13 9,13 10,13 11,13"},
    {16, 16, 16, 'c', "s32", 5, "1,2 1,3 9,2 9,3 1,10 1,11 9,10 9,11"},
    {16, 16, 16, 'c', "s32", 22, "5,4 5,5 13,4 13,5 5,12 5,13 13,12 13,13"},
    {32, 8, 16, 'b', "u8", 5, "4,1 5,1 6,1 7,1"},
    {32, 8, 16, 'b', "u8", 22, "8,5 9,5 10,5 11,5"},
    {8, 32, 16, 'a', "u8", 5, "1,4 1,5 1,6 1,7"},
    {8, 32, 16, 'a', "u8", 22, "5,8 5,9 5,10 5,11"},
    {16, 16, 8, 'a', "tf32", 5, "1,1 9,1 1,5 9,5"},
    {16, 16, 8, 'a', "tf32", 22, "5,2 13,2 5,6 13,6"},
    {16, 16, 8, 'b', "tf32", 5, "1,1 5,1 1,9 5,9"},
    {16, 16, 8, 'b', "tf32", 22, "2,5 6,5 2,13 6,13"},
    {16, 16, 8, 'c', "f32", 5, "1,2 1,3 9,2 9,3 1,10 1,11 9,10 9,11"},
    {16, 16, 8, 'c', "f32", 22, "5,4 5,5 13,4 13,5 5,12 5,13 13,12 13,13"},
    {8, 8, 4, 'a', "f64", 5, "1,1"},
    {8, 8, 4, 'a', "f64", 22, "5,2"},
    {8, 8, 4, 'b', "f64", 5, "1,1"},
    {8, 8, 4, 'b', "f64", 22, "2,5"},
    {8, 8, 4, 'c', "f64", 5, "1,2 1,3"},
    {8, 8, 4, 'c', "f64", 22, "5,4 5,5"},
};

Elem elem_named(const std::string& t) {
  if (t == "f16") return Elem::F16;
  if (t == "bf16") return Elem::BF16;
  if (t == "tf32") return Elem::TF32;
  if (t == "f32") return Elem::F32;
  if (t == "f64") return Elem::F64;
  if (t == "u8") return Elem::U8;
  return Elem::S32;
}

TEST(TensorLayout, WmmaMatchesHardware) {
  for (const HwRow& h : kHardware) {
    const Mat m = h.mat == 'a' ? Mat::A : h.mat == 'b' ? Mat::B : Mat::C;
    std::istringstream ss(h.rc);
    std::string tok;
    uint32_t e = 0;
    while (ss >> tok) {
      RC want{};
      std::sscanf(tok.c_str(), "%u,%u", &want.r, &want.c);
      EXPECT_EQ(wmma_elem(Shape{h.m, h.n, h.k}, m, elem_named(h.type), h.lane, e), want)
          << h.m << "x" << h.n << "x" << h.k << " " << h.mat << " " << h.type << " lane " << h.lane << " x[" << e << "]";
      ++e;
    }
  }
}

// ---- mma.sync against a CPU GEMM ----
using Map = RC (*)(uint32_t lane, uint32_t i);

uint64_t enc(Elem t, double v, std::mt19937& rng) {
  switch (t) {
    case Elem::F16: return encode_mini(v, kF16, program::Round::Rn);
    case Elem::BF16: return f32_to_bf16_rn(float(v));
    // Low 13 bits are noise that the tensor core must ignore.
    case Elem::TF32: return std::bit_cast<uint32_t>(float(v)) | (v != 0 ? rng() & 0x1fffu : 0);
    case Elem::F32: return std::bit_cast<uint32_t>(float(v));
    case Elem::F64: return std::bit_cast<uint64_t>(v);
    case Elem::S8: case Elem::U8: return uint8_t(int(v));
    case Elem::S32: return uint32_t(int64_t(v));
    case Elem::E4M3: return encode_mini(v, kE4M3, program::Round::Rn);
    case Elem::E5M2: return encode_mini(v, kE5M2, program::Round::Rn);
    default: return 0;
  }
}
double dec(Elem t, uint64_t b) {
  switch (t) {
    case Elem::F16: return decode_mini(uint32_t(b & 0xffff), kF16);
    case Elem::F32: return std::bit_cast<float>(uint32_t(b));
    case Elem::F64: return std::bit_cast<double>(b);
    default: return double(int32_t(uint32_t(b)));
  }
}
// A random exactly representable input of type t.
double sample(Elem t, std::mt19937& rng) {
  int v = int(rng() % 9) - 4;
  switch (t) {
    case Elem::S8: return int(rng() % 256) - 128;
    case Elem::U8: return int(rng() % 256);
    case Elem::S32: return int(rng() % 2001) - 1000;
    case Elem::F64: return std::ldexp(double(v), int(rng() % 5) - 2);
    default: return std::ldexp(double(v), int(rng() % 3) - 1);  // {-4..4} * {1/2, 1, 2}
  }
}

struct MmaCase {
  const char* mods;
  uint32_t m, n, k;
  Elem a, b, c, d;
  Map fa, fb, fc;
  uint32_t na, nb, nc;  // elements per lane
  bool quad = false;    // m8n8k4.f16: four independent products
  bool sat = false;
};

void pack(uint64_t* r, Elem t, uint32_t i, uint64_t bits) {
  const uint32_t per = per_reg(t), eb = elem_bits(t);
  if (eb >= 64) { r[i] = bits; return; }
  r[i / per] |= bits << ((i % per) * eb);
}

void run_case(const MmaCase& c, uint32_t seed, double c_bias = 0) {
  SCOPED_TRACE(c.mods);
  std::mt19937 rng(seed);
  Harness h;
  const uint32_t G = c.quad ? 4 : 1;
  std::vector<double> A(G * c.m * c.k), B(G * c.k * c.n), C(G * c.m * c.n);
  for (auto& v : A) v = sample(c.a, rng);
  for (auto& v : B) v = sample(c.b, rng);
  for (auto& v : C) v = sample(c.c, rng) + c_bias;
  const uint32_t ra = 0, rb = 20, rc = 40, rd = 60;
  const uint32_t nra = c.na / per_reg(c.a), nrb = c.nb / per_reg(c.b), nrc = c.nc / per_reg(c.c),
                 nrd = c.nc / per_reg(c.d);
  for (uint32_t l = 0; l < 32; ++l) {
    const uint32_t g = c.quad ? (l >> 2) & 3 : 0;
    uint64_t fa[16] = {}, fb[16] = {}, fc[16] = {};
    for (uint32_t i = 0; i < c.na; ++i) { RC x = c.fa(l, i); pack(fa, c.a, i, enc(c.a, A[(g * c.m + x.r) * c.k + x.c], rng)); }
    for (uint32_t i = 0; i < c.nb; ++i) { RC x = c.fb(l, i); pack(fb, c.b, i, enc(c.b, B[(g * c.k + x.r) * c.n + x.c], rng)); }
    for (uint32_t i = 0; i < c.nc; ++i) { RC x = c.fc(l, i); pack(fc, c.c, i, enc(c.c, C[(g * c.m + x.r) * c.n + x.c], rng)); }
    for (uint32_t i = 0; i < nra; ++i) h.reg(ra + i)[l] = fa[i];
    for (uint32_t i = 0; i < nrb; ++i) h.reg(rb + i)[l] = fb[i];
    for (uint32_t i = 0; i < nrc; ++i) h.reg(rc + i)[l] = fc[i];
  }
  Inst in = make(isa::Opcode::Mma, c.mods, {h.vec(rd, nrd), h.vec(ra, nra), h.vec(rb, nrb), h.vec(rc, nrc)});
  ASSERT_TRUE(h.run(in));
  long bad = 0;
  for (uint32_t l = 0; l < 32; ++l) {
    const uint32_t g = c.quad ? (l >> 2) & 3 : 0;
    for (uint32_t i = 0; i < c.nc; ++i) {
      RC x = c.fc(l, i);
      double want = C[(g * c.m + x.r) * c.n + x.c];
      for (uint32_t k = 0; k < c.k; ++k) want += A[(g * c.m + x.r) * c.k + k] * B[(g * c.k + k) * c.n + x.c];
      if (c.d == Elem::S32) {
        if (c.sat) want = std::min(std::max(want, -2147483648.0), 2147483647.0);
        else want = double(int32_t(uint32_t(int64_t(want))));
      }
      const uint32_t per = per_reg(c.d), eb = elem_bits(c.d);
      uint64_t r = h.reg(rd + i / per)[l];
      uint64_t bits = eb >= 64 ? r : (r >> ((i % per) * eb)) & ((1ull << eb) - 1);
      double got = dec(c.d, bits);
      if (got != want && bad++ < 5) ADD_FAILURE() << "lane " << l << " d" << i << " (" << x.r << "," << x.c << "): got " << got << " want " << want;
    }
  }
  EXPECT_EQ(bad, 0);
}

using namespace mma;
RC a_q_row(uint32_t l, uint32_t i) { return a_f16_m8n8k4(l, i, true); }
RC a_q_col(uint32_t l, uint32_t i) { return a_f16_m8n8k4(l, i, false); }
RC b_q_row(uint32_t l, uint32_t i) { return b_f16_m8n8k4(l, i, true); }
RC b_q_col(uint32_t l, uint32_t i) { return b_f16_m8n8k4(l, i, false); }

TEST(Mma, FloatShapesMatchCpuGemm) {
  const MmaCase cases[] = {
      {".sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 16, 8, 16, Elem::F16, Elem::F16, Elem::F32, Elem::F32, a_f16_k16, b_f16_k16, c_16x8, 8, 4, 4},
      {".sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", 16, 8, 16, Elem::F16, Elem::F16, Elem::F16, Elem::F16, a_f16_k16, b_f16_k16, c_16x8, 8, 4, 4},
      {".sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 16, 8, 16, Elem::BF16, Elem::BF16, Elem::F32, Elem::F32, a_f16_k16, b_f16_k16, c_16x8, 8, 4, 4},
      {".sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", 16, 8, 8, Elem::F16, Elem::F16, Elem::F32, Elem::F32, a_f16_k8, b_f16_k8, c_16x8, 4, 2, 4},
      {".sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", 16, 8, 8, Elem::BF16, Elem::BF16, Elem::F32, Elem::F32, a_f16_k8, b_f16_k8, c_16x8, 4, 2, 4},
      {".sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 16, 8, 8, Elem::TF32, Elem::TF32, Elem::F32, Elem::F32, a_tf32_k8, b_tf32_k8, c_16x8, 4, 2, 4},
      {".sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", 16, 8, 4, Elem::TF32, Elem::TF32, Elem::F32, Elem::F32, a_tf32_k4, b_tf32_k4, c_16x8, 2, 1, 4},
      {".sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32", 16, 8, 32, Elem::E4M3, Elem::E5M2, Elem::F32, Elem::F32, a_i8_k32, b_i8_k32, c_16x8, 16, 8, 4},
      {".sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", 8, 8, 4, Elem::F64, Elem::F64, Elem::F64, Elem::F64, a_f64_m8n8k4, b_f64_m8n8k4, c_8x8, 1, 1, 2},
      {".sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", 8, 8, 4, Elem::F16, Elem::F16, Elem::F32, Elem::F32, a_q_row, b_q_col, c_f32_m8n8k4, 4, 4, 8, true},
      {".sync.aligned.m8n8k4.col.row.f16.f16.f16.f16", 8, 8, 4, Elem::F16, Elem::F16, Elem::F16, Elem::F16, a_q_col, b_q_row, c_f16_m8n8k4, 4, 4, 8, true},
  };
  uint32_t seed = 1;
  for (const auto& c : cases) run_case(c, seed++);
}

TEST(Mma, IntegerShapesWrapOrSaturate) {
  const MmaCase cases[] = {
      {".sync.aligned.m16n8k16.row.col.s32.s8.s8.s32", 16, 8, 16, Elem::S8, Elem::S8, Elem::S32, Elem::S32, a_i8_k16, b_i8_k16, c_16x8, 8, 4, 4},
      {".sync.aligned.m16n8k32.row.col.s32.u8.s8.s32", 16, 8, 32, Elem::U8, Elem::S8, Elem::S32, Elem::S32, a_i8_k32, b_i8_k32, c_16x8, 16, 8, 4},
      {".sync.aligned.m8n8k16.row.col.s32.s8.u8.s32", 8, 8, 16, Elem::S8, Elem::U8, Elem::S32, Elem::S32, a_i8_m8n8k16, b_i8_m8n8k16, c_8x8, 4, 4, 2},
  };
  uint32_t seed = 100;
  for (const auto& c : cases) run_case(c, seed++);
  // Near INT32_MAX: sums overflow; plain wraps, .satfinite clamps.
  MmaCase wrap{".sync.aligned.m16n8k32.row.col.s32.u8.u8.s32", 16, 8, 32, Elem::U8, Elem::U8, Elem::S32, Elem::S32, a_i8_k32, b_i8_k32, c_16x8, 16, 8, 4};
  run_case(wrap, 7, 2147483647.0 - 1000);
  MmaCase sat = wrap;
  sat.mods = ".sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32";
  sat.sat = true;
  run_case(sat, 7, 2147483647.0 - 1000);
}

TEST(Mma, Tf32IgnoresLowMantissaBits) {
  Harness h;
  // A = 1 + 2^-20 (below tf32 precision) everywhere, B = 1: each D = K = 8.
  const uint64_t one_plus = std::bit_cast<uint32_t>(1.0f + 0x1p-20f), one = std::bit_cast<uint32_t>(1.0f);
  for (uint32_t l = 0; l < 32; ++l) {
    for (uint32_t i = 0; i < 4; ++i) h.reg(i)[l] = one_plus;
    for (uint32_t i = 0; i < 2; ++i) h.reg(10 + i)[l] = one;
    for (uint32_t i = 0; i < 4; ++i) h.reg(20 + i)[l] = 0;
  }
  Inst in = make(isa::Opcode::Mma, ".sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
                 {h.vec(30, 4), h.vec(0, 4), h.vec(10, 2), h.vec(20, 4)});
  ASSERT_TRUE(h.run(in));
  for (uint32_t l = 0; l < 32; ++l)
    for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(std::bit_cast<float>(uint32_t(h.reg(30 + i)[l])), 8.0f);
}

TEST(Mma, UnsupportedFormsAreNotBound) {
  Harness h;
  auto bound = [&](const char* mods, uint32_t nd, uint32_t na, uint32_t nb, uint32_t nc) {
    return h.bind(make(isa::Opcode::Mma, mods, {h.vec(0, nd), h.vec(10, na), h.vec(20, nb), h.vec(30, nc)})) != nullptr;
  };
  EXPECT_TRUE(bound(".sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 4, 4, 2, 4));
  EXPECT_FALSE(bound(".sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 4, 2, 2, 4));   // wrong A size
  EXPECT_FALSE(bound(".sync.aligned.m16n8k16.col.col.f32.f16.f16.f32", 4, 4, 2, 4));   // only row.col
  EXPECT_FALSE(bound(".sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 4, 2, 2, 4));  // sparse: needs e, f
  EXPECT_FALSE(bound(".sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32", 4, 4, 2, 4));
  EXPECT_TRUE(bound(".sync.aligned.m16n8k64.row.col.s32.s4.s4.s32", 4, 4, 2, 4));
  EXPECT_FALSE(bound(".sync.aligned.m16n8k64.row.col.s32.s4.s4.s32", 4, 2, 2, 4));
  EXPECT_FALSE(bound(".sync.aligned.m16n8k128.row.col.s32.b1.b1.s32", 4, 2, 1, 4));  // no .xor/.and.popc
  EXPECT_FALSE(bound(".sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.xor", 4, 2, 1, 4));  // no .popc
  EXPECT_TRUE(bound(".sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.xor.popc", 4, 2, 1, 4));
  EXPECT_FALSE(bound(".sync.aligned.m16n8k16.row.col.f32.f16.f16.f32.xor.popc", 4, 4, 2, 4));
  EXPECT_FALSE(bound(".sync.aligned.m16n8k128.row.col.satfinite.s32.b1.b1.s32.and.popc", 4, 2, 1, 4));
}

TEST(Mma, PartialWarpFaults) {
  Harness h;
  Inst in = make(isa::Opcode::Mma, ".sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
                 {h.vec(30, 4), h.vec(0, 4), h.vec(10, 2), h.vec(20, 4)});
  EXPECT_FALSE(h.run(in, 0x0000ffffu));
  EXPECT_TRUE(h.w->faulted());
}

// ---- wmma: load, mma, store through shared memory ----
struct WmmaCase {
  uint32_t m, n, k;
  const char* ab;   // ".f16"
  const char* cty;  // accumulator type ".f32"
  const char* dty;
  const char* mma_types;  // ".f32.f32" or ".f32.bf16.bf16.f32"
  Elem a, c, d;
  bool a_row, b_row;
  uint32_t lda_pad;  // extra elements per leading dimension (stride operand); 0 = default stride
};

void run_wmma(const WmmaCase& c, uint32_t seed) {
  SCOPED_TRACE(std::string(c.ab) + " " + std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k));
  std::mt19937 rng(seed);
  Harness h;
  const uint32_t ab = elem_bits(c.a) / 8, cb = elem_bits(c.c) / 8, db = elem_bits(c.d) / 8;
  const uint32_t lda = (c.a_row ? c.k : c.m) + c.lda_pad, ldb = (c.b_row ? c.n : c.k) + c.lda_pad;
  const uint32_t offA = 0, offB = 4096, offC = 8192, offD = 12288;
  std::vector<double> A(c.m * c.k), B(c.k * c.n), C(c.m * c.n);
  for (auto& v : A) v = sample(c.a, rng);
  for (auto& v : B) v = sample(c.a, rng);
  for (auto& v : C) v = sample(c.c, rng);
  auto put = [&](uint32_t off, uint64_t bits, uint32_t size) { std::memcpy(h.cta.shared.data() + off, &bits, size); };
  for (uint32_t r = 0; r < c.m; ++r)
    for (uint32_t k = 0; k < c.k; ++k)
      put(offA + (c.a_row ? r * lda + k : k * lda + r) * ab, enc(c.a, A[r * c.k + k], rng), ab);
  for (uint32_t k = 0; k < c.k; ++k)
    for (uint32_t j = 0; j < c.n; ++j)
      put(offB + (c.b_row ? k * ldb + j : j * ldb + k) * ab, enc(c.a, B[k * c.n + j], rng), ab);
  for (uint32_t r = 0; r < c.m; ++r)
    for (uint32_t j = 0; j < c.n; ++j) put(offC + (r * c.n + j) * cb, enc(c.c, C[r * c.n + j], rng), cb);
  for (uint32_t l = 0; l < 32; ++l) {
    h.reg(100)[l] = offA; h.reg(101)[l] = offB; h.reg(102)[l] = offC; h.reg(103)[l] = offD;
    h.reg(104)[l] = lda; h.reg(105)[l] = ldb;
  }
  const std::string shape = ".m" + std::to_string(c.m) + "n" + std::to_string(c.n) + "k" + std::to_string(c.k);
  auto regs = [&](Mat m, Elem t) {
    const RC d = dims(Shape{c.m, c.n, c.k}, m);
    uint32_t cnt = d.r * d.c / 32;
    if (m != Mat::C && t == Elem::F16) cnt = 16;
    return cnt / per_reg(t);
  };
  const uint32_t na = regs(Mat::A, c.a), nb = regs(Mat::B, c.a), nc = regs(Mat::C, c.c), nd = regs(Mat::C, c.d);
  const std::string la = c.a_row ? ".row" : ".col", lb = c.b_row ? ".row" : ".col";
  Inst ldA = c.lda_pad ? make(isa::Opcode::Wmma, ".load.a.sync.aligned" + la + shape + ".shared" + c.ab, {h.vec(0, na), Addr(100), R(104)})
                       : make(isa::Opcode::Wmma, ".load.a.sync.aligned" + la + shape + ".shared" + c.ab, {h.vec(0, na), Addr(100)});
  Inst ldB = c.lda_pad ? make(isa::Opcode::Wmma, ".load.b.sync.aligned" + lb + shape + ".shared" + c.ab, {h.vec(20, nb), Addr(101), R(105)})
                       : make(isa::Opcode::Wmma, ".load.b.sync.aligned" + lb + shape + ".shared" + c.ab, {h.vec(20, nb), Addr(101)});
  Inst ldC = make(isa::Opcode::Wmma, ".load.c.sync.aligned.row" + shape + ".shared" + c.cty, {h.vec(40, nc), Addr(102)});
  Inst mm = make(isa::Opcode::Wmma, ".mma.sync.aligned" + la + lb + shape + c.mma_types,
                 {h.vec(60, nd), h.vec(0, na), h.vec(20, nb), h.vec(40, nc)});
  Inst st = make(isa::Opcode::Wmma, ".store.d.sync.aligned.row" + shape + ".shared" + c.dty, {Addr(103), h.vec(60, nd)});
  ASSERT_TRUE(h.run(ldA));
  ASSERT_TRUE(h.run(ldB));
  ASSERT_TRUE(h.run(ldC));
  ASSERT_TRUE(h.run(mm));
  ASSERT_TRUE(h.run(st));
  long bad = 0;
  for (uint32_t r = 0; r < c.m; ++r)
    for (uint32_t j = 0; j < c.n; ++j) {
      double want = C[r * c.n + j];
      for (uint32_t k = 0; k < c.k; ++k) want += A[r * c.k + k] * B[k * c.n + j];
      uint64_t bits = 0;
      std::memcpy(&bits, h.cta.shared.data() + offD + (r * c.n + j) * db, db);
      const double got = dec(c.d, bits);
      if (got != want && bad++ < 5) ADD_FAILURE() << "D(" << r << "," << j << "): got " << got << " want " << want;
    }
  EXPECT_EQ(bad, 0);
}

TEST(Wmma, RoundTripsMatchCpuGemm) {
  const WmmaCase cases[] = {
      {16, 16, 16, ".f16", ".f32", ".f32", ".f32.f32", Elem::F16, Elem::F32, Elem::F32, true, false, 0},
      {16, 16, 16, ".f16", ".f16", ".f32", ".f32.f16", Elem::F16, Elem::F16, Elem::F32, false, true, 8},
      {32, 8, 16, ".f16", ".f32", ".f16", ".f16.f32", Elem::F16, Elem::F32, Elem::F16, true, false, 0},
      {8, 32, 16, ".f16", ".f16", ".f16", ".f16.f16", Elem::F16, Elem::F16, Elem::F16, true, true, 8},
      {16, 16, 16, ".bf16", ".f32", ".f32", ".f32.bf16.bf16.f32", Elem::BF16, Elem::F32, Elem::F32, true, false, 0},
      {32, 8, 16, ".bf16", ".f32", ".f32", ".f32.bf16.bf16.f32", Elem::BF16, Elem::F32, Elem::F32, false, false, 0},
      {8, 32, 16, ".bf16", ".f32", ".f32", ".f32.bf16.bf16.f32", Elem::BF16, Elem::F32, Elem::F32, true, false, 8},
      {16, 16, 16, ".s8", ".s32", ".s32", ".s32.s8.s8.s32", Elem::S8, Elem::S32, Elem::S32, true, false, 0},
      {32, 8, 16, ".u8", ".s32", ".s32", ".s32.u8.u8.s32", Elem::U8, Elem::S32, Elem::S32, true, false, 16},
      {8, 32, 16, ".u8", ".s32", ".s32", ".s32.u8.u8.s32", Elem::U8, Elem::S32, Elem::S32, false, true, 0},
      {16, 16, 8, ".tf32", ".f32", ".f32", ".f32.tf32.tf32.f32", Elem::TF32, Elem::F32, Elem::F32, true, false, 4},
      {8, 8, 4, ".f64", ".f64", ".f64", ".f64.f64.f64.f64.rn", Elem::F64, Elem::F64, Elem::F64, true, false, 0},
      {8, 8, 4, ".f64", ".f64", ".f64", ".f64.f64.f64.f64", Elem::F64, Elem::F64, Elem::F64, false, true, 2},
  };
  uint32_t seed = 200;
  for (const auto& c : cases) run_wmma(c, seed++);
}

TEST(Wmma, LoadPutsHardwareElementsInLane5) {
  // A 16x16 f16 row-major matrix with A(r,c) = r*16+c; lane 5's fragment per the H200.
  Harness h;
  for (uint32_t i = 0; i < 256; ++i) {
    uint16_t v = uint16_t(encode_mini(double(i), kF16, program::Round::Rn));
    std::memcpy(h.cta.shared.data() + 2 * i, &v, 2);
  }
  for (uint32_t l = 0; l < 32; ++l) h.reg(100)[l] = 0;
  ASSERT_TRUE(h.run(make(isa::Opcode::Wmma, ".load.a.sync.aligned.row.m16n16k16.shared.f16", {h.vec(0, 8), Addr(100)})));
  const uint32_t want[16] = {18, 19, 146, 147, 26, 27, 154, 155, 18, 19, 146, 147, 26, 27, 154, 155};
  for (uint32_t i = 0; i < 16; ++i)
    EXPECT_EQ(decode_mini(uint32_t(h.reg(i / 2)[5] >> (16 * (i % 2))) & 0xffff, kF16), double(want[i])) << i;
}

TEST(Wmma, MisalignedStrideFaults) {
  Harness h;
  for (uint32_t l = 0; l < 32; ++l) { h.reg(100)[l] = 0; h.reg(104)[l] = 4; }  // 8-byte rows
  EXPECT_FALSE(h.run(make(isa::Opcode::Wmma, ".load.a.sync.aligned.row.m16n16k16.shared.f16",
                          {h.vec(0, 8), Addr(100), R(104)})));
}

// ---- ldmatrix / stmatrix ----
TEST(Ldmatrix, X4AndTransMatchIsa) {
  for (bool trans : {false, true}) {
    Harness h;
    // Matrix i row r starts at 256*i + 32*r (rows padded to 32 bytes); M_i(r,c) = 64i + 8r + c.
    for (uint32_t i = 0; i < 4; ++i)
      for (uint32_t r = 0; r < 8; ++r)
        for (uint32_t c = 0; c < 8; ++c) {
          uint16_t v = uint16_t(64 * i + 8 * r + c);
          std::memcpy(h.cta.shared.data() + 256 * i + 32 * r + 2 * c, &v, 2);
        }
    for (uint32_t l = 0; l < 32; ++l) h.reg(100)[l] = 256 * (l / 8) + 32 * (l % 8);
    std::string mods = std::string(".sync.aligned.m8n8.x4") + (trans ? ".trans" : "") + ".shared.b16";
    ASSERT_TRUE(h.run(make(isa::Opcode::Ldmatrix, mods, {h.vec(0, 4), Addr(100)})));
    for (uint32_t l = 0; l < 32; ++l)
      for (uint32_t i = 0; i < 4; ++i)
        for (uint32_t j = 0; j < 2; ++j) {
          uint32_t r = l / 4, c = 2 * (l % 4) + j;
          if (trans) std::swap(r, c);
          EXPECT_EQ((h.reg(i)[l] >> (16 * j)) & 0xffff, 64 * i + 8 * r + c) << "lane " << l << " reg " << i;
        }
  }
}

TEST(Ldmatrix, X1UsesLanes0To7AndStmatrixInverts) {
  Harness h;
  for (uint32_t r = 0; r < 8; ++r)
    for (uint32_t c = 0; c < 8; ++c) {
      uint16_t v = uint16_t(100 + 8 * r + c);
      std::memcpy(h.cta.shared.data() + 16 * r + 2 * c, &v, 2);
    }
  // Lanes 8..31 give addresses that would fault: x1 must ignore them.
  for (uint32_t l = 0; l < 32; ++l) h.reg(100)[l] = l < 8 ? 16 * l : 1u << 30;
  ASSERT_TRUE(h.run(make(isa::Opcode::Ldmatrix, ".sync.aligned.m8n8.x1.shared.b16", {h.vec(0, 1), Addr(100)})));
  EXPECT_EQ(h.reg(0)[13], (100 + 8 * 3 + 2) | uint64_t(100 + 8 * 3 + 3) << 16);
  // stmatrix.trans the fragment to offset 1024: memory gets the transpose.
  for (uint32_t l = 0; l < 32; ++l) h.reg(101)[l] = l < 8 ? 1024 + 16 * l : 1u << 30;
  ASSERT_TRUE(h.run(make(isa::Opcode::Stmatrix, ".sync.aligned.m8n8.x1.trans.shared.b16", {Addr(101), h.vec(0, 1)})));
  for (uint32_t r = 0; r < 8; ++r)
    for (uint32_t c = 0; c < 8; ++c) {
      uint16_t v;
      std::memcpy(&v, h.cta.shared.data() + 1024 + 16 * r + 2 * c, 2);
      EXPECT_EQ(v, 100 + 8 * c + r);
    }
}

}  // namespace
}  // namespace softgpu::exec
