// Whole-kernel timing from CTA traces: dispatch over SMs, waves, sampling
// and extrapolation, against cycle counts worked out by hand.
#include <gtest/gtest.h>

#include "timing/kernel_model.h"

using namespace softgpu;
using namespace softgpu::timing;
using program::Pipe;

namespace {

TimingParams params(uint32_t sms) {
  TimingParams p;
  p.sm_count = sms;
  p.sub_partitions = 4;
  p.clock_mhz = 1000;
  p.pipes[size_t(Pipe::Fma)] = {4, 1};
  p.cta_launch_cycles = 5;
  return p;
}

// A CTA of `warps` warps, each a chain of `n` dependent FMAs (independent if `indep`).
std::unique_ptr<CtaTrace> cta(uint32_t id, int warps, int n, bool indep = false) {
  auto t = std::make_unique<CtaTrace>();
  t->cta_linear = id;
  t->warps.resize(size_t(warps));
  for (auto& w : t->warps)
    for (int i = 0; i < n; ++i) {
      TraceOp o;
      o.pipe = Pipe::Fma;
      o.slots = uint32_t(t->slots.size());
      o.n_writes = 1;
      o.n_reads = indep ? 0 : 1;
      t->slots.push_back(indep ? uint32_t(i) : 1u);
      if (!indep) t->slots.push_back(1);
      w.ops.push_back(o);
    }
  return t;
}

KernelTiming run(const TimingParams& p, uint32_t grid, uint32_t resident, SamplingPolicy s, int warps = 1,
                 int n = 10, bool indep = false) {
  KernelModel m(p, {"k", {grid, 1, 1}, {32u * warps, 1, 1}, resident}, 64, s);
  for (uint32_t c = 0; c < grid; ++c)
    if (m.wanted(c)) m.add(cta(c, warps, n, indep));
  return m.finish();
}

TEST(KernelModel, OneCtaPerSm) {
  auto k = run(params(4), 4, 1, {});
  EXPECT_EQ(k.cycles, 40u);
  EXPECT_DOUBLE_EQ(k.microseconds, 0.04);  // 40 cycles at 1000 MHz
  EXPECT_FALSE(k.sampled);
  EXPECT_EQ(k.sms_simulated, 4u);
  EXPECT_EQ(k.warp_instructions, 40u);
  EXPECT_DOUBLE_EQ(k.ipc, 40.0 / (40 * 4));
  EXPECT_EQ(k.bound, Bound::Latency);  // one dependent chain per SM
}

TEST(KernelModel, SecondWaveWaitsForTheFirst) {
  EXPECT_EQ(run(params(4), 8, 1, {}).cycles, 85u);  // 40, launch 5, 40
  EXPECT_EQ(run(params(4), 8, 2, {}).cycles, 40u);  // both resident
}

TEST(KernelModel, WaveSamplingExtrapolatesUniformWavesExactly) {
  // 2 SMs, 20 CTAs each, one resident: 20 waves of 40 cycles and 19 launches of 5.
  SamplingPolicy sample{false, 16, 4};
  auto full = run(params(2), 40, 1, {true});
  auto est = run(params(2), 40, 1, sample);
  EXPECT_EQ(full.cycles, 20u * 40 + 19u * 5);
  EXPECT_FALSE(full.sampled);
  EXPECT_TRUE(est.sampled);
  EXPECT_EQ(est.ctas_simulated, 8u);  // 4 waves on each SM
  EXPECT_EQ(est.cycles, full.cycles);
  EXPECT_EQ(est.warp_instructions, 400u);  // scaled to the whole grid
}

TEST(KernelModel, SmSamplingSimulatesASpreadOfSms) {
  auto k = run(params(64), 64, 1, {false, 16, 8});
  EXPECT_TRUE(k.sampled);
  EXPECT_EQ(k.sms_simulated, 16u);  // SMs 0, 4, 8, ...
  EXPECT_EQ(k.cycles, 40u);
  EXPECT_EQ(k.warp_instructions, 640u);
}

// A write-only stream: one warp per CTA storing one whole line, 2048 CTAs
// on one SM, 32 resident (sampled: 8 of its 64 waves simulated, about 40
// cycles each). Its stores leave the
// SM at once, so the time is what its traffic needs: 256 KB through an L2
// of 64 KB, at 64 B/cycle of L2 (4096 cycles) and 32 B/cycle of DRAM for
// the 192 KB that no longer fit the L2 (6144 cycles).
TEST(KernelModel, WriteStreamTakesItsWriteBackTime) {
  TimingParams p = params(1);
  p.pipes[size_t(Pipe::Lsu)] = {4, 1};
  p.l1_latency = 33;
  p.l2_latency = 200;
  p.dram_latency = 500;
  p.l2_bytes = 64 << 10;
  p.l2_bytes_per_cycle = 64;
  p.dram_bytes_per_cycle = 32;
  const uint32_t grid = 2048;
  KernelModel m(p, {"init", {grid, 1, 1}, {32, 1, 1}, 32}, 64, {});
  for (uint32_t c = 0; c < grid; ++c) {
    if (!m.wanted(c)) continue;
    auto t = std::make_unique<CtaTrace>();
    t->cta_linear = c;
    t->warps.resize(1);
    TraceOp o;
    o.pipe = Pipe::Lsu;
    o.kind = OpKind::Global;
    o.store = true;
    o.slots = 0;
    o.n_reads = 1;
    o.n_lines = 1;
    t->slots.push_back(1);
    t->lines.push_back({uint64_t(c) * 128, 0b1111});
    t->warps[0].ops.push_back(o);
    m.add(std::move(t));
  }
  const auto k = m.finish();
  EXPECT_TRUE(k.sampled);
  EXPECT_EQ(k.cycles, 6144u);
  EXPECT_DOUBLE_EQ(k.l2_bytes, double(grid) * 128);
  // What it leaves in the chip's L2: its 256 KB (the sample's 32 KB over
  // its eighth of the grid) fill an L2 of 64 KB many times over, with lines
  // of CTAs the sample did not simulate: it is emptied (the line an earlier
  // launch left there too). An L2 of 1 MB keeps the sample's lines.
  SectorCache small({64 << 10, 16, true}, WritePolicy::WriteBackAllocate), big({1 << 20, 16, true}, WritePolicy::WriteBackAllocate);
  small.write({1 << 30, 0b1111});
  m.leave_in(small);
  m.leave_in(big);
  EXPECT_EQ(small.present({1 << 30, 0b1111}), 0);
  EXPECT_EQ(small.present({0, 0b1111}), 0);
  EXPECT_EQ(big.present({0, 0b1111}), 0b1111);
  EXPECT_EQ(big.present({255 * 128, 0b1111}), 0b1111);  // the sample's last CTA
  EXPECT_EQ(big.present({256 * 128, 0b1111}), 0);       // not simulated
}

// 4 SMs, one CTA each, every CTA reading the same 16 lines: the L2 fetches
// them from DRAM once for all four (16 x 128 bytes in all), not once per SM.
TEST(KernelModel, LinesEverySmReadsComeFromDramOnce) {
  TimingParams p = params(4);
  p.pipes[size_t(Pipe::Lsu)] = {4, 1};
  p.l2_bytes = 1 << 20;
  KernelModel m(p, {"k", {4, 1, 1}, {32, 1, 1}, 1}, 64, {});
  for (uint32_t c = 0; c < 4; ++c) {
    auto t = std::make_unique<CtaTrace>();
    t->cta_linear = c;
    t->warps.resize(1);
    for (uint32_t i = 0; i < 16; ++i) {
      TraceOp o;
      o.pipe = Pipe::Lsu;
      o.kind = OpKind::Global;
      o.slots = uint32_t(t->slots.size());
      o.n_writes = 1;
      o.n_reads = 1;
      o.lines = i;
      o.n_lines = 1;
      t->slots.insert(t->slots.end(), {2 + i, 1});
      t->lines.push_back({uint64_t(i) * 128, 0b1111});
      t->warps[0].ops.push_back(o);
    }
    m.add(std::move(t));
  }
  EXPECT_DOUBLE_EQ(m.finish().dram_bytes, 16.0 * 128);
}

// A launch leaves what it read and wrote in the chip's L2 (leave_in), for
// the next launch's set_warm: the sectors it loaded, and those it stored.
TEST(KernelModel, ALaunchLeavesItsLinesInTheL2) {
  TimingParams p = params(1);
  KernelModel m(p, {"k", {1, 1, 1}, {32, 1, 1}, 1}, 64, {});
  auto t = std::make_unique<CtaTrace>();
  t->warps.resize(1);
  for (uint32_t i = 0; i < 2; ++i) {
    TraceOp o;
    o.pipe = Pipe::Lsu;
    o.kind = OpKind::Global;
    o.store = i == 1;
    o.slots = uint32_t(t->slots.size());
    o.n_reads = 1;
    o.lines = i;
    o.n_lines = 1;
    t->slots.push_back(1);
    t->lines.push_back({0x1000u + 128 * i, uint8_t(i ? 0b1100 : 0b0011)});
    t->warps[0].ops.push_back(o);
  }
  m.add(std::move(t));
  m.finish();
  SectorCache l2({1 << 20, 16, true}, WritePolicy::WriteBackAllocate);
  m.leave_in(l2);
  EXPECT_EQ(l2.present({0x1000, 0b1111}), 0b0011);
  EXPECT_EQ(l2.present({0x1080, 0b1111}), 0b1100);
  EXPECT_EQ(l2.present({0x1100, 0b1111}), 0);
}

TEST(KernelModel, IssueBoundStreamIsComputeBound) {
  // 4 warps (one per scheduler), 1000 independent FMAs each: every issue slot used.
  auto k = run(params(1), 1, 1, {}, 4, 1000, true);
  EXPECT_EQ(k.cycles, 1000u + 3);
  EXPECT_EQ(k.bound, Bound::Compute);
  EXPECT_EQ(k.top_pipe, Pipe::Fma);
  EXPECT_NEAR(k.issue_utilization, 4000.0 / (4 * 1003), 1e-9);
}

}  // namespace
