// One kernel launch on the whole GPU, from its CTA traces. CTAs go to SMs
// round-robin (CTA i to SM i mod sm_count, then in order), each SM is
// simulated on its own with its share of the L2 and of L2/DRAM bandwidth
// (1 / the number of SMs the launch uses),
// and the kernel ends when its slowest SM does.
//
// Sampling: a grid whose SMs would each run more than `detailed_waves`
// waves, or that spans more SMs than `detailed_sms`, is simulated for a
// sample (evenly spread SMs including SM 0, which has the most CTAs; the
// first waves of each) and extrapolated: SMs by the slowest sampled one,
// waves by the steady-state time per wave measured over the second half of
// the simulated ones. `full` turns sampling off.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/types.h"
#include "timing/memory_system.h"
#include "timing/params.h"
#include "timing/sm_model.h"
#include "timing/trace.h"

namespace softgpu::timing {

struct SamplingPolicy {
  bool full = false;
  uint32_t detailed_sms = 16;    // SMs simulated when sampling
  uint32_t detailed_waves = 8;   // waves per SM simulated when sampling
};

struct KernelShape {
  std::string kernel;
  Dim3 grid, block;
  uint32_t resident_ctas_per_sm = 1;  // occupancy limit (same numbers as cudaOccupancy*)
};

enum class Bound : uint8_t { Compute, Memory, Latency };
std::string_view bound_name(Bound b);

struct KernelTiming {
  std::string kernel;
  uint64_t cycles = 0;
  double microseconds = 0;
  uint64_t ctas = 0, ctas_simulated = 0;
  uint32_t sms_used = 0, sms_simulated = 0;
  bool sampled = false;
  uint64_t warp_instructions = 0;      // whole grid (scaled from the sample)
  double ipc = 0;                      // warp instructions per cycle per SM
  double achieved_occupancy = 0;       // resident warps / max warps, averaged over cycles
  double dram_bytes = 0, l2_bytes = 0; // whole grid
  double l1_hit_rate = 0, l2_hit_rate = 0;
  double l2_far_share = 0;  // of the L2 hits: served by the far partition
  double dram_utilization = 0;         // of the configured bandwidth over the kernel's time
  double issue_utilization = 0;        // of the schedulers' issue slots
  double top_pipe_utilization = 0;
  std::array<double, size_t(program::Pipe::Count_)> pipe_utilization{};  // issue-slot share per pipe
  program::Pipe top_pipe = program::Pipe::Alu;
  std::array<double, size_t(WarpStall::Count_)> stalls{};  // share of warp-cycles per state
  Bound bound = Bound::Latency;
  bool deadlock = false;
};

class KernelModel {
 public:
  KernelModel(const TimingParams& p, KernelShape shape, uint32_t max_warps_per_sm, SamplingPolicy s = {});

  // Whether CTA `cta_linear`'s trace is needed (the sampling plan).
  bool wanted(uint32_t cta_linear) const;
  // The part of the L2 and its bandwidths each simulated SM gets: the SMs
  // this launch uses share them (a one-CTA kernel has the whole L2).
  double l2_share() const { return 1.0 / double(sms_used_ ? sms_used_ : 1); }
  // Thread-safe: the recorder's sink.
  void add(std::unique_ptr<CtaTrace> t);
  KernelTiming finish();
  // What earlier launches left in the L2 (timing/memory_system.h), for this one's SMs.
  void set_warm(const SectorCache* warm) { warm_ = warm; }
  // After finish(): what the launch leaves in `l2` (the whole chip's) for
  // the next one. Every line the simulated CTAs read or wrote goes
  // through it in CTA order. A sampled launch whose estimated footprint
  // (its lines shared by SMs, plus its other lines scaled from the sample
  // to the grid) exceeds the L2 empties it instead: the L2 then holds the
  // grid's last lines, those of CTAs the sample (its first waves) did not
  // simulate, whose lines are not known.
  void leave_in(SectorCache& l2) const;

 private:
  struct SmRun {
    SmStats stats;
    MemoryStats mem;
    double drain_cycles = 0;  // MemorySystem::drain_floor of the SM's whole queue
  };
  // `scale`: how many times the simulated CTAs' traffic the SM's whole
  // queue moves (its waves over the simulated ones).
  SmRun simulate(const std::vector<const CtaTrace*>& ctas, double scale = 1) const;
  // The lines more than one of the simulated SMs touch (MemorySystem's SharedLines).
  void find_shared_lines(const std::map<uint32_t, std::vector<const CtaTrace*>>& by_sm);

  const TimingParams& p_;
  KernelShape shape_;
  uint32_t max_warps_;
  SamplingPolicy policy_;
  uint64_t ctas_ = 0;
  uint32_t sms_used_ = 0, sm_step_ = 1, waves_kept_ = 0;
  bool sampled_ = false;
  std::mutex mu_;
  std::vector<std::unique_ptr<CtaTrace>> traces_;
  SharedLines shared_;
  uint64_t private_lines_ = 0;  // distinct lines of the simulated CTAs not shared by SMs
  const SectorCache* warm_ = nullptr;
};

}  // namespace softgpu::timing
