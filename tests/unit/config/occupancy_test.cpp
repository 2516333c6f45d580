// Occupancy against values worked out by hand with the rules of NVIDIA's
// calculator (cuda_occupancy.h), on an H100-like description written here.
#include <gtest/gtest.h>

#include "config/occupancy.h"

using namespace softgpu::config;

namespace {

GpuConfig h100() {
  GpuConfig g;
  g.cc_major = 9;
  g.max_threads_per_block = 1024;
  g.max_threads_per_sm = 2048;
  g.max_warps_per_sm = 64;
  g.max_blocks_per_sm = 32;
  g.registers_per_sm = 65536;
  g.registers_per_block = 65536;
  g.max_registers_per_thread = 255;
  g.shared_memory_per_sm = 233472;
  g.shared_memory_per_block = 49152;
  g.shared_memory_per_block_optin = 232448;
  g.reserved_shared_memory_per_block = 1024;
  return g;
}

TEST(Occupancy, RegistersPerSubPartition) {
  // 64 regs x 32 lanes = 2048 per warp; 16384 per sub-partition -> 8 warps each, 32 per SM, 4 blocks of 8 warps.
  auto o = occupancy(h100(), {256, 64, 0});
  EXPECT_EQ(o.blocks_per_sm, 4u);
  EXPECT_EQ(o.limiter, "registers");
  EXPECT_DOUBLE_EQ(o.fraction(), 0.5);
  // 40 regs -> 1280 per warp -> 12 warps per sub-partition (16384 / 1280 = 12.8), 48 per SM, 12 blocks of 4.
  EXPECT_EQ(occupancy(h100(), {128, 40, 0}).blocks_per_sm, 12u);
  // 33 regs -> 1056, rounded to 1280 (units of 256): the same 12 blocks.
  EXPECT_EQ(occupancy(h100(), {128, 33, 0}).blocks_per_sm, 12u);
  // 32 regs: 16 warps per sub-partition, 64 per SM; threads limit first (2048 / 256 = 8).
  auto t = occupancy(h100(), {256, 32, 0});
  EXPECT_EQ(t.blocks_per_sm, 8u);
  EXPECT_EQ(t.limiter, "threads");
}

TEST(Occupancy, BlockTooBigForTheRegisterFile) {
  // 255 regs -> 8160, rounded to 8192 per warp; 32 warps need 262144 > 65536 per block.
  auto o = occupancy(h100(), {1024, 255, 0});
  EXPECT_EQ(o.blocks_per_sm, 0u);
  EXPECT_EQ(o.limiter, "registers");
  EXPECT_EQ(occupancy(h100(), {32, 256, 0}).blocks_per_sm, 0u);  // over the per-thread maximum
}

TEST(Occupancy, SharedMemoryWithReservedAndGranularity) {
  // 48 KB + 1 KB reserved = 50176 (a multiple of 128); 233472 / 50176 = 4.65 -> 4.
  auto o = occupancy(h100(), {256, 0, 49152});
  EXPECT_EQ(o.blocks_per_sm, 4u);
  EXPECT_EQ(o.limiter, "shared memory");
  // 1000 + 1024 -> 2048 after rounding to 128: 114 blocks by shared memory; the 32 block slots win.
  EXPECT_EQ(occupancy(h100(), {32, 0, 1000}).by_shared, 114u);
  EXPECT_EQ(occupancy(h100(), {32, 0, 1000}).blocks_per_sm, 32u);
  EXPECT_EQ(occupancy(h100(), {32, 0, 232449}).blocks_per_sm, 0u);  // over the opt-in maximum
}

TEST(Occupancy, ThreadsWarpsAndBlockSize) {
  EXPECT_EQ(occupancy(h100(), {33, 0, 0}).blocks_per_sm, 32u);  // 2 warps each: 2048 / 64
  EXPECT_EQ(occupancy(h100(), {64, 0, 0}).by_threads, 32u);
  EXPECT_EQ(occupancy(h100(), {0, 0, 0}).limiter, "block size");
  EXPECT_EQ(occupancy(h100(), {1025, 0, 0}).blocks_per_sm, 0u);
}

}  // namespace
