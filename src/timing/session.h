// A program's run on the modelled GPU: one kernel model per launch, a
// simulated clock (launch overhead, kernel time, copies over the host link
// or on the device), and the per-kernel summary a user sees at exit. Used
// by the runtime under `softgpu run --timing`; owns everything it makes.
// Work is in one stream order: streams that could overlap are summed.
#pragma once
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "common/types.h"
#include "config/gpu_config.h"
#include "exec/listener.h"
#include "timing/kernel_model.h"

namespace softgpu::timing {

struct LaunchShape {
  std::string kernel;
  Dim3 grid, block;
  uint32_t registers_per_thread = 0;  // 0 = unknown
  uint64_t shared_bytes = 0;          // static + dynamic per block
};

enum class CopyPath : uint8_t { HostToDevice, DeviceToHost, DeviceToDevice, HostToHost };

class TimingSession {
 public:
  static Result<std::unique_ptr<TimingSession>> create(const config::GpuConfig& gpu, SamplingPolicy s = {});
  ~TimingSession();

  // Starts timing a launch: the listener to run it with.
  exec::ExecutionListener* begin_launch(const LaunchShape& shape);
  // Ends it; the clock moves on by the launch overhead and the kernel's time.
  const KernelTiming& end_launch();
  void copy(CopyPath path, uint64_t bytes);

  double now_us() const { return now_cycles_ / clock_mhz(); }
  double clock_mhz() const { return params_.clock_mhz; }
  const std::vector<KernelTiming>& launches() const { return done_; }
  // The per-kernel table (launches, time, share, occupancy, IPC, DRAM and L2
  // bytes, bound), longest first.
  void print_summary(std::ostream& out) const;
  // Every launch with its stall shares and hit rates, as JSON.
  std::string json() const;

 private:
  TimingSession(const config::GpuConfig& gpu, TimingParams p, SamplingPolicy s);
  struct Active;
  const config::GpuConfig gpu_;
  TimingParams params_;
  SamplingPolicy sampling_;
  std::unique_ptr<Active> active_;
  std::vector<KernelTiming> done_;
  double now_cycles_ = 0;
  double copy_cycles_ = 0, launch_overhead_cycles_ = 0;
};

}  // namespace softgpu::timing
