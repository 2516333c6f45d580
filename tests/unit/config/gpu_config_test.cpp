// Tests for the GPU config loader: the shipped files hold the published
// figures, and every kind of bad file is rejected with the key named.
#include "config/gpu_config.h"

#include <gtest/gtest.h>

#include "test_util.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace softgpu::config {
namespace {

// ---- The shipped configs hold the published values -------------------------

TEST(ShippedConfigs, AllLoadSortedByKey) {
  auto all = load_all_gpu_configs(kShipped);
  ASSERT_TRUE(all.ok()) << all.error().message;
  std::vector<std::string> keys;
  for (const auto& c : *all) keys.push_back(c.key);
  ASSERT_GE(keys.size(), 3u);
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  for (const char* k : {"a100", "h100", "h100pcie", "h200", "l4", "rtx4090"})
    EXPECT_NE(std::find(keys.begin(), keys.end(), k), keys.end()) << k;
}

TEST(ShippedConfigs, H100MatchesWhitepaper) {
  auto c = load_gpu_config(kShipped / "h100.toml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->key, "h100");
  EXPECT_EQ(c->name, "NVIDIA H100 SXM5 80GB");
  EXPECT_EQ(c->cc_major, 9u);
  EXPECT_EQ(c->cc_minor, 0u);
  EXPECT_EQ(c->sm_count, 132u);                         // whitepaper: H100 SXM5 132 SMs
  EXPECT_EQ(c->max_threads_per_sm, 2048u);
  EXPECT_EQ(c->max_blocks_per_sm, 32u);
  EXPECT_EQ(c->shared_memory_per_sm, 228 * KiB);        // "configurable up to 228 KB"
  EXPECT_EQ(c->shared_memory_per_block_optin, 227 * KiB);
  EXPECT_EQ(c->shared_memory_per_block, 48 * KiB);
  EXPECT_EQ(c->registers_per_sm * 4, 256 * KiB);        // 256 KB register file
  EXPECT_EQ(c->l2_cache_bytes, 50 * MiB);               // 50 MB L2
  EXPECT_EQ(c->memory_bus_width_bits, 5120u);
  EXPECT_EQ(c->memory_type, "HBM3");
  EXPECT_DOUBLE_EQ(c->memory_bandwidth_gbps, 3350.0);   // 3.35 TB/s
  EXPECT_EQ(c->clock_khz, 1980000u);
  EXPECT_EQ(c->max_cluster_size, 8u);
  // "80GB": what the driver leaves usable is a little under 80 GiB.
  EXPECT_GT(c->global_memory_bytes, 79 * GiB);
  EXPECT_LT(c->global_memory_bytes, 80 * GiB);
}


// The PCIe card: the SXM5's SM and L2 (inherited through `base`), its own
// SM count, clock and HBM2e (NVIDIA's H100 description: 114 SMs, 80 GB
// HBM2e on 10 512-bit controllers, 50 MB L2, 2 TB/s).
TEST(ShippedConfigs, H100PcieIsTheSxmSmWithItsOwnCountClockAndMemory) {
  auto c = load_gpu_config(kShipped / "h100pcie.toml", kShipped);
  auto sxm = load_gpu_config(kShipped / "h100.toml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_TRUE(sxm.ok()) << sxm.error().message;
  EXPECT_EQ(c->key, "h100pcie");
  EXPECT_EQ(c->name, "NVIDIA H100 PCIe 80GB");
  EXPECT_EQ(c->sm_count, 114u);
  EXPECT_EQ(c->clock_khz, 1755000u);
  EXPECT_EQ(c->memory_type, "HBM2e");
  EXPECT_EQ(c->memory_bus_width_bits, 5120u);
  EXPECT_EQ(c->l2_cache_bytes, 50 * MiB);
  EXPECT_NEAR(c->memory_bandwidth_gbps, 2000, 0.05 * 2000);
  // FP32: 114 SMs x 128 lanes x 2 FLOP x 1.755 GHz = the datasheet's 51 TFLOPS.
  EXPECT_NEAR(c->sm_count * 128 * 2 * double(c->clock_khz) / 1e9, 51.2, 0.1);
  EXPECT_EQ(c->timing.fma.interval, sxm->timing.fma.interval);
  EXPECT_EQ(c->timing.tensor_fp16_f32, sxm->timing.tensor_fp16_f32);
  EXPECT_EQ(c->timing.l2_latency, sxm->timing.l2_latency);
  EXPECT_EQ(c->timing.dram_latency, sxm->timing.dram_latency);
  EXPECT_NE(c->timing.dram_efficiency, sxm->timing.dram_efficiency);
}
TEST(ShippedConfigs, A100MatchesWhitepaper) {
  auto c = load_gpu_config(kShipped / "a100.toml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->cc_major, 8u);
  EXPECT_EQ(c->cc_minor, 0u);
  EXPECT_EQ(c->sm_count, 108u);                         // 108 SMs
  EXPECT_EQ(c->max_threads_per_sm, 2048u);
  EXPECT_EQ(c->shared_memory_per_sm, 164 * KiB);        // "configurable up to 164 KB"
  EXPECT_EQ(c->shared_memory_per_block_optin, 163 * KiB);
  EXPECT_EQ(c->l2_cache_bytes, 40960 * KiB);            // 40960 KB L2
  EXPECT_EQ(c->clock_khz, 1410000u);                    // 1410 MHz boost
  EXPECT_DOUBLE_EQ(c->memory_bandwidth_gbps, 2039.0);   // A100 80GB SXM datasheet
  EXPECT_EQ(c->memory_type, "HBM2e");
  EXPECT_EQ(c->max_cluster_size, 0u);                   // no clusters before 9.0
  EXPECT_GT(c->global_memory_bytes, 79 * GiB);
  EXPECT_LT(c->global_memory_bytes, 80 * GiB);
}

TEST(ShippedConfigs, H200MatchesDatasheetAndHardware) {
  auto c = load_gpu_config(kShipped / "h200.toml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->cc_major, 9u);
  EXPECT_EQ(c->sm_count, 132u);
  EXPECT_EQ(c->memory_type, "HBM3e");
  EXPECT_DOUBLE_EQ(c->memory_bandwidth_gbps, 4800.0);   // 4.8 TB/s
  // Sold as 141 GB; the driver reported 150109880320 bytes (139.8 GiB, 150.1 GB).
  EXPECT_EQ(c->global_memory_bytes, 150109880320ull);
  EXPECT_GT(c->global_memory_bytes, 139 * GiB);
  EXPECT_LT(c->global_memory_bytes, 141 * GiB);
  EXPECT_EQ(c->shared_memory_per_sm, 228 * KiB);
  EXPECT_EQ(c->memory_clock_khz, 3201000u);
}

TEST(ShippedConfigs, L4MatchesComputeCapability89) {
  auto c = load_gpu_config(kShipped / "l4.toml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->cc_major, 8u);
  EXPECT_EQ(c->cc_minor, 9u);
  EXPECT_EQ(c->sm_count, 58u);
  EXPECT_EQ(c->max_threads_per_sm, 1536u);              // 8.9: 48 warps, not 64
  EXPECT_EQ(c->max_blocks_per_sm, 24u);
  EXPECT_EQ(c->shared_memory_per_sm, 100 * KiB);
  EXPECT_EQ(c->shared_memory_per_block_optin, 99 * KiB);
  EXPECT_EQ(c->l2_cache_bytes, 48 * MiB);
  EXPECT_EQ(c->memory_type, "GDDR6");
  EXPECT_DOUBLE_EQ(c->memory_bandwidth_gbps, 300.0);
}

// Independent of the loader's own 5% rule: recompute each part's DDR
// bandwidth by hand and compare with the datasheet figure.
TEST(ShippedConfigs, BandwidthFollowsFromClockAndBusWidth) {
  struct Expect { const char* key; double gbps; };
  // 2 transfers/clock x MHz x bytes per transfer / 1000.
  const Expect expects[] = {{"a100", 2.0 * 1593 * 640 / 1000},    // 2039.04
                            {"h100", 2.0 * 2619 * 640 / 1000},    // 3352.32
                            {"h100pcie", 2.0 * 1593 * 640 / 1000}, // 2039.04
                            {"h200", 2.0 * 3201 * 752 / 1000},    // 4814.30
                            {"l4", 2.0 * 6251 * 24 / 1000},       // 300.05
                            {"rtx4090", 2.0 * 10501 * 48 / 1000}}; // 1008.10
  for (const auto& e : expects) {
    auto c = load_gpu_config(kShipped / (std::string(e.key) + ".toml"));
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_NEAR(c->memory_bandwidth_gbps, e.gbps, 0.01 * e.gbps) << e.key;
  }
}

// ---- Rejections name the key ------------------------------------------------

TEST(Rejects, UnknownKeyWithLocation) {
  const std::string text = edited("h100", "registers_per_sm = 65536", "regs_per_sm = 65536");
  const std::string msg = expect_rejected(text, "unknown key 'sm.regs_per_sm'");
  const int line = line_of(text, "regs_per_sm");
  EXPECT_NE(msg.find("h100.toml:" + std::to_string(line) + ":1: unknown key 'sm.regs_per_sm'"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("missing key 'sm.registers_per_sm'"), std::string::npos) << msg;
}

TEST(Rejects, UnknownSection) {
  const std::string text = read_text(kShipped / "h100.toml") + "\n[power]\ntdp_watts = 700\n";
  expect_rejected(text, "unknown section '[power]' (known: [device], [limits], [sm], [memory], [timing])");
}

TEST(Rejects, KeyOutsideAnySection) {
  expect_rejected("sm_count = 132\n" + read_text(kShipped / "h100.toml"), "unknown key 'sm_count'");
}

TEST(Rejects, KeyInWrongSection) {
  // l2_cache_bytes belongs in [memory]: in [sm] it is unknown, and [memory] lacks it.
  std::string text = edited("h100", "l2_cache_bytes = 52428800", "");
  text.replace(text.find("clock_khz = 1980000"), 0, "l2_cache_bytes = 52428800\n");
  expect_rejected(text, "unknown key 'sm.l2_cache_bytes'");
  expect_rejected(text, "missing key 'memory.l2_cache_bytes'");
}

TEST(Rejects, MissingKey) {
  expect_rejected(edited("h100", "sm_count = 132", ""), "missing key 'device.sm_count'");
}

TEST(Rejects, WrongTypes) {
  expect_rejected(edited("h100", "sm_count = 132", "sm_count = \"132\""),
                  "key 'device.sm_count' must be an integer, got string \"132\"");
  expect_rejected(edited("h100", "clock_khz = 1980000", "clock_khz = 1980000.0"),
                  "key 'sm.clock_khz' must be an integer, got float 1980000");
  expect_rejected(edited("h100", "name = \"NVIDIA H100 SXM5 80GB\"", "name = 100"),
                  "key 'device.name' must be a string, got integer 100");
  expect_rejected(edited("h100", "bandwidth_gbps = 3350.0", "bandwidth_gbps = true"),
                  "key 'memory.bandwidth_gbps' must be a number, got boolean true");
  expect_rejected(edited("h100", "compute_capability = \"9.0\"", "compute_capability = 9.0"),
                  "key 'device.compute_capability' must be a string like \"9.0\", got float 9");
  expect_rejected(edited("h100", "compute_capability = \"9.0\"", "compute_capability = \"nine\""),
                  "key 'device.compute_capability' = \"nine\" is not a compute capability");
  expect_rejected(edited("h100", "compute_capability = \"9.0\"", "compute_capability = \"9.0.1\""),
                  "key 'device.compute_capability' = \"9.0.1\"");
  expect_rejected(edited("h100", "[device]", "device = 1\n[devicex]"), "'device' must be a section");
}

TEST(Rejects, Arrays) {
  expect_rejected(edited("h100", "max_block_dim = [1024, 1024, 64]", "max_block_dim = [1024, 1024]"),
                  "key 'limits.max_block_dim' must be an array of 3 integers [x, y, z], got 2 elements");
  expect_rejected(edited("h100", "max_block_dim = [1024, 1024, 64]", "max_block_dim = [1024, 0, 64]"),
                  "key 'limits.max_block_dim[1]' = 0 is out of range");
  expect_rejected(edited("h100", "max_block_dim = [1024, 1024, 64]", "max_block_dim = 1024"),
                  "key 'limits.max_block_dim' must be an array of 3 integers [x, y, z], got integer 1024");
}

TEST(Rejects, OutOfRange) {
  expect_rejected(edited("h100", "sm_count = 132", "sm_count = 0"),
                  "key 'device.sm_count' = 0 is out of range (must be in [1, 4096])");
  expect_rejected(edited("h100", "warp_size = 32", "warp_size = 64"),
                  "key 'device.warp_size' = 64 is out of range (must be 32)");
  expect_rejected(edited("h100", "global_memory_bytes = 85028896768", "global_memory_bytes = -1"),
                  "key 'device.global_memory_bytes' = -1 is out of range");
  expect_rejected(edited("h100", "max_registers_per_thread = 255", "max_registers_per_thread = 256"),
                  "key 'sm.max_registers_per_thread' = 256 is out of range (must be in [1, 255])");
  expect_rejected(edited("h100", "bandwidth_gbps = 3350.0", "bandwidth_gbps = -3350.0"),
                  "key 'memory.bandwidth_gbps' = -3350 is out of range");
  expect_rejected(edited("h100", "bandwidth_gbps = 3350.0", "bandwidth_gbps = nan"),
                  "key 'memory.bandwidth_gbps' = nan is out of range");
  expect_rejected(edited("h100", "name = \"NVIDIA H100 SXM5 80GB\"", "name = \"\""),
                  "key 'device.name' = \"\" must be 1 to 255 characters long");
}

TEST(Rejects, InconsistentValues) {
  expect_rejected(edited("h100", "shared_memory_per_block = 49152", "shared_memory_per_block = 262144"),
                  "sm.shared_memory_per_block = 262144 exceeds sm.shared_memory_per_sm = 233472");
  expect_rejected(edited("h100", "shared_memory_per_block_optin = 232448", "shared_memory_per_block_optin = 233472"),
                  "sm.shared_memory_per_block_optin = 233472 plus sm.reserved_shared_memory_per_block = 1024 "
                  "exceeds sm.shared_memory_per_sm = 233472");
  expect_rejected(edited("h100", "max_warps_per_sm = 64", "max_warps_per_sm = 48"),
                  "sm.max_threads_per_sm = 2048 must equal sm.max_warps_per_sm (48) x device.warp_size (32)");
  expect_rejected(edited("h100", "registers_per_block = 65536", "registers_per_block = 131072"),
                  "sm.registers_per_block = 131072 exceeds sm.registers_per_sm = 65536");
  expect_rejected(edited("h100", "max_threads_per_block = 1024", "max_threads_per_block = 512"),
                  "limits.max_block_dim[0] = 1024 exceeds limits.max_threads_per_block = 512");
  expect_rejected(edited("h100", "bandwidth_gbps = 3350.0", "bandwidth_gbps = 33500.0"),
                  "memory.bandwidth_gbps = 33500 disagrees by more than 5%");
  expect_rejected(edited("a100", "max_cluster_size = 0", "max_cluster_size = 8"),
                  "limits.max_cluster_size = 8 but compute capability 8.0 has no clusters", "a100");
}

TEST(Rejects, SyntaxErrorReportsLineAndColumn) {
  const std::string text = edited("h100", "sm_count = 132", "sm_count = = 132");
  const int line = line_of(text, "sm_count = = 132");
  const std::string msg = expect_rejected(text, "h100.toml:" + std::to_string(line) + ":");
  EXPECT_NE(msg.find("TOML syntax error"), std::string::npos) << msg;
}

TEST(Rejects, DuplicateKeyIsASyntaxError) {
  const std::string text = edited("h100", "sm_count = 132", "sm_count = 132\nsm_count = 133");
  const int line = line_of(text, "sm_count = 133");
  expect_rejected(text, "h100.toml:" + std::to_string(line) + ":");
}

TEST(Rejects, MissingFile) {
  auto r = load_gpu_config(kShipped / "no-such-gpu.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().status, Status::FileNotFound);
  EXPECT_NE(r.error().message.find("no-such-gpu.toml"), std::string::npos);
}

TEST(Rejects, DuplicateNamesInDirectory) {
  TempDir dir;
  const std::string h100 = read_text(kShipped / "h100.toml");
  dir.write("h100.toml", h100);
  dir.write("h100copy.toml", h100);
  auto r = load_all_gpu_configs(dir.path());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("device.name \"NVIDIA H100 SXM5 80GB\" is also used by"), std::string::npos)
      << r.error().message;
}

// ---- Lookup -----------------------------------------------------------------

TEST(Find, ByKeyAndByNameCaseInsensitive) {
  for (const char* q : {"h100", "H100", "NVIDIA H100 SXM5 80GB", "nvidia h100 sxm5 80gb"}) {
    auto c = find_gpu_config(q, kShipped);
    ASSERT_TRUE(c.ok()) << q << ": " << c.error().message;
    EXPECT_EQ(c->key, "h100") << q;
  }
  auto a = find_gpu_config("nVidia A100 SXM4 80gb", kShipped);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->sm_count, 108u);
}

TEST(Find, UnknownListsWhatExists) {
  auto r = find_gpu_config("b200", kShipped);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().status, Status::InvalidValue);
  EXPECT_NE(r.error().message.find("unknown GPU 'b200'"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("h100 (NVIDIA H100 SXM5 80GB)"), std::string::npos) << r.error().message;
}

TEST(Find, ByKeyIgnoresOtherBrokenFiles) {
  TempDir dir;
  dir.write("h100.toml", read_text(kShipped / "h100.toml"));
  dir.write("broken.toml", "[device\n");
  EXPECT_TRUE(find_gpu_config("h100", dir.path()).ok());
  // A name search has to read every file, so the broken one is reported.
  auto r = find_gpu_config("NVIDIA H100 SXM5 80GB", dir.path());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("broken.toml:1:"), std::string::npos) << r.error().message;
}

TEST(Find, MissingDirectory) {
  auto r = find_gpu_config("h100", "/nonexistent/softgpu/configs");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().status, Status::FileNotFound);
}

// ---- SOFTGPU_CONFIG_DIR -----------------------------------------------------

TEST(ConfigDir, EnvironmentOverridesBuiltInDirectory) {
  unsetenv("SOFTGPU_CONFIG_DIR");
  EXPECT_EQ(default_config_dir(), kShipped);
  auto shipped = find_gpu_config("h100");
  ASSERT_TRUE(shipped.ok()) << shipped.error().message;
  EXPECT_EQ(shipped->sm_count, 132u);

  TempDir dir;
  dir.write("h100.toml", edited("h100", "sm_count = 132", "sm_count = 7"));
  setenv("SOFTGPU_CONFIG_DIR", dir.path().c_str(), 1);
  EXPECT_EQ(default_config_dir(), dir.path());
  auto overridden = find_gpu_config("h100");
  unsetenv("SOFTGPU_CONFIG_DIR");
  ASSERT_TRUE(overridden.ok()) << overridden.error().message;
  EXPECT_EQ(overridden->sm_count, 7u);

  // An empty value means "not set".
  setenv("SOFTGPU_CONFIG_DIR", "", 1);
  EXPECT_EQ(default_config_dir(), kShipped);
  unsetenv("SOFTGPU_CONFIG_DIR");
}

}  // namespace
}  // namespace softgpu::config
