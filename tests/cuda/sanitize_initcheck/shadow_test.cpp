// initcheck's byte shadow (src/sanitize/init_shadow.h) against hand-computed cases.
#include <gtest/gtest.h>

#include "sanitize/init_shadow.h"

using softgpu::sanitize::ByteShadow;

TEST(InitShadow, FreshIsUnwritten) {
  ByteShadow s(1000);
  EXPECT_FALSE(s.all_set(0, 4));
  EXPECT_EQ(s.first_unset(0, 1000), 0u);
}

TEST(InitShadow, PartialWriteFindsFirstGap) {
  ByteShadow s(160);
  s.set(0, 128);  // the first 32 ints
  EXPECT_TRUE(s.all_set(124, 4));
  EXPECT_FALSE(s.all_set(128, 4));
  EXPECT_FALSE(s.all_set(126, 4));           // straddles the end of the write
  EXPECT_EQ(s.first_unset(120, 40), 8u);     // byte 128
  EXPECT_EQ(s.first_unset(0, 128), 128u);    // all written
}

TEST(InitShadow, AcrossWordsAndChunks) {
  const uint64_t c = ByteShadow::kChunk;
  ByteShadow s(3 * c);
  s.set(c - 3, 70);  // crosses a word and a chunk boundary
  EXPECT_TRUE(s.all_set(c - 3, 70));
  EXPECT_FALSE(s.all_set(c - 4, 2));
  EXPECT_EQ(s.first_unset(c - 3, 71), 70u);
  EXPECT_EQ(s.first_unset(2 * c, 16), 0u);  // an untouched chunk
  s.set(0, 3 * c);
  EXPECT_EQ(s.first_unset(0, 3 * c), 3 * c);
}

TEST(InitShadow, ClipsToRegion) {
  ByteShadow s(10);
  s.set(8, 100);
  EXPECT_TRUE(s.all_set(8, 2));
  EXPECT_EQ(s.first_unset(8, 100), 100u);  // past the region: not judged
  s.set(50, 4);                            // outside: ignored
  EXPECT_FALSE(s.all_set(0, 1));
}

// first_set, which --track-unused-memory uses to end an unwritten range.
TEST(InitShadow, FirstSetSkipsUntouchedChunks) {
  const uint64_t c = ByteShadow::kChunk;
  ByteShadow s(3 * c);
  EXPECT_EQ(s.first_set(0, 3 * c), 3 * c);  // nothing written
  s.set(2 * c + 70, 2);
  EXPECT_EQ(s.first_set(0, 3 * c), 2 * c + 70);  // two chunks without bitmaps, then word 1
  EXPECT_EQ(s.first_set(2 * c + 71, 10), 0u);
  EXPECT_EQ(s.first_set(2 * c + 72, 10), 10u);
  s.set(5, 1);
  EXPECT_EQ(s.first_set(3, 10), 2u);
  EXPECT_EQ(s.first_set(3 * c - 1, 100), 100u);  // past the region
}
