// The asynchronous units on hand-written traces (timing/warp_rules.h), cycle
// counts worked out by hand from trace_builder.h's parameters: wgmma
// products that accumulate through the tensor pipe and are waited for by
// group, and mbarrier waits that last until their phase's arrivals and
// copies have landed in simulated time.
#include <gtest/gtest.h>

#include "timing/sm_model.h"
#include "timing/warp_clock.h"
#include "trace_builder.h"

using namespace softgpu::timing;
using softgpu::program::Pipe;
using softgpu::program::TensorKind;

namespace {

SmStats run(const TimingParams& p, std::vector<const CtaTrace*> ctas) {
  MemorySystem mem(p, 1.0);
  return SmModel(p, mem).run(ctas, 1);
}

TimingParams tensor_params() {
  auto p = params();
  p.pipes[size_t(Pipe::Tensor)] = {16, 4};  // one m16n8k16 (4096 FLOP) every 4 cycles, 16 to its result
  p.pipes[size_t(Pipe::Branch)] = {4, 1};
  p.tensor.fp16_f32 = 1024;
  return p;
}

// One warp's quarter of a wgmma m64n64k16 f16 -> f32: 2 x 16 x 64 x 16 FLOP,
// 8 reference products: 32 cycles of the tensor pipe.
TraceOp& wgmma(Cta& c, int w, uint32_t acc) {
  TraceOp& o = c.op(w, Pipe::Tensor, {acc}, {});
  o.tensor = uint8_t(TensorKind::Fp16F32);
  o.tensor_flops = 32768;
  o.async_tensor = true;
  return o;
}

TEST(AsyncUnits, WgmmaIntoOneAccumulatorStreamsThroughThePipe) {
  Cta c(1);
  for (int i = 0; i < 4; ++i) wgmma(c, 0, 1);
  c.op(0, Pipe::Branch, {}, {}, OpKind::TensorCommit);
  c.op(0, Pipe::Branch, {}, {}, OpKind::TensorWait).group_n = 0;
  c.op(0, Pipe::Fma, {2}, {1});
  const auto s = run(tensor_params(), {&c.t});
  // Products issue at 0, 32, 64, 96 (the pipe, not the accumulator, sets
  // the pace); the last completes at 96 + 16 + (32 - 4) = 140. The commit
  // issues at 97, the wait at 140, the FMA at 141, its result at 145.
  // Waiting for each product's result before the next (as a register
  // dependence would) gives 0, 44, 88, 132 and 180.
  EXPECT_EQ(s.cycles, 145u);
  EXPECT_EQ(s.pipe_busy[size_t(Pipe::Tensor)], 128u);
  // Cycles waiting for the pipe (1..31, 33..63, 65..95) and for the group
  // (98..139) count as the tensor pipe's.
  EXPECT_EQ(s.stalls[size_t(WarpStall::MathPipeThrottle)], 93u + 42);
}

TEST(AsyncUnits, WgmmaWaitGroupLeavesTheNewestGroupsInFlight) {
  Cta c(1);
  wgmma(c, 0, 1);
  c.op(0, Pipe::Branch, {}, {}, OpKind::TensorCommit);
  wgmma(c, 0, 2);
  wgmma(c, 0, 2);
  c.op(0, Pipe::Branch, {}, {}, OpKind::TensorCommit);
  c.op(0, Pipe::Branch, {}, {}, OpKind::TensorWait).group_n = 1;
  c.op(0, Pipe::Fma, {3}, {1});  // group 1's result
  c.op(0, Pipe::Branch, {}, {}, OpKind::TensorWait).group_n = 0;
  c.op(0, Pipe::Fma, {4}, {2});
  const auto s = run(tensor_params(), {&c.t});
  // wgmma at 0 (done 44), commit 1, wgmma 32 and 64 (done 108), commit 65;
  // wait_group 1 needs only the first group: issues at 66, the FMA at 67;
  // wait_group 0 at 108, the last FMA at 109, its result at 113.
  EXPECT_EQ(s.warp_done.at(0), 113u);
  EXPECT_EQ(s.cycles, 113u);
}

// Warp 0 computes for 40 cycles and then arrives on the mbarrier; warp 2
// arrives at once; warp 1 waits for the phase both complete. Arrivals land
// when their shared-memory update does (one wavefront: the 30-cycle shared
// latency).
TEST(AsyncUnits, MbarrierWaitLastsUntilTheLastArrivalLands) {
  Cta c(3);
  c.t.phases = {2};
  for (int i = 0; i < 10; ++i) c.op(0, Pipe::Fma, {1}, {1});  // result at 40
  TraceOp& late = c.op(0, Pipe::Lsu, {}, {1}, OpKind::Shared);
  late.wavefronts = 1;
  late.role = PhaseRole::Arrive;
  late.phase = 1;
  TraceOp& early = c.op(2, Pipe::Lsu, {}, {}, OpKind::Shared);
  early.wavefronts = 1;
  early.role = PhaseRole::Arrive;
  early.phase = 1;
  c.op(1, Pipe::Lsu, {}, {}, OpKind::MbarWait).phase = 1;
  c.op(1, Pipe::Fma, {5}, {});
  const auto s = run(params(), {&c.t});
  // Warp 2's arrival at 0 lands at 30; warp 0's at 40 lands at 70. The
  // wait issues at 70 and reads the object (70 + 30 = 100); the FMA issues
  // at 71. Warp 1 was at the barrier for 70 cycles.
  EXPECT_EQ(s.warp_done.at(1), 100u);
  EXPECT_EQ(s.stalls[size_t(WarpStall::Barrier)], 70u);
  EXPECT_FALSE(s.deadlock);
}

// A TMA copy's bytes complete the phase when they have landed in shared
// memory, not when the copy issues.
TEST(AsyncUnits, MbarrierWaitLastsUntilTheCopiedBytesLand) {
  const auto p = params();
  Cta c(2);
  c.t.phases = {1};
  TraceOp& copy = c.op(0, Pipe::Lsu, {}, {}, OpKind::AsyncCopy);
  copy.lines = 0;
  copy.n_lines = 1;
  copy.role = PhaseRole::Tx;
  copy.phase = 1;
  c.t.lines.push_back({0x4000, 0b1111});
  c.op(1, Pipe::Lsu, {}, {}, OpKind::MbarWait).phase = 1;
  // The same line alone from DRAM: 4 sectors at 1000 B/cycle behind the
  // L2 and DRAM latencies, whatever the memory system's breakdown.
  MemorySystem alone(p, 1.0);
  const auto landed = ceil_cycle(alone.load(0, c.t.lines.data(), 1));
  ASSERT_GT(landed, uint64_t(p.dram_latency));
  const auto s = run(p, {&c.t});
  EXPECT_EQ(s.warp_done.at(1), landed + 30);
  EXPECT_EQ(s.stalls[size_t(WarpStall::Barrier)], landed);
}

// The warps' clocks apply the same rules: the waiting warp's clock, after
// the wait, reads the cycle the last arrival landed.
TEST(AsyncUnits, TheClocksWaitForThePhaseToo) {
  const auto p = params();
  Cta c(2);
  c.t.phases = {1};
  for (int i = 0; i < 10; ++i) c.op(0, Pipe::Fma, {1}, {1});
  TraceOp& arrive = c.op(0, Pipe::Lsu, {}, {1}, OpKind::Shared);
  arrive.wavefronts = 1;
  arrive.role = PhaseRole::Arrive;
  arrive.phase = 1;
  c.op(1, Pipe::Lsu, {}, {}, OpKind::MbarWait).phase = 1;
  CtaClock clk(p, 1.0, 2);
  // In the executor's order: warp 0's ops, then warp 1's wait.
  for (const auto& op : c.t.warps[0].ops) clk.step(0, c.t, op);
  clk.step(1, c.t, c.t.warps[1].ops[0]);
  EXPECT_EQ(clk.now(1), 71u);  // the wait issued at 70 (the arrival landed: 40 + 30)
}

}  // namespace
