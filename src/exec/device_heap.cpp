#include "exec/device_memory.h"

#include <iterator>

namespace softgpu::exec {

DeviceHeap::DeviceHeap(uint64_t base, uint64_t size) : base_(base), size_(size & ~uint64_t(15)) {
  if (size_) free_[0] = size_;
}

uint64_t DeviceHeap::allocate(uint64_t bytes) {
  if (bytes == 0 || bytes > size_) return 0;
  const uint64_t need = (bytes + 15) & ~uint64_t(15);
  std::lock_guard lock(mu_);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < need) continue;
    const uint64_t off = it->first, left = it->second - need;
    free_.erase(it);
    if (left) free_[off + need] = left;
    used_[off] = need;
    return base_ + off;
  }
  return 0;
}

bool DeviceHeap::release(uint64_t addr) {
  if (addr < base_) return false;
  std::lock_guard lock(mu_);
  auto u = used_.find(addr - base_);
  if (u == used_.end()) return false;
  uint64_t off = u->first, len = u->second;
  used_.erase(u);
  // Merge with the free neighbours on both sides.
  auto next = free_.lower_bound(off);
  if (next != free_.end() && next->first == off + len) {
    len += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == off) {
      prev->second += len;
      return true;
    }
  }
  free_[off] = len;
  return true;
}

uint64_t DeviceHeap::in_use() const {
  std::lock_guard lock(mu_);
  uint64_t n = 0;
  for (const auto& [o, l] : used_) n += l;
  return n;
}

}  // namespace softgpu::exec
