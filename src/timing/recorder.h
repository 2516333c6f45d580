// Turns the executor's per-instruction records into CTA traces for the SM
// model: pipe and register sets from the decoded program's facts, global
// accesses coalesced into lines and sectors, shared accesses into bank
// wavefronts, barriers and async-copy waits. A CTA's trace goes to the sink
// when the CTA ends, on the thread that ran it. When the kernel reads
// %clock/%clock64/%globaltimer, every CTA also keeps the warps' clocks
// (timing/warp_clock.h) and the recorder answers those reads.
#pragma once
#include <functional>
#include <memory>
#include <optional>

#include "exec/listener.h"
#include "timing/cache.h"
#include "timing/params.h"
#include "timing/trace.h"

namespace softgpu::timing {

// Where the launch's clocks start and what they count in.
struct ClockSetup {
  const TimingParams* params = nullptr;  // must outlive the recorder
  double l2_share = 1;       // of each SM (timing/kernel_model.h)
  double start_cycle = 0;    // the launch's first cycle on the simulated timeline
  const SectorCache* warm = nullptr;  // what earlier launches left in the L2 (or null)
};

class TraceRecorder : public exec::ExecutionListener {
 public:
  using Sink = std::function<void(std::unique_ptr<CtaTrace>)>;
  // `wanted(cta_linear)`: whether to trace this CTA (sampling); others cost
  // one call per CTA (unless the kernel reads the clock: then they keep
  // clocks, and only the wanted ones go to the sink).
  TraceRecorder(Sink sink, std::function<bool(uint32_t)> wanted = {}, std::optional<ClockSetup> clock = {})
      : sink_(std::move(sink)), wanted_(std::move(wanted)), clock_(clock) {}

  void launch_begin(const exec::LaunchInfo& info) override;
  void* cta_begin(uint32_t cta_linear, Dim3 ctaid, uint32_t warps) override;
  void step(const exec::WarpStep& s) override;
  void barrier_released(void* ctx, uint32_t bar_id, uint32_t warps) override;
  bool read_clock(const exec::WarpRef& w, void* ctx, exec::ClockReading& out) override;
  void cta_end(uint32_t cta_linear, void* ctx) override;

  // The conversion of one record, for tests and other consumers.
  static void append(CtaTrace& t, const exec::WarpStep& s);

 private:
  Sink sink_;
  std::function<bool(uint32_t)> wanted_;
  std::optional<ClockSetup> clock_;
  bool clocks_ = false;  // this launch's program reads the clock
};

}  // namespace softgpu::timing
