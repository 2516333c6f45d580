// Device memory as one arena: the range allocator against hand-computed
// layouts, DeviceMemory's granularity, capacity, zeroing and page release,
// the executor's mapped-chunk rule, and the host-memory budget.
#include <gtest/gtest.h>

#include <cstring>

#include <fmt/format.h>

#include "exec/engine.h"
#include "exec/range_allocator.h"
#include "ptx/parser.h"

using namespace softgpu;
using exec::DeviceMemory;
using exec::MemKind;
using exec::RangeAllocator;

namespace {

constexpr uint64_t kMiB = 1 << 20;

// ------------------------------------------------------------ RangeAllocator

TEST(RangeAllocator, PlacesBlocksInOrderAndReusesAnExactHole) {
  RangeAllocator r(4096);
  EXPECT_EQ(r.allocate(512, 512), 0u);
  EXPECT_EQ(r.allocate(1024, 512), 512u);
  EXPECT_EQ(r.allocate(512, 512), 1536u);
  EXPECT_EQ(r.in_use(), 2048u);
  EXPECT_EQ(r.release(512), 1024u);
  EXPECT_EQ(r.free_ranges(), 2u);  // [512,1536) and [2048,4096)
  // Best fit: the 1024-byte hole, not the 2048-byte tail.
  EXPECT_EQ(r.allocate(1024, 512), 512u);
  EXPECT_EQ(r.free_ranges(), 1u);
}

TEST(RangeAllocator, CoalescesWithBothNeighbours) {
  RangeAllocator r(2048);
  ASSERT_EQ(r.allocate(512, 512), 0u);
  ASSERT_EQ(r.allocate(512, 512), 512u);
  ASSERT_EQ(r.allocate(512, 512), 1024u);
  EXPECT_EQ(r.release(0), 512u);
  EXPECT_EQ(r.release(1024), 512u);
  EXPECT_EQ(r.free_ranges(), 2u);  // [0,512) and [1024,2048)
  EXPECT_EQ(r.free_range_at(1100), std::make_pair(uint64_t(1024), uint64_t(2048)));
  EXPECT_EQ(r.release(512), 512u);
  EXPECT_EQ(r.free_ranges(), 1u);
  EXPECT_EQ(r.free_range_at(0), std::make_pair(uint64_t(0), uint64_t(2048)));
  EXPECT_EQ(r.in_use(), 0u);
  EXPECT_EQ(r.allocate(2048, 512), 0u);  // the whole range again
}

TEST(RangeAllocator, AlignsLargeBlocksAndKeepsThePrefixFree) {
  RangeAllocator r(16 * kMiB);
  ASSERT_EQ(r.allocate(512, 512), 0u);
  EXPECT_EQ(r.allocate(2 * kMiB, 2 * kMiB), 2 * kMiB);  // [512, 2 MiB) stays free
  // The small block goes to the shorter range, the alignment gap.
  EXPECT_EQ(r.allocate(512, 512), 512u);
  EXPECT_EQ(r.free_range_at(1024), std::make_pair(uint64_t(1024), 2 * kMiB));
}

TEST(RangeAllocator, AlignmentCanMakeALongRangeUnusable) {
  RangeAllocator r(6 * kMiB);
  ASSERT_EQ(r.allocate(512, 512), 0u);
  ASSERT_EQ(r.allocate(2 * kMiB, 2 * kMiB), 2 * kMiB);
  ASSERT_EQ(r.allocate(2 * kMiB, 2 * kMiB), 4 * kMiB);
  // [512, 2 MiB) is free but holds no 2 MiB-aligned 2 MiB block.
  EXPECT_EQ(r.allocate(2 * kMiB, 2 * kMiB), std::nullopt);
  EXPECT_EQ(r.allocate(kMiB, 2 * kMiB), std::nullopt);  // offset 0 is taken, 2 MiB is taken
  EXPECT_EQ(r.allocate(kMiB, 512), 512u);
  EXPECT_EQ(r.release(0), 512u);
  EXPECT_EQ(r.release(512), kMiB);
  EXPECT_EQ(r.allocate(2 * kMiB, 2 * kMiB), 0u);
}

TEST(RangeAllocator, ExhaustionAndBadRequests) {
  RangeAllocator r(2048);
  EXPECT_EQ(r.allocate(2048, 512), 0u);
  EXPECT_EQ(r.allocate(512, 512), std::nullopt);
  EXPECT_EQ(r.release(1), 0u);  // no block starts there
  EXPECT_EQ(r.release(0), 2048u);
  EXPECT_EQ(r.release(0), 0u);  // twice
  EXPECT_EQ(r.allocate(4096, 512), std::nullopt);
  EXPECT_EQ(r.allocate(0, 512), std::nullopt);
  EXPECT_EQ(r.allocate(512, 3), std::nullopt);  // not a power of two
  EXPECT_EQ(r.allocate(UINT64_MAX, 512), std::nullopt);
}

// ------------------------------------------------------------ DeviceMemory

uint64_t addr_of(Result<DeviceAddr> a) { return a ? a->value : 0; }

TEST(DeviceMemoryArena, GranularityAlignmentAndUsedBytes) {
  DeviceMemory m(Bytes{1ull << 30});
  const uint64_t a = addr_of(m.allocate(Bytes{1}, MemKind::Device));
  const uint64_t b = addr_of(m.allocate(Bytes{1000}, MemKind::Device));
  const uint64_t c = addr_of(m.allocate(Bytes{3 * kMiB}, MemKind::Device));
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(a % 512, 0u);
  EXPECT_EQ(b, a + 512);  // 1 byte takes one 512-byte granule
  EXPECT_EQ(c % (2 * kMiB), 0u);
  EXPECT_EQ(m.used().value, 512u + 1024u + 4 * kMiB);
  // User memory does not start at the arena's first byte.
  EXPECT_GE(a, m.arena().base() + DeviceMemory::kConstWindow + 2 * kMiB);
  EXPECT_TRUE(m.arena().contains(c, 4 * kMiB));
  EXPECT_EQ(m.release(DeviceAddr{b}, {MemKind::Device}), Status::Success);
  EXPECT_EQ(m.used().value, 512u + 4 * kMiB);
  EXPECT_EQ(m.release(DeviceAddr{b}, {MemKind::Device}), Status::InvalidValue);
  EXPECT_EQ(m.release(DeviceAddr{a + 16}, {MemKind::Device}), Status::InvalidValue);
}

TEST(DeviceMemoryArena, CapacityIsExhaustedExactly) {
  DeviceMemory m(Bytes{64 * kMiB});
  auto big = m.allocate(Bytes{64 * kMiB}, MemKind::Device);
  ASSERT_TRUE(big);
  auto more = m.allocate(Bytes{1}, MemKind::Device);
  ASSERT_FALSE(more);
  EXPECT_EQ(more.error().status, Status::MemoryAllocation);
  EXPECT_FALSE(m.allocate(Bytes{64 * kMiB + 1}, MemKind::Device));
  ASSERT_EQ(m.release(*big, {MemKind::Device}), Status::Success);
  EXPECT_TRUE(m.allocate(Bytes{1}, MemKind::Device));
}

TEST(DeviceMemoryArena, ReusedMemoryReadsAsZero) {
  DeviceMemory m(Bytes{1ull << 30});
  for (uint64_t size : {uint64_t(700), uint64_t(100000), 3 * kMiB}) {
    auto a = m.allocate(Bytes{size}, MemKind::Device);
    ASSERT_TRUE(a);
    std::memset(DeviceMemory::host_ptr(*a), 0xAB, size);
    ASSERT_EQ(m.release(*a, {MemKind::Device}), Status::Success);
    auto b = m.allocate(Bytes{size}, MemKind::Device);
    ASSERT_TRUE(b);
    EXPECT_EQ(b->value, a->value) << size;  // best fit takes the same place
    const auto* p = reinterpret_cast<const unsigned char*>(DeviceMemory::host_ptr(*b));
    size_t nonzero = 0;
    for (uint64_t i = 0; i < size; ++i) nonzero += p[i] != 0;
    EXPECT_EQ(nonzero, 0u) << size;
    ASSERT_EQ(m.release(*b, {MemKind::Device}), Status::Success);
  }
}

TEST(DeviceMemoryArena, FreedPagesGoBackToTheOs) {
  DeviceMemory m(Bytes{1ull << 30});
  auto a = m.allocate(Bytes{64 * kMiB}, MemKind::Device);
  ASSERT_TRUE(a);
  const uint64_t r0 = exec::HostBudget::resident_bytes();
  std::memset(DeviceMemory::host_ptr(*a), 1, 64 * kMiB);
  const uint64_t r1 = exec::HostBudget::resident_bytes();
  EXPECT_GE(r1, r0 + 60 * kMiB);
  ASSERT_EQ(m.release(*a, {MemKind::Device}), Status::Success);
  EXPECT_LE(exec::HostBudget::resident_bytes(), r1 - 60 * kMiB);
}

TEST(DeviceMemoryArena, SixtyGigabytesOnAnEightyGigabyteDevice) {
  DeviceMemory m(Bytes{85100068864ull});
  const uint64_t r0 = exec::HostBudget::resident_bytes();
  auto a = m.allocate(Bytes{60ull << 30}, MemKind::Device);  // address space only (timed in bench/)
  ASSERT_TRUE(a);
  auto* p = reinterpret_cast<volatile uint64_t*>(DeviceMemory::host_ptr(*a));
  const uint64_t n = (60ull << 30) / 8;
  p[0] = 11;
  p[n - 1] = 22;
  EXPECT_EQ(p[0], 11u);
  EXPECT_EQ(p[n / 2], 0u);
  EXPECT_EQ(p[n - 1], 22u);
  EXPECT_LT(exec::HostBudget::resident_bytes(), r0 + 32 * kMiB);
  EXPECT_FALSE(m.allocate(Bytes{30ull << 30}, MemKind::Device));  // 60 + 30 > 79.3 GiB
  EXPECT_EQ(m.used().value, 60ull << 30);
}

TEST(DeviceMemoryArena, PinnedAndRegisteredStayOutside) {
  DeviceMemory m(Bytes{1ull << 30});
  auto pinned = m.allocate(Bytes{10000}, MemKind::Pinned);
  ASSERT_TRUE(pinned);
  EXPECT_FALSE(m.arena().contains(pinned->value, 1));
  std::vector<char> own(4096);
  const uint64_t own_addr = reinterpret_cast<uint64_t>(own.data());
  ASSERT_EQ(m.register_external(DeviceAddr{own_addr}, Bytes{own.size()}), Status::Success);
  auto ext = m.external_regions();
  ASSERT_EQ(ext.size(), 2u);
  EXPECT_TRUE(m.find(DeviceAddr{own_addr + 100}));
  auto dev = m.allocate(Bytes{256}, MemKind::Device);
  ASSERT_TRUE(dev);
  EXPECT_EQ(m.register_external(*dev, Bytes{256}), Status::InvalidValue);  // arena memory
  EXPECT_EQ(m.used().value, 512u);  // pinned memory is not device memory
  EXPECT_EQ(m.release(DeviceAddr{own_addr}, {MemKind::Registered}), Status::Success);
  EXPECT_EQ(m.release(*pinned, {MemKind::Pinned}), Status::Success);
  EXPECT_TRUE(m.external_regions().empty());
}

TEST(DeviceMemoryArena, ManyAllocationsLeaveTheLaunchListEmpty) {
  DeviceMemory m(Bytes{1ull << 30});
  for (int i = 0; i < 100000; ++i) ASSERT_TRUE(m.allocate(Bytes{64}, MemKind::Device));
  EXPECT_EQ(m.allocation_count(), 100000u);
  EXPECT_TRUE(m.external_regions().empty());  // what a launch copies
  EXPECT_EQ(m.used().value, 100000u * 512u);
}

// ------------------------------------------------------------ host budget

TEST(DeviceMemoryArena, HostWritesBeyondTheBudgetFailNamingTheAllocation) {
  DeviceMemory m(Bytes{1ull << 30}, 32 * kMiB);
  auto a = m.allocate(Bytes{256 * kMiB}, MemKind::Device);
  ASSERT_TRUE(a);
  std::string why;
  EXPECT_EQ(m.prepare_write(DeviceMemory::host_ptr(*a), kMiB, "cudaMemset", &why), Status::Success) << why;
  EXPECT_EQ(m.prepare_write(DeviceMemory::host_ptr(*a), 256 * kMiB, "cudaMemset", &why), Status::MemoryAllocation);
  EXPECT_NE(why.find("cudaMemset"), std::string::npos) << why;
  EXPECT_NE(why.find(fmt::format("allocation 0x{:x} (cudaMalloc, 268435456 bytes)", a->value)), std::string::npos)
      << why;
  // Writes outside the arena are the program's own business.
  std::vector<char> host(1024);
  EXPECT_EQ(m.prepare_write(host.data(), host.size(), "cudaMemcpy", &why), Status::Success);
}

TEST(HostBudget, LimitFromMeminfoAndGrowthFromStatm) {
  const uint64_t total = exec::HostBudget::meminfo("MemTotal");
  const uint64_t avail = exec::HostBudget::meminfo("MemAvailable");
  ASSERT_GT(total, 0u);
  ASSERT_GT(avail, 0u);
  EXPECT_EQ(exec::HostBudget::meminfo("NoSuchField"), 0u);
  exec::HostBudget b;
  EXPECT_FALSE(b.explicit_limit());
  EXPECT_LT(b.limit(), avail);  // a margin is kept back
  EXPECT_GE(b.limit() + std::max<uint64_t>(256 * kMiB, total / 32), avail - 64 * kMiB);  // (MemAvailable moves)
  exec::HostBudget given(5 * kMiB);
  EXPECT_TRUE(given.explicit_limit());
  EXPECT_EQ(given.limit(), 5 * kMiB);
  EXPECT_NE(given.describe().find("SOFTGPU_HOST_MEMORY_LIMIT"), std::string::npos);
  std::vector<char> v(48 * kMiB);
  volatile char* p = v.data();
  for (size_t i = 0; i < v.size(); i += 4096) p[i] = 1;  // one byte per page
  EXPECT_GE(given.growth(), 40 * kMiB);
}

// ------------------------------------------------------------ executor

constexpr const char* kPtx = R"(
.version 7.0
.target sm_80
.address_size 64
.const .align 4 .b32 table[4] = {1, 2, 3, 4};
.visible .entry peek(.param .u64 p, .param .s64 off, .param .u64 out) {
  .reg .b32 %r<2>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [p];
  ld.param.s64 %rd2, [off];
  ld.param.u64 %rd3, [out];
  add.s64 %rd4, %rd1, %rd2;
  ld.global.u32 %r1, [%rd4];
  st.global.u32 [%rd3], %r1;
  ret;
}
.visible .entry poke(.param .u64 p) {
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, 7;
  st.u32 [%rd1], %r1;
  ret;
}
.visible .entry stride_touch(.param .u64 p, .param .u64 stride) {
  .reg .b32 %r<5>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd2, [stride];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  cvt.u64.u32 %rd3, %r4;
  mul.lo.u64 %rd4, %rd3, %rd2;
  add.s64 %rd5, %rd1, %rd4;
  st.global.u32 [%rd5], %r4;
  ret;
}
)";

struct Kernels {
  DeviceMemory mem;
  std::shared_ptr<exec::LoadedProgram> prog;
  exec::ExecOptions opts;
  explicit Kernels(uint64_t capacity = 1ull << 30, uint64_t host_limit = 0) : mem(Bytes{capacity}, host_limit) {
    auto pr = ptx::parse(kPtx, "arena.ptx");
    EXPECT_TRUE(pr.module);
    std::vector<ptx::Module> mods;
    mods.push_back(std::move(*pr.module));
    prog = exec::load_program(std::move(mods), mem).program;
    EXPECT_TRUE(prog);
    opts.threads = 1;
  }
  template <class... A>
  exec::LaunchResult run(const char* k, Dim3 g, Dim3 b, A... args) {
    exec::LaunchConfig cfg;
    cfg.grid = g;
    cfg.block = b;
    const auto* ki = exec::find_kernel(*prog, k);
    cfg.params.resize(ki->param_bytes);
    size_t i = 0;
    ((std::memcpy(cfg.params.data() + ki->params[i++].offset, &args, sizeof args)), ...);
    return exec::launch(*prog, k, cfg, mem, opts);
  }
  uint64_t alloc(uint64_t n) { return addr_of(mem.allocate(Bytes{n}, MemKind::Device)); }
};

TEST(ArenaExec, ReadingBeforeAndAfterAnAllocationWorksLikeAGpu) {
  Kernels k;
  const uint64_t out = k.alloc(4);
  const uint64_t a = k.alloc(16 * kMiB);  // 2 MiB aligned: the row before it is another chunk
  ASSERT_TRUE(out && a);
  *reinterpret_cast<uint32_t*>(a - 4096) = 0;  // (inside the chunk of `out`, not an allocation)
  auto r = k.run("peek", Dim3{1}, Dim3{1}, a, int64_t(-4096), out);
  EXPECT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
  // The first allocation: the chunk before it is the runtime's reserved one.
  Kernels first;
  const uint64_t b = first.alloc(8 * kMiB), out2 = first.alloc(4);
  *reinterpret_cast<uint32_t*>(out2) = 99;
  r = first.run("peek", Dim3{1}, Dim3{1}, b, int64_t(-8192), out2);
  EXPECT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
  EXPECT_EQ(*reinterpret_cast<uint32_t*>(out2), 0u);  // the reserved chunk reads as zero
  // Past the end, inside the allocation's last chunk.
  const uint64_t c = first.alloc(100);
  *reinterpret_cast<uint32_t*>(c + 1000) = 5;
  r = first.run("peek", Dim3{1}, Dim3{1}, c, int64_t(1000), out2);
  EXPECT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
  EXPECT_EQ(*reinterpret_cast<uint32_t*>(out2), 5u);
}

TEST(ArenaExec, UnmappedChunksAndMemoryOutsideTheArenaFault) {
  Kernels k;
  const uint64_t out = k.alloc(4);
  const uint64_t a = k.alloc(2 * kMiB);  // fills its chunk; the next one is unmapped
  auto r = k.run("peek", Dim3{1}, Dim3{1}, a, int64_t(2 * kMiB), out);
  EXPECT_EQ(r.status, Status::IllegalAddress);
  ASSERT_TRUE(r.fault);
  EXPECT_NE(r.fault->message.find("no allocation holds it"), std::string::npos) << r.fault->message;
  // The simulator's own memory (a host vector) is outside the arena.
  std::vector<uint32_t> host(16, 1);
  Kernels k2;
  const uint64_t out2 = k2.alloc(4);
  const int64_t off = int64_t(reinterpret_cast<uint64_t>(host.data())) - int64_t(out2);
  r = k2.run("peek", Dim3{1}, Dim3{1}, out2, off, out2);
  EXPECT_EQ(r.status, Status::IllegalAddress);
  // A freed chunk is unmapped again.
  Kernels k3;
  const uint64_t o3 = k3.alloc(4), big = k3.alloc(4 * kMiB);
  ASSERT_EQ(k3.run("peek", Dim3{1}, Dim3{1}, big, int64_t(3 * kMiB), o3).status, Status::Success);
  ASSERT_EQ(k3.mem.release(DeviceAddr{big}, {MemKind::Device}), Status::Success);
  EXPECT_EQ(k3.run("peek", Dim3{1}, Dim3{1}, big, int64_t(3 * kMiB), o3).status, Status::IllegalAddress);
}

TEST(ArenaExec, MemoryAKernelWroteBeforeItWasAllocatedReadsAsZero) {
  Kernels k;
  const uint64_t a = k.alloc(512);
  ASSERT_TRUE(a);
  // A stray write past the end of `a`, into free memory of a mapped chunk.
  ASSERT_EQ(k.run("poke", Dim3{1}, Dim3{1}, a + 512).status, Status::Success);
  EXPECT_EQ(*reinterpret_cast<uint32_t*>(a + 512), 7u);
  const uint64_t b = k.alloc(512);
  ASSERT_EQ(b, a + 512);
  EXPECT_EQ(*reinterpret_cast<uint32_t*>(b), 0u);
}

TEST(ArenaExec, HostWritesToManagedMemoryPastTheBudgetStopTheNextLaunch) {
  Kernels k(1ull << 30, 16 * kMiB);
  auto m = k.mem.allocate(Bytes{64 * kMiB}, MemKind::Managed);
  ASSERT_TRUE(m);
  const uint64_t out = k.alloc(4);
  ASSERT_EQ(k.run("peek", Dim3{1}, Dim3{1}, out, int64_t(0), out).status, Status::Success);
  std::memset(DeviceMemory::host_ptr(*m), 1, 64 * kMiB);  // the program's host code, unseen
  auto r = k.run("peek", Dim3{1}, Dim3{1}, out, int64_t(0), out);
  EXPECT_EQ(r.status, Status::MemoryAllocation);
  ASSERT_TRUE(r.fault);
  EXPECT_NE(r.fault->message.find("not started: out of host memory"), std::string::npos) << r.fault->message;
}

TEST(ArenaExec, WritesToConstantMemoryStillFault) {
  Kernels k;
  auto v = exec::find_variable(*k.prog, "table");
  ASSERT_TRUE(v);
  auto r = k.run("poke", Dim3{1}, Dim3{1}, v->address.value);
  EXPECT_EQ(r.status, Status::IllegalAddress);
  ASSERT_TRUE(r.fault);
  EXPECT_NE(r.fault->message.find("write to constant memory 'table'"), std::string::npos) << r.fault->message;
  const uint64_t out = k.alloc(4);
  r = k.run("peek", Dim3{1}, Dim3{1}, v->address.value, int64_t(8), out);  // reading is fine
  EXPECT_EQ(r.status, Status::Success);
  EXPECT_EQ(*reinterpret_cast<uint32_t*>(out), 3u);
}

TEST(ArenaExec, AKernelTouchingMoreThanTheHostCanBackFails) {
  Kernels k(1ull << 30, 16 * kMiB);
  const uint64_t a = k.alloc(256 * kMiB);
  ASSERT_TRUE(a);
  const uint64_t r0 = exec::HostBudget::resident_bytes();
  // One write per 4 KiB page: 256 MiB of host pages if it ran to the end.
  auto r = k.run("stride_touch", Dim3{256}, Dim3{256}, a, uint64_t(4096));
  EXPECT_EQ(r.status, Status::MemoryAllocation);
  ASSERT_TRUE(r.fault);
  EXPECT_NE(r.fault->message.find("out of host memory"), std::string::npos) << r.fault->message;
  EXPECT_NE(r.fault->message.find(fmt::format("allocation 0x{:x} (cudaMalloc", a)), std::string::npos)
      << r.fault->message;
  EXPECT_LT(exec::HostBudget::resident_bytes(), r0 + 48 * kMiB);
  // Within the budget the same kernel runs.
  Kernels ok(1ull << 30, 512 * kMiB);
  const uint64_t b = ok.alloc(8 * kMiB);
  r = ok.run("stride_touch", Dim3{8}, Dim3{256}, b, uint64_t(4096));
  EXPECT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
  EXPECT_EQ(reinterpret_cast<uint32_t*>(b)[1024 * 5], 5u);
}

}  // namespace
