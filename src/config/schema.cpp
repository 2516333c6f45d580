// The whole schema. Bounds reject nonsense (zero SMs, negative sizes); the
// cross-field rules in the loader's check_consistency() catch contradictions
// between keys. A new key is one row here plus its field in GpuConfig.
#include "config/schema.h"

#include <algorithm>

namespace softgpu::config::schema {
namespace {

// The field `m` of GpuConfig (`timing.l1_latency` reaches into TimingConfig).
#define AT(m) +[](GpuConfig& c) -> auto& { return c.m; }
// The two keys of one pipe's inline table: fma = { latency = 4, interval = 1 }.
#define PIPE(name)                                                                   \
  Field{"timing.pipes." #name, "latency", AT(timing.name.latency), 1, 100000},       \
      Field{"timing.pipes." #name, "interval", AT(timing.name.interval), 1, 100000}

// The two keys of one sequence's inline table: div_rn_f32 = { slots = 8, depth = 6 }.
#define SEQ(i)                                                                                          \
  Field{kSequenceSections[i].data(), "slots", AT(timing.sequences[i].slots), 1, 10000},                       \
      Field{kSequenceSections[i].data(), "depth", AT(timing.sequences[i].depth), 1, 10000}

// "timing.sequences.<key>" for each of kSequenceKeys, as the section names the rows point at.
constexpr auto kSequenceSections = [] {
  std::array<std::array<char, 48>, kSequenceKeys.size()> out{};
  constexpr std::string_view prefix = "timing.sequences.";
  for (size_t i = 0; i < kSequenceKeys.size(); ++i) {
    size_t n = 0;
    for (char c : prefix) out[i][n++] = c;
    for (const char* k = kSequenceKeys[i]; *k; ++k) out[i][n++] = *k;
  }
  return out;
}();

constexpr double kCycles = 1e6;  // upper bound for any latency in cycles
constexpr double kFlops = 1e6;   // upper bound for FLOP per cycle per SM

const Field kFields[] = {
    {"device", "name", AT(name), 1, 255},  // cudaDeviceProp::name is char[256]
    {"device", "compute_capability", ComputeCapability{}, 0, 0},
    {"device", "sm_count", AT(sm_count), 1, 4096},
    {"device", "global_memory_bytes", AT(global_memory_bytes), 1, 1125899906842624.0},  // 1 PiB
    {"device", "warp_size", AT(warp_size), 32, 32},  // PTX fixes WARP_SZ at 32
    {"device", "async_engine_count", AT(async_engine_count), 0, 16},

    {"limits", "max_threads_per_block", AT(max_threads_per_block), 1, 4096},
    {"limits", "max_block_dim", U32x3{AT(max_block_dim_x), AT(max_block_dim_y), AT(max_block_dim_z)}, 1, 4096},
    {"limits", "max_grid_dim", U32x3{AT(max_grid_dim_x), AT(max_grid_dim_y), AT(max_grid_dim_z)}, 1,
     2147483647.0},  // gridDim is read into signed 32-bit registers
    {"limits", "max_cluster_size", AT(max_cluster_size), 0, 32},
    {"limits", "constant_memory_bytes", AT(constant_memory_bytes), 1, 16777216.0},

    {"sm", "clock_khz", AT(clock_khz), 1, 10000000},  // up to 10 GHz
    {"sm", "max_threads_per_sm", AT(max_threads_per_sm), 1, 8192},
    {"sm", "max_warps_per_sm", AT(max_warps_per_sm), 1, 256},
    {"sm", "max_blocks_per_sm", AT(max_blocks_per_sm), 1, 256},
    {"sm", "registers_per_sm", AT(registers_per_sm), 1, 1048576},
    {"sm", "registers_per_block", AT(registers_per_block), 1, 1048576},
    {"sm", "max_registers_per_thread", AT(max_registers_per_thread), 1, 255},
    {"sm", "shared_memory_per_sm", AT(shared_memory_per_sm), 1, 16777216.0},
    {"sm", "shared_memory_per_block", AT(shared_memory_per_block), 1, 16777216.0},
    {"sm", "shared_memory_per_block_optin", AT(shared_memory_per_block_optin), 1, 16777216.0},
    {"sm", "reserved_shared_memory_per_block", AT(reserved_shared_memory_per_block), 0, 65536},

    {"memory", "memory_type", AT(memory_type), 1, 32},
    {"memory", "l2_cache_bytes", AT(l2_cache_bytes), 1, 17179869184.0},  // 16 GiB
    {"memory", "memory_clock_khz", AT(memory_clock_khz), 1, 100000000},
    {"memory", "memory_bus_width_bits", AT(memory_bus_width_bits), 1, 65536},
    {"memory", "bandwidth_gbps", AT(memory_bandwidth_gbps), 1, 1000000},

    {"timing", "sub_partitions", AT(timing.sub_partitions), 1, 64},
    {"timing", "scheduler", AT(timing.scheduler), 0, 0},
    {"timing", "barrier_latency", AT(timing.barrier_latency), 1, kCycles},
    {"timing", "cta_launch_cycles", AT(timing.cta_launch_cycles), 0, kCycles},

    PIPE(alu), PIPE(fma), PIPE(fp16), PIPE(fp64), PIPE(xu),
    PIPE(lsu), PIPE(tex), PIPE(tensor), PIPE(branch), PIPE(barrier),

    SEQ(0), SEQ(1), SEQ(2), SEQ(3), SEQ(4), SEQ(5), SEQ(6), SEQ(7), SEQ(8), SEQ(9),
    SEQ(10), SEQ(11), SEQ(12), SEQ(13), SEQ(14), SEQ(15), SEQ(16), SEQ(17), SEQ(18), SEQ(19),

    {"timing.memory", "shared_latency", AT(timing.shared_latency), 1, kCycles},
    {"timing.memory", "l1_latency", AT(timing.l1_latency), 1, kCycles},
    {"timing.memory", "l2_latency", AT(timing.l2_latency), 1, kCycles},
    {"timing.memory", "l2_far_latency", AT(timing.l2_far_latency), 1, kCycles},
    {"timing.memory", "dram_latency", AT(timing.dram_latency), 1, kCycles},
    {"timing.memory", "const_latency", AT(timing.const_latency), 1, kCycles},
    {"timing.memory", "atomic_extra", AT(timing.atomic_extra), 0, kCycles},
    {"timing.memory", "l1_shared_bytes", AT(timing.l1_shared_bytes), 1, 16777216.0},
    {"timing.memory", "l1_ways", AT(timing.l1_ways), 1, 1024},
    {"timing.memory", "l2_ways", AT(timing.l2_ways), 1, 1024},
    {"timing.memory", "l1_bytes_per_clock", AT(timing.l1_bytes_per_clock), 1, 65536},
    {"timing.memory", "l1_lines_per_clock", AT(timing.l1_lines_per_clock), 0.25, 32},
    {"timing.memory", "shared_bytes_per_clock", AT(timing.shared_bytes_per_clock), 1, 65536},
    {"timing.memory", "l2_bandwidth_gbps", AT(timing.l2_bandwidth_gbps), 1, 1e7},
    {"timing.memory", "dram_efficiency", AT(timing.dram_efficiency), 0.01, 1},

    {"timing.host", "kernel_launch_us", AT(timing.kernel_launch_us), 0, 1e6},
    {"timing.host", "graph_kernel_launch_us", AT(timing.graph_kernel_launch_us), 0, 1e6},
    {"timing.host", "pcie_gen", AT(timing.pcie_gen), 1, 16},
    {"timing.host", "host_link_gbps", AT(timing.host_link_gbps), 0.001, 1e5},
    {"timing.host", "d2d_copy_gbps", AT(timing.d2d_copy_gbps), 1, 1e7},

    {"timing.tensor", "fp16_f32", AT(timing.tensor_fp16_f32), 0, kFlops},
    {"timing.tensor", "fp16_f16", AT(timing.tensor_fp16_f16), 0, kFlops},
    {"timing.tensor", "bf16_f32", AT(timing.tensor_bf16_f32), 0, kFlops},
    {"timing.tensor", "tf32", AT(timing.tensor_tf32), 0, kFlops},
    {"timing.tensor", "fp64", AT(timing.tensor_fp64), 0, kFlops},
    {"timing.tensor", "int8", AT(timing.tensor_int8), 0, kFlops},
    {"timing.tensor", "fp8_f32", AT(timing.tensor_fp8_f32), 0, kFlops},
    {"timing.tensor", "fp8_f16", AT(timing.tensor_fp8_f16), 0, kFlops},
};

static_assert(kSequenceKeys.size() == 20, "one SEQ(i) row pair per [timing.sequences] key");

#undef SEQ
#undef PIPE
#undef AT

}  // namespace

std::span<const Field> fields() { return kFields; }

bool is_section(std::string_view path) {
  return std::any_of(std::begin(kFields), std::end(kFields), [&](const Field& f) {
    std::string_view s = f.section;
    return s == path || (s.size() > path.size() && s.starts_with(path) && s[path.size()] == '.');
  });
}

std::string section_list() {
  std::string out;
  for (const Field& f : kFields) {
    std::string_view s = f.section;
    const std::string top = "[" + std::string(s.substr(0, s.find('.'))) + "]";
    if (out.find(top) == std::string::npos) out += (out.empty() ? "" : ", ") + top;
  }
  return out;
}

const Field* find_field(std::string_view section, std::string_view key) {
  for (const Field& f : kFields)
    if (section == f.section && key == f.key) return &f;
  return nullptr;
}

}  // namespace softgpu::config::schema
