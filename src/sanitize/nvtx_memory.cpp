#include "sanitize/nvtx_memory.h"

#include <algorithm>
#include <tuple>

namespace softgpu::sanitize {
namespace {

// The permissions object bound to the calling thread's stream scope.
struct Binding {
  bool bound = false;
  uint64_t handle = 0;
  uint32_t strict = 0;
};
thread_local Binding t_binding;

bool inside(uint64_t addr, uint64_t size, uint64_t base, uint64_t len) {
  return addr >= base && addr - base <= len && size <= len - (addr - base);
}

}  // namespace

uint64_t NvtxMemory::heap_register(uint64_t base, uint64_t size) {
  std::lock_guard lock(mu_);
  const uint64_t h = next_heap_++;
  heaps_[h] = Heap{base, size, {}};
  return h;
}

void NvtxMemory::heap_unregister(uint64_t heap) {
  std::lock_guard lock(mu_);
  heaps_.erase(heap);
}

void NvtxMemory::heap_reset(uint64_t heap) {
  std::lock_guard lock(mu_);
  if (auto it = heaps_.find(heap); it != heaps_.end()) it->second.regions.clear();
}

void NvtxMemory::region_register(uint64_t heap, uint64_t base, uint64_t size) {
  std::lock_guard lock(mu_);
  auto it = heaps_.find(heap);
  if (it == heaps_.end()) {
    named_regions_[base] = size;
    return;
  }
  it->second.regions[base] = size;
  extents_[it->second.base].push_back({base, size});
}

void NvtxMemory::region_resize(uint64_t base, uint64_t size) {
  std::lock_guard lock(mu_);
  for (auto& [h, heap] : heaps_)
    if (auto r = heap.regions.find(base); r != heap.regions.end()) {
      r->second = size;
      extents_[heap.base].push_back({base, size});
      return;
    }
  if (auto r = named_regions_.find(base); r != named_regions_.end()) r->second = size;
}

void NvtxMemory::region_unregister(uint64_t base) {
  std::lock_guard lock(mu_);
  for (auto& [h, heap] : heaps_) heap.regions.erase(base);
  named_regions_.erase(base);
  names_.erase(base);
  for (auto& [h, p] : perms_) p.regions.erase(base);
}

void NvtxMemory::name(uint64_t base, std::string n) {
  std::lock_guard lock(mu_);
  names_[base] = std::move(n);
}

std::string NvtxMemory::name_of(uint64_t base) const {
  std::lock_guard lock(mu_);
  auto it = names_.find(base);
  return it == names_.end() ? std::string() : it->second;
}

uint64_t NvtxMemory::permissions_create(uint32_t exclude_flags) {
  std::lock_guard lock(mu_);
  const uint64_t h = 0x10000 + next_perms_++;
  perms_[h].exclude = exclude_flags & (kExcludeRead | kExcludeWrite | kExcludeAtomic);
  return h;
}

void NvtxMemory::permissions_destroy(uint64_t handle) {
  std::lock_guard lock(mu_);
  perms_.erase(handle);
  if (t_binding.bound && t_binding.handle == handle) t_binding = {};
}

void NvtxMemory::permissions_reset(uint64_t handle) {
  std::lock_guard lock(mu_);
  if (auto it = perms_.find(handle); it != perms_.end()) it->second.regions.clear();
}

void NvtxMemory::permissions_assign(uint64_t handle, uint64_t region_base, uint64_t alloc_size, uint32_t flags) {
  std::lock_guard lock(mu_);
  Perms& p = perms_[handle];
  if (flags & kPermReset) {
    p.regions.erase(region_base);
    return;
  }
  const uint64_t n = region_size(region_base);
  if (n || alloc_size) p.regions[region_base] = {n ? n : alloc_size, flags & (kPermRead | kPermWrite | kPermAtomic)};
}

void NvtxMemory::bind(uint64_t handle, uint32_t strict_flags) {
  t_binding = Binding{true, handle, strict_flags & (kExcludeRead | kExcludeWrite | kExcludeAtomic)};
}

void NvtxMemory::unbind() { t_binding = {}; }

void NvtxMemory::released(uint64_t base, uint64_t size) {
  std::lock_guard lock(mu_);
  auto in = [&](uint64_t a) { return a >= base && a - base < std::max<uint64_t>(size, 1); };
  for (auto it = heaps_.begin(); it != heaps_.end();) it = in(it->second.base) ? heaps_.erase(it) : std::next(it);
  std::erase_if(named_regions_, [&](const auto& r) { return in(r.first); });
  std::erase_if(names_, [&](const auto& n) { return in(n.first); });
  for (auto& [h, p] : perms_) std::erase_if(p.regions, [&](const auto& r) { return in(r.first); });
  std::erase_if(extents_, [&](const auto& e) { return in(e.first); });
}

std::vector<std::pair<uint64_t, uint64_t>> NvtxMemory::pool_extent(uint64_t base, uint64_t size) const {
  std::lock_guard lock(mu_);
  std::vector<std::pair<uint64_t, uint64_t>> v;
  for (const auto& [hb, regions] : extents_)
    if (hb >= base && hb - base < std::max<uint64_t>(size, 1)) v.insert(v.end(), regions.begin(), regions.end());
  std::sort(v.begin(), v.end());
  std::vector<std::pair<uint64_t, uint64_t>> merged;  // as {lo, hi}
  for (auto [b, n] : v) {
    if (!merged.empty() && b <= merged.back().second) merged.back().second = std::max(merged.back().second, b + n);
    else merged.push_back({b, b + n});
  }
  for (auto& [lo, hi] : merged) hi -= lo;
  return merged;
}

uint64_t NvtxMemory::region_size(uint64_t base) const {
  for (const auto& [h, heap] : heaps_)
    if (auto r = heap.regions.find(base); r != heap.regions.end()) return r->second;
  if (auto r = named_regions_.find(base); r != named_regions_.end()) return r->second;
  return 0;
}

// Paints an object's regions, largest first, so that a region inside
// another (a suballocation in a pool allocation) decides for its bytes.
void NvtxMemory::paint(const Perms& p, std::map<uint64_t, std::pair<uint64_t, uint32_t>>& out) const {
  std::vector<std::tuple<uint64_t, uint64_t, uint32_t>> rs;  // size, base, flags
  for (const auto& [b, r] : p.regions) rs.emplace_back(r.first, b, r.second);
  std::sort(rs.begin(), rs.end(), [](const auto& a, const auto& b) { return std::get<0>(a) > std::get<0>(b); });
  for (const auto& [n, lo, flags] : rs) {
    const uint64_t hi = lo + n;
    // Cut what overlaps [lo, hi), keeping the parts outside it.
    auto it = out.upper_bound(lo);
    if (it != out.begin()) --it;
    std::vector<std::pair<uint64_t, std::pair<uint64_t, uint32_t>>> keep;
    while (it != out.end() && it->first < hi) {
      const uint64_t s = it->first, e = it->second.first;
      const uint32_t f = it->second.second;
      if (e <= lo) { ++it; continue; }
      if (s < lo) keep.push_back({s, {lo, f}});
      if (e > hi) keep.push_back({hi, {e, f}});
      it = out.erase(it);
    }
    for (auto& k : keep) out.insert(k);
    out[lo] = {hi, flags};
  }
}

NvtxMemory::View NvtxMemory::view(int device) const {
  std::lock_guard lock(mu_);
  View v;
  for (const auto& [h, heap] : heaps_)
    v.heaps.push_back({heap.base, heap.size, {heap.regions.begin(), heap.regions.end()}});
  Perms global;
  for (uint64_t h : {kProcessWide, device_wide(device)})
    if (auto it = perms_.find(h); it != perms_.end())
      for (const auto& r : it->second.regions) global.regions[r.first] = r.second;
  paint(global, v.global);
  if (t_binding.bound)
    if (auto it = perms_.find(t_binding.handle); it != perms_.end()) {
      v.has_bound = true;
      v.strict = it->second.exclude | t_binding.strict;
      paint(it->second, v.bound);
    }
  v.active = !v.heaps.empty() || !v.global.empty() || v.has_bound;
  return v;
}

std::optional<std::string> NvtxMemory::View::check(uint64_t addr, uint32_t size, uint32_t kind) const {
  for (const Heap& h : heaps) {
    if (!inside(addr, 1, h.base, h.size)) continue;
    auto it = std::upper_bound(h.regions.begin(), h.regions.end(), std::pair{addr, UINT64_MAX});
    if (it == h.regions.begin() || !inside(addr, size, std::prev(it)->first, std::prev(it)->second))
      return "is out of bounds";
    break;
  }
  auto flags_at = [&](const std::map<uint64_t, std::pair<uint64_t, uint32_t>>& m) -> std::optional<uint32_t> {
    auto it = m.upper_bound(addr);
    if (it == m.begin()) return std::nullopt;
    --it;
    if (addr >= it->second.first) return std::nullopt;
    return it->second.second;
  };
  std::optional<uint32_t> f;
  if (has_bound) {
    f = flags_at(bound);
    if (!f && (strict & kind)) f = 0;  // the bound object alone decides, and does not list it
  }
  if (!f) f = flags_at(global);
  if (!f || (*f & kind)) return std::nullopt;
  switch (kind) {
    case kPermRead: return "is not readable";
    case kPermWrite: return "is not writable";
    default: return "is not readable/writable with atomic operations";
  }
}

}  // namespace softgpu::sanitize
