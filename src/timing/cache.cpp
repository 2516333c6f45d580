#include "timing/cache.h"

#include <algorithm>
#include <bit>

namespace softgpu::timing {

SectorCache::SectorCache(CacheGeometry g, WritePolicy p) : geo_(g), policy_(p) {
  geo_.ways = std::max<uint32_t>(1, geo_.ways);
  sets_ = uint32_t(std::max<uint64_t>(1, geo_.bytes / (uint64_t(kLineBytes) * geo_.ways)));
  ways_.assign(size_t(sets_) * geo_.ways, Way{});
}

uint32_t SectorCache::set_of(uint64_t line) const {
  uint64_t idx = line / kLineBytes;
  if (geo_.hash_index) idx ^= (idx >> 12) ^ (idx >> 24);
  return uint32_t(idx % sets_);
}

SectorCache::Way* SectorCache::find(uint64_t line, bool allocate, uint8_t& evicted_dirty) {
  Way* set = &ways_[size_t(set_of(line)) * geo_.ways];
  Way* empty = nullptr;
  Way* lru = set;
  for (uint32_t w = 0; w < geo_.ways; ++w) {
    if (set[w].tag == line) return &set[w];
    if (set[w].tag == ~0ull) { if (!empty) empty = &set[w]; }
    else if (set[w].last_use < lru->last_use) lru = &set[w];
  }
  Way* victim = empty ? empty : lru;
  if (!allocate) return nullptr;
  ++stats_.line_misses;
  if (victim->tag != ~0ull && victim->dirty) {
    evicted_dirty = victim->dirty;
    stats_.writebacks += uint64_t(std::popcount(unsigned(victim->dirty)));
  }
  *victim = Way{line, 0, 0, 0};
  return victim;
}

SectorCache::Outcome SectorCache::read(const LineAccess& a) {
  Outcome o;
  Way* w = find(a.line, true, o.evicted_dirty);
  w->last_use = ++clock_;
  o.hit = a.sectors & w->valid;
  o.miss = a.sectors & ~w->valid;
  w->valid |= a.sectors;
  stats_.sector_hits += uint64_t(std::popcount(unsigned(o.hit)));
  stats_.sector_misses += uint64_t(std::popcount(unsigned(o.miss)));
  return o;
}

SectorCache::Outcome SectorCache::write(const LineAccess& a) {
  Outcome o;
  const bool allocate = policy_ == WritePolicy::WriteBackAllocate;
  Way* w = find(a.line, allocate, o.evicted_dirty);
  if (!w) {  // write-through, line absent: the store goes on to the next level
    o.miss = a.sectors;
    stats_.sector_misses += uint64_t(std::popcount(unsigned(o.miss)));
    return o;
  }
  w->last_use = ++clock_;
  o.hit = a.sectors & w->valid;
  o.miss = a.sectors & ~w->valid;
  if (allocate) {
    w->valid |= a.sectors;  // a full-sector write needs no fill
    o.newly_dirty = a.sectors & ~w->dirty;
    w->dirty |= a.sectors;
  }
  stats_.sector_hits += uint64_t(std::popcount(unsigned(o.hit)));
  stats_.sector_misses += uint64_t(std::popcount(unsigned(o.miss)));
  return o;
}

uint8_t SectorCache::present(const LineAccess& a) const {
  const Way* set = &ways_[size_t(set_of(a.line)) * geo_.ways];
  for (uint32_t w = 0; w < geo_.ways; ++w)
    if (set[w].tag == a.line) return uint8_t(a.sectors & set[w].valid);
  return 0;
}

bool SectorCache::among_newest(uint64_t line, uint32_t k) const {
  const Way* set = &ways_[size_t(set_of(line)) * geo_.ways];
  const Way* it = nullptr;
  for (uint32_t w = 0; w < geo_.ways; ++w)
    if (set[w].tag == line) it = &set[w];
  if (!it) return false;
  uint32_t newer = 0;
  for (uint32_t w = 0; w < geo_.ways; ++w) newer += set[w].tag != ~0ull && set[w].last_use > it->last_use;
  return newer < k;
}

void SectorCache::invalidate() {
  std::fill(ways_.begin(), ways_.end(), Way{});
}

}  // namespace softgpu::timing
