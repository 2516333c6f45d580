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
