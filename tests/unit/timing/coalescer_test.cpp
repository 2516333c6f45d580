// Coalescing into lines and sectors, against counts worked out by hand.
#include <gtest/gtest.h>

#include "timing/coalescer.h"

using namespace softgpu::timing;

namespace {

struct Lanes {
  uint64_t a[32];
  Lanes(uint64_t base, int64_t stride) {
    for (int l = 0; l < 32; ++l) a[l] = uint64_t(int64_t(base) + stride * l);
  }
};

TEST(Coalescer, ConsecutiveWordsAreOneLineFourSectors) {
  Lanes l(0x1000, 4);
  auto c = coalesce(l.a, ~0u, 4);
  ASSERT_EQ(c.n_lines, 1u);
  EXPECT_EQ(c.lines[0].line, 0x1000u);
  EXPECT_EQ(c.lines[0].sectors, 0b1111);
  EXPECT_EQ(c.sectors(), 4u);
}

TEST(Coalescer, MisalignedWarpSpillsIntoTheNextLine) {
  Lanes l(0x1004, 4);  // bytes 0x1004..0x1083
  auto c = coalesce(l.a, ~0u, 4);
  ASSERT_EQ(c.n_lines, 2u);
  EXPECT_EQ(c.lines[0].line, 0x1000u);
  EXPECT_EQ(c.lines[0].sectors, 0b1111);
  EXPECT_EQ(c.lines[1].line, 0x1080u);
  EXPECT_EQ(c.lines[1].sectors, 0b0001);
  EXPECT_EQ(c.sectors(), 5u);
}

TEST(Coalescer, LineStrideTouchesOneSectorPerLane) {
  Lanes l(0x10000, 128);
  auto c = coalesce(l.a, ~0u, 4);
  EXPECT_EQ(c.n_lines, 32u);
  EXPECT_EQ(c.sectors(), 32u);
  for (uint32_t i = 0; i < c.n_lines; ++i) EXPECT_EQ(c.lines[i].line, 0x10000u + 128 * i);
}

TEST(Coalescer, SameAddressIsOneSector) {
  Lanes l(0x2040, 0);
  auto c = coalesce(l.a, ~0u, 4);
  ASSERT_EQ(c.n_lines, 1u);
  EXPECT_EQ(c.lines[0].sectors, 0b0100);  // 0x40 is sector 2 of line 0x2000
}

TEST(Coalescer, WideAndPartialAccesses) {
  Lanes d(0x3000, 8);  // 8-byte lanes: 256 bytes
  EXPECT_EQ(coalesce(d.a, ~0u, 8).n_lines, 2u);
  EXPECT_EQ(coalesce(d.a, ~0u, 8).sectors(), 8u);
  Lanes w(0x3000, 4);  // half a warp of words: 64 bytes
  EXPECT_EQ(coalesce(w.a, 0xffffu, 4).sectors(), 2u);
  Lanes q(0x4000, 32);  // 16 bytes every 32: each lane its own sector, 8 lines
  auto c = coalesce(q.a, ~0u, 16);
  EXPECT_EQ(c.n_lines, 8u);
  EXPECT_EQ(c.sectors(), 32u);
  EXPECT_EQ(coalesce(q.a, 0u, 16).n_lines, 0u);
}

TEST(Coalescer, AnAccessAcrossALineBoundaryTouchesBoth) {
  uint64_t a[32] = {0x107c};
  auto c = coalesce(a, 1u, 8);  // bytes 0x107c..0x1083
  ASSERT_EQ(c.n_lines, 2u);
  EXPECT_EQ(c.lines[0].sectors, 0b1000);
  EXPECT_EQ(c.lines[1].sectors, 0b0001);
}

}  // namespace
