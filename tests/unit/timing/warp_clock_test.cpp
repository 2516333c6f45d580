// The warps' clocks (%clock under the timing model) on hand-written ops,
// against cycles worked out by hand from trace_builder.h's parameters
// (FMA latency 4, XU latency 20 and interval 8, L1 33, DRAM 500, barrier 10).
#include <gtest/gtest.h>

#include "timing/warp_clock.h"
#include "trace_builder.h"

using namespace softgpu::timing;
using softgpu::program::Pipe;

namespace {

// Feeds each op to the clock as the executor would, right after it ran.
struct Clocked {
  Cta c;
  CtaClock clock;
  explicit Clocked(int warps, const TimingParams& p) : c(warps), clock(p, 1.0, uint32_t(warps)) {}
  void compute(int w, Pipe pipe, std::vector<uint32_t> writes, std::vector<uint32_t> reads,
               OpKind kind = OpKind::Compute) {
    clock.step(uint32_t(w), c.t, c.op(w, pipe, std::move(writes), std::move(reads), kind));
  }
  void load(int w, uint32_t dst, uint32_t addr, uint64_t line) {
    clock.step(uint32_t(w), c.t, c.load(w, dst, addr, line, 0b0001));
  }
};

TEST(WarpClock, ADependentChainAdvancesByTheLatency) {
  const TimingParams p = params();
  Clocked k(1, p);
  EXPECT_EQ(k.clock.now(0), 0u);
  for (int i = 0; i < 10; ++i) k.compute(0, Pipe::Fma, {1}, {1});
  EXPECT_EQ(k.clock.now(0), 37u);  // issues at 0, 4, ..., 36: the next one at 37
  Clocked free(1, p);
  for (uint32_t i = 0; i < 10; ++i) free.compute(0, Pipe::Fma, {i}, {});
  EXPECT_EQ(free.clock.now(0), 10u);  // independent: one a cycle
}

TEST(WarpClock, APipeIntervalSpacesIssues) {
  Clocked k(1, params());
  for (uint32_t i = 0; i < 3; ++i) k.compute(0, Pipe::Xu, {i}, {});
  EXPECT_EQ(k.clock.now(0), 17u);  // XU issues at 0, 8, 16
}

TEST(WarpClock, APointerChaseMissesThenHitsTheL1) {
  Clocked k(1, params());
  k.load(0, 1, 0, 0x1000);  // issued at 0: DRAM, data at 500
  k.load(0, 1, 1, 0x1000);  // issued at 500: the L1 has the sector now, data at 533
  k.load(0, 1, 1, 0x1000);  // at 533, data at 566
  k.compute(0, Pipe::Fma, {2}, {1});  // waits for it: issued at 566
  EXPECT_EQ(k.clock.now(0), 567u);
}

TEST(WarpClock, WarpsOfACtaShareTheCachesNotTheirTimelines) {
  Clocked k(2, params());
  k.load(0, 1, 0, 0x2000);
  k.compute(0, Pipe::Fma, {2}, {1});  // warp 0 waits for DRAM: issued at 500
  k.load(1, 1, 0, 0x2000);            // warp 1 at its own cycle 0: an L1 hit, data at 33
  k.compute(1, Pipe::Fma, {2}, {1});
  EXPECT_EQ(k.clock.now(0), 501u);
  EXPECT_EQ(k.clock.now(1), 34u);
}

TEST(WarpClock, ABarrierReleasesAfterTheLastArrival) {
  Clocked k(2, params());
  for (uint32_t i = 0; i < 10; ++i) k.compute(0, Pipe::Fma, {i}, {});
  k.compute(0, Pipe::Barrier, {}, {}, OpKind::Barrier);  // warp 0 arrives at 10
  k.compute(1, Pipe::Barrier, {}, {}, OpKind::Barrier);  // warp 1 at 0
  k.clock.released(0b11);
  EXPECT_EQ(k.clock.now(0), 20u);  // 10 + the barrier latency
  EXPECT_EQ(k.clock.now(1), 20u);
}

}  // namespace
