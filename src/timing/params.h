// Every number the timing model uses, for one GPU. Filled from the GPU's
// config file (each value with its source there); tests build them by hand.
// Nothing in src/timing hard-codes a hardware number.
#pragma once
#include <array>
#include <cstdint>

#include "program/pipe.h"
#include "program/sequence.h"

namespace softgpu::timing {

enum class SchedulerPolicy : uint8_t {
  Gto,  // greedy then oldest: keep issuing from the last warp while it can
  Lrr,  // loose round-robin: the next ready warp after the last one
};

struct PipeTiming {
  uint32_t latency = 4;   // cycles from issue until a dependent instruction can issue
  uint32_t interval = 1;  // cycles between two warp instructions on one sub-partition's pipe
};

// A PTX instruction that becomes a sequence of machine instructions
// (program::Sequence): it occupies its pipe for `slots` issue intervals and
// its result is ready `depth` pipe latencies after issue (docs/timing.md).
struct SequenceCost {
  uint32_t slots = 1;  // machine instructions issued on the common path
  uint32_t depth = 1;  // of them, the longest chain of dependent ones
};

// Dense tensor-core throughput per type, FLOP (int8: OP) per SM cycle; 0 = not supported.
struct TensorRates {
  double fp16_f32 = 0;  // f16 inputs, f32 accumulate
  double fp16_f16 = 0;  // f16 inputs, f16 accumulate
  double bf16_f32 = 0;
  double tf32 = 0;
  double fp64 = 0;
  double int8 = 0;
  double fp8_f32 = 0;   // e4m3/e5m2 inputs, f32 accumulate
  double fp8_f16 = 0;   // e4m3/e5m2 inputs, f16 accumulate
};

struct TimingParams {
  uint32_t sm_count = 1;
  uint32_t sub_partitions = 4;   // warp schedulers per SM, one instruction per cycle each
  SchedulerPolicy policy = SchedulerPolicy::Gto;
  double clock_mhz = 1000;       // SM clock: cycles to seconds
  std::array<PipeTiming, size_t(program::Pipe::Count_)> pipes{};
  // Per program::Sequence kind, indexed by kind - 1 (sequence_cost()).
  std::array<SequenceCost, program::kSequenceKinds> sequences{};
  uint32_t barrier_latency = 20;   // from the last arrival to the release
  uint32_t cta_launch_cycles = 0;  // from a free slot to the new CTA's first issue

  // Memory hierarchy: latencies are round trips from the SM, as a
  // pointer-chasing microbenchmark measures them.
  uint32_t shared_latency = 30;
  uint32_t l1_latency = 33;
  uint32_t l2_latency = 200;
  uint32_t dram_latency = 500;
  uint32_t const_latency = 8;       // constant cache hit, per distinct address
  uint32_t atomic_extra = 0;        // added to l2_latency for atomics, per serialized same-address lane
  uint64_t l1_bytes = 128 * 1024;   // L1 data cache (what the shared-memory carveout leaves)
  uint32_t l1_ways = 4;
  uint64_t l2_bytes = 40ull << 20;
  uint32_t l2_ways = 16;
  double l1_bytes_per_cycle = 128;    // per SM
  // A warp's global load holds the L1 for max(its bank wavefronts, 1 +
  // (lines - 1) / l1_lines_per_cycle) cycles: its data banks, its tag stage.
  double l1_lines_per_cycle = 4;
  double shared_wavefronts_per_cycle = 1;  // per SM
  double l2_bytes_per_cycle = 2048;   // whole chip, in SM cycles
  double dram_bytes_per_cycle = 1000; // whole chip, in SM cycles, at the spec bandwidth

  double dram_efficiency = 1;         // achievable fraction of dram_bytes_per_cycle (measured STREAM triad / spec)

  // A hit in the far L2 partition (l2_latency: the near one); at most
  // l2_latency (0 here) means the L2 is one partition (memory_system.h).
  uint32_t l2_far_latency = 0;
  // Filled by params_from() (params_from_config.h); not used by the SM model.
  double kernel_launch_cycles = 0;    // back-to-back kernel launch cost in one stream (timing/session.h)
  double graph_kernel_launch_cycles = 0;  // the same for a kernel node of a graph launch
  double host_link_bytes_per_cycle = 0;  // PCIe, per direction
  double d2d_bytes_per_cycle = 0;     // on-device cudaMemcpy, bytes read + written
  TensorRates tensor{};

  const SequenceCost& sequence_cost(program::Sequence s) const { return sequences[size_t(s) - 1]; }
  SequenceCost& sequence_cost(program::Sequence s) { return sequences[size_t(s) - 1]; }
};

}  // namespace softgpu::timing
