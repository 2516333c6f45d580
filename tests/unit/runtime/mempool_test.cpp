// Memory pools at the Runtime level (no nvcc): running out of device memory
// gives cached pool blocks back, cudaDeviceReset forgets every block, and a
// pool destroyed with blocks in use lets go of its memory with the last free.
#include "runtime_fixture.h"

namespace softgpu::runtime::testing {
namespace {

constexpr int kReservedCurrent = 5, kUsedCurrent = 7;  // cudaMemPoolAttr

uint64_t attr(Runtime& rt, void* pool, int a) {
  uint64_t v = ~0ull;
  EXPECT_EQ(rt.mempool_get_attribute(pool, a, &v), Status::Success);
  return v;
}

TEST_F(RuntimeTest, OutOfMemoryReleasesCachedPoolBlocks) {
  const size_t big = 600ull << 20;  // the test GPU has 1 GiB
  void* other = nullptr;
  ASSERT_EQ(rt.mempool_create(&other, PoolProps{}), Status::Success);
  void* p = nullptr;
  ASSERT_EQ(rt.malloc_async(&p, big, other, nullptr), Status::Success);
  ASSERT_EQ(rt.free_async(p, nullptr), Status::Success);
  EXPECT_EQ(attr(rt, other, kReservedCurrent), big);  // cached, no synchronize yet
  void* q = nullptr;
  // The default pool cannot get 600 MiB more: the other pool's cache is released.
  ASSERT_EQ(rt.malloc_async(&q, big, nullptr, nullptr), Status::Success);
  EXPECT_EQ(attr(rt, other, kReservedCurrent), 0u);
  void* r = nullptr;
  EXPECT_EQ(rt.malloc_async(&r, big, other, nullptr), Status::MemoryAllocation);
  EXPECT_EQ(rt.last_error(true), Status::MemoryAllocation);
  EXPECT_EQ(rt.free_async(q, nullptr), Status::Success);
  EXPECT_EQ(rt.mempool_destroy(other), Status::Success);
}

TEST_F(RuntimeTest, ResetForgetsPoolBlocks) {
  void* def = nullptr;
  ASSERT_EQ(rt.mempool_default(&def, 0), Status::Success);
  void* p = nullptr;
  ASSERT_EQ(rt.malloc_async(&p, 1000, nullptr, nullptr), Status::Success);
  EXPECT_EQ(attr(rt, def, kUsedCurrent), 1024u);
  ASSERT_EQ(rt.reset(), Status::Success);
  EXPECT_EQ(attr(rt, def, kReservedCurrent), 0u);
  EXPECT_EQ(rt.free_async(p, nullptr), Status::InvalidValue);  // gone with the reset
  void* q = nullptr;
  ASSERT_EQ(rt.malloc_async(&q, 10, nullptr, nullptr), Status::Success);
  EXPECT_EQ(attr(rt, def, kUsedCurrent), 512u);
  EXPECT_EQ(rt.free(q), Status::Success);
}

TEST_F(RuntimeTest, DestroyedPoolReleasesMemoryWithTheLastFree) {
  const uint64_t base = rt.memory()->used().value;
  void* pool = nullptr;
  ASSERT_EQ(rt.mempool_create(&pool, PoolProps{}), Status::Success);
  void *a = nullptr, *b = nullptr;
  ASSERT_EQ(rt.malloc_async(&a, 5000, pool, nullptr), Status::Success);
  ASSERT_EQ(rt.malloc_async(&b, 100, pool, nullptr), Status::Success);
  ASSERT_EQ(rt.free_async(b, nullptr), Status::Success);  // cached: released by the destroy
  ASSERT_EQ(rt.mempool_destroy(pool), Status::Success);
  EXPECT_EQ(rt.memory()->used().value, base + 5120);
  uint64_t v = 0;
  EXPECT_EQ(rt.mempool_get_attribute(pool, kUsedCurrent, &v), Status::InvalidValue);  // handle gone
  EXPECT_EQ(rt.mempool_destroy(pool), Status::InvalidValue);
  EXPECT_EQ(rt.free_async(a, nullptr), Status::Success);
  EXPECT_EQ(rt.memory()->used().value, base);
  EXPECT_EQ(rt.free_async(a, nullptr), Status::InvalidValue);
}

TEST_F(RuntimeTest, HostPoolAllocatesPinnedMemory) {
  PoolProps props;
  props.location_type = 2;  // cudaMemLocationTypeHost
  void* pool = nullptr;
  ASSERT_EQ(rt.mempool_create(&pool, props), Status::Success);
  void* p = nullptr;
  ASSERT_EQ(rt.malloc_async(&p, 64, pool, nullptr), Status::Success);
  PointerInfo info;
  ASSERT_EQ(rt.pointer_info(p, &info), Status::Success);
  EXPECT_EQ(info.type, PointerInfo::Host);
  EXPECT_EQ(rt.mempool_set_current(0, pool), Status::InvalidValue);  // not a device pool
  props.location_type = 4;                                            // HostNumaCurrent
  void* bad = nullptr;
  EXPECT_EQ(rt.mempool_create(&bad, props), Status::InvalidValue);
  props.location_type = 3;  // HostNuma: no NUMA configuration reported
  EXPECT_EQ(rt.mempool_create(&bad, props), Status::NotSupported);
  props = PoolProps{};
  props.handle_types = 1;  // POSIX file descriptor: IPC is not modelled
  EXPECT_EQ(rt.mempool_create(&bad, props), Status::NotSupported);
  EXPECT_EQ(rt.free_async(p, nullptr), Status::Success);
  EXPECT_EQ(rt.mempool_destroy(pool), Status::Success);
}

}  // namespace
}  // namespace softgpu::runtime::testing
