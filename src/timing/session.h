// A program's run on the modelled GPU: one kernel model per launch, a
// simulated clock (launch overhead, kernel time, copies over the host link
// or on the device), and the per-kernel summary a user sees at exit. Used
// by the runtime under `softgpu run --timing`; owns everything it makes.
// Streams overlap as on a GPU with a copy engine per direction: each stream
// is in order, the legacy default stream waits for (and is waited for by)
// the blocking streams, events mark a stream's time, a copy on one stream
// runs beside a kernel on another, and kernels of different streams run
// side by side on SMs they do not share (run_on_sms).
#pragma once
#include <algorithm>
#include <iosfwd>
#include <map>
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

// The stream an operation is issued to, as the timeline needs it.
struct StreamRef {
  uint64_t id = 0;       // the handle; ignored for the legacy stream
  bool legacy = true;    // the legacy default stream (0 / cudaStreamLegacy)
  bool blocking = true;  // synchronizes with the legacy stream (not cudaStreamNonBlocking)
  bool graph_node = false;  // a node's own timeline in a graph launch: its kernels cost graph_kernel_launch_cycles
};

class TimingSession {
 public:
  static Result<std::unique_ptr<TimingSession>> create(const config::GpuConfig& gpu, SamplingPolicy s = {});
  ~TimingSession();

  // Starts timing a launch: the listener to run it with.
  exec::ExecutionListener* begin_launch(const LaunchShape& shape, StreamRef stream = {});
  // Ends it; its stream moves on by the launch overhead and the kernel's time.
  const KernelTiming& end_launch();
  // A copy on `stream`; host_waits: the host waits for it (cudaMemcpy).
  // `dst`/`src`: the device addresses it writes and reads (0: not device
  // memory, or not one contiguous range): they pass through the L2 (it is
  // memory-side), which keeps what the copy wrote for the next launch.
  void copy(CopyPath path, uint64_t bytes, StreamRef stream = {}, bool host_waits = true, uint64_t dst = 0,
            uint64_t src = 0);
  // cudaMemset*: a kernel writing `bytes` at device bandwidth on the compute
  // engine (with a launch's overhead); the host does not wait for it. Its
  // lines at `dst` (when given) stay in the L2 as a copy's do.
  void memset(uint64_t bytes, StreamRef stream = {}, uint64_t dst = 0);
  // When work issued to `stream` so far completes (an event recorded now), us.
  double stream_time_us(StreamRef stream) const { return stream_end(stream) / clock_mhz(); }
  // cudaStreamWaitEvent: later work on `stream` starts after `event_us`.
  void wait_until(StreamRef stream, double event_us);
  // The host waits: for everything (device sync), a stream, or an event.
  void host_waits_all() { host_ = std::max(host_, makespan_); }
  void host_waits(StreamRef stream) { host_ = std::max(host_, stream_end(stream)); }
  void host_waits_until(double event_us) { host_ = std::max(host_, event_us * clock_mhz()); }
  // The end of all work issued so far.
  double now_us() const { return std::max(host_, makespan_) / clock_mhz(); }
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
  // The whole L2 as the launches so far left it (caches persist across
  // launches on a GPU); each launch reads it, then adds what it touched.
  std::unique_ptr<SectorCache> l2_;
  SectorCache& l2();
  double launch_cycles(StreamRef s) const;  // a kernel launch's overhead on s
  // A copy or memset's device range through the L2 (only its last L2's
  // worth can still be there after it).
  void through_l2(uint64_t addr, uint64_t bytes, bool write);
  // The timeline, in cycles: the host's clock, each stream's end, the copy
  // engines' (H2D, D2H, D2D) and each SM's next free cycle.
  enum Engine : uint8_t { kH2D, kD2H, kD2D, kEngines };
  double stream_end(const StreamRef& s) const;
  double start_on(const StreamRef& s, Engine e) const;
  void finish_on(const StreamRef& s, Engine e, double end);
  void finish_on(const StreamRef& s, double end);
  void run_on_sms(const StreamRef& s, uint32_t sms, double cycles);
  std::vector<double> sm_free_;
  double host_ = 0, makespan_ = 0, legacy_end_ = 0;
  double engine_free_[kEngines] = {};
  struct StreamState {
    double end = 0;
    bool blocking = true;
  };
  std::map<uint64_t, StreamState> streams_;
  StreamRef launch_stream_;
  double copy_cycles_ = 0, launch_overhead_cycles_ = 0;
};

}  // namespace softgpu::timing
