// The sectored cache against hit/miss sequences worked out by hand. The
// geometry is 4 KB, 4 ways, 128-byte lines: 8 sets; with plain indexing
// lines 1 KB apart fall in the same set.
#include <gtest/gtest.h>

#include "timing/cache.h"

using namespace softgpu::timing;

namespace {

CacheGeometry small() { return {4096, 4, false}; }

TEST(SectorCache, SectorsFillOnReadMisses) {
  SectorCache c(small(), WritePolicy::WriteThroughNoAllocate);
  EXPECT_EQ(c.sets(), 8u);
  auto a = c.read({0x0, 0b0011});
  EXPECT_EQ(a.hit, 0);
  EXPECT_EQ(a.miss, 0b0011);
  auto b = c.read({0x0, 0b0111});
  EXPECT_EQ(b.hit, 0b0011);
  EXPECT_EQ(b.miss, 0b0100);
  EXPECT_EQ(c.stats().sector_hits, 2u);
  EXPECT_EQ(c.stats().sector_misses, 3u);
  EXPECT_EQ(c.stats().line_misses, 1u);
}

TEST(SectorCache, LeastRecentlyUsedLineIsEvicted) {
  SectorCache c(small(), WritePolicy::WriteThroughNoAllocate);
  for (uint64_t line : {0x0, 0x400, 0x800, 0xc00}) c.read({line, 1});
  c.read({0x0, 1});     // 0x400 is now the least recently used
  c.read({0x1000, 1});  // fifth line of set 0: evicts 0x400
  EXPECT_EQ(c.read({0x0, 1}).hit, 1);
  EXPECT_EQ(c.read({0x800, 1}).hit, 1);
  EXPECT_EQ(c.read({0x400, 1}).miss, 1);
  // A line in another set is untouched by set 0's traffic.
  c.read({0x80, 1});
  EXPECT_EQ(c.read({0x80, 1}).hit, 1);
}

// The k newest lines of a set: after 0x0, 0x400, 0x800, 0xc00 and 0x0 again
// (set 0), the newest two are 0x0 and 0xc00; 0x400 is the oldest; a line
// absent from the cache is among none.
TEST(SectorCache, AmongNewestRanksALineWithinItsSet) {
  SectorCache c(small(), WritePolicy::WriteBackAllocate);
  for (uint64_t line : {0x0, 0x400, 0x800, 0xc00, 0x0}) c.read({line, 1});
  c.read({0x80, 1});  // set 1: changes nothing in set 0
  EXPECT_TRUE(c.among_newest(0x0, 1));
  EXPECT_FALSE(c.among_newest(0xc00, 1));
  EXPECT_TRUE(c.among_newest(0xc00, 2));
  EXPECT_FALSE(c.among_newest(0x800, 2));
  EXPECT_FALSE(c.among_newest(0x400, 3));
  EXPECT_TRUE(c.among_newest(0x400, 4));
  EXPECT_FALSE(c.among_newest(0x1000, 4));
}

TEST(SectorCache, WriteThroughDoesNotAllocate) {
  SectorCache c(small(), WritePolicy::WriteThroughNoAllocate);
  EXPECT_EQ(c.write({0x200, 0b1}).miss, 0b1);
  EXPECT_EQ(c.read({0x200, 0b1}).miss, 0b1);  // the store did not bring it in
  EXPECT_EQ(c.write({0x200, 0b1}).hit, 0b1);  // now present: updated in place
  EXPECT_EQ(c.stats().writebacks, 0u);
}

TEST(SectorCache, WriteBackEvictsDirtySectors) {
  SectorCache c(small(), WritePolicy::WriteBackAllocate);
  EXPECT_EQ(c.write({0x0, 0b0101}).miss, 0b0101);
  EXPECT_EQ(c.read({0x0, 0b0001}).hit, 0b0001);  // written sectors are valid
  for (uint64_t line : {0x400, 0x800, 0xc00}) c.read({line, 1});
  auto e = c.read({0x1000, 1});  // evicts 0x0, the least recently used
  EXPECT_EQ(e.evicted_dirty, 0b0101);
  EXPECT_EQ(c.stats().writebacks, 2u);
}

TEST(SectorCache, InvalidateDropsEverything) {
  SectorCache c(small(), WritePolicy::WriteThroughNoAllocate);
  c.read({0x0, 0b1111});
  c.invalidate();
  EXPECT_EQ(c.read({0x0, 0b1111}).miss, 0b1111);
}

TEST(SectorCache, HashedIndexSpreadsPowerOfTwoStrides) {
  // 1 MB stride: plain indexing puts every line in set 0 (4 ways), so 8
  // lines cannot stay; the hashed index spreads them.
  CacheGeometry g{4096, 4, true};
  SectorCache c(g, WritePolicy::WriteThroughNoAllocate);
  for (int rep = 0; rep < 2; ++rep)
    for (uint64_t i = 0; i < 8; ++i) c.read({i << 20, 1});
  EXPECT_GT(c.stats().sector_hits, 0u);
  SectorCache p(small(), WritePolicy::WriteThroughNoAllocate);
  for (int rep = 0; rep < 2; ++rep)
    for (uint64_t i = 0; i < 8; ++i) p.read({i << 20, 1});
  EXPECT_EQ(p.stats().sector_hits, 0u);
}

}  // namespace
