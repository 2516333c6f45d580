// NVTX memory annotations (sanitize/nvtx_memory.h) on hand-computed cases:
// which accesses a pool, permissions and bindings allow, with which wording.
#include <gtest/gtest.h>

#include <thread>

#include "sanitize/nvtx_memory.h"

namespace softgpu::sanitize {
namespace {

constexpr uint64_t kBase = 0x10000;  // an allocation of 4096 bytes

std::string why(const NvtxMemory::View& v, uint64_t addr, uint32_t size, uint32_t kind) {
  auto r = v.check(addr, size, kind);
  return r ? *r : "ok";
}

TEST(NvtxMemory, NothingAnnotatedIsInactive) {
  NvtxMemory m;
  EXPECT_FALSE(m.view(0).active);
  m.name(kBase, "buf");
  EXPECT_FALSE(m.view(0).active);  // a name restricts nothing
  EXPECT_EQ(m.name_of(kBase), "buf");
  EXPECT_EQ(m.name_of(kBase + 1), "");
}

TEST(NvtxMemory, PoolAllowsOnlyItsRegions) {
  NvtxMemory m;
  const uint64_t h = m.heap_register(kBase, 4096);
  EXPECT_NE(h, 0u);
  m.region_register(h, kBase + 16, 63);
  auto v = m.view(0);
  ASSERT_TRUE(v.active);
  EXPECT_EQ(why(v, kBase + 16, 1, kPermWrite), "ok");
  EXPECT_EQ(why(v, kBase + 78, 1, kPermWrite), "ok");                // the region's last byte
  EXPECT_EQ(why(v, kBase + 79, 1, kPermWrite), "is out of bounds");  // one past it
  EXPECT_EQ(why(v, kBase + 76, 4, kPermRead), "is out of bounds");   // straddles its end
  EXPECT_EQ(why(v, kBase + 15, 1, kPermRead), "is out of bounds");
  EXPECT_EQ(why(v, kBase + 4096, 4, kPermRead), "ok");               // outside the pool: not its business
  m.region_resize(kBase + 16, 64);
  EXPECT_EQ(why(m.view(0), kBase + 79, 1, kPermWrite), "ok");
  m.heap_reset(h);
  EXPECT_EQ(why(m.view(0), kBase + 16, 1, kPermWrite), "is out of bounds");
  m.region_register(h, kBase + 16, 8);
  m.region_unregister(kBase + 16);
  EXPECT_EQ(why(m.view(0), kBase + 16, 1, kPermWrite), "is out of bounds");
  m.heap_unregister(h);
  EXPECT_FALSE(m.view(0).active);
  // Every region ever used, merged, for initcheck: [16, 80) and [16, 24).
  auto e = m.pool_extent(kBase, 4096);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].first, kBase + 16);
  EXPECT_EQ(e[0].second, 64u);
  m.released(kBase, 4096);
  EXPECT_TRUE(m.pool_extent(kBase, 4096).empty());
}

TEST(NvtxMemory, ProcessWidePermissionsPerKind) {
  NvtxMemory m;
  const uint64_t all = NvtxMemory::kProcessWide;
  m.permissions_assign(all, kBase, 4096, kPermRead);
  auto v = m.view(0);
  EXPECT_EQ(why(v, kBase, 4, kPermRead), "ok");
  EXPECT_EQ(why(v, kBase + 100, 4, kPermWrite), "is not writable");
  EXPECT_EQ(why(v, kBase, 4, kPermAtomic), "is not readable/writable with atomic operations");
  EXPECT_EQ(why(v, kBase + 4096, 4, kPermWrite), "ok");  // another allocation: natural
  m.permissions_assign(all, kBase, 4096, 0);
  EXPECT_EQ(why(m.view(0), kBase, 4, kPermRead), "is not readable");
  m.permissions_assign(all, kBase, 4096, kPermRead | kPermWrite | kPermAtomic);
  EXPECT_EQ(why(m.view(0), kBase, 4, kPermAtomic), "ok");
  m.permissions_assign(all, kBase, 4096, kPermReset);
  EXPECT_FALSE(m.view(0).active);
  m.permissions_assign(all, kBase + 8, 0, kPermRead);  // not an allocation's start, no region: ignored
  EXPECT_FALSE(m.view(0).active);
}

TEST(NvtxMemory, InnerRegionDecidesForItsBytes) {
  NvtxMemory m;
  const uint64_t h = m.heap_register(kBase, 4096);
  m.region_register(h, kBase + 256, 256);
  m.permissions_assign(NvtxMemory::kProcessWide, kBase, 4096, kPermRead);        // the pool: read-only
  m.permissions_assign(NvtxMemory::kProcessWide, kBase + 256, 0, kPermRead | kPermWrite);  // its region: rw
  auto v = m.view(0);
  EXPECT_EQ(why(v, kBase + 256, 4, kPermWrite), "ok");
  EXPECT_EQ(why(v, kBase + 508, 4, kPermWrite), "ok");
  EXPECT_EQ(why(v, kBase + 600, 4, kPermWrite), "is out of bounds");  // the pool's check comes first
  m.heap_unregister(h);
  EXPECT_EQ(why(m.view(0), kBase + 600, 4, kPermWrite), "is not writable");
}

TEST(NvtxMemory, DeviceWideAppliesToItsDevice) {
  NvtxMemory m;
  m.permissions_assign(NvtxMemory::device_wide(0), kBase, 4096, kPermRead);
  EXPECT_EQ(why(m.view(0), kBase, 4, kPermWrite), "is not writable");
  EXPECT_EQ(why(m.view(1), kBase, 4, kPermWrite), "ok");
}

TEST(NvtxMemory, BindingIsPerThreadAndStrictDeniesUnlisted) {
  NvtxMemory m;
  const uint64_t a = kBase, b = kBase + 0x1000;
  const uint64_t p = m.permissions_create(0);
  m.permissions_assign(p, a, 256, kPermRead);
  EXPECT_FALSE(m.view(0).active);  // not bound yet
  m.bind(p, 0);
  auto v = m.view(0);
  EXPECT_EQ(why(v, a, 4, kPermWrite), "is not writable");
  EXPECT_EQ(why(v, b, 4, kPermWrite), "ok");  // not listed, not strict: natural
  bool other_thread_free = false;
  std::thread([&] { other_thread_free = !m.view(0).active; }).join();
  EXPECT_TRUE(other_thread_free);
  m.bind(p, kExcludeWrite);  // strict writes: only what the object lets be written
  v = m.view(0);
  EXPECT_EQ(why(v, b, 4, kPermWrite), "is not writable");
  EXPECT_EQ(why(v, b, 4, kPermRead), "ok");
  // An object created excluding global reads overrides process-wide reads.
  m.permissions_assign(NvtxMemory::kProcessWide, b, 256, kPermRead | kPermWrite);
  const uint64_t q = m.permissions_create(kExcludeRead);
  m.bind(q, 0);
  EXPECT_EQ(why(m.view(0), b, 4, kPermRead), "is not readable");
  EXPECT_EQ(why(m.view(0), b, 4, kPermWrite), "ok");  // from the process-wide object
  m.permissions_destroy(q);  // destroying unbinds
  EXPECT_EQ(why(m.view(0), b, 4, kPermRead), "ok");
  m.bind(p, 0);
  m.unbind();
  EXPECT_EQ(why(m.view(0), a, 4, kPermWrite), "ok");
}

}  // namespace
}  // namespace softgpu::sanitize
