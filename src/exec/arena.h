// The simulated GPU's memory as one reserved virtual region: address space
// only (MAP_NORESERVE), pages backed by the OS when first touched. The arena
// is split into 2 MiB chunks; a chunk is "mapped" while some allocation
// overlaps it (the way a GPU maps its memory in 2 MiB pages), and the
// executor's hot path checks only the chunk's flags. Holder counts change
// under the owner's lock; flags are atomics the executor reads without one.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace softgpu::exec {

class Arena {
 public:
  static constexpr unsigned kChunkShift = 21;
  static constexpr uint64_t kChunk = uint64_t(1) << kChunkShift;
  enum Flag : uint8_t {
    kMapped = 1,   // some allocation overlaps the chunk
    kConst = 2,    // the chunk holds __constant__ data: generic/global writes fault
    kTouched = 4,  // the chunk may have host pages (counted in touched_bytes)
  };

  // Reserves `bytes` rounded up to whole chunks, chunk-aligned. If the host
  // refuses that much address space, halves the request down to 64 MiB;
  // size() says what was reserved (0 if nothing could be).
  explicit Arena(uint64_t bytes);
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  uint64_t base() const { return base_; }
  uint64_t size() const { return size_; }
  bool contains(uint64_t addr, uint64_t n) const { return addr - base_ < size_ && n <= size_ - (addr - base_); }
  const std::atomic<uint8_t>* flags() const { return flags_.get(); }
  uint8_t flags_at(uint64_t addr) const { return flags_[(addr - base_) >> kChunkShift].load(std::memory_order_relaxed); }

  // One more holder for each chunk [addr, addr+n) overlaps (they become mapped).
  void hold(uint64_t addr, uint64_t n);
  // One holder fewer; chunks left without holders are unmapped and their
  // pages returned to the OS (they read as zero when mapped again).
  void drop(uint64_t addr, uint64_t n);
  void set_const(uint64_t addr, uint64_t n);  // marks the chunks constant (never cleared)

  // Marks the chunks [addr, addr+n) touched; returns the bytes of chunks
  // that were not touched before. touched_bytes() bounds the arena's
  // resident host memory from above.
  uint64_t touch(uint64_t addr, uint64_t n);
  bool all_touched(uint64_t addr, uint64_t n) const;
  bool any_touched(uint64_t addr, uint64_t n) const {
    return n && untouched_bytes(addr, n) != (last(addr, n) - first(addr) + 1) * kChunk;
  }
  uint64_t untouched_bytes(uint64_t addr, uint64_t n) const;  // chunks of [addr, addr+n) not touched
  uint64_t touched_bytes() const { return touched_.load(std::memory_order_relaxed); }

  // Makes [addr, addr+n) read as zero: whole pages are returned to the OS,
  // the partial pages at either end cleared (their chunks become touched).
  void zero(uint64_t addr, uint64_t n);
  // Returns the whole pages inside [lo, hi) to the OS.
  void release_pages(uint64_t lo, uint64_t hi);
  // After freeing [addr, addr+n), which lies in the free range [free_lo,
  // free_hi): makes it read as zero without making pages resident. Whole
  // free pages go back to the OS; partial pages are cleared only if resident.
  void scrub(uint64_t addr, uint64_t n, uint64_t free_lo, uint64_t free_hi);
  // Host pages of [addr, addr+n) that are not resident (mincore).
  uint64_t nonresident_bytes(uint64_t addr, uint64_t n) const;
  static uint64_t page_size();

 private:
  uint64_t first(uint64_t addr) const { return (addr - base_) >> kChunkShift; }
  uint64_t last(uint64_t addr, uint64_t n) const { return (addr - base_ + n - 1) >> kChunkShift; }

  uint64_t base_ = 0, size_ = 0;
  std::unique_ptr<std::atomic<uint8_t>[]> flags_;
  std::vector<uint32_t> holders_;
  std::atomic<uint64_t> touched_{0};
};

}  // namespace softgpu::exec
