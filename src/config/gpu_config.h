// A simulated GPU's description, loaded from configs/gpus/NAME.toml.
// Immutable after load; every number in the files cites its source.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/types.h"
#include "config/timing_config.h"

namespace softgpu::config {

struct GpuConfig {
  std::string name;            // "NVIDIA H100 SXM5 80GB"
  std::string key;             // file stem, e.g. "h100"
  uint32_t cc_major = 0, cc_minor = 0;  // compute capability
  uint32_t sm_count = 0;
  uint64_t global_memory_bytes = 0;
  uint32_t warp_size = 32;
  uint32_t max_threads_per_block = 1024;
  uint32_t max_block_dim_x = 1024, max_block_dim_y = 1024, max_block_dim_z = 64;
  uint32_t max_grid_dim_x = 2147483647, max_grid_dim_y = 65535, max_grid_dim_z = 65535;
  uint32_t max_threads_per_sm = 2048;
  uint32_t max_blocks_per_sm = 32;
  uint32_t max_warps_per_sm = 64;
  uint32_t registers_per_sm = 65536;
  uint32_t registers_per_block = 65536;
  uint32_t max_registers_per_thread = 255;
  uint64_t shared_memory_per_sm = 0;           // bytes, the configurable carve-out maximum
  uint64_t shared_memory_per_block = 49152;    // default (static) limit
  uint64_t shared_memory_per_block_optin = 0;  // with cudaFuncAttributeMaxDynamicSharedMemorySize
  uint64_t reserved_shared_memory_per_block = 1024;
  uint64_t constant_memory_bytes = 65536;
  uint64_t l2_cache_bytes = 0;
  uint32_t clock_khz = 0;             // boost SM clock
  uint32_t memory_clock_khz = 0;
  uint32_t memory_bus_width_bits = 0;
  double memory_bandwidth_gbps = 0;   // GB/s
  std::string memory_type;            // "HBM3", "HBM3e", "GDDR6", ...
  uint32_t async_engine_count = 2;
  uint32_t max_cluster_size = 8;      // 0 when the chip has no clusters
  TimingConfig timing;                // [timing]: what the timing model needs
};

std::filesystem::path default_config_dir();

// Loads one file. Unknown sections/keys, missing keys, wrong types and
// out-of-range values give Status::InvalidValue naming the key (and the value);
// TOML syntax errors report file:line:col. A missing file gives FileNotFound.
// A top-level `base = "h100"` starts from that config (a key in config_dir,
// or a .toml path relative to `file`) and overrides the keys `file` sets;
// a missing or cyclic base is InvalidValue. The key is `file`'s stem.
Result<GpuConfig> load_gpu_config(const std::filesystem::path& file,
                                  const std::filesystem::path& config_dir = default_config_dir());

// Directory holding the shipped configs: $SOFTGPU_CONFIG_DIR if set; else
// share/softgpu/gpus of the install prefix, found relative to the binary
// that contains this code (bin/softgpu or lib/softgpu/libcudart.so.13);
// else the source tree's configs/gpus (a build tree). See config_dir.cpp.
std::filesystem::path default_config_dir();

// Every *.toml in dir, sorted by key; errors for any that fail to load.
Result<std::vector<GpuConfig>> load_all_gpu_configs(const std::filesystem::path& dir);

// Finds a config by key ("h100") or name, case-insensitive; a path (with a
// '/' or ending in .toml) is loaded as a file, with bases looked up in dir.
Result<GpuConfig> find_gpu_config(const std::string& name_or_key, const std::filesystem::path& dir = default_config_dir());

// The GPU used when none is named.
inline constexpr const char* kDefaultGpu = "h100";

}  // namespace softgpu::config
