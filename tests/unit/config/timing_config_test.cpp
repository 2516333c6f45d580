// The [timing] part of the configs: the shipped values against the published
// figures they come from (recomputed here by hand), its rejections by name,
// and hypothetical GPUs built on a shipped base.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/gpu_config.h"
#include "test_util.h"

namespace softgpu::config {
namespace {

GpuConfig shipped(const std::string& key) {
  auto c = load_gpu_config(kShipped / (key + ".toml"), kShipped);
  EXPECT_TRUE(c.ok()) << key << ": " << c.error().message;
  return c.ok() ? *c : GpuConfig{};
}

// ---- Shipped values ----------------------------------------------------------

TEST(ShippedTiming, EveryConfigHasTiming) {
  auto all = load_all_gpu_configs(kShipped);
  ASSERT_TRUE(all.ok()) << all.error().message;
  ASSERT_GE(all->size(), 5u);
  for (const auto& c : *all) {
    EXPECT_EQ(c.timing.sub_partitions, 4u) << c.key;  // four warp schedulers per SM on every part
    EXPECT_GE(c.timing.l1_shared_bytes, c.shared_memory_per_sm) << c.key;
    EXPECT_GT(c.timing.dram_latency, c.timing.l2_latency) << c.key;
    EXPECT_GT(c.timing.l2_latency, c.timing.l1_latency) << c.key;
    EXPECT_GT(c.timing.tensor_fp16_f32, 0) << c.key;
  }
}

TEST(ShippedTiming, Rtx4090MatchesWhitepaperAndDeviceQuery) {
  const GpuConfig c = shipped("rtx4090");
  EXPECT_EQ(c.name, "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(c.cc_major, 8u);
  EXPECT_EQ(c.cc_minor, 9u);
  EXPECT_EQ(c.sm_count, 128u);
  EXPECT_EQ(c.clock_khz, 2520000u);
  EXPECT_EQ(c.max_threads_per_sm, 1536u);
  EXPECT_EQ(c.shared_memory_per_sm, 100 * KiB);
  EXPECT_EQ(c.l2_cache_bytes, 72 * MiB);
  EXPECT_EQ(c.memory_bus_width_bits, 384u);
  EXPECT_EQ(c.memory_type, "GDDR6X");
  EXPECT_NEAR(c.memory_bandwidth_gbps, 2.0 * 10501 * 48 / 1000, 0.01 * 1008);  // 1008.1
  EXPECT_EQ(c.max_cluster_size, 0u);
  EXPECT_EQ(c.timing.l1_shared_bytes, 128 * KiB);
}

// interval = 32 lanes / (results per clock per SM / 4 sub-partitions), from
// the Programming Guide's throughput table, recomputed here.
TEST(ShippedTiming, IntervalsFollowFromThroughputTable) {
  struct Rates { const char* key; double fp32, fp64, f16x2_lanes, int32, mufu, shfl; };
  const Rates rates[] = {{"a100", 64, 32, 128, 64, 16, 32},   {"h100", 128, 64, 128, 64, 16, 32},
                         {"h100pcie", 128, 64, 128, 64, 16, 32},
                         {"h200", 128, 64, 128, 64, 16, 32},  {"l4", 128, 2, 64, 64, 16, 32},
                         {"rtx4090", 128, 2, 64, 64, 16, 32}};
  auto interval = [](double per_sm) { return uint32_t(32 / (per_sm / 4)); };
  for (const auto& r : rates) {
    const GpuConfig c = shipped(r.key);
    EXPECT_EQ(c.timing.fma.interval, interval(r.fp32)) << r.key;
    EXPECT_EQ(c.timing.fp64.interval, interval(r.fp64)) << r.key;
    EXPECT_EQ(c.timing.fp16.interval, interval(r.f16x2_lanes)) << r.key;
    EXPECT_EQ(c.timing.alu.interval, interval(r.int32)) << r.key;
    EXPECT_EQ(c.timing.xu.interval, interval(r.mufu)) << r.key;
    EXPECT_EQ(c.timing.lsu.interval, interval(r.shfl)) << r.key;
  }
  EXPECT_EQ(shipped("a100").timing.fma.interval, 2u);
  EXPECT_EQ(shipped("l4").timing.fp64.interval, 64u);
}

// Dense tensor FLOP/clk/SM x SMs x clock gives back the spec sheet's TFLOP/s.
TEST(ShippedTiming, TensorRatesGiveSpecSheetPeaks) {
  struct Peak { const char* key; double ghz, fp16_f32_tflops, int8_tops; };
  const Peak peaks[] = {{"a100", 1.41, 312, 624},      // A100 whitepaper
                        {"h100", 1.83, 989.4, 1978.9}, // H100 datasheet (tensor clock 1830 MHz)
                        {"h100pcie", 1.62, 756.5, 1513}, // H100 datasheet, PCIe: 1,513 / 3,026 sparse, halved
                        {"h200", 1.83, 989.4, 1978.9},
                        {"rtx4090", 2.52, 165.2, 660.6},
                        {"l4", 2.04, 121, 242.5}};     // L4 datasheet, sparse figures halved
  for (const auto& p : peaks) {
    const GpuConfig c = shipped(p.key);
    const double scale = c.sm_count * p.ghz / 1000;  // FLOP/clk/SM -> TFLOP/s
    EXPECT_NEAR(c.timing.tensor_fp16_f32 * scale, p.fp16_f32_tflops, 0.01 * p.fp16_f32_tflops) << p.key;
    EXPECT_NEAR(c.timing.tensor_int8 * scale, p.int8_tops, 0.01 * p.int8_tops) << p.key;
  }
  EXPECT_EQ(shipped("a100").timing.tensor_fp8_f32, 0);              // no FP8 before 8.9
  EXPECT_EQ(shipped("rtx4090").timing.tensor_fp16_f16, 2 * 512.0);  // GeForce: f32 accumulate at half rate
  // The tensor pipe's interval is one m16n8k16 (2 x 16 x 8 x 16 FLOP) per sub-partition.
  for (const char* k : {"a100", "h100", "h100pcie", "h200", "l4", "rtx4090"}) {
    const GpuConfig c = shipped(k);
    EXPECT_EQ(c.timing.tensor.interval, uint32_t(4096 / (c.timing.tensor_fp16_f32 / 4))) << k;
  }
}

// Achievable DRAM fraction x spec = the measured BabelStream triad.
TEST(ShippedTiming, DramEfficiencyMatchesBabelStream) {
  struct Triad { const char* key; double tbps; };
  for (const Triad& t : {Triad{"a100", 1.70}, Triad{"h100", 2.97}, Triad{"h200", 4.15}}) {
    const GpuConfig c = shipped(t.key);
    EXPECT_NEAR(c.timing.dram_efficiency * c.memory_bandwidth_gbps, t.tbps * 1000, 5) << t.key;
  }
}

// ---- Rejections ----------------------------------------------------------------

TEST(RejectsTiming, UnknownKeysByName) {
  expect_rejected(edited("h100", "barrier_latency = 20", "barrier_latency = 20\nbarrier_cost = 4"),
                  "unknown key 'timing.barrier_cost'");
  expect_rejected(edited("h100", "fma = { latency = 4, interval = 1 }", "fma = { latency = 4, interval = 1, width = 2 }"),
                  "unknown key 'timing.pipes.fma.width'");
  expect_rejected(edited("h100", "fma = { latency = 4, interval = 1 }", "fma = { latency = 4, interval = 1 }\nsfu = { latency = 4 }"),
                  "unknown section '[timing.pipes.sfu]'");
  expect_rejected(edited("h100", "[timing.tensor]", "[timing.tensor]\nfp4 = 16384"), "unknown key 'timing.tensor.fp4'");
  expect_rejected(edited("h100", "[timing.host]", "[timing.hosts]"), "unknown section '[timing.hosts]'");
  expect_rejected(edited("h100", "div_rn_f32 = { slots = 8, depth = 6 }",
                         "div_rn_f32 = { slots = 8, depth = 6 }\ndiv_rn_f16 = { slots = 8, depth = 6 }"),
                  "unknown section '[timing.sequences.div_rn_f16]'");
  expect_rejected(edited("h100", "div_rn_f32 = { slots = 8, depth = 6 }", "div_rn_f32 = { slots = 8, depth = 6, pipe = 1 }"),
                  "unknown key 'timing.sequences.div_rn_f32.pipe'");
}

// The single sequence_slots of earlier configs is no longer a key.
TEST(RejectsTiming, OldSequenceSlotsKey) {
  expect_rejected(edited("h100", "barrier_latency = 20", "barrier_latency = 20\nsequence_slots = 8"),
                  "unknown key 'timing.sequence_slots'");
}

TEST(RejectsTiming, BadValuesByName) {
  expect_rejected(edited("h100", "scheduler = \"lrr\"", "scheduler = \"fifo\""),
                  "key 'timing.scheduler' must be \"gto\" or \"lrr\", got string \"fifo\"");
  expect_rejected(edited("h100", "fma = { latency = 4, interval = 1 }", "fma = 4"),
                  "'timing.pipes.fma' must be a table ([timing.pipes.fma] or fma = { ... }), got integer 4");
  expect_rejected(edited("h100", "fma = { latency = 4, interval = 1 }", "fma = { latency = 0, interval = 1 }"),
                  "key 'timing.pipes.fma.latency' = 0 is out of range (must be in [1, 100000])");
  expect_rejected(edited("h100", "dram_efficiency = 0.887", "dram_efficiency = 1.5"),
                  "key 'timing.memory.dram_efficiency' = 1.5 is out of range (must be in [0.01, 1])");
  expect_rejected(edited("h100", "l1_latency = 34", "l1_latency = \"34\""),
                  "key 'timing.memory.l1_latency' must be an integer, got string \"34\"");
  expect_rejected(edited("h100", "fp64 = { latency = 8, interval = 2 }", "fp64 = { latency = 1, interval = 2 }"),
                  "timing.pipes.fp64.latency = 1 is less than its interval 2");
  expect_rejected(edited("h100", "l1_shared_bytes = 262144", "l1_shared_bytes = 131072"),
                  "timing.memory.l1_shared_bytes = 131072 is less than sm.shared_memory_per_sm = 233472");
  expect_rejected(edited("h100", "l2_far_latency = 480", "l2_far_latency = 100"),
                  "timing.memory.l2_far_latency = 100 is less than timing.memory.l2_latency = 265");
  expect_rejected(edited("h100", "div_s64 = { slots = 88, depth = 38 }", "div_s64 = { slots = 88, depth = 89 }"),
                  "timing.sequences.div_s64.depth = 89 exceeds its slots 88");
  expect_rejected(edited("h100", "mul_lo_64 = { slots = 4, depth = 3 }", "mul_lo_64 = { slots = 0, depth = 3 }"),
                  "key 'timing.sequences.mul_lo_64.slots' = 0 is out of range (must be in [1, 10000])");
}

TEST(RejectsTiming, MissingTimingIsOneError) {
  std::string text = read_text(kShipped / "h100.toml");
  text.erase(text.find("\n[timing]"));
  const std::string msg = expect_rejected(text, "missing section '[timing]'");
  EXPECT_EQ(msg.find("missing key 'timing."), std::string::npos) << msg;
  expect_rejected(edited("h100", "l2_ways = 16", ""), "missing key 'timing.memory.l2_ways'");
  expect_rejected(edited("h100", "tex = { latency = 34, interval = 32 }", "tex = { latency = 34 }"),
                  "missing key 'timing.pipes.tex.interval'");
  expect_rejected(edited("h100", "rem_u32 = { slots = 17, depth = 13 }", ""), "missing key 'timing.sequences.rem_u32.slots'");
}

// ---- Hypothetical GPUs: base + overrides -------------------------------------

TEST(Base, OverridesAndInheritsTheRest) {
  TempDir dir;
  const auto file = dir.write("big_h100.toml",
                              "base = \"h100\"\n"
                              "[device]\nname = \"H100 with more\"\nsm_count = 144\n"
                              "[memory]\nl2_cache_bytes = 104857600\n"
                              "[timing.pipes]\nfma = { latency = 6 }\n");
  auto c = load_gpu_config(file, kShipped);
  ASSERT_TRUE(c.ok()) << c.error().message;
  const GpuConfig h100 = shipped("h100");
  EXPECT_EQ(c->key, "big_h100");
  EXPECT_EQ(c->name, "H100 with more");
  EXPECT_EQ(c->sm_count, 144u);
  EXPECT_EQ(c->l2_cache_bytes, 100 * MiB);
  EXPECT_EQ(c->timing.fma.latency, 6u);
  EXPECT_EQ(c->timing.fma.interval, 1u);  // inherited from the inline table it partly overrides
  EXPECT_EQ(c->clock_khz, h100.clock_khz);
  EXPECT_EQ(c->memory_bandwidth_gbps, h100.memory_bandwidth_gbps);
  EXPECT_EQ(c->timing.dram_latency, h100.timing.dram_latency);
  EXPECT_EQ(c->timing.tensor_fp16_f32, h100.timing.tensor_fp16_f32);
}

TEST(Base, ChainsAndPaths) {
  TempDir dir;
  dir.write("mid.toml", "base = \"h100\"\n[device]\nname = \"mid\"\n[sm]\nclock_khz = 1000000\n");
  const auto top = dir.write("top.toml", "base = \"mid.toml\"\n[device]\nname = \"top\"\n");
  auto c = load_gpu_config(top, kShipped);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->name, "top");
  EXPECT_EQ(c->clock_khz, 1000000u);  // from mid
  EXPECT_EQ(c->sm_count, 132u);       // from h100
  // find_gpu_config takes a path wherever it takes a name.
  auto f = find_gpu_config(top.string(), kShipped);
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->key, "top");
}

TEST(Base, ShippedExampleHasTwiceTheL2) {
  const fs::path example = kShipped / ".." / "examples" / "h100_2x_l2.toml";
  auto c = find_gpu_config(example.string(), kShipped);
  ASSERT_TRUE(c.ok()) << c.error().message;
  const GpuConfig h100 = shipped("h100");
  EXPECT_EQ(c->l2_cache_bytes, 2 * h100.l2_cache_bytes);
  EXPECT_EQ(c->sm_count, h100.sm_count);
  EXPECT_EQ(c->timing.l2_latency, h100.timing.l2_latency);
  EXPECT_NE(c->name, h100.name);
}

TEST(Base, MissingBaseIsAnError) {
  TempDir dir;
  auto r = load_gpu_config(dir.write("x.toml", "base = \"b200\"\n"), kShipped);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().status, Status::InvalidValue);
  EXPECT_NE(r.error().message.find("x.toml:1:8: base \"b200\" not found"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("available: a100, h100, h100pcie, h200, l4, rtx4090"), std::string::npos) << r.error().message;
  r = load_gpu_config(dir.write("y.toml", "base = \"nothere.toml\"\n"), kShipped);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("base \"nothere.toml\" not found"), std::string::npos) << r.error().message;
  r = load_gpu_config(dir.write("z.toml", "base = 7\n"), kShipped);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("key 'base' must be a GPU key (\"h100\") or a .toml path, got integer 7"),
            std::string::npos) << r.error().message;
}

TEST(Base, CyclicBaseIsAnError) {
  TempDir dir;
  dir.write("a.toml", "base = \"b.toml\"\n");
  dir.write("b.toml", "base = \"a.toml\"\n");
  auto r = load_gpu_config(dir.path() / "a.toml", kShipped);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().status, Status::InvalidValue);
  EXPECT_NE(r.error().message.find("cyclic base: a.toml -> b.toml -> a.toml"), std::string::npos) << r.error().message;
  r = load_gpu_config(dir.write("self.toml", "base = \"self.toml\"\n"), kShipped);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cyclic base: self.toml -> self.toml"), std::string::npos) << r.error().message;
  // A key base in a config directory can loop too.
  TempDir keys;
  keys.write("p.toml", "base = \"q\"\n");
  keys.write("q.toml", "base = \"p\"\n");
  r = load_gpu_config(keys.path() / "p.toml", keys.path());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cyclic base: p.toml -> q.toml -> p.toml"), std::string::npos) << r.error().message;
}

TEST(Base, ErrorsPointAtTheFileThatSetTheValue) {
  TempDir dir;
  const auto file = dir.write("bad.toml", "base = \"h100\"\n[sm]\nsm_clock = 5\n");
  auto r = load_gpu_config(file, kShipped);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("bad.toml:3:1: unknown key 'sm.sm_clock'"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace softgpu::config
