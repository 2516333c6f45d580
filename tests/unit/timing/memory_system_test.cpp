// The memory system's atomics against hand-computed times: the L2 queue's
// latency is l2_latency minus one sector's transfer, so a one-sector access
// takes exactly l2_latency; DRAM likewise.
#include <gtest/gtest.h>

#include "timing/memory_system.h"

using namespace softgpu::timing;

namespace {

TimingParams params() {
  TimingParams p;
  p.l1_latency = 33;
  p.l2_latency = 200;
  p.dram_latency = 500;
  p.l2_bytes_per_cycle = 64;    // a sector in 0.5 cycles
  p.dram_bytes_per_cycle = 32;  // a sector in 1 cycle
  p.atomic_extra = 0;
  return p;
}

// A warm line (read once, so the atomics hit in the L2): one lane on a word
// takes one sector's transfer, 200 cycles; 32 lanes on that word take 31
// more sector transfers, 31 x 0.5 = 15.5 cycles, before the last result
// returns; 32 lanes on 32 consecutive words (4 sectors) 1.5 cycles more than
// one sector, not serialized.
TEST(MemorySystem, SameAddressAtomicsSerializeInL2Bandwidth) {
  const LineAccess one{0x1000, 0b0001}, four{0x1000, 0b1111};
  auto at = [&](const LineAccess& a, uint32_t serial) {
    TimingParams p = params();
    MemorySystem m(p, 1.0);
    m.load(0, &four, 1);  // DRAM -> L2 -> L1; the queues are idle again by t = 10000
    return m.atomic(10000, &a, 1, serial) - 10000;
  };
  EXPECT_DOUBLE_EQ(at(one, 1), 200.0);
  EXPECT_DOUBLE_EQ(at(one, 32), 200.0 + 31 * 0.5);
  EXPECT_DOUBLE_EQ(at(four, 1), 200.0 + 3 * 0.5);
}

// The serialized updates count as L2 traffic.
TEST(MemorySystem, SerializedAtomicsCountAsL2Bytes) {
  TimingParams p = params();
  MemorySystem m(p, 1.0);
  const LineAccess one{0x2000, 0b0001};
  m.atomic(0, &one, 1, 8);
  EXPECT_EQ(m.stats().l2_bytes, 8u * 32);
}

}  // namespace

// Near and far L2 partitions: an L1 of one line (so re-reads reach the L2),
// an L2 of 16 lines (4 sets of 4 ways; near partition 8 lines, 2 sets).
// Rings of consecutive lines, read twice: the second round's latency per
// line is the near L2 (8 lines fit the near partition), the far one (12
// lines: 6 per near set of 4 ways thrash it, 3 per L2 set fit), or DRAM
// (24 lines: 6 per L2 set thrash it too).
TEST(MemorySystem, L2HitsBeyondTheNearPartitionPayTheFarLatency) {
  auto second_round = [](uint32_t lines, uint32_t far_latency) {
    TimingParams p = params();
    p.l1_bytes = 128;
    p.l1_ways = 1;
    p.l2_bytes = 16 * 128;
    p.l2_ways = 4;
    p.l2_far_latency = far_latency;
    MemorySystem m(p, 1.0);
    double t = 0, worst = 0, best = 1e9;
    for (int round = 0; round < 2; ++round)
      for (uint32_t i = 0; i < lines; ++i) {
        const LineAccess a{uint64_t(i) * 128, 0b0001};
        const double lat = m.load(t, &a, 1) - t;
        if (round == 1) { worst = std::max(worst, lat); best = std::min(best, lat); }
        t += 10000;  // queues idle again
      }
    EXPECT_DOUBLE_EQ(worst, best);  // every line of the round alike
    return std::pair{worst, m.stats().l2_far_hit_sectors};
  };
  EXPECT_EQ(second_round(8, 480), std::pair(200.0, uint64_t(0)));
  EXPECT_EQ(second_round(12, 480), std::pair(480.0, uint64_t(12)));
  EXPECT_EQ(second_round(24, 480).first, 500.0);
  EXPECT_EQ(second_round(12, 0), std::pair(200.0, uint64_t(0)));  // one partition
}
