// DeviceMemory's host-memory budget: stop a program that would make more
// device memory resident than the host can back, with an error naming the
// allocation, before the host's OOM killer stops it.
//
// Touched chunks (exec/arena.h) bound the arena's resident memory from
// above. While that bound plus the process's last measured growth stays
// under the limit nothing is measured; past it ("tight"), every first touch
// of a chunk by a kernel and every host-side write reads /proc/self/statm,
// and the executor checks periodically (launch.cpp).
#include <fmt/format.h>

#include "exec/device_memory.h"

namespace softgpu::exec {

std::string DeviceMemory::out_of_host_memory(const char* what, uint64_t addr, uint64_t need, uint64_t growth) const {
  const char* advice =
      "a real GPU has this memory, this host does not (touch less device memory, or raise the limit with "
      "`softgpu run --host-memory-limit SIZE` or SOFTGPU_HOST_MEMORY_LIMIT if the host has more to give)";
  if (need)
    return fmt::format(
        "out of host memory: {} needs {} MiB more of host memory for {}, but this process already grew by {} MiB "
        "and device memory may use {} of the host's memory; {}",
        what, (need + (1 << 20) - 1) >> 20, describe(addr), growth >> 20, budget_.describe(), advice);
  return fmt::format("out of host memory: this process grew by {} MiB, past the {} that device memory may use{}; {}",
                     growth >> 20, budget_.describe(),
                     addr ? fmt::format(" (while {} wrote {})", what, describe(addr)) : std::string(), advice);
}

bool DeviceMemory::budget_tight() const {
  const uint64_t t = arena_.touched_bytes(), g = last_growth_.load(std::memory_order_relaxed);
  return g + t < g || g + t > budget_.limit();
}

bool DeviceMemory::touch(uint64_t addr, uint64_t n, std::string* why) {
  const uint64_t add = arena_.untouched_bytes(addr, n);
  if (!add) return true;
  const uint64_t limit = budget_.limit();
  if (last_growth_.load(std::memory_order_relaxed) + arena_.touched_bytes() + add > limit) {
    const uint64_t g = budget_.growth();
    last_growth_.store(g, std::memory_order_relaxed);
    if (g + add > limit) {
      if (why) *why = out_of_host_memory("a kernel", addr, add, g);
      return false;
    }
  }
  arena_.touch(addr, n);
  last_touch_.store(addr, std::memory_order_relaxed);
  return true;
}

bool DeviceMemory::check_budget(std::string* why) {
  const uint64_t g = budget_.growth();
  last_growth_.store(g, std::memory_order_relaxed);
  if (g <= budget_.limit()) return true;
  if (why) *why = out_of_host_memory("a kernel", last_touch_.load(std::memory_order_relaxed), 0, g);
  return false;
}

Status DeviceMemory::prepare_write(const void* dst, size_t n, const char* what, std::string* why) {
  const uint64_t addr = reinterpret_cast<uint64_t>(dst);
  if (observer_ && n) observer_->host_write(addr, n);
  if (n == 0 || !arena_.contains(addr, n)) return Status::Success;
  const uint64_t limit = budget_.limit();
  // Small writes into chunks already counted need no measurement unless tight.
  if (n < (uint64_t(1) << 20) && !budget_tight() && arena_.all_touched(addr, n)) return Status::Success;
  const uint64_t g = budget_.growth();
  last_growth_.store(g, std::memory_order_relaxed);
  if (g + n > limit) {
    const uint64_t need = arena_.nonresident_bytes(addr, n);
    if (g + need > limit) {
      if (why) *why = out_of_host_memory(what, addr, need, g);
      return Status::MemoryAllocation;
    }
  }
  arena_.touch(addr, n);
  return Status::Success;
}

}  // namespace softgpu::exec
