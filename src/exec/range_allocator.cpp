#include "exec/range_allocator.h"

#include <iterator>

namespace softgpu::exec {

RangeAllocator::RangeAllocator(uint64_t size) : size_(size) {
  if (size_) add_free(0, size_);
}

void RangeAllocator::add_free(uint64_t off, uint64_t len) {
  free_[off] = len;
  by_len_.insert({len, off});
}

void RangeAllocator::remove_free(std::map<uint64_t, uint64_t>::iterator it) {
  by_len_.erase({it->second, it->first});
  free_.erase(it);
}

std::optional<uint64_t> RangeAllocator::allocate(uint64_t bytes, uint64_t align) {
  if (bytes == 0 || bytes > size_ || align == 0 || (align & (align - 1))) return std::nullopt;
  auto fits = [&](uint64_t off, uint64_t len) {
    const uint64_t start = (off + align - 1) & ~(align - 1);
    return start >= off && start - off <= len && bytes <= len - (start - off);
  };
  // Best fit: the shortest ranges that are long enough, a few of them (the
  // alignment may not fit); then the shortest range that always fits.
  auto it = by_len_.lower_bound({bytes, 0});
  for (int tries = 0; it != by_len_.end() && tries < 16 && !fits(it->second, it->first); ++tries) ++it;
  if (it != by_len_.end() && !fits(it->second, it->first)) {
    const uint64_t need = bytes + (align - 1);
    it = need < bytes ? by_len_.end() : by_len_.lower_bound({need, 0});
  }
  if (it == by_len_.end()) return std::nullopt;
  const uint64_t off = it->second, len = it->first;
  const uint64_t start = (off + align - 1) & ~(align - 1);
  remove_free(free_.find(off));
  if (start > off) add_free(off, start - off);
  if (start + bytes < off + len) add_free(start + bytes, off + len - (start + bytes));
  used_[start] = bytes;
  in_use_ += bytes;
  return start;
}

uint64_t RangeAllocator::release(uint64_t offset) {
  auto u = used_.find(offset);
  if (u == used_.end()) return 0;
  const uint64_t freed = u->second;
  uint64_t off = offset, len = freed;
  used_.erase(u);
  in_use_ -= freed;
  auto next = free_.lower_bound(off);
  if (next != free_.end() && next->first == off + len) {
    len += next->second;
    auto after = std::next(next);
    remove_free(next);
    next = after;
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == off) {
      off = prev->first;
      len += prev->second;
      remove_free(prev);
    }
  }
  add_free(off, len);
  return freed;
}

std::pair<uint64_t, uint64_t> RangeAllocator::free_range_at(uint64_t offset) const {
  auto it = free_.upper_bound(offset);
  if (it == free_.begin()) return {offset, offset};
  --it;
  if (offset - it->first >= it->second) return {offset, offset};
  return {it->first, it->first + it->second};
}

}  // namespace softgpu::exec
