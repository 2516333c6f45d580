// Turns the executor's per-instruction records into CTA traces for the SM
// model: pipe and register sets from the decoded program's facts, global
// accesses coalesced into lines and sectors, shared accesses into bank
// wavefronts, barriers and async-copy waits. A CTA's trace goes to the sink
// when the CTA ends, on the thread that ran it. When the kernel reads
// %clock/%clock64/%globaltimer, every CTA also keeps the warps' clocks
// (timing/warp_clock.h) and the recorder answers those reads.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

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

// Completed phases per mbarrier object (its host address) across a
// launch's CTAs (a cluster's TMA completes bytes on its peers' objects),
// whatever host thread runs them. A number only has to agree between the
// events of one object while its CTA lives.
struct PhaseCounts {
  std::mutex m;
  std::unordered_map<uint64_t, uint32_t> completed;
};

// One CTA's mbarrier bookkeeping (the executor's SyncEvents): each wait
// that found its phase complete becomes an MbarWait on that phase, each
// arrival or copy that counted toward a phase is linked to it, so the SM
// model waits for the phase in simulated time (as try_wait suspends the
// thread on the GPU). A warp's failed waits are the executor's spin loop,
// whose length says nothing of simulated time: what a warp does from a
// failed wait to its next wait on the same object is one iteration and is
// kept out of its trace. Ops after a failed wait are held back until that
// is known; more than kMaxHeld of them, a barrier or the warp's exit, or a
// wait on another object, and they go into the trace (real work).
class PhaseLinker {
 public:
  static constexpr size_t kMaxHeld = 64;
  explicit PhaseLinker(PhaseCounts& counts) : counts_(counts) {}
  // After TraceRecorder::append put s's op at the back of its warp's ops:
  // links it, and returns how many ops at the back of the warp's trace are
  // new (0 when this one is held back, more when held ones come back).
  uint32_t link(CtaTrace& t, const exec::WarpStep& s);
  bool holding() const { return held_ops_ > 0; }

 private:
  uint32_t phase_of(CtaTrace& t, uint64_t object, uint32_t number);
  struct Spin {
    uint64_t object = 0;
    std::vector<TraceOp> held;
  };
  PhaseCounts& counts_;
  std::map<std::pair<uint64_t, uint32_t>, uint32_t> phases_;  // (object, phase number) -> CtaTrace::phases index + 1
  std::vector<Spin> spins_;  // per warp
  size_t held_ops_ = 0;
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
  PhaseCounts phase_counts_;
};

}  // namespace softgpu::timing
