// Warp collective tests: shfl lane arithmetic per the ISA pseudocode,
// vote/match/redux/elect over partial masks.
#include <gtest/gtest.h>

#include "ops_test_util.h"

using namespace softgpu::exec;
using namespace softgpu::exec::test;
using isa::Opcode;

namespace {
Inst shfl(program::ShflMode m, int64_t b, int64_t c) {
  Inst in = make(Opcode::Shfl, Type::B32, {R(0), R(0), I(b), I(c), I(-1)});
  in.m.shfl = m;
  in.o[Inst::kPairSlot] = P(0);
  return in;
}
}  // namespace

TEST(WarpOps, ShflDownUpBflyIdx) {
  WarpHarness h;
  auto reset = [&] { for (uint32_t l = 0; l < 32; ++l) h.reg(0)[l] = 100 + l; };
  reset();
  ASSERT_TRUE(h.run(shfl(program::ShflMode::Down, 3, 0x1f)));  // destination aliases the source
  for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(h.reg(0)[l], l + 3 <= 31 ? 100 + l + 3 : 100 + l) << l;
  EXPECT_EQ(h.pred(0), 0x1fffffffu);
  reset();
  ASSERT_TRUE(h.run(shfl(program::ShflMode::Up, 1, 0)));
  EXPECT_EQ(h.reg(0)[0], 100u);
  EXPECT_EQ(h.reg(0)[5], 104u);
  EXPECT_EQ(h.pred(0), 0xfffffffeu);
  reset();
  ASSERT_TRUE(h.run(shfl(program::ShflMode::Bfly, 1, 0x1f)));
  EXPECT_EQ(h.reg(0)[4], 105u);
  EXPECT_EQ(h.reg(0)[5], 104u);
  // idx with 8-lane segments: c = ((32-8) << 8) | 7.
  reset();
  ASSERT_TRUE(h.run(shfl(program::ShflMode::Idx, 2, (24 << 8) | 7)));
  for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(h.reg(0)[l], 100 + (l & ~7u) + 2) << l;
  // down within 16-lane segments: lane 14 + 4 leaves the segment -> keeps its own.
  reset();
  ASSERT_TRUE(h.run(shfl(program::ShflMode::Down, 4, (16 << 8) | 15)));
  EXPECT_EQ(h.reg(0)[10], 114u);
  EXPECT_EQ(h.reg(0)[14], 114u);
  EXPECT_EQ(h.pred(0) >> 14 & 1, 0u);
}

TEST(WarpOps, VoteBallotAndAll) {
  WarpHarness h;
  h.pred(1) = 0x0000ffffu;
  Inst b = make(Opcode::Vote, Type::B32, {R(0), P(1), I(-1)});
  b.m.vote = program::VoteMode::Ballot;
  ASSERT_TRUE(h.run(b, 0x00ff00ffu));
  EXPECT_EQ(h.reg(0)[0], 0x000000ffu);
  Inst a = make(Opcode::Vote, Type::Pred, {P(2), P(1), I(-1)});
  a.m.vote = program::VoteMode::All;
  ASSERT_TRUE(h.run(a, 0x0000ff00u));
  EXPECT_EQ(h.pred(2) & 0xff00u, 0xff00u);
  ASSERT_TRUE(h.run(a, 0x00ffff00u));
  EXPECT_EQ(h.pred(2) & 0x00ffff00u, 0u);
  a.m.vote = program::VoteMode::Uni;
  ASSERT_TRUE(h.run(a, 0x00ff0000u));
  EXPECT_EQ(h.pred(2) & 0x00ff0000u, 0x00ff0000u);
}

TEST(WarpOps, MatchReduxElect) {
  WarpHarness h;
  for (uint32_t l = 0; l < 32; ++l) h.reg(1)[l] = l % 3;
  Inst m = make(Opcode::Match, Type::B32, {R(0), R(1), I(-1)});
  m.m.vote = program::VoteMode::Any;
  ASSERT_TRUE(h.run(m));
  uint32_t expect0 = 0;
  for (uint32_t l = 0; l < 32; l += 3) expect0 |= 1u << l;
  EXPECT_EQ(h.reg(0)[0], expect0);
  EXPECT_EQ(h.reg(0)[3], expect0);
  Inst all = make(Opcode::Match, Type::B32, {R(2), R(1), I(-1)});
  all.m.vote = program::VoteMode::All;
  all.o[Inst::kPairSlot] = P(0);
  ASSERT_TRUE(h.run(all, 0x9u));  // lanes 0 and 3 both hold 0
  EXPECT_EQ(h.reg(2)[0], 0x9u);
  EXPECT_EQ(h.pred(0) & 0x9u, 0x9u);
  ASSERT_TRUE(h.run(all, 0x3u));
  EXPECT_EQ(h.reg(2)[0], 0u);
  for (uint32_t l = 0; l < 32; ++l) h.reg(3)[l] = uint64_t(int64_t(int32_t(l) - 5));
  Inst r = make(Opcode::Redux, Type::S32, {R(4), R(3), I(-1)});
  r.m.atom = program::AtomOp::Min;
  ASSERT_TRUE(h.run(r, 0xfffffff0u));
  EXPECT_EQ(int32_t(h.reg(4)[31]), -1);  // lowest participating lane is 4: 4 - 5
  r.m.atom = program::AtomOp::Add;
  ASSERT_TRUE(h.run(r));
  EXPECT_EQ(int32_t(h.reg(4)[0]), 31 * 32 / 2 - 5 * 32);
  Inst e = make(Opcode::Elect, Type::None, {Sink(), I(0xfff0)});
  e.o[Inst::kPairSlot] = P(3);
  ASSERT_TRUE(h.run(e, 0xff00u));
  EXPECT_EQ(h.pred(3) & 0xff00u, 0x0100u);
}

// tiled_partition<16>: each half-warp names its own membermask, and each
// lane's result must come from its own tile only.
TEST(WarpOps, PerLaneMemberMasks) {
  WarpHarness h;
  for (uint32_t l = 0; l < 32; ++l) {
    h.reg(3)[l] = l + 1;
    h.reg(5)[l] = l < 16 ? 0x0000ffffu : 0xffff0000u;
  }
  Inst r = make(Opcode::Redux, Type::S32, {R(4), R(3), R(5)});
  r.m.atom = program::AtomOp::Add;
  ASSERT_TRUE(h.run(r));
  for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(h.reg(4)[l], l < 16 ? 136u : 392u) << l;  // 1..16, 17..32
  h.pred(1) = 0x0000ff00u;  // true in lanes 8..15 only
  Inst b = make(Opcode::Vote, Type::B32, {R(6), P(1), R(5)});
  b.m.vote = program::VoteMode::Ballot;
  ASSERT_TRUE(h.run(b));
  for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(h.reg(6)[l], l < 16 ? 0x0000ff00u : 0u) << l;
  Inst a = make(Opcode::Vote, Type::Pred, {P(2), P(1), R(5)});
  a.m.vote = program::VoteMode::Any;
  ASSERT_TRUE(h.run(a));
  EXPECT_EQ(h.pred(2), 0x0000ffffu);
}
