// racecheck's happens-before model (sanitize/racecheck_core.h) on small
// hand-computed cases: which accesses race, of which kind and severity.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "sanitize/racecheck_core.h"

namespace softgpu::sanitize::race {
namespace {

struct Seen {
  HazardKind kind;
  uint32_t byte, first, second;
  bool warning;
};

class Model : public ::testing::Test {
 protected:
  void SetUp() override { m.reset(4, 64); }
  // An int access (4 bytes) at word `word` by thread t, values unknown.
  void rd(uint32_t t, uint32_t word, uint32_t pc = 1, bool atomic = false) {
    m.count_step(t / 32);
    m.access(t / 32, t % 32, word * 4, 4, false, atomic, nullptr, pc, nullptr, nullptr, sink);
  }
  void wr(uint32_t t, uint32_t word, uint32_t pc = 2, bool atomic = false) {
    m.count_step(t / 32);
    m.access(t / 32, t % 32, word * 4, 4, true, atomic, nullptr, pc, nullptr, nullptr, sink);
  }
  void barrier(uint32_t warps) {
    for (uint32_t w = 0; w < 4; ++w)
      if (warps >> w & 1) m.barrier_arrive(w, 0, false);
    m.barrier_release(0, warps);
  }
  CtaModel m;
  std::vector<Seen> seen;
  HazardSink sink = [this](const Hazard& h) {
    seen.push_back({h.kind, h.byte, h.first->thread, h.second->thread, h.warning});
  };
};

TEST_F(Model, RawAcrossWarpsWithoutBarrier) {
  wr(0, 0);
  rd(32, 0);
  ASSERT_EQ(seen.size(), 4u);  // one per byte
  EXPECT_EQ(seen[0].kind, HazardKind::RAW);
  EXPECT_EQ(seen[0].byte, 0u);
  EXPECT_EQ(seen[3].byte, 3u);
  EXPECT_EQ(seen[0].first, 0u);
  EXPECT_EQ(seen[0].second, 32u);
  EXPECT_FALSE(seen[0].warning);
}

TEST_F(Model, BarrierOrdersAndWarOfNextUseIsCaught) {
  wr(0, 0);
  barrier(0b11);
  rd(32, 0);  // ordered by the barrier
  EXPECT_TRUE(seen.empty());
  wr(0, 0);  // overwritten with no second barrier: WAR with thread 32's read
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].kind, HazardKind::WAR);
  EXPECT_EQ(seen[0].first, 32u);
  seen.clear();
  barrier(0b11);
  rd(32, 0);
  EXPECT_TRUE(seen.empty());
}

TEST_F(Model, BarrierOfOtherWarpsDoesNotOrder) {
  wr(0, 0);
  barrier(0b110);  // warps 1 and 2 only
  rd(64, 0);
  EXPECT_EQ(seen.size(), 4u);
}

TEST_F(Model, WawAcrossWarps) {
  wr(0, 1);
  wr(32, 1);
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].kind, HazardKind::WAW);
  EXPECT_EQ(seen[0].byte, 4u);
}

TEST_F(Model, WithinAWarpSyncwarpOrdersTheLanesInItsMask) {
  wr(0, 0);
  rd(1, 0);  // a later instruction of another lane: a warp-level warning
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_TRUE(seen[0].warning);
  seen.clear();
  wr(0, 1);
  m.count_step(0);
  m.warp_sync(0, 0b101);  // lanes 0 and 2
  rd(2, 1);
  EXPECT_TRUE(seen.empty());
  rd(1, 1);  // lane 1 was not in the mask
  EXPECT_EQ(seen.size(), 4u);
}

TEST_F(Model, SameInstructionSameValueIsNoHazardDifferentValueIsAnError) {
  const int one = 1, two = 2, zero = 0;
  auto b = [](const int& v) { return reinterpret_cast<const std::byte*>(&v); };
  m.count_step(0);  // one instruction: lanes 0 and 1 store to word 0
  m.access(0, 0, 0, 4, true, false, nullptr, 5, b(zero), b(one), sink);
  m.access(0, 1, 0, 4, true, false, nullptr, 5, b(one), b(one), sink);
  EXPECT_TRUE(seen.empty());
  m.count_step(0);
  m.access(0, 0, 0, 4, true, false, nullptr, 6, b(one), b(two), sink);
  m.access(0, 1, 0, 4, true, false, nullptr, 6, b(two), b(one), sink);
  // Lane 0 after lane 1's earlier store: a warp-level warning; lane 1 after
  // lane 0 in the same instruction: an error even within a warp.
  ASSERT_EQ(seen.size(), 8u);
  EXPECT_EQ(seen[0].kind, HazardKind::WAW);
  EXPECT_TRUE(seen[0].warning);
  EXPECT_EQ(seen[4].first, 0u);
  EXPECT_EQ(seen[4].second, 1u);
  EXPECT_FALSE(seen[4].warning);
}

TEST_F(Model, AtomicsDoNotRaceWithAtomicsButDoWithPlainAccesses) {
  wr(0, 0, 3, true);
  wr(32, 0, 3, true);
  wr(64, 0, 3, true);
  EXPECT_TRUE(seen.empty());
  rd(96, 0);
  EXPECT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].kind, HazardKind::RAW);
}

TEST_F(Model, BarArriveReleasesWithoutAcquiring) {
  wr(0, 0);                      // producer (warp 0) writes
  m.barrier_arrive(0, 1, true);  // bar.arrive 1
  m.barrier_arrive(1, 1, false); // consumer bar.sync 1
  m.barrier_release(1, 0b11);
  rd(32, 0);
  EXPECT_TRUE(seen.empty());
  rd(33, 2);
  wr(0, 2);  // the producer did not wait: WAR with the consumer's read
  EXPECT_EQ(seen.size(), 4u);
}

TEST_F(Model, CpAsyncWriteLandsAtItsWait) {
  m.count_step(0);
  m.async_copy(0, 0, 0, 4, nullptr, 7, nullptr, nullptr, sink);
  m.async_commit(0, 0);
  barrier(0b11);
  rd(32, 0);  // the copy may still be in flight: not ordered by the barrier
  EXPECT_EQ(seen.size(), 4u);
  seen.clear();
  m.async_wait(0, 0, 0, false);
  barrier(0b11);
  rd(33, 0);
  EXPECT_TRUE(seen.empty());
}

TEST_F(Model, MbarrierArriveThenWaitOrders) {
  wr(0, 0);
  m.mbarrier_arrive(0, 48);
  m.mbarrier_arrive(1, 48);
  m.mbarrier_wait(1, 1, 48);
  rd(32, 0);
  EXPECT_TRUE(seen.empty());
}

}  // namespace
}  // namespace softgpu::sanitize::race
