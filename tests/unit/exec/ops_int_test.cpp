// Integer handler tests: hand-computed values and the ISA's own examples.
#include <gtest/gtest.h>

#include <climits>

#include "exec/ops_int_sem.h"
#include "ops_test_util.h"

using namespace softgpu::exec;
using namespace softgpu::exec::test;
using isa::Opcode;
namespace S = softgpu::exec::isem;

TEST(IntSem, MulHiAndWide) {
  EXPECT_EQ(S::mul_hi<int32_t>(-2, 3), -1);                      // -6 >> 32
  EXPECT_EQ(S::mul_hi<uint32_t>(0xffffffffu, 0xffffffffu), 0xfffffffeu);
  EXPECT_EQ(S::mul_hi<uint64_t>(~0ull, 2), 1ull);
  EXPECT_EQ(S::mul_hi<int64_t>(INT64_MIN, 2), -1);
  EXPECT_EQ(S::mul_wide<int32_t>(INT32_MIN, INT32_MIN), int64_t(1) << 62);
}

TEST(IntSem, DivRemEdges) {
  EXPECT_EQ(S::div<uint32_t>(7, 0), 0xffffffffu);
  EXPECT_EQ(S::div<int32_t>(7, 0), -1);
  EXPECT_EQ(S::rem<int32_t>(7, 0), 7);
  EXPECT_EQ(S::div<int32_t>(INT32_MIN, -1), INT32_MIN);
  EXPECT_EQ(S::rem<int32_t>(INT32_MIN, -1), 0);
  EXPECT_EQ(S::div<int32_t>(-7, 2), -3);  // truncates toward zero
  EXPECT_EQ(S::rem<int32_t>(-7, 2), -1);
}

TEST(IntSem, BitField) {
  EXPECT_EQ(S::bfe<uint32_t>(0xf0f0f0f0u, 4, 8), 0x0fu);
  EXPECT_EQ(S::bfe<int32_t>(int32_t(0x00000f00), 8, 4), -1);       // field 0xf, sign-extended
  EXPECT_EQ(S::bfe<int32_t>(int32_t(0x80000000u), 40, 4), -1);     // pos beyond msb: sign of a[31]
  EXPECT_EQ(S::bfe<int32_t>(-1, 0, 0), 0);                         // len 0 -> 0
  EXPECT_EQ(S::bfe<uint32_t>(0xffffffffu, 28, 8), 0xfu);           // clipped at msb
  EXPECT_EQ(S::bfi<uint32_t>(0xab, 0xffff0000u, 4, 8), 0xffff0ab0u);
  EXPECT_EQ(S::bfi<uint32_t>(0xff, 0, 30, 8), 0xc0000000u);
  EXPECT_EQ(S::bfind<uint32_t>(0x00010000u, false), 16u);
  EXPECT_EQ(S::bfind<uint32_t>(0x00010000u, true), 15u);
  EXPECT_EQ(S::bfind<uint32_t>(0, false), 0xffffffffu);
  EXPECT_EQ(S::bfind<int32_t>(-1, false), 0xffffffffu);
  EXPECT_EQ(S::bfind<int32_t>(-2, false), 0u);  // ~(-2) = 1
  EXPECT_EQ(S::brev<uint32_t>(1u), 0x80000000u);
  EXPECT_EQ(S::brev<uint64_t>(0x3ull), 0xc000000000000000ull);
}

TEST(IntSem, FnsIsaExamples) {
  EXPECT_EQ(S::fns(0xaaaaaaaau, 3, 1), 3u);
  EXPECT_EQ(S::fns(0xaaaaaaaau, 3, -1), 3u);
  EXPECT_EQ(S::fns(0xaaaaaaaau, 2, 1), 3u);
  EXPECT_EQ(S::fns(0xaaaaaaaau, 2, -1), 1u);
  EXPECT_EQ(S::fns(0xaaaaaaaau, 2, 0), 0xffffffffu);
  EXPECT_EQ(S::fns(0x1u, 5, -2), 0xffffffffu);
}

TEST(IntSem, BmskSzext) {
  EXPECT_EQ(S::bmsk(4, 8, false), 0x00000ff0u);
  EXPECT_EQ(S::bmsk(28, 8, true), 0xf0000000u);
  EXPECT_EQ(S::bmsk(40, 8, true), 0u);
  EXPECT_EQ(S::bmsk(0, 32, true), 0xffffffffu);
  EXPECT_EQ(S::szext(0xffffffffu, 0, false, false), 0u);  // ISA example
  EXPECT_EQ(S::szext(0x80u, 8, true, true), 0xffffff80u);
  EXPECT_EQ(S::szext(0x1ffu, 8, true, false), 0xffu);
  EXPECT_EQ(S::szext(0x1234u, 40, true, true), 0x1234u);  // clamp: unchanged
}

TEST(IntSem, PrmtAndLop3) {
  EXPECT_EQ(S::prmt(0x03020100u, 0x07060504u, 0x7531, 0), 0x07050301u);
  EXPECT_EQ(S::prmt(0x00000080u, 0, 0x4448, 0), 0x000000ffu);  // sign replicate of byte 0
  EXPECT_EQ(S::prmt(0x00000080u, 0, 0x0000, 0), 0x80808080u);
  EXPECT_EQ(S::prmt(0x03020100u, 0x07060504u, 1, 1), 0x04030201u);  // f4e
  EXPECT_EQ(S::prmt(0x03020100u, 0x07060504u, 0, 2), 0x05060700u);  // b4e
  EXPECT_EQ(S::prmt(0x03020100u, 0x07060504u, 2, 3), 0x02020202u);  // rc8
  EXPECT_EQ(S::prmt(0x03020100u, 0x07060504u, 1, 4), 0x03020101u);  // ecl
  EXPECT_EQ(S::prmt(0x03020100u, 0x07060504u, 2, 5), 0x02020100u);  // ecr
  EXPECT_EQ(S::prmt(0x03020100u, 0x07060504u, 1, 6), 0x03020302u);  // rc16
  const uint32_t a = 0xf0f0f0f0u, b = 0xccccccccu, c = 0xaaaaaaaau;
  EXPECT_EQ(S::lop3(a, b, c, 0xf0), a);
  EXPECT_EQ(S::lop3(a, b, c, 0xcc), b);
  EXPECT_EQ(S::lop3(a, b, c, 0xaa), c);
  EXPECT_EQ(S::lop3(a, b, c, 0x96), a ^ b ^ c);
  EXPECT_EQ(S::lop3(a, b, c, 0xe8), (a & b) | (a & c) | (b & c));
}

TEST(IntSem, ShiftsAndDot) {
  EXPECT_EQ(S::shl<uint32_t>(1, 32), 0u);
  EXPECT_EQ(S::shr<int32_t>(-8, 40), -1);
  EXPECT_EQ(S::shr<uint32_t>(0x80000000u, 31), 1u);
  EXPECT_EQ(S::shf_l(0x80000000u, 0x1u, 1, false), 0x3u);
  EXPECT_EQ(S::shf_l(0x0u, 0x12345678u, 40, false), 0x0u);      // clamp to 32: d = a
  EXPECT_EQ(S::shf_l(0x0u, 0x12345678u, 36, true), 0x23456780u);  // wrap: 4
  EXPECT_EQ(S::shf_r(0x0u, 0x1u, 1, false, false), 0x80000000u);
  EXPECT_EQ(S::dp4a(0x01020304u, 0x01010101u, 10, false, false), 20u);
  EXPECT_EQ(S::dp4a(0x000000ffu, 0x00000002u, 0, true, false), uint32_t(-2));
  EXPECT_EQ(S::dp2a(0x00020001u, 0x04030201u, 0, false, false, false), 1u * 1 + 2u * 2);
  EXPECT_EQ(S::dp2a(0x00020001u, 0x04030201u, 0, false, false, true), 1u * 3 + 2u * 4);
}

TEST(IntOps, AddSatAndWrap) {
  WarpHarness h;
  for (uint32_t l = 0; l < 32; ++l) { h.reg(1)[l] = uint64_t(int64_t(INT32_MAX - int32_t(l))); h.reg(2)[l] = l * 2; }
  Inst in = make(Opcode::Add, Type::S32, {R(0), R(1), R(2)});
  in.m.sat = true;
  ASSERT_TRUE(h.run(in));
  for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(int32_t(h.reg(0)[l]), l == 0 ? INT32_MAX : INT32_MAX) << l;
  Inst w = make(Opcode::Add, Type::U32, {R(0), R(1), I(1)});
  ASSERT_TRUE(h.run(w));
  EXPECT_EQ(uint32_t(h.reg(0)[0]), 0x80000000u);
}

// 64-bit add and subtract built from 32-bit halves through CC.CF, checked
// against host 64-bit arithmetic.
TEST(IntOps, CarryChain) {
  WarpHarness h;
  uint64_t x[32], y[32];
  for (uint32_t l = 0; l < 32; ++l) {
    x[l] = 0xffffffffull * (l + 1) + (uint64_t(l) << 40);
    y[l] = (l % 3 == 0) ? 0xffffffffull : uint64_t(l) * 0x9e3779b97f4a7c15ull;
    h.reg(1)[l] = uint32_t(x[l]); h.reg(2)[l] = uint32_t(x[l] >> 32);
    h.reg(3)[l] = uint32_t(y[l]); h.reg(4)[l] = uint32_t(y[l] >> 32);
  }
  Inst lo = make(Opcode::Add, Type::U32, {R(5), R(1), R(3)});
  lo.m.cc = true;
  Inst hi = make(Opcode::Addc, Type::U32, {R(6), R(2), R(4)});
  ASSERT_TRUE(h.run(lo));
  ASSERT_TRUE(h.run(hi));
  for (uint32_t l = 0; l < 32; ++l)
    EXPECT_EQ((uint64_t(uint32_t(h.reg(6)[l])) << 32) | uint32_t(h.reg(5)[l]), x[l] + y[l]) << l;
  Inst slo = make(Opcode::Sub, Type::U32, {R(5), R(1), R(3)});
  slo.m.cc = true;
  Inst shi = make(Opcode::Subc, Type::U32, {R(6), R(2), R(4)});
  ASSERT_TRUE(h.run(slo));
  ASSERT_TRUE(h.run(shi));
  for (uint32_t l = 0; l < 32; ++l)
    EXPECT_EQ((uint64_t(uint32_t(h.reg(6)[l])) << 32) | uint32_t(h.reg(5)[l]), x[l] - y[l]) << l;
  // mad.lo.cc + madc.hi: the 64-bit product of two 32-bit values plus a 64-bit addend.
  Inst mlo = make(Opcode::Mad, Type::U32, {R(5), R(1), R(3), R(2)});
  mlo.m.mul = program::MulMode::Lo;
  mlo.m.cc = true;
  Inst mhi = make(Opcode::Madc, Type::U32, {R(6), R(1), R(3), R(4)});
  mhi.m.mul = program::MulMode::Hi;
  ASSERT_TRUE(h.run(mlo));
  ASSERT_TRUE(h.run(mhi));
  for (uint32_t l = 0; l < 32; ++l) {
    uint64_t addend = (uint64_t(uint32_t(y[l] >> 32)) << 32) | uint32_t(x[l] >> 32);
    uint64_t want = uint64_t(uint32_t(x[l])) * uint32_t(y[l]) + addend;
    EXPECT_EQ((uint64_t(uint32_t(h.reg(6)[l])) << 32) | uint32_t(h.reg(5)[l]), want) << l;
  }
}

TEST(IntOps, MulModesAndMasking) {
  WarpHarness h;
  h.fill(0, 0xdeadbeef);
  for (uint32_t l = 0; l < 32; ++l) { h.reg(1)[l] = uint32_t(-int32_t(l)); h.reg(2)[l] = 0x40000000u; }
  Inst in = make(Opcode::Mul, Type::S32, {R(0), R(1), R(2)});
  in.m.mul = program::MulMode::Wide;
  ASSERT_TRUE(h.run(in, 0x0000ffffu));
  for (uint32_t l = 0; l < 32; ++l) {
    if (l < 16) EXPECT_EQ(int64_t(h.reg(0)[l]), -int64_t(l) * 0x40000000ll) << l;
    else EXPECT_EQ(h.reg(0)[l], 0xdeadbeefu) << "inactive lane written";
  }
  in.m.mul = program::MulMode::Hi;
  ASSERT_TRUE(h.run(in));
  EXPECT_EQ(int32_t(h.reg(0)[3]), int32_t((-3ll * 0x40000000ll) >> 32));
}

TEST(IntOps, SetpBoolCombineAndPair) {
  WarpHarness h;
  for (uint32_t l = 0; l < 32; ++l) { h.reg(1)[l] = uint64_t(int64_t(int32_t(l) - 16)); }
  h.pred(2) = 0x0000ffffu;
  Inst in = make(Opcode::Setp, Type::S32, {P(0), R(1), I(0), P(2)});
  in.m.cmp = program::Cmp::Lt;
  in.m.boolop = program::BoolOp::And;
  in.o[Inst::kPairSlot] = P(1);
  ASSERT_TRUE(h.run(in));
  EXPECT_EQ(h.pred(0), 0x0000ffffu);  // l-16 < 0 for l < 16, and c
  EXPECT_EQ(h.pred(1), 0x00000000u);  // !(l-16<0) for l >= 16, and c (low half only)
  Inst u = make(Opcode::Setp, Type::U32, {P(3), R(1), I(0)});
  u.m.cmp = program::Cmp::Hi;
  ASSERT_TRUE(h.run(u));
  EXPECT_EQ(h.pred(3), 0xfffeffffu);  // unsigned: everything except lane 16 (value 0)
}

TEST(IntOps, SelpLop3PrmtThroughHandlers) {
  WarpHarness h;
  h.fill(1, 0x03020100u);
  h.fill(2, 0x07060504u);
  h.pred(0) = 0xaaaaaaaau;
  Inst s = make(Opcode::Selp, Type::B32, {R(0), R(1), R(2), P(0)});
  ASSERT_TRUE(h.run(s));
  EXPECT_EQ(h.reg(0)[0], 0x07060504u);
  EXPECT_EQ(h.reg(0)[1], 0x03020100u);
  Inst p = make(Opcode::Prmt, Type::B32, {R(3), R(1), R(2), I(1)});
  p.raw_mods = {".b32", ".f4e"};
  ASSERT_TRUE(h.run(p));
  EXPECT_EQ(h.reg(3)[5], 0x04030201u);
  Inst l3 = make(Opcode::Lop3, Type::B32, {R(4), R(1), R(2), I(0xff), I(0x80)});
  ASSERT_TRUE(h.run(l3));
  EXPECT_EQ(h.reg(4)[0], 0x03020100u & 0x07060504u & 0xffu);
  // lop3.or d|p, a, b, c, lut, q: p = (d != 0) | q. With a = lane and lut = a
  // (0xf0), d is the lane number: nonzero except lane 0; q holds lane 0 only.
  for (uint32_t l = 0; l < 32; ++l) h.reg(5)[l] = l;
  h.pred(2) = 0x1u;
  Inst lp = make(Opcode::Lop3, Type::B32, {R(6), R(5), R(5), R(5), I(0xf0), P(2)});
  lp.m.boolop = program::BoolOp::Or;
  lp.o[Inst::kPairSlot] = P(3);
  ASSERT_TRUE(h.run(lp));
  EXPECT_EQ(h.pred(3), 0xffffffffu);
  EXPECT_EQ(h.reg(6)[7], 7u);
  lp.m.boolop = program::BoolOp::And;  // (d != 0) & q: lane 0 has d == 0, the others q == 0
  ASSERT_TRUE(h.run(lp));
  EXPECT_EQ(h.pred(3), 0x0u);
}

TEST(IntOps, PredicateLogic) {
  WarpHarness h;
  h.pred(1) = 0xff00ff00u;
  h.pred(2) = 0x0ff00ff0u;
  Inst x = make(Opcode::Xor, Type::Pred, {P(0), P(1), P(2)});
  ASSERT_TRUE(h.run(x));
  EXPECT_EQ(h.pred(0), 0xf0f0f0f0u);
  Inst n = make(Opcode::Not, Type::Pred, {P(3), P(1)});
  ASSERT_TRUE(h.run(n, 0x0000ffffu));
  EXPECT_EQ(h.pred(3) & 0xffffu, 0x00ffu);
}

TEST(IntOps, UnsupportedFailsToBind) {
  WarpHarness h;
  Inst in = make(Opcode::Popc, Type::F32, {R(0), R(1)});
  EXPECT_FALSE(h.bound(in));
  Inst m = make(Opcode::Mad, Type::S32, {R(0), R(1), R(2), R(3)});
  m.m.mul = program::MulMode::Lo;
  m.m.sat = true;  // .sat only exists for mad.hi.s32
  EXPECT_FALSE(h.bound(m));
}
