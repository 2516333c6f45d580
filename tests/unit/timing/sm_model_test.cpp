// The SM model on small hand-written traces, against cycle counts worked out
// by hand from the parameters below.
#include <gtest/gtest.h>

#include "timing/sm_model.h"
#include "trace_builder.h"

using namespace softgpu::timing;
using softgpu::program::Pipe;

namespace {

SmStats run(const TimingParams& p, std::vector<const CtaTrace*> ctas, uint32_t resident = 1) {
  MemorySystem mem(p, 1.0);
  return SmModel(p, mem).run(ctas, resident);
}

uint64_t stall(const SmStats& s, WarpStall w) { return s.stalls[size_t(w)]; }

TEST(SmModel, DependentChainPaysTheLatencyEachTime) {
  Cta c(1);
  for (int i = 0; i < 10; ++i) c.op(0, Pipe::Fma, {1}, {1});
  auto s = run(params(), {&c.t});
  EXPECT_EQ(s.cycles, 40u);  // issues at 0, 4, ..., 36; the last result at 40
  EXPECT_EQ(s.warp_instructions, 10u);
  EXPECT_EQ(stall(s, WarpStall::Selected), 10u);
  EXPECT_EQ(stall(s, WarpStall::Wait), 27u);  // 3 cycles before each of the 9 dependent issues
}

TEST(SmModel, IndependentInstructionsIssueEveryCycle) {
  Cta c(1);
  for (uint32_t i = 0; i < 10; ++i) c.op(0, Pipe::Fma, {i}, {});
  EXPECT_EQ(run(params(), {&c.t}).cycles, 13u);  // issues 0..9, +4
}

TEST(SmModel, WarpsShareTheirSubPartitionGreedyOrRoundRobin) {
  Cta c(8);  // warp w runs on sub-partition w % 4: two warps each
  for (int w = 0; w < 8; ++w)
    for (uint32_t i = 0; i < 10; ++i) c.op(w, Pipe::Fma, {i}, {});
  auto p = params();
  auto gto = run(p, {&c.t});
  EXPECT_EQ(gto.cycles, 23u);  // 20 issues per sub-partition, the last at 19
  EXPECT_EQ(gto.warp_done[0], 13u);  // greedy: warp 0 runs first, to the end
  EXPECT_EQ(gto.warp_done[4], 23u);
  EXPECT_EQ(stall(gto, WarpStall::NotSelected), 4u * 10);  // each second warp waits 10 cycles
  p.policy = SchedulerPolicy::Lrr;
  auto lrr = run(p, {&c.t});
  EXPECT_EQ(lrr.cycles, 23u);
  EXPECT_EQ(lrr.warp_done[0], 22u);  // alternating: issues at 0, 2, ..., 18
  EXPECT_EQ(lrr.warp_done[4], 23u);
}

// A CTA's stores free its slot once they have left the SM, and the next
// CTA starts after the CTA launch cost: one slot, two CTAs of one warp
// storing one sector each. The first store issues at 0 and leaves the SM
// after the L1's 33 cycles (the L2 takes it at 200, which nothing waits
// for); the second CTA starts 5 cycles later, at 38, its store gone at 71,
// the kernel's end. (gpu-stream's CTAs on the GPU add 27 to 76 cycles for
// a store to a read-only CTA, far less than the L2's round trip:
// docs/timing.md.)
TEST(SmModel, StoresFreeTheirCtaSlotOnceTheyLeaveTheSm) {
  Cta a(1), b(1);
  a.store(0, 1, 2, 0, 0b0001);
  b.store(0, 1, 2, 128, 0b0001);
  auto s = run(params(), {&a.t, &b.t});
  EXPECT_EQ(s.warp_done[0], 33u);
  EXPECT_EQ(s.warp_done[1], 71u);
  EXPECT_EQ(s.cycles, 71u);
}

TEST(SmModel, PipeIssueIntervalThrottles) {
  Cta c(1);
  for (uint32_t i = 0; i < 4; ++i) c.op(0, Pipe::Xu, {i}, {});
  auto s = run(params(), {&c.t});
  EXPECT_EQ(s.cycles, 44u);  // issues at 0, 8, 16, 24; latency 20
  EXPECT_EQ(stall(s, WarpStall::MathPipeThrottle), 21u);
}

// Sequences: a div.rn.f32 (8 FMA-pipe slots, 6 dependent steps) and a
// div.s64 (88 ALU slots, 38 steps) in dependent chains of three.
TimingParams sequence_params() {
  TimingParams p = params();
  p.pipes[size_t(Pipe::Alu)] = {4, 2};
  p.sequence_cost(softgpu::program::Sequence::DivRnF32) = {8, 6};
  p.sequence_cost(softgpu::program::Sequence::DivS64) = {88, 38};
  return p;
}

TEST(SmModel, SequenceChainsPayTheirDepthInLatencies) {
  using softgpu::program::Sequence;
  Cta f(1), d(1);
  for (int i = 0; i < 3; ++i) f.op(0, Pipe::Fma, {1}, {1}).sequence = Sequence::DivRnF32;
  for (int i = 0; i < 3; ++i) d.op(0, Pipe::Alu, {1}, {1}).sequence = Sequence::DivS64;
  // div.rn.f32: each result 6 x 4 = 24 cycles after its issue (the pipe is
  // free again after 8 x 1): issues at 0, 24, 48, the last result at 72.
  auto sf = run(sequence_params(), {&f.t});
  EXPECT_EQ(sf.cycles, 72u);
  EXPECT_EQ(sf.pipe_busy[size_t(Pipe::Fma)], 3u * 8);
  EXPECT_EQ(stall(sf, WarpStall::Wait), 2u * 23);  // waiting for the result, not the pipe
  // div.s64: the result after 38 x 4 = 152, but the ALU is busy 88 x 2 = 176
  // cycles: issues at 0, 176, 352, the last result at 352 + 152 = 504.
  auto sd = run(sequence_params(), {&d.t});
  EXPECT_EQ(sd.cycles, 504u);
  EXPECT_EQ(sd.pipe_busy[size_t(Pipe::Alu)], 3u * 176);
  // The pipe frees after the result: the warp waits on it, 1..175 and 177..351.
  EXPECT_EQ(stall(sd, WarpStall::MathPipeThrottle), 2u * 175);
}

TEST(SmModel, IndependentSequencesQueueOnTheirPipe) {
  using softgpu::program::Sequence;
  Cta c(1);
  for (uint32_t i = 0; i < 4; ++i) c.op(0, Pipe::Fma, {i}, {}).sequence = Sequence::DivRnF32;
  c.op(0, Pipe::Fma, {9}, {});  // a plain FMA behind them
  auto s = run(sequence_params(), {&c.t});
  // Issues at 0, 8, 16, 24 (8 slots each), the FMA at 32; results at
  // 24 + 24 = 48 and 32 + 4 = 36.
  EXPECT_EQ(s.cycles, 48u);
  EXPECT_EQ(stall(s, WarpStall::MathPipeThrottle), 4u * 7);
}

TEST(SmModel, BarrierWaitsForTheWholeCta) {
  Cta c(2);
  for (int i = 0; i < 5; ++i) c.op(0, Pipe::Fma, {1}, {1});  // issues 0, 4, 8, 12, 16
  c.op(0, Pipe::Barrier, {}, {}, OpKind::Barrier);           // arrives at 17
  c.op(0, Pipe::Fma, {2}, {});
  c.op(1, Pipe::Barrier, {}, {}, OpKind::Barrier);           // arrives at 0
  c.op(1, Pipe::Fma, {2}, {});
  auto s = run(params(), {&c.t});
  EXPECT_EQ(s.cycles, 31u);  // released at 17 + 10; the FMAs issue at 27
  EXPECT_EQ(s.warp_done[1], 31u);
  EXPECT_EQ(stall(s, WarpStall::Barrier), 26u + 9u);  // warp 1 in cycles 1..26, warp 0 in 18..26
}

TEST(SmModel, LoadsMissToDramThenHitInL1) {
  Cta c(1);
  c.load(0, 1, 9, 0x1000, 0b1111);   // cold: DRAM
  c.op(0, Pipe::Fma, {2}, {1});
  c.load(0, 3, 2, 0x1000, 0b1111);   // the same line: L1 hit
  c.op(0, Pipe::Fma, {4}, {3});
  auto s = run(params(), {&c.t});
  // DRAM: 500 cycles for one sector, +96 bytes at 1000 B/cycle -> 500.096, so 501;
  // FMA 501..505; L1 hit, one wavefront: 33 -> 538 (waiting 506..537); FMA -> 542.
  EXPECT_EQ(s.cycles, 542u);
  EXPECT_EQ(stall(s, WarpStall::LongScoreboard), 500u + 32u);
}

TEST(SmModel, SharedMemoryConflictsAddWavefronts) {
  Cta c(1);
  TraceOp& o = c.op(0, Pipe::Lsu, {1}, {}, OpKind::Shared);
  o.wavefronts = 4;
  c.op(0, Pipe::Fma, {2}, {1});
  EXPECT_EQ(run(params(), {&c.t}).cycles, 37u);  // 30 + 3 extra wavefronts, then +4
}

TEST(SmModel, CtasWaitForAResidentSlot) {
  Cta a(1), b(1);
  for (int i = 0; i < 10; ++i) { a.op(0, Pipe::Fma, {1}, {1}); b.op(0, Pipe::Fma, {1}, {1}); }
  EXPECT_EQ(run(params(), {&a.t, &b.t}, 1).cycles, 85u);  // 40, launch 5, 40
  EXPECT_EQ(run(params(), {&a.t, &b.t}, 2).cycles, 40u);  // side by side
}

TEST(SmModel, MismatchedBarriersAreReportedNotHung) {
  Cta c(2);
  c.op(0, Pipe::Barrier, {}, {}, OpKind::Barrier).barrier_id = 0;
  c.op(0, Pipe::Fma, {1}, {});
  c.op(1, Pipe::Barrier, {}, {}, OpKind::Barrier).barrier_id = 1;
  c.op(1, Pipe::Fma, {1}, {});
  EXPECT_TRUE(run(params(), {&c.t}).deadlock);
}

}  // namespace

namespace {

// The tensor pipe's interval is that of one m16n8k16 f16 -> f32 (4096 FLOP);
// other shapes and types scale by work over rate.
TEST(SmModel, TensorProductsScaleByWorkAndTypeRate) {
  auto p = params();
  p.pipes[size_t(Pipe::Tensor)] = {16, 4};
  p.tensor.fp16_f32 = 1024;
  p.tensor.tf32 = 512;
  p.tensor.int8 = 2048;
  p.tensor.fp64 = 0;  // none: emulated at 1/16
  auto run_mma = [&](softgpu::program::TensorKind kind, uint32_t flops, int count) {
    Cta c(1);
    for (int i = 0; i < count; ++i) {
      TraceOp& o = c.op(0, Pipe::Tensor, {uint32_t(i)}, {});
      o.tensor = uint8_t(kind);
      o.tensor_flops = flops;
    }
    return run(p, {&c.t}).cycles;
  };
  EXPECT_EQ(run_mma(softgpu::program::TensorKind::Fp16F32, 4096, 4), 12u + 16);  // issues 0, 4, 8, 12
  EXPECT_EQ(run_mma(softgpu::program::TensorKind::Tf32, 2048, 4), 12u + 16);     // half the work at half the rate
  EXPECT_EQ(run_mma(softgpu::program::TensorKind::Fp16F32, 8192, 2), 8u + 16 + 4);  // two slots each: 0, 8; +4 issue
  EXPECT_EQ(run_mma(softgpu::program::TensorKind::Int8, 16384, 2), 8u + 16 + 4);    // 4x the work at 2x the rate
  EXPECT_EQ(run_mma(softgpu::program::TensorKind::Fp64, 512, 1), 16u + 4 * 1);      // 512 / 4096 x 16 = 2 slots
  // A type faster than the reference needs less than one interval: 4096
  // int8 OP at 2x the rate take 4 x 4096 / 4096 / 2 = 2 cycles, so four
  // issue at 0, 2, 4, 6 (whole intervals would have given 0, 4, 8, 12).
  EXPECT_EQ(run_mma(softgpu::program::TensorKind::Int8, 4096, 4), 6u + 16);
  // Fractions of a cycle round up: 2048 int8 OP at 2x take 1 cycle (0.5 up).
  EXPECT_EQ(run_mma(softgpu::program::TensorKind::Int8, 2048, 3), 2u + 16);
}

// RTX 4090's f16 accumulate runs at twice its f32 accumulate (1024 vs 512
// FLOP/clk/SM, interval 32 for one m16n8k16 at f32 accumulate): 16 cycles
// per product, so 16 products on one sub-partition take 15 x 16 + 32 cycles.
TEST(SmModel, TensorTypeFasterThanTheReferenceIssuesWithinAnInterval) {
  auto p = params();
  p.pipes[size_t(Pipe::Tensor)] = {32, 32};
  p.tensor.fp16_f32 = 512;
  p.tensor.fp16_f16 = 1024;
  Cta c(1);
  for (uint32_t i = 0; i < 16; ++i) {
    TraceOp& o = c.op(0, Pipe::Tensor, {i}, {});
    o.tensor = uint8_t(softgpu::program::TensorKind::Fp16F16);
    o.tensor_flops = 4096;
  }
  const auto s = run(p, {&c.t});
  EXPECT_EQ(s.cycles, 15u * 16 + 32);
  EXPECT_EQ(s.pipe_busy[size_t(Pipe::Tensor)], 16u * 16);
}

}  // namespace
