// Bandwidth queue and scoreboard against hand-computed cycle counts.
#include <gtest/gtest.h>

#include "timing/bandwidth.h"
#include "timing/scoreboard.h"

using namespace softgpu::timing;

namespace {

TEST(BandwidthQueue, TransferThenLatencyAndQueueing) {
  BandwidthQueue q(32.0, 100.0);  // 32 bytes per cycle, 100 cycles latency
  EXPECT_DOUBLE_EQ(q.request(0, 64), 102.0);   // 2 cycles on the wire
  EXPECT_DOUBLE_EQ(q.request(0, 32), 103.0);   // waits 2 cycles behind the first
  EXPECT_DOUBLE_EQ(q.request(10, 32), 111.0);  // server idle again
  EXPECT_DOUBLE_EQ(q.queueing_cycles(), 2.0);
  EXPECT_DOUBLE_EQ(q.bytes(), 128.0);
}

TEST(BandwidthQueue, AStreamGetsExactlyTheBandwidth) {
  BandwidthQueue q(10.0, 50.0);
  double done = 0;
  for (int i = 0; i < 1000; ++i) done = q.request(0, 32);  // 32,000 bytes at 10 B/cycle
  EXPECT_NEAR(done, 3200.0 + 50.0, 1e-6);  // 1000 additions of 3.2 round
}

TEST(Scoreboard, ReadAfterWriteAndWriteAfterWrite) {
  using softgpu::program::kPredSlot;
  Scoreboard s(8, 4);
  const uint32_t r1[] = {1}, r2[] = {2}, r12[] = {1, 2}, p0[] = {kPredSlot | 0};
  EXPECT_EQ(s.ready(r12, {}), 0u);
  s.write(r1, 24);  // e.g. an add issued at 20 with latency 4
  EXPECT_EQ(s.ready(r2, {}), 0u);    // independent
  EXPECT_EQ(s.ready(r12, {}), 24u);  // reads r1
  EXPECT_EQ(s.ready({}, r1), 24u);   // rewrites r1
  s.write(p0, 30);
  EXPECT_EQ(s.ready(p0, r2), 30u);   // predicates are their own slots
  EXPECT_EQ(s.ready(r2, {}), 0u);
  const uint32_t far[] = {100};  // a slot beyond the declared count grows the table
  s.write(far, 7);
  EXPECT_EQ(s.ready(far, {}), 7u);
}

}  // namespace
