// Private definitions shared by the runtime's translation units.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/runtime.h"

namespace softgpu::runtime {

// Every public call takes the lock, checks init/sticky state and records a
// failing status as the thread's last error.
#define SOFTGPU_API_BEGIN(sticky)                                 \
  std::lock_guard lock_(mu_);                                     \
  if (Status s_ = begin(sticky); s_ != Status::Success) return finish(s_)

// The same for a synchronizing call (when `waits` is true): a kernel fault
// still pending is reported by it (Runtime::synchronizing).
#define SOFTGPU_API_BEGIN_SYNC(waits)                             \
  std::lock_guard lock_(mu_);                                     \
  if (waits) synchronizing();                                     \
  if (Status s_ = begin(true); s_ != Status::Success) return finish(s_)

// A call that waits for the device (when `waits` is true) and is no
// stream's work, so potentially unsafe during a stream capture: refused by
// the capture interaction rules first (Runtime::capture_unsafe), then as
// SOFTGPU_API_BEGIN_SYNC.
#define SOFTGPU_API_BEGIN_UNSAFE(waits)                                       \
  std::lock_guard lock_(mu_);                                                 \
  if (Status s_ = begin(true); s_ != Status::Success) return finish(s_);      \
  if (waits) {                                                                \
    if (auto c_ = capture_unsafe()) return finish(*c_);                       \
    synchronizing();                                                          \
    if (sticky_ != Status::Success) return finish(sticky_);                   \
  }

}  // namespace softgpu::runtime
