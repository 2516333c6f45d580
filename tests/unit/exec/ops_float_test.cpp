// Float and conversion handler tests against IEEE facts and host arithmetic.
#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <limits>

#include "exec/float_util.h"
#include "ops_test_util.h"

using namespace softgpu::exec;
using namespace softgpu::exec::test;
using isa::Opcode;
using program::Round;

namespace softgpu::exec::ops {
template <class D> D cvt_float_to_int(double x, Round irnd);
}

namespace {
float run_f32(Opcode op, Round r, float a, float b, bool ftz = false, bool sat = false) {
  WarpHarness h;
  h.fill(1, fbits(a));
  h.fill(2, fbits(b));
  Inst in = make(op, Type::F32, {R(0), R(1), R(2)});
  in.m.rnd = r;
  in.m.ftz = ftz;
  in.m.sat = sat;
  h.run(in);
  return asf(h.reg(0)[7]);
}
}  // namespace

TEST(FloatOps, DirectedRoundingAdd) {
  const float one = 1.0f, tiny = 0x1p-30f;
  EXPECT_EQ(run_f32(Opcode::Add, Round::Rn, one, tiny), 1.0f);
  EXPECT_EQ(run_f32(Opcode::Add, Round::Rz, one, tiny), 1.0f);
  EXPECT_EQ(run_f32(Opcode::Add, Round::Rm, one, tiny), 1.0f);
  EXPECT_EQ(run_f32(Opcode::Add, Round::Rp, one, tiny), std::nextafter(1.0f, 2.0f));
  EXPECT_EQ(run_f32(Opcode::Add, Round::Rm, -one, -tiny), std::nextafter(-1.0f, -2.0f));
  EXPECT_EQ(run_f32(Opcode::Add, Round::Rz, -one, -tiny), -1.0f);
  EXPECT_EQ(std::fegetround(), FE_TONEAREST) << "rounding mode must be restored";
  // 1.1f * 1.1f is inexact: rm and rp bracket the exact (double) product.
  const double exact = double(1.1f) * double(1.1f);
  const float m = run_f32(Opcode::Mul, Round::Rm, 1.1f, 1.1f), p = run_f32(Opcode::Mul, Round::Rp, 1.1f, 1.1f);
  EXPECT_LT(double(m), exact);
  EXPECT_GT(double(p), exact);
  EXPECT_EQ(std::nextafter(m, 2.0f), p);
  EXPECT_EQ(run_f32(Opcode::Mul, Round::Rz, 1.1f, 1.1f), m);
}

TEST(FloatOps, FtzSatAndCanonicalNan) {
  const float sub = 0x1p-130f;
  EXPECT_EQ(run_f32(Opcode::Add, Round::None, sub, 0.0f), sub);
  EXPECT_EQ(std::bit_cast<uint32_t>(run_f32(Opcode::Add, Round::None, -sub, 0.0f, true)), 0u);  // -0 + 0 = +0
  EXPECT_EQ(std::bit_cast<uint32_t>(run_f32(Opcode::Mul, Round::None, -sub, 1.0f, true)), 0x80000000u);
  EXPECT_EQ(run_f32(Opcode::Add, Round::None, 0.75f, 0.5f, false, true), 1.0f);
  EXPECT_EQ(run_f32(Opcode::Sub, Round::None, 0.25f, 0.5f, false, true), 0.0f);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(run_f32(Opcode::Add, Round::None, nan, 1.0f, false, true), 0.0f);
  EXPECT_EQ(std::bit_cast<uint32_t>(run_f32(Opcode::Mul, Round::None, INFINITY, 0.0f)), kCanonicalNanF32);
}

TEST(FloatOps, MinMaxNanAndSignedZero) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(run_f32(Opcode::Min, Round::None, nan, 2.0f), 2.0f);
  EXPECT_EQ(run_f32(Opcode::Max, Round::None, 3.0f, nan), 3.0f);
  EXPECT_TRUE(std::signbit(run_f32(Opcode::Min, Round::None, 0.0f, -0.0f)));
  EXPECT_FALSE(std::signbit(run_f32(Opcode::Max, Round::None, -0.0f, 0.0f)));
  WarpHarness h;
  h.fill(1, fbits(nan));
  h.fill(2, fbits(1.0f));
  Inst in = make(Opcode::Min, Type::F32, {R(0), R(1), R(2)});
  in.raw_mods = {".NaN", ".f32"};
  ASSERT_TRUE(h.run(in));
  EXPECT_EQ(uint32_t(h.reg(0)[0]), kCanonicalNanF32);
}

TEST(FloatOps, DivVariants) {
  WarpHarness h;
  h.fill(1, fbits(1.0f));
  h.fill(2, fbits(3.0f));
  Inst in = make(Opcode::Div, Type::F32, {R(0), R(1), R(2)});
  EXPECT_FALSE(h.bound(in));  // div.f32 needs .approx/.full/.rnd
  in.m.rnd = Round::Rn;
  ASSERT_TRUE(h.run(in));
  EXPECT_EQ(asf(h.reg(0)[0]), 1.0f / 3.0f);
  in.m.rnd = Round::Rm;  // rn rounded 1/3 up, so rm is one ulp below
  ASSERT_TRUE(h.run(in));
  EXPECT_EQ(asf(h.reg(0)[0]), std::nextafter(1.0f / 3.0f, 0.0f));
  in.m.rnd = Round::None;
  in.m.approx = true;
  h.fill(2, fbits(0x1p127f));
  ASSERT_TRUE(h.run(in));
  EXPECT_EQ(asf(h.reg(0)[0]), 0.0f);  // |b| > 2^126: hardware returns 0
}

TEST(FloatOps, SetpUnorderedAndFtz) {
  WarpHarness h;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (uint32_t l = 0; l < 32; ++l) h.reg(1)[l] = fbits(l % 2 ? nan : float(l));
  h.fill(2, fbits(10.0f));
  Inst lt = make(Opcode::Setp, Type::F32, {P(0), R(1), R(2)});
  lt.m.cmp = program::Cmp::Lt;
  ASSERT_TRUE(h.run(lt));
  EXPECT_EQ(h.pred(0), 0x00000155u);  // even lanes 0..8
  lt.m.cmp = program::Cmp::Ltu;
  ASSERT_TRUE(h.run(lt));
  EXPECT_EQ(h.pred(0), 0xaaaaaaaau | 0x155u);
  lt.m.cmp = program::Cmp::Ne;
  ASSERT_TRUE(h.run(lt));
  EXPECT_EQ(h.pred(0), 0x55555555u & ~(1u << 10));  // ordered: NaN lanes false
  h.fill(1, fbits(0x1p-130f));
  h.fill(2, fbits(0.0f));
  Inst eq = make(Opcode::Setp, Type::F32, {P(1), R(1), R(2)});
  eq.m.cmp = program::Cmp::Eq;
  ASSERT_TRUE(h.run(eq));
  EXPECT_EQ(h.pred(1), 0u);
  eq.m.ftz = true;
  ASSERT_TRUE(h.run(eq));
  EXPECT_EQ(h.pred(1), 0xffffffffu);
}

TEST(FloatOps, HalfArithmetic) {
  WarpHarness h;
  // f16x2: {1.5, 2.0} + {0.25, -4.0} = {1.75, -2.0}
  h.fill(1, (uint64_t(0x4000) << 16) | 0x3e00);
  h.fill(2, (uint64_t(0xc400) << 16) | 0x3400);
  Inst in = make(Opcode::Add, Type::F16x2, {R(0), R(1), R(2)});
  ASSERT_TRUE(h.run(in));
  EXPECT_EQ(uint32_t(h.reg(0)[0]), (0xc000u << 16) | 0x3f00u);
  // 65504 + 65504 overflows to +inf in f16.
  h.fill(1, 0x7bff);
  h.fill(2, 0x7bff);
  Inst s = make(Opcode::Add, Type::F16, {R(3), R(1), R(2)});
  ASSERT_TRUE(h.run(s));
  EXPECT_EQ(h.reg(3)[0] & 0xffff, 0x7c00u);
  // bf16 fma: 1 * 1 + 2^-8 is a tie between 1 and 1+2^-7 -> even (1.0).
  h.fill(1, 0x3f80);
  h.fill(2, 0x3f80);
  h.fill(4, 0x3b80);  // 2^-8
  Inst f = make(Opcode::Fma, Type::BF16, {R(5), R(1), R(2), R(4)});
  f.m.rnd = Round::Rn;
  ASSERT_TRUE(h.run(f));
  EXPECT_EQ(h.reg(5)[0] & 0xffff, 0x3f80u);
}

TEST(Convert, NarrowEncodings) {
  EXPECT_EQ(encode_mini(1.0 / 3.0, kF16, Round::Rn), 0x3555u);
  EXPECT_EQ(encode_mini(65519.0, kF16, Round::Rn), 0x7bffu);
  EXPECT_EQ(encode_mini(65520.0, kF16, Round::Rn), 0x7c00u);
  EXPECT_EQ(encode_mini(1e6, kF16, Round::Rz), 0x7bffu);
  EXPECT_EQ(encode_mini(-1e6, kF16, Round::Rm), 0xfc00u);
  EXPECT_EQ(encode_mini(0x1p-24, kF16, Round::Rn), 0x0001u);
  EXPECT_EQ(encode_mini(0x1p-25, kF16, Round::Rn), 0x0000u);   // tie -> even (0)
  EXPECT_EQ(encode_mini(0x1.8p-25, kF16, Round::Rn), 0x0001u);
  EXPECT_EQ(encode_mini(448.0, kE4M3, Round::Rn), 0x7eu);
  EXPECT_EQ(encode_mini(1000.0, kE4M3, Round::Rn, true), 0x7eu);
  EXPECT_EQ(encode_mini(57344.0, kE5M2, Round::Rn), 0x7bu);
  EXPECT_EQ(encode_mini(1.0, kBF16, Round::Rn), 0x3f80u);
  for (uint32_t b = 0; b < 0x7c00; b += 37) EXPECT_EQ(encode_mini(decode_mini(b, kF16), kF16, Round::Rn), b);
  for (uint32_t b = 0; b < 0x7f; ++b) EXPECT_EQ(encode_mini(decode_mini(b, kE4M3), kE4M3, Round::Rn), b);
  EXPECT_EQ(double(f16_to_f32(0x3555)), decode_mini(0x3555, kF16));
}

TEST(Convert, FloatToIntSaturatesNanZero) {
  using ops::cvt_float_to_int;
  EXPECT_EQ(cvt_float_to_int<int32_t>(std::nan(""), Round::Rzi), 0);
  EXPECT_EQ(cvt_float_to_int<int32_t>(3e9, Round::Rzi), INT32_MAX);
  EXPECT_EQ(cvt_float_to_int<int32_t>(-3e9, Round::Rzi), INT32_MIN);
  EXPECT_EQ(cvt_float_to_int<uint32_t>(-1.5, Round::Rzi), 0u);
  EXPECT_EQ(cvt_float_to_int<uint32_t>(4294967295.7, Round::Rzi), 0xffffffffu);
  EXPECT_EQ(cvt_float_to_int<int32_t>(2.5, Round::Rni), 2);
  EXPECT_EQ(cvt_float_to_int<int32_t>(-2.5, Round::Rmi), -3);
  EXPECT_EQ(cvt_float_to_int<int32_t>(2.1, Round::Rpi), 3);
  EXPECT_EQ(cvt_float_to_int<uint64_t>(1e30, Round::Rzi), ~0ull);
}

TEST(Convert, Handlers) {
  WarpHarness h;
  // cvt.rn.f16x2.f32 d, a, b: a goes to the upper half.
  h.fill(1, fbits(1.0f));
  h.fill(2, fbits(-2.0f));
  Inst p = make(Opcode::Cvt, Type::F16x2, {R(0), R(1), R(2)}, Type::F32);
  p.m.rnd = Round::Rn;
  ASSERT_TRUE(h.run(p));
  EXPECT_EQ(uint32_t(h.reg(0)[0]), (0x3c00u << 16) | 0xc000u);
  // cvt.rm.f32.f64 and cvt.rp.f32.f64 bracket 0.1.
  h.fill(3, dbits(0.1));
  Inst d = make(Opcode::Cvt, Type::F32, {R(4), R(3)}, Type::F64);
  d.m.rnd = Round::Rm;
  ASSERT_TRUE(h.run(d));
  float lo = asf(h.reg(4)[0]);
  d.m.rnd = Round::Rp;
  ASSERT_TRUE(h.run(d));
  float hi = asf(h.reg(4)[0]);
  EXPECT_LT(double(lo), 0.1);
  EXPECT_GT(double(hi), 0.1);
  EXPECT_EQ(std::nextafter(lo, 1.0f), hi);
  // cvt.s8.s32 truncates; cvt.sat.s8.s32 clamps; the result is sign-extended.
  h.fill(5, 0x1ff);
  Inst t = make(Opcode::Cvt, Type::S8, {R(6), R(5)}, Type::S32);
  ASSERT_TRUE(h.run(t));
  EXPECT_EQ(int64_t(h.reg(6)[0]), -1);
  t.m.sat = true;
  ASSERT_TRUE(h.run(t));
  EXPECT_EQ(int64_t(h.reg(6)[0]), 127);
  // cvt.rzi.s32.f32 on NaN gives 0; a missing rounding mode fails to bind.
  h.fill(7, fbits(std::numeric_limits<float>::quiet_NaN()));
  Inst fi = make(Opcode::Cvt, Type::S32, {R(8), R(7)}, Type::F32);
  EXPECT_FALSE(h.bound(fi));
  fi.m.rnd = Round::Rzi;
  ASSERT_TRUE(h.run(fi));
  EXPECT_EQ(h.reg(8)[0], 0u);
  // cvt.rn.f32.u64 of 2^64-1 rounds up to 2^64; .rz stays below.
  h.fill(9, ~0ull);
  Inst uf = make(Opcode::Cvt, Type::F32, {R(10), R(9)}, Type::U64);
  uf.m.rnd = Round::Rn;
  ASSERT_TRUE(h.run(uf));
  EXPECT_EQ(asf(h.reg(10)[0]), 0x1p64f);
  uf.m.rnd = Round::Rz;
  ASSERT_TRUE(h.run(uf));
  EXPECT_EQ(asf(h.reg(10)[0]), std::nextafter(0x1p64f, 0.0f));
  // cvt.rna.tf32.f32: 1 + 2^-11 (a tie at 10 mantissa bits) rounds away.
  h.fill(11, fbits(1.0f + 0x1p-11f));
  Inst tf = make(Opcode::Cvt, Type::TF32, {R(12), R(11)}, Type::F32);
  tf.m.rnd = Round::Rna;
  ASSERT_TRUE(h.run(tf));
  EXPECT_EQ(asf(h.reg(12)[0]), 1.0f + 0x1p-10f);
}
