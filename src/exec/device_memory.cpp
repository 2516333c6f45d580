#include "exec/device_memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

namespace softgpu::exec {

namespace {
uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

const char* kind_name(MemKind k) {
  switch (k) {
    case MemKind::Device: return "cudaMalloc";
    case MemKind::Managed: return "cudaMallocManaged";
    case MemKind::Pinned: return "cudaHostAlloc";
    case MemKind::Registered: return "cudaHostRegister";
    case MemKind::Symbol: return "module variable";
    case MemKind::Internal: return "runtime";
  }
  return "?";
}

bool is_const_symbol(MemKind kind, const std::string& label) {
  return kind == MemKind::Symbol && label.rfind("const:", 0) == 0;
}
}  // namespace

const Allocation* AllocationSnapshot::find(uint64_t addr, uint64_t size) const {
  // Last allocation whose base <= addr.
  auto it = std::upper_bound(allocs_.begin(), allocs_.end(), addr,
                             [](uint64_t a, const Allocation& al) { return a < al.base; });
  if (it == allocs_.begin()) return nullptr;
  --it;
  if (addr - it->base >= it->size || size > it->size - (addr - it->base)) return nullptr;
  return &*it;
}

DeviceMemory::DeviceMemory(Bytes capacity, uint64_t host_limit)
    : capacity_(capacity),
      arena_(kConstWindow + Arena::kChunk + std::min<uint64_t>(capacity.value, uint64_t(1) << 46)),
      budget_(host_limit),
      const_alloc_(arena_.size() > kConstWindow + Arena::kChunk ? kConstWindow : 0),
      main_alloc_(arena_.size() > kConstWindow + Arena::kChunk ? arena_.size() - kConstWindow - Arena::kChunk : 0) {
  main_base_ = arena_.base() + kConstWindow + Arena::kChunk;
  if (main_alloc_.size()) {
    arena_.set_const(arena_.base(), kConstWindow);
    arena_.hold(main_base_ - Arena::kChunk, Arena::kChunk);  // the reserved chunk, mapped for good
  }
}

DeviceMemory::~DeviceMemory() { reset(); }

Result<DeviceAddr> DeviceMemory::allocate(Bytes size, MemKind kind, std::string label) {
  if (size.value == 0) return DeviceAddr{0};
  if (kind == MemKind::Registered) return Error{Status::InvalidValue, "registered memory is not allocated"};
  if (kind == MemKind::Pinned) {
    // Host memory, outside the arena: zero pages from the OS, page aligned.
    const uint64_t pg = Arena::page_size();
    if (size.value > UINT64_MAX - pg || size.value > budget_.limit())
      return Error{Status::MemoryAllocation, "not enough host memory to pin"};
    const uint64_t fp = round_up(size.value, pg);
    void* p = mmap(nullptr, fp, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return Error{Status::MemoryAllocation, "host allocation failed"};
    const uint64_t base = reinterpret_cast<uint64_t>(p);
    std::unique_lock lock(mu_);
    Allocation a{base, size.value, kind, std::move(label), fp};
    external_[base] = a;
    allocs_[base] = std::move(a);
    if (observer_) observer_->allocated(allocs_[base]);
    return DeviceAddr{base};
  }
  const uint64_t pad = kind == MemKind::Device || kind == MemKind::Managed ? padding_ : 0;
  const uint64_t align = size.value + pad >= kLargeAlign ? kLargeAlign : kGranule;
  if (size.value > capacity_.value || pad > capacity_.value || size.value + pad > UINT64_MAX - align)
    return Error{Status::MemoryAllocation, "out of device memory"};
  const uint64_t fp = round_up(size.value + pad, align);
  const bool constant = is_const_symbol(kind, label);
  std::unique_lock lock(mu_);
  if (fp > capacity_.value || used_ > capacity_.value - fp)
    return Error{Status::MemoryAllocation,
                 fmt::format("out of device memory: {} bytes requested, {} of {} bytes in use", size.value, used_,
                             capacity_.value)};
  RangeAllocator& ra = constant ? const_alloc_ : main_alloc_;
  const uint64_t rbase = constant ? arena_.base() : main_base_;
  auto off = ra.allocate(fp, align);
  if (!off)
    return Error{Status::MemoryAllocation, constant ? "the constant window is full"
                                                    : "out of device memory (no free range is large enough)"};
  const uint64_t base = rbase + *off;
  // Fresh memory reads as zero, as it did before the arena. Free memory is
  // kept zero (see release_locked) except where a kernel wrote into it,
  // which only happens in touched chunks.
  if (arena_.any_touched(base, fp)) arena_.zero(base, fp);
  arena_.hold(base, fp);
  // Host code writes these directly (the loader a variable's initial value,
  // the program its managed memory), unseen by the budget: count them as
  // touched so that touched_bytes stays an upper bound of what is resident.
  if (kind == MemKind::Symbol || kind == MemKind::Managed) arena_.touch(base, fp);
  allocs_[base] = Allocation{base, size.value, kind, std::move(label), fp};
  used_ += fp;
  if (observer_) observer_->allocated(allocs_[base]);
  return DeviceAddr{base};
}

Status DeviceMemory::register_external(DeviceAddr base, Bytes size) {
  if (base.value == 0 || size.value == 0 || base.value + size.value < base.value) return Status::InvalidValue;
  if (arena_.size() && base.value < arena_.base() + arena_.size() && base.value + size.value > arena_.base())
    return Status::InvalidValue;  // device memory is not host memory to register
  std::unique_lock lock(mu_);
  auto it = allocs_.upper_bound(base.value + size.value - 1);
  if (it != allocs_.begin()) {
    --it;
    if (it->second.base + std::max(it->second.size, it->second.footprint) > base.value)
      return Status::InvalidValue;  // overlap
  }
  Allocation a{base.value, size.value, MemKind::Registered, {}, size.value};
  external_[base.value] = a;
  allocs_[base.value] = std::move(a);
  if (observer_) observer_->allocated(allocs_[base.value]);
  return Status::Success;
}

Status DeviceMemory::release_locked(std::map<uint64_t, Allocation>::iterator it) {
  const Allocation a = it->second;
  allocs_.erase(it);
  if (observer_) observer_->released(a);
  if (a.kind == MemKind::Registered || a.kind == MemKind::Pinned) {
    external_.erase(a.base);
    if (a.kind == MemKind::Pinned) munmap(reinterpret_cast<void*>(a.base), a.footprint);
    return Status::Success;
  }
  const bool constant = a.base < main_base_;
  RangeAllocator& ra = constant ? const_alloc_ : main_alloc_;
  const uint64_t rbase = constant ? arena_.base() : main_base_;
  ra.release(a.base - rbase);
  used_ -= a.footprint;
  // Free memory reads as zero: pages of the block that are now wholly free
  // go back to the OS, the rest is cleared; chunks left empty go back whole.
  const auto [lo, hi] = ra.free_range_at(a.base - rbase);
  arena_.scrub(a.base, a.footprint, rbase + lo, rbase + hi);
  arena_.drop(a.base, a.footprint);
  return Status::Success;
}

Status DeviceMemory::release(DeviceAddr base, std::initializer_list<MemKind> kinds) {
  std::unique_lock lock(mu_);
  auto it = allocs_.find(base.value);
  if (it == allocs_.end()) return Status::InvalidValue;
  if (std::find(kinds.begin(), kinds.end(), it->second.kind) == kinds.end()) return Status::InvalidValue;
  return release_locked(it);
}

std::optional<Allocation> DeviceMemory::find(DeviceAddr addr) const {
  std::shared_lock lock(mu_);
  auto it = allocs_.upper_bound(addr.value);
  if (it == allocs_.begin()) return std::nullopt;
  --it;
  if (addr.value - it->second.base >= it->second.size) return std::nullopt;
  return it->second;
}

void DeviceMemory::renew(DeviceAddr base) {
  std::shared_lock lock(mu_);
  auto it = allocs_.find(base.value);
  if (it == allocs_.end() || !observer_) return;
  observer_->released(it->second);
  observer_->allocated(it->second);
}

std::optional<Allocation> DeviceMemory::nearest(DeviceAddr addr) const {
  std::shared_lock lock(mu_);
  auto above = allocs_.upper_bound(addr.value);
  std::optional<Allocation> best;
  uint64_t dist = ~uint64_t(0);
  if (above != allocs_.begin()) {
    const Allocation& b = std::prev(above)->second;
    dist = addr.value - b.base < b.size ? 0 : addr.value - (b.base + b.size) + 1;
    best = b;
  }
  if (above != allocs_.end() && above->second.base - addr.value < dist) best = above->second;
  return best;
}

void DeviceMemory::note_pool_block(DeviceAddr base, bool in_use) {
  std::shared_lock lock(mu_);
  if (observer_) observer_->pool_block(base.value, in_use);
}

std::vector<Allocation> DeviceMemory::allocations() const {
  std::shared_lock lock(mu_);
  std::vector<Allocation> v;
  v.reserve(allocs_.size());
  for (const auto& [b, a] : allocs_) v.push_back(a);
  return v;
}

bool DeviceMemory::contains(DeviceAddr addr, Bytes size) const {
  auto a = find(addr);
  return a && size.value <= a->size - (addr.value - a->base);
}

std::vector<Allocation> DeviceMemory::external_regions() const {
  std::shared_lock lock(mu_);
  std::vector<Allocation> v;
  v.reserve(external_.size());
  for (const auto& [b, a] : external_) v.push_back(a);
  return v;
}

size_t DeviceMemory::allocation_count() const {
  std::shared_lock lock(mu_);
  return allocs_.size();
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
  while (!allocs_.empty()) release_locked(allocs_.begin());
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

std::string DeviceMemory::describe(uint64_t addr) const {
  auto a = find(DeviceAddr{addr});
  if (!a) return fmt::format("address 0x{:x} (in no allocation)", addr);
  std::string what = a->kind == MemKind::Symbol ? fmt::format("variable '{}'", a->label.rfind("const:", 0) == 0
                                                                                     ? a->label.substr(6)
                                                                                     : a->label)
                     : a->label.empty() ? std::string(kind_name(a->kind))
                                        : fmt::format("{} '{}'", kind_name(a->kind), a->label);
  return fmt::format("allocation 0x{:x} ({}, {} bytes) at offset {}", a->base, what, a->size, addr - a->base);
}

}  // namespace softgpu::exec
