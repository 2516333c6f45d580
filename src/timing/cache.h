// A sectored, set-associative cache with LRU replacement: 128-byte lines of
// four 32-byte sectors, tags per line, valid bits per sector (as NVIDIA's L1
// and L2 are organised). It tracks presence only; data stays in the
// functional model.
#pragma once
#include <cstdint>
#include <vector>

#include "timing/coalescer.h"

namespace softgpu::timing {

struct CacheGeometry {
  uint64_t bytes = 0;  // capacity
  uint32_t ways = 4;   // associativity
  // Sets are indexed by line address modulo the set count, after XOR-folding
  // the higher line bits in when `hash_index` is set (spreads power-of-two
  // strides over the sets, as real GPU caches do).
  bool hash_index = true;
};

enum class WritePolicy : uint8_t {
  WriteThroughNoAllocate,  // L1 for global stores: update present sectors, never allocate
  WriteBackAllocate,       // L2: stores allocate their sectors (and mark them dirty)
};

struct CacheStats {
  uint64_t sector_hits = 0, sector_misses = 0;
  uint64_t line_misses = 0;          // tag misses (a line was (re)allocated)
  uint64_t writebacks = 0;           // dirty sectors evicted (write-back caches)
};

class SectorCache {
 public:
  SectorCache(CacheGeometry g, WritePolicy p);
  struct Outcome {
    uint8_t hit = 0;   // sectors found
    uint8_t miss = 0;  // sectors not found (loads: now filled)
    uint8_t evicted_dirty = 0;  // dirty sectors written back by this access's eviction
    uint8_t newly_dirty = 0;    // write-back: sectors this write made dirty (they were clean)
  };
  Outcome read(const LineAccess& a);
  Outcome write(const LineAccess& a);
  // The sectors of `a` it holds, without touching its LRU order.
  uint8_t present(const LineAccess& a) const;
  // Whether `line` is held and among the `k` most recently used lines of its set.
  bool among_newest(uint64_t line, uint32_t k) const;
  void invalidate();  // drops every line (e.g. L1 between kernels)
  const CacheStats& stats() const { return stats_; }
  uint32_t sets() const { return sets_; }
  uint64_t capacity_bytes() const { return geo_.bytes; }

 private:
  struct Way {
    uint64_t tag = ~0ull;  // line address; ~0 = empty
    uint8_t valid = 0, dirty = 0;
    uint64_t last_use = 0;
  };
  Way* find(uint64_t line, bool allocate, uint8_t& evicted_dirty);
  uint32_t set_of(uint64_t line) const;

  CacheGeometry geo_;
  WritePolicy policy_;
  uint32_t sets_ = 1;
  std::vector<Way> ways_;  // sets_ x geo_.ways
  uint64_t clock_ = 0;
  CacheStats stats_;
};

}  // namespace softgpu::timing
