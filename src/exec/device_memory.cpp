#include "exec/device_memory.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace softgpu::exec {

const Allocation* AllocationSnapshot::find(uint64_t addr, uint64_t size) const {
  // Last allocation whose base <= addr.
  auto it = std::upper_bound(allocs_.begin(), allocs_.end(), addr,
                             [](uint64_t a, const Allocation& al) { return a < al.base; });
  if (it == allocs_.begin()) return nullptr;
  --it;
  if (addr - it->base >= it->size || size > it->size - (addr - it->base)) return nullptr;
  return &*it;
}

DeviceMemory::DeviceMemory(Bytes capacity) : capacity_(capacity) {}

DeviceMemory::~DeviceMemory() { reset(); }

Result<DeviceAddr> DeviceMemory::allocate(Bytes size, MemKind kind, std::string label) {
  if (size.value == 0) return DeviceAddr{0};
  std::unique_lock lock(mu_);
  if (size.value > capacity_.value || used_ > capacity_.value - size.value)
    return Error{Status::MemoryAllocation, "out of device memory"};
  // 256-byte alignment, as cudaMalloc guarantees; zeroed so that reads of
  // fresh memory are deterministic.
  uint64_t rounded = (size.value + 255) & ~uint64_t(255);
  void* p = std::aligned_alloc(256, rounded);
  if (!p) return Error{Status::MemoryAllocation, "host allocation failed"};
  std::memset(p, 0, rounded);
  uint64_t base = reinterpret_cast<uint64_t>(p);
  allocs_[base] = Allocation{base, size.value, kind, std::move(label)};
  used_ += size.value;
  return DeviceAddr{base};
}

Status DeviceMemory::register_external(DeviceAddr base, Bytes size) {
  if (base.value == 0 || size.value == 0) return Status::InvalidValue;
  std::unique_lock lock(mu_);
  auto it = allocs_.upper_bound(base.value + size.value - 1);
  if (it != allocs_.begin()) {
    --it;
    if (it->second.base + it->second.size > base.value) return Status::InvalidValue;  // overlap
  }
  allocs_[base.value] = Allocation{base.value, size.value, MemKind::Registered, {}};
  return Status::Success;
}

Status DeviceMemory::release(DeviceAddr base, std::initializer_list<MemKind> kinds) {
  std::unique_lock lock(mu_);
  auto it = allocs_.find(base.value);
  if (it == allocs_.end()) return Status::InvalidValue;
  if (std::find(kinds.begin(), kinds.end(), it->second.kind) == kinds.end()) return Status::InvalidValue;
  if (it->second.kind != MemKind::Registered) {
    used_ -= it->second.size;
    std::free(reinterpret_cast<void*>(it->first));
  }
  allocs_.erase(it);
  return Status::Success;
}

std::optional<Allocation> DeviceMemory::find(DeviceAddr addr) const {
  std::shared_lock lock(mu_);
  auto it = allocs_.upper_bound(addr.value);
  if (it == allocs_.begin()) return std::nullopt;
  --it;
  if (addr.value - it->second.base >= it->second.size) return std::nullopt;
  return it->second;
}

bool DeviceMemory::contains(DeviceAddr addr, Bytes size) const {
  auto a = find(addr);
  return a && size.value <= a->size - (addr.value - a->base);
}

AllocationSnapshot DeviceMemory::snapshot() const {
  std::shared_lock lock(mu_);
  std::vector<Allocation> v;
  v.reserve(allocs_.size());
  for (const auto& [b, a] : allocs_) v.push_back(a);
  return AllocationSnapshot(std::move(v));
}

Bytes DeviceMemory::used() const {
  std::shared_lock lock(mu_);
  return Bytes{used_};
}

void DeviceMemory::reset() {
  {
    std::lock_guard hl(heap_mu_);
    heap_.reset();
  }
  std::unique_lock lock(mu_);
  for (auto& [b, a] : allocs_)
    if (a.kind != MemKind::Registered) std::free(reinterpret_cast<void*>(b));
  allocs_.clear();
  used_ = 0;
}

DeviceHeap* DeviceMemory::heap(Bytes size) {
  std::lock_guard hl(heap_mu_);
  if (heap_) return heap_.get();
  auto a = allocate(Bytes{std::max<uint64_t>(size.value, 16)}, MemKind::Internal, "device malloc heap");
  if (!a) return nullptr;
  heap_ = std::make_unique<DeviceHeap>(a->value, std::max<uint64_t>(size.value, 16));
  return heap_.get();
}

DeviceHeap* DeviceMemory::existing_heap() const {
  std::lock_guard hl(heap_mu_);
  return heap_.get();
}

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
