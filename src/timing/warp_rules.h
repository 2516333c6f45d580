// The rules by which a warp's next instruction waits, in one place for both
// timelines of a launch: the SM model (timing/sm_model.h), which interleaves
// every warp of an SM, and the warps' clocks (timing/warp_clock.h), which
// time each warp alone while the executor runs. Both ask a warp's
// WarpRules when an op may issue (its registers on the scoreboard, its
// cp.async copies, its wgmma groups, the mbarrier phase it waits for) and
// tell it when one issued; the pipes and the scheduler are theirs.
#pragma once
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "timing/memory_system.h"
#include "timing/op_cost.h"
#include "timing/params.h"
#include "timing/scoreboard.h"
#include "timing/trace.h"

namespace softgpu::timing {

inline constexpr uint64_t kNeverCycle = std::numeric_limits<uint64_t>::max();

// What each resident warp was doing, cycle by cycle (warp-cycles), named as
// Nsight Compute's warp states.
enum class WarpStall : uint8_t {
  Selected,          // issued this cycle
  NotSelected,       // ready, another warp issued
  LongScoreboard,    // waiting for a memory result (or its async copies)
  Wait,              // waiting for a fixed-latency result
  MathPipeThrottle,  // its pipe is busy with earlier instructions (or its wgmma groups are in flight)
  Barrier,           // waiting at a barrier for the rest of its CTA (or at an mbarrier for its phase)
  Count_
};
std::string_view stall_name(WarpStall s);

// The mbarrier phases of one CTA (CtaTrace::phases) in simulated time: how
// many linked contributions are still to come and when the latest landed.
class PhaseClock {
 public:
  PhaseClock() = default;
  explicit PhaseClock(const CtaTrace& t) : left_(t.phases), at_(t.phases.size(), 0) {}
  // Room for phases the recorder links later (counted as complete: for partial use).
  size_t size() const { return at_.size(); }
  void grow(size_t n) {
    left_.resize(n, 0);
    at_.resize(n, 0);
  }
  void contribute(uint32_t phase, uint64_t at);
  // When `phase` (1-based) completes: kNeverCycle while a contribution is
  // missing, unless `partial` (the clocks, which see the contributions in
  // the executor's order, take what has landed).
  uint64_t complete_at(uint32_t phase, bool partial) const;

 private:
  std::vector<uint32_t> left_;
  std::vector<uint64_t> at_;
};

struct Readiness {
  uint64_t at = 0;
  WarpStall why = WarpStall::Wait;
};

class WarpRules {
 public:
  // The earliest cycle `op` may issue by everything but its pipe, and what
  // it waits for then (kNeverCycle: a phase it waits for lacks a
  // contribution yet).
  Readiness ready(const CtaTrace& t, const TraceOp& op, const PhaseClock& phases, bool partial) const;
  // `op` issued at cycle `at` with cost `c`: its results on the scoreboard,
  // its copies, its wgmma group, its contribution to a phase. Returns the
  // cycle at which its last result lands.
  uint64_t issue(const TimingParams& p, MemorySystem& mem, const CtaTrace& t, const TraceOp& op, uint64_t at,
                 const IssueCost& c, PhaseClock& phases);

 private:
  Scoreboard sb_{0, 0};
  uint64_t async_done_ = 0;          // cp.async copies complete at
  uint64_t open_group_ = 0;          // uncommitted wgmma complete at
  std::vector<uint64_t> groups_;     // committed wgmma groups complete at, oldest first
};

}  // namespace softgpu::timing
