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

// What a kernel's traffic costs at the least (MemorySystem::drain_floor),
// with an L2 of 16 lines (2 KB) at 64 B/cycle and DRAM at 32 B/cycle.
// Stores of 48 whole lines: 6144 B through the L2 (96 cycles), of which
// 6144 - 2048 no longer fit and are written back during the kernel
// (128 cycles of DRAM): 128. Standing for twice the traffic: (12288 -
// 2048) / 32 = 320. Stores of 8 lines fit the L2 (written back after
// the kernel): only the L2's 1024 / 64 = 16. Loads of 48 cold lines read
// 6144 B from DRAM: 192.
TEST(MemorySystem, DrainFloorChargesTheWriteBackThatDoesNotFitTheL2) {
  auto floor = [](uint32_t lines, bool store, double scale) {
    TimingParams p = params();
    p.l2_bytes = 16 * 128;
    p.l2_ways = 4;
    MemorySystem m(p, 1.0);
    for (uint32_t i = 0; i < lines; ++i) {
      const LineAccess a{uint64_t(i) * 128, 0b1111};
      store ? m.store(0, &a, 1) : m.load(0, &a, 1);
    }
    EXPECT_DOUBLE_EQ(m.stats().dirty_bytes, store ? lines * 128.0 : 0.0);
    EXPECT_DOUBLE_EQ(m.stats().dram_read_bytes, store ? 0.0 : lines * 128.0);
    return m.drain_floor(m.stats(), scale);
  };
  EXPECT_DOUBLE_EQ(floor(48, true, 1), 128.0);
  EXPECT_DOUBLE_EQ(floor(48, true, 2), 320.0);
  EXPECT_DOUBLE_EQ(floor(8, true, 1), 16.0);
  EXPECT_DOUBLE_EQ(floor(48, false, 1), 192.0);
}

// An L2 of 64 lines (8 KB) of which this SM's share is 1/8 (8 lines), read
// twice over a ring of 32 lines (one sector of each), 10000
// cycles apart (queues idle). Private to the SM, the ring does not fit its
// slice: the second round misses too (DRAM, 500). Shared by 8 SMs, the ring
// stays in the L2 for all of them: the second round hits (200), and each
// SM's part of the first round's DRAM reads is 32 x 32 / 8 = 128 bytes.
TEST(MemorySystem, LinesSharedBySmsStayInTheWholeL2AndSplitTheirDramReads) {
  auto second_round = [](bool shared) {
    TimingParams p = params();
    p.l1_bytes = 128;  // one line: re-reads reach the L2
    p.l1_ways = 1;
    p.l2_bytes = 64 * 128;
    p.l2_ways = 4;
    SharedLines lines;
    if (shared)
      for (uint64_t i = 0; i < 32; ++i) lines.sharers[i * 128] = 8;
    MemorySystem m(p, 1.0 / 8, &lines);
    double t = 0, latency = 0;
    for (int round = 0; round < 2; ++round)
      for (uint64_t i = 0; i < 32; ++i) {
        const LineAccess a{i * 128, 0b0001};
        const double done = m.load(t, &a, 1);
        if (round == 1) latency = std::max(latency, done - t);
        t += 10000;
      }
    return std::pair{latency, m.stats().dram_read_bytes};
  };
  EXPECT_EQ(second_round(false), std::pair(500.0, 64.0 * 32));
  EXPECT_EQ(second_round(true), std::pair(200.0, 32.0 * 32 / 8));
}

// What an earlier launch left in the L2 (MemorySystem::set_warm): a
// sector this SM's own caches have never seen but the chip's L2 holds is
// an L2 hit (200 cycles), without a DRAM read; a sector it lacks (the
// line's second) comes from DRAM (500). `warm` is only read.
TEST(MemorySystem, WhatAnEarlierLaunchLeftInTheL2IsAnL2Hit) {
  TimingParams p = params();
  SectorCache warm({1 << 20, 16, true}, WritePolicy::WriteBackAllocate);
  warm.write({0x4000, 0b0001});
  MemorySystem m(p, 1.0);
  m.set_warm(&warm);
  const LineAccess first{0x4000, 0b0001}, second{0x4000, 0b0010};
  EXPECT_DOUBLE_EQ(m.load(0, &first, 1), 200.0);
  EXPECT_DOUBLE_EQ(m.load(10000, &second, 1) - 10000, 500.0);
  EXPECT_DOUBLE_EQ(m.stats().dram_read_bytes, 32.0);
  EXPECT_EQ(warm.present({0x4000, 0b1111}), 0b0001);
}

// A bulk copy (cp.async.bulk, TMA) reads the L2 and never the L1: a line
// an ordinary load has just brought into the L1 still takes the L2's 200
// cycles for the copy, and the copy leaves nothing in the L1 (the next
// ordinary load of a line only the copy read misses it: 200 cycles, an L2
// hit, not the L1's 33).
TEST(MemorySystem, BulkCopiesReadTheL2AndLeaveTheL1Alone) {
  TimingParams p = params();
  p.l1_bytes_per_cycle = 128;
  MemorySystem m(p, 1.0);
  const LineAccess a{0x2000, 0b0001}, b{0x3000, 0b0001};
  m.load(0, &a, 1, 1);  // into the L1 and the L2 (an ordinary load: one bank wavefront)
  EXPECT_DOUBLE_EQ(m.load(10000, &a, 1, 1) - 10000, 33.0);
  EXPECT_DOUBLE_EQ(m.load(20000, &a, 1, 0, false) - 20000, 200.0);
  m.load(30000, &b, 1, 0, false);  // DRAM -> L2 only
  EXPECT_DOUBLE_EQ(m.load(40000, &b, 1, 1) - 40000, 200.0);
  EXPECT_EQ(m.stats().l1_hit_sectors, 1u);  // the one ordinary re-read of a
}

// What an earlier launch left among the newer half of the L2's lines is a
// near hit; an older leftover a far one. A warm L2 of one set of 4 ways,
// near latency 200, far 480: lines 0x0, 0x80, 0x100 and 0x180 were read in
// that order, so the two newest (0x180, 0x100) are near, the others far.
TEST(MemorySystem, WhatAnEarlierLaunchLeftRecentlyIsInTheNearPartition) {
  TimingParams p = params();
  p.l2_bytes = 4 * 128;  // one set of 4 ways
  p.l2_ways = 4;
  p.l2_far_latency = 480;
  SectorCache warm({4 * 128, 4, true}, WritePolicy::WriteBackAllocate);
  for (uint64_t line : {0x0, 0x80, 0x100, 0x180}) warm.read({line, 0b0001});
  MemorySystem m(p, 1.0);
  m.set_warm(&warm);
  const LineAccess oldest{0x0, 0b0001}, newest{0x180, 0b0001}, second{0x100, 0b0001}, older{0x80, 0b0001};
  EXPECT_DOUBLE_EQ(m.load(0, &newest, 1), 200.0);
  EXPECT_DOUBLE_EQ(m.load(10000, &second, 1) - 10000, 200.0);
  EXPECT_DOUBLE_EQ(m.load(20000, &older, 1) - 20000, 480.0);
  EXPECT_DOUBLE_EQ(m.load(30000, &oldest, 1) - 30000, 480.0);
  EXPECT_EQ(m.stats().l2_far_hit_sectors, 2u);
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

// An L1 hit holds the L1 for max(bank wavefronts, 1 + (lines - 1) / 4)
// cycles (l1_lines_per_cycle 4, 128 B/cycle), so the second of two loads
// issued together returns that much after the first: 3 lines in distinct
// banks (a float load at stride 3) 1.5 cycles; the same lines with every
// lane in 4 words of one bank 4 cycles; 9 lines 3 cycles. Without banks (a
// cp.async's copy) its sectors' bytes: 12 sectors, 3 cycles.
TEST(MemorySystem, AnL1HitTakesItsBanksOrItsTagLookups) {
  const LineAccess lines[9] = {{0x1000, 0b1111}, {0x1080, 0b1111}, {0x1100, 0b1111}, {0x1180, 0b1111}, {0x1200, 0b1111},
                               {0x1280, 0b1111}, {0x1300, 0b1111}, {0x1380, 0b1111}, {0x1400, 0b1111}};
  auto gap = [&](uint32_t n, uint32_t banks) {
    TimingParams p = params();
    p.l1_bytes_per_cycle = 128;
    p.l1_lines_per_cycle = 4;
    MemorySystem m(p, 1.0);
    m.load(0, lines, n, banks);  // warm: every line in the L1 by t = 10000
    const double first = m.load(10000, lines, n, banks);
    return m.load(10000, lines, n, banks) - first;
  };
  EXPECT_DOUBLE_EQ(gap(3, 1), 1.5);
  EXPECT_DOUBLE_EQ(gap(3, 4), 4.0);
  EXPECT_DOUBLE_EQ(gap(9, 1), 3.0);
  EXPECT_DOUBLE_EQ(gap(3, 0), 3.0);
}
