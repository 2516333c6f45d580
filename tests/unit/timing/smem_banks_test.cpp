// Shared-memory wavefronts per warp access, against bank conflicts worked
// out by hand (bank = (address / 4) mod 32).
#include <gtest/gtest.h>

#include "timing/smem_banks.h"

using namespace softgpu::timing;

namespace {

uint32_t strided(uint64_t stride, uint32_t bytes, uint32_t mask = ~0u) {
  uint64_t a[32];
  for (int l = 0; l < 32; ++l) a[l] = 0x100 + stride * l;
  return shared_wavefronts(a, mask, bytes);
}

TEST(SharedBanks, FourByteStrides) {
  EXPECT_EQ(strided(4, 4), 1u);     // one word per bank
  EXPECT_EQ(strided(8, 4), 2u);     // lanes l and l+16 share a bank
  EXPECT_EQ(strided(128, 4), 32u);  // every lane in one bank
  EXPECT_EQ(strided(132, 4), 1u);   // stride 33 words: conflict-free (padding)
  EXPECT_EQ(strided(0, 4), 1u);     // one word for all: broadcast
  EXPECT_EQ(strided(16, 4), 4u);    // 4-word stride: 8 banks used, 4 lanes each
}

TEST(SharedBanks, WideAccessesGoInPhases) {
  EXPECT_EQ(strided(8, 8), 2u);    // 64-bit, consecutive: two half-warp phases
  EXPECT_EQ(strided(16, 16), 4u);  // 128-bit, consecutive: four quarter-warp phases
  // 64-bit every 16 bytes: in a half-warp lanes l and l+8 hit the same banks.
  EXPECT_EQ(strided(16, 8), 4u);
}

TEST(SharedBanks, OnlyActiveLanesCount) {
  EXPECT_EQ(strided(128, 4, 0x00010001u), 2u);
  EXPECT_EQ(strided(128, 4, 0u), 0u);
  EXPECT_EQ(strided(8, 8, 0x0000ffffu), 1u);  // the second phase has no lanes
}

}  // namespace
