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

}  // namespace softgpu::runtime
