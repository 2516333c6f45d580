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

}  // namespace softgpu::runtime
