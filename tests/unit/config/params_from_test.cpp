// timing::params_from: the shipped configs converted into TimingParams,
// against values computed by hand from the numbers in the .toml files.
#include "timing/params_from_config.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace softgpu::config {
namespace {

timing::TimingParams params(const std::string& key, uint64_t carveout) {
  auto c = load_gpu_config(kShipped / (key + ".toml"), kShipped);
  EXPECT_TRUE(c.ok()) << c.error().message;
  auto p = timing::params_from(*c, carveout);
  EXPECT_TRUE(p.ok()) << p.error().message;
  return p.ok() ? *p : timing::TimingParams{};
}

TEST(ParamsFrom, H100BandwidthsInBytesPerCycle) {
  const auto p = params("h100", 0);
  EXPECT_EQ(p.sm_count, 132u);
  EXPECT_DOUBLE_EQ(p.clock_mhz, 1980.0);
  EXPECT_NEAR(p.dram_bytes_per_cycle, 1691.919, 0.001);    // 3350 GB/s / 1.98 GHz
  EXPECT_NEAR(p.l2_bytes_per_cycle, 4848.485, 0.001);      // 9600 GB/s / 1.98 GHz
  EXPECT_NEAR(p.host_link_bytes_per_cycle, 32.323, 0.001); // 64 GB/s / 1.98 GHz
  EXPECT_NEAR(p.d2d_bytes_per_cycle, 1464.646, 0.001);     // 2900 GB/s / 1.98 GHz
  EXPECT_DOUBLE_EQ(p.kernel_launch_cycles, 4950.0);        // 2.5 us x 1980 cycles/us
  EXPECT_DOUBLE_EQ(p.dram_efficiency, 0.887);
  EXPECT_DOUBLE_EQ(p.l1_bytes_per_cycle, 128.0);
  EXPECT_DOUBLE_EQ(p.shared_wavefronts_per_cycle, 1.0);    // 128 B/clk = one 32-bank wavefront
  EXPECT_EQ(p.l2_bytes, 50ull << 20);
}

TEST(ParamsFrom, L1IsWhatTheCarveoutLeaves) {
  EXPECT_EQ(params("h100", 0).l1_bytes, 256u * 1024);
  EXPECT_EQ(params("h100", 228 * 1024).l1_bytes, 28u * 1024);  // 256 KB - 228 KB
  EXPECT_EQ(params("a100", 100 * 1024).l1_bytes, 92u * 1024);  // 192 KB - 100 KB
  EXPECT_EQ(params("l4", 100 * 1024).l1_bytes, 28u * 1024);    // 128 KB - 100 KB
}

TEST(ParamsFrom, CarveoutLargerThanSharedIsRejected) {
  auto c = load_gpu_config(kShipped / "a100.toml", kShipped);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto p = timing::params_from(*c, 165 * 1024);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().status, Status::InvalidValue);
  EXPECT_NE(p.error().message.find("carveout 168960 bytes exceeds sm.shared_memory_per_sm = 167936"),
            std::string::npos) << p.error().message;
}

TEST(ParamsFrom, PipesLatenciesAndTensorRates) {
  using program::Pipe;
  const auto a = params("a100", 0);
  EXPECT_EQ(a.pipes[size_t(Pipe::Fma)].interval, 2u);
  EXPECT_EQ(a.pipes[size_t(Pipe::Fma)].latency, 4u);
  EXPECT_EQ(a.pipes[size_t(Pipe::Tensor)].interval, 8u);
  EXPECT_EQ(a.pipes[size_t(Pipe::Xu)].latency, 23u);
  EXPECT_NEAR(a.dram_bytes_per_cycle, 1446.099, 0.001);  // 2039 GB/s / 1.41 GHz
  EXPECT_DOUBLE_EQ(a.kernel_launch_cycles, 2.7 * 1410);
  EXPECT_EQ(a.l2_latency, 203u);
  EXPECT_EQ(a.l2_far_latency, 357u);
  EXPECT_EQ(a.dram_latency, 570u);
  EXPECT_EQ(a.policy, timing::SchedulerPolicy::Lrr);
  EXPECT_DOUBLE_EQ(a.tensor.tf32, 1024.0);
  EXPECT_DOUBLE_EQ(a.tensor.fp8_f32, 0.0);

  const auto g = params("rtx4090", 0);
  EXPECT_EQ(g.pipes[size_t(Pipe::Fp64)].interval, 64u);
  EXPECT_EQ(g.pipes[size_t(Pipe::Fp16)].interval, 2u);
  EXPECT_NEAR(g.dram_bytes_per_cycle, 400.0, 1e-9);  // 1008 GB/s / 2.52 GHz
  EXPECT_DOUBLE_EQ(g.tensor.fp16_f32, 512.0);
  EXPECT_DOUBLE_EQ(g.tensor.fp16_f16, 1024.0);
  EXPECT_DOUBLE_EQ(g.tensor.fp8_f16, 2048.0);
}

// Each program::Sequence kind has a [timing.sequences] key of its name, and
// params_from puts that entry's numbers at the kind: give entry i the slots
// i + 1 and check that the kind named by key i gets them.
TEST(ParamsFrom, SequenceKeysMatchProgram) {
  EXPECT_EQ(kSequenceKeys.size(), program::kSequenceKinds);
  auto c = load_gpu_config(kShipped / "h100.toml", kShipped);
  ASSERT_TRUE(c.ok()) << c.error().message;
  for (size_t i = 0; i < kSequenceKeys.size(); ++i) c->timing.sequences[i] = {uint32_t(i + 1), 1};
  auto p = timing::params_from(*c, 0);
  ASSERT_TRUE(p.ok()) << p.error().message;
  for (size_t k = 1; k < size_t(program::Sequence::Count_); ++k) {
    const auto kind = program::Sequence(k);
    size_t i = 0;
    while (i < kSequenceKeys.size() && program::sequence_key(kind) != kSequenceKeys[i]) ++i;
    ASSERT_LT(i, kSequenceKeys.size()) << "no config key for " << program::sequence_key(kind);
    EXPECT_EQ(p->sequence_cost(kind).slots, i + 1) << kSequenceKeys[i];
  }
}

// The shipped numbers are ptxas's (scripts/sass-sequences.py), the same on
// sm_80, sm_89 and sm_90 for these two (docs/gpus.md, "Sequences").
TEST(ParamsFrom, SequenceCostsFromTheConfig) {
  using program::Sequence;
  for (const char* k : {"a100", "h100", "l4"}) {
    const auto p = params(k, 0);
    EXPECT_EQ(p.sequence_cost(Sequence::DivRnF32).slots, 8u) << k;
    EXPECT_EQ(p.sequence_cost(Sequence::DivRnF32).depth, 6u) << k;
    EXPECT_EQ(p.sequence_cost(Sequence::DivS64).slots, 88u) << k;
    EXPECT_EQ(p.sequence_cost(Sequence::DivS64).depth, 38u) << k;
  }
}

}  // namespace
}  // namespace softgpu::config
