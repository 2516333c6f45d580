// The [timing] part of a GPU config: what the timing model needs, as the
// file states it (published units: cycles, bytes, GB/s, FLOP per cycle).
// timing::params_from() (src/timing/params_from_config.h) converts it into
// timing::TimingParams. Every value's source is in the .toml file.
#pragma once
#include <array>
#include <cstdint>

namespace softgpu::config {

enum class SchedulerPolicy : uint8_t { Gto, Lrr };  // "gto", "lrr"

// One pipe of a sub-partition: `interval` cycles between two warp
// instructions, `latency` cycles until a dependent one can issue.
struct PipeConfig {
  uint32_t latency = 0;
  uint32_t interval = 0;
};

// One [timing.sequences] entry: a PTX instruction that becomes a sequence of
// machine instructions (program/sequence.h), as ptxas emits it for the GPU's
// architecture (scripts/sass-sequences.py): `slots` instructions issued on
// the common path, `depth` of them one after another from the operands to
// the result.
struct SequenceConfig {
  uint32_t slots = 0;
  uint32_t depth = 0;
};

// The keys of [timing.sequences], in TimingConfig::sequences' order. They are
// program::sequence_key()'s names (timing::params_from matches them by name;
// the unit test TimingParams.SequenceKeysMatchProgram checks both lists).
inline constexpr std::array<const char*, 20> kSequenceKeys{
    "div_rn_f32", "div_full_f32", "div_rz_f32", "rcp_f32", "sqrt_rn_f32", "sqrt_rz_f32", "div_f64",
    "rcp_f64",    "sqrt_f64",     "rsqrt_f64",  "div_u32", "div_s32",     "rem_u32",     "rem_s32",
    "div_u64",    "div_s64",      "rem_u64",    "rem_s64", "mul_lo_64",   "mul_hi_64"};

struct TimingConfig {
  // [timing]
  uint32_t sub_partitions = 0;        // warp schedulers per SM
  SchedulerPolicy scheduler = SchedulerPolicy::Gto;
  uint32_t barrier_latency = 0;       // cycles from the last arrival to the release
  uint32_t cta_launch_cycles = 0;     // from a free CTA slot to the new CTA's first issue

  // [timing.pipes]; the tensor interval is that of one mma.m16n8k16 f16 -> f32.
  PipeConfig alu, fma, fp16, fp64, xu, lsu, tex, tensor, branch, barrier;

  // [timing.sequences]: name = { slots = N, depth = D }, one per kSequenceKeys entry.
  std::array<SequenceConfig, kSequenceKeys.size()> sequences{};

  // [timing.memory]: latencies are pointer-chase round trips in SM cycles.
  uint32_t shared_latency = 0;
  uint32_t l1_latency = 0;
  uint32_t l2_latency = 0;            // hit in the near L2 partition
  uint32_t l2_far_latency = 0;        // hit in the far partition (= l2_latency if not split)
  uint32_t dram_latency = 0;
  uint32_t const_latency = 0;         // constant-cache hit, per distinct address
  uint32_t atomic_extra = 0;          // per serialized same-address lane, on top of an L2 access
  uint64_t l1_shared_bytes = 0;       // unified L1 + shared per SM; L1 = this - shared carveout
  uint32_t l1_ways = 0;
  uint32_t l2_ways = 0;
  double l1_bytes_per_clock = 0;      // per SM
  double l1_lines_per_clock = 0;      // cache lines a warp's load looks up per cycle after its first
  double shared_bytes_per_clock = 0;  // per SM (32 banks x 4 bytes = one wavefront)
  double l2_bandwidth_gbps = 0;       // whole chip, achievable (measured)
  double dram_efficiency = 0;         // achievable fraction of memory.bandwidth_gbps (measured)

  // [timing.host]
  double kernel_launch_us = 0;        // back-to-back launch cost in one stream
  double graph_kernel_launch_us = 0;  // the same for a kernel node of a launched CUDA graph (0: kernel_launch_us)
  uint32_t pcie_gen = 0;
  double host_link_gbps = 0;          // per direction, x16
  double d2d_copy_gbps = 0;           // on-device copy, bytes read + written per second

  // [timing.tensor]: dense FLOP (or int OP) per cycle per SM; 0 = not supported.
  double tensor_fp16_f32 = 0;         // f16 inputs, f32 accumulate
  double tensor_fp16_f16 = 0;         // f16 inputs, f16 accumulate
  double tensor_bf16_f32 = 0;
  double tensor_tf32 = 0;
  double tensor_fp64 = 0;
  double tensor_int8 = 0;
  double tensor_fp8_f32 = 0;          // e4m3/e5m2 inputs, f32 accumulate
  double tensor_fp8_f16 = 0;          // e4m3/e5m2 inputs, f16 accumulate
};

}  // namespace softgpu::config
