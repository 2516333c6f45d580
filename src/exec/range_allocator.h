// Carves the offsets [0, size) into blocks. Best fit over the free ranges
// (indexed by length), each block placed at the aligned start of the range it
// takes, coalescing with both neighbours on release. Offsets only: it never
// touches memory. Not thread-safe (its owner locks).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

namespace softgpu::exec {

class RangeAllocator {
 public:
  explicit RangeAllocator(uint64_t size);
  // A block of `bytes` at an offset that is a multiple of `align` (a power of
  // two), or nullopt when no free range can hold it. bytes == 0 is refused.
  std::optional<uint64_t> allocate(uint64_t bytes, uint64_t align);
  // Frees the block starting at `offset`; returns its length, 0 if no block starts there.
  uint64_t release(uint64_t offset);
  // The free range [first, second) that contains `offset`, or {offset, offset}.
  std::pair<uint64_t, uint64_t> free_range_at(uint64_t offset) const;
  uint64_t size() const { return size_; }
  uint64_t in_use() const { return in_use_; }
  size_t free_ranges() const { return free_.size(); }
  size_t blocks() const { return used_.size(); }

 private:
  void add_free(uint64_t off, uint64_t len);
  void remove_free(std::map<uint64_t, uint64_t>::iterator it);

  uint64_t size_;
  uint64_t in_use_ = 0;
  std::map<uint64_t, uint64_t> free_;                 // offset -> length
  std::set<std::pair<uint64_t, uint64_t>> by_len_;    // (length, offset)
  std::unordered_map<uint64_t, uint64_t> used_;       // offset -> length
};

}  // namespace softgpu::exec
