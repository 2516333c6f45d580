// Per-launch watchdog and progress line, fed by every host thread that runs
// CTAs of the launch.
#pragma once
#include <cstdint>

#include "common/types.h"

namespace softgpu::exec {

struct LaunchState;

// Decides at launch whether the progress line may show (options, terminal).
void init_progress(LaunchState& L);
// Clears the progress line if one was shown.
void finish_progress(LaunchState& L);

// One per host thread: counts the warp instructions it ran into the launch
// total every kCheckEvery, then checks the watchdog limits (reporting
// LaunchTimeout) and updates the progress line. Cheap between checks.
class Monitor {
 public:
  explicit Monitor(LaunchState& L);
  ~Monitor() { flush_count(); }
  // Returns false when the launch must stop (watchdog fired or a fault).
  bool add(uint64_t warp_instructions, Dim3 block) {
    pending_ += warp_instructions;
    return pending_ < check_every_ || check(block);
  }
  bool check(Dim3 block);
  void flush_count();

 private:
  LaunchState& L_;
  uint64_t check_every_;  // 100000, less under a small instruction limit
  uint64_t pending_ = 0;
};

}  // namespace softgpu::exec
