// Converts a GpuConfig's [timing] part into TimingParams. Bandwidths become
// bytes per SM cycle: GB/s x 1e9 / (clock_khz x 1e3).
#include "timing/params_from_config.h"

#include <fmt/format.h>

namespace softgpu::timing {
namespace {

PipeTiming pipe(const config::PipeConfig& p) { return PipeTiming{p.latency, p.interval}; }

}  // namespace

Result<TimingParams> params_from(const config::GpuConfig& gpu, uint64_t shared_carveout_bytes) {
  const config::TimingConfig& t = gpu.timing;
  if (gpu.clock_khz == 0)
    return Error{Status::InvalidValue, fmt::format("GPU '{}': sm.clock_khz is 0", gpu.key)};
  if (shared_carveout_bytes > gpu.shared_memory_per_sm || shared_carveout_bytes > t.l1_shared_bytes)
    return Error{Status::InvalidValue,
                 fmt::format("GPU '{}': shared-memory carveout {} bytes exceeds sm.shared_memory_per_sm = {}", gpu.key,
                             shared_carveout_bytes, gpu.shared_memory_per_sm)};
  const double khz = gpu.clock_khz;
  auto per_cycle = [&](double gbps) { return gbps * 1e6 / khz; };  // GB/s -> bytes per SM cycle

  TimingParams p;
  p.sm_count = gpu.sm_count;
  p.sub_partitions = t.sub_partitions;
  p.policy = t.scheduler == config::SchedulerPolicy::Gto ? SchedulerPolicy::Gto : SchedulerPolicy::Lrr;
  p.clock_mhz = khz / 1e3;
  using program::Pipe;
  p.pipes[size_t(Pipe::Alu)] = pipe(t.alu);
  p.pipes[size_t(Pipe::Fma)] = pipe(t.fma);
  p.pipes[size_t(Pipe::Fp16)] = pipe(t.fp16);
  p.pipes[size_t(Pipe::Fp64)] = pipe(t.fp64);
  p.pipes[size_t(Pipe::Xu)] = pipe(t.xu);
  p.pipes[size_t(Pipe::Lsu)] = pipe(t.lsu);
  p.pipes[size_t(Pipe::Tex)] = pipe(t.tex);
  p.pipes[size_t(Pipe::Tensor)] = pipe(t.tensor);
  p.pipes[size_t(Pipe::Branch)] = pipe(t.branch);
  p.pipes[size_t(Pipe::Barrier)] = pipe(t.barrier);
  // [timing.sequences] by name: each program::Sequence kind has its key there.
  for (size_t k = 1; k < size_t(program::Sequence::Count_); ++k) {
    const auto kind = program::Sequence(k);
    const std::string_view key = program::sequence_key(kind);
    size_t i = 0;
    while (i < config::kSequenceKeys.size() && key != config::kSequenceKeys[i]) ++i;
    if (i == config::kSequenceKeys.size())
      return Error{Status::InvalidValue, fmt::format("GPU '{}': [timing.sequences] has no key '{}'", gpu.key, key)};
    p.sequence_cost(kind) = SequenceCost{t.sequences[i].slots, t.sequences[i].depth};
  }
  p.barrier_latency = t.barrier_latency;
  p.cta_launch_cycles = t.cta_launch_cycles;

  p.shared_latency = t.shared_latency;
  p.l1_latency = t.l1_latency;
  p.l2_latency = t.l2_latency;
  p.l2_far_latency = t.l2_far_latency;
  p.dram_latency = t.dram_latency;
  p.const_latency = t.const_latency;
  p.atomic_extra = t.atomic_extra;
  p.l1_bytes = t.l1_shared_bytes - shared_carveout_bytes;
  p.l1_ways = t.l1_ways;
  p.l2_bytes = gpu.l2_cache_bytes;
  p.l2_ways = t.l2_ways;
  p.l1_bytes_per_cycle = t.l1_bytes_per_clock;
  p.l1_lines_per_cycle = t.l1_lines_per_clock;
  p.shared_wavefronts_per_cycle = t.shared_bytes_per_clock / 128.0;  // a wavefront: 32 banks x 4 bytes
  p.l2_bytes_per_cycle = per_cycle(t.l2_bandwidth_gbps);
  p.dram_bytes_per_cycle = per_cycle(gpu.memory_bandwidth_gbps);
  p.dram_efficiency = t.dram_efficiency;

  p.kernel_launch_cycles = t.kernel_launch_us * p.clock_mhz;  // us x cycles per us
  p.graph_kernel_launch_cycles = (t.graph_kernel_launch_us > 0 ? t.graph_kernel_launch_us : t.kernel_launch_us) * p.clock_mhz;
  p.host_link_bytes_per_cycle = per_cycle(t.host_link_gbps);
  p.d2d_bytes_per_cycle = per_cycle(t.d2d_copy_gbps);
  p.tensor = TensorRates{t.tensor_fp16_f32, t.tensor_fp16_f16, t.tensor_bf16_f32, t.tensor_tf32,
                         t.tensor_fp64,     t.tensor_int8,     t.tensor_fp8_f32,  t.tensor_fp8_f16};
  return p;
}

}  // namespace softgpu::timing
