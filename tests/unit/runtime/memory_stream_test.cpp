// Runtime API without kernels: memory error codes, copies, last-error
// semantics, streams, events and host-function ordering.
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "runtime_fixture.h"

namespace softgpu::runtime::testing {
namespace {

TEST_F(RuntimeTest, MallocCopyRoundTrip) {
  void* d = nullptr;
  ASSERT_EQ(rt.malloc(&d, 400), Status::Success);
  ASSERT_NE(d, nullptr);
  std::vector<int> in(100), out(100, -1);
  std::iota(in.begin(), in.end(), 7);
  EXPECT_EQ(rt.memcpy(d, in.data(), 400, CopyKind::HostToDevice), Status::Success);
  EXPECT_EQ(rt.memcpy(out.data(), d, 400, CopyKind::DeviceToHost), Status::Success);
  EXPECT_EQ(out, in);
  EXPECT_EQ(rt.free(d), Status::Success);
}

TEST_F(RuntimeTest, MemcpyRangeAndKindErrors) {
  void* d = nullptr;
  ASSERT_EQ(rt.malloc(&d, 64), Status::Success);
  char host[128] = {};
  // Past the end of the allocation.
  EXPECT_EQ(rt.memcpy(d, host, 65, CopyKind::HostToDevice), Status::InvalidValue);
  EXPECT_EQ(rt.memcpy(host, static_cast<char*>(d) + 1, 64, CopyKind::DeviceToHost), Status::InvalidValue);
  // A host buffer named as the device side.
  EXPECT_EQ(rt.memcpy(host, host + 64, 16, CopyKind::DeviceToDevice), Status::InvalidValue);
  // Bad direction value.
  EXPECT_EQ(rt.memcpy(d, host, 16, static_cast<CopyKind>(7)), Status::InvalidMemcpyDirection);
  // Null pointers.
  EXPECT_EQ(rt.memcpy(nullptr, host, 16, CopyKind::HostToDevice), Status::InvalidValue);
  // Zero bytes is fine even with bad pointers.
  EXPECT_EQ(rt.memcpy(nullptr, nullptr, 0, CopyKind::HostToDevice), Status::Success);
  // Default kind copies host to device.
  host[0] = 42;
  EXPECT_EQ(rt.memcpy(d, host, 1, CopyKind::Default), Status::Success);
  EXPECT_EQ(static_cast<char*>(d)[0], 42);
  EXPECT_EQ(rt.free(d), Status::Success);
}

TEST_F(RuntimeTest, FreeErrors) {
  EXPECT_EQ(rt.free(nullptr), Status::Success);
  int local = 0;
  EXPECT_EQ(rt.free(&local), Status::InvalidValue);
  void* d = nullptr;
  ASSERT_EQ(rt.malloc(&d, 32), Status::Success);
  EXPECT_EQ(rt.free(static_cast<char*>(d) + 4), Status::InvalidValue);  // not the base
  EXPECT_EQ(rt.free(d), Status::Success);
  EXPECT_EQ(rt.free(d), Status::InvalidValue);  // double free
  EXPECT_EQ(rt.malloc(nullptr, 16), Status::InvalidValue);
  // Pinned memory is freed with free_host, not free.
  void* h = nullptr;
  ASSERT_EQ(rt.host_alloc(&h, 64, 0), Status::Success);
  EXPECT_EQ(rt.free(h), Status::InvalidValue);
  EXPECT_EQ(rt.free_host(h), Status::Success);
}

TEST_F(RuntimeTest, LastErrorResetsButPeekDoesNot) {
  EXPECT_EQ(rt.last_error(true), Status::Success);
  int local = 0;
  EXPECT_EQ(rt.free(&local), Status::InvalidValue);
  EXPECT_EQ(rt.last_error(false), Status::InvalidValue);
  EXPECT_EQ(rt.last_error(false), Status::InvalidValue);
  EXPECT_EQ(rt.last_error(true), Status::InvalidValue);
  EXPECT_EQ(rt.last_error(true), Status::Success);
  // A later success does not clear an earlier error.
  EXPECT_EQ(rt.free(&local), Status::InvalidValue);
  void* d = nullptr;
  EXPECT_EQ(rt.malloc(&d, 8), Status::Success);
  EXPECT_EQ(rt.last_error(true), Status::InvalidValue);
  EXPECT_EQ(rt.free(d), Status::Success);
}

TEST_F(RuntimeTest, MemsetAndMemGetInfo) {
  size_t free0 = 0, total = 0;
  ASSERT_EQ(rt.mem_get_info(&free0, &total), Status::Success);
  EXPECT_EQ(total, 1ull << 30);
  void* d = nullptr;
  ASSERT_EQ(rt.malloc(&d, 1 << 20), Status::Success);
  size_t free1 = 0;
  ASSERT_EQ(rt.mem_get_info(&free1, &total), Status::Success);
  EXPECT_GE(free0 - free1, size_t(1) << 20);
  EXPECT_EQ(rt.memset(d, 0xAB, 1 << 20), Status::Success);
  EXPECT_EQ(static_cast<unsigned char*>(d)[(1 << 20) - 1], 0xAB);
  EXPECT_EQ(rt.memset(d, 0, (1 << 20) + 1), Status::InvalidValue);
  int local[4];
  EXPECT_EQ(rt.memset(local, 0, sizeof local), Status::InvalidValue);  // not device memory
  EXPECT_EQ(rt.free(d), Status::Success);
}

TEST_F(RuntimeTest, Memcpy2DCopiesRowsAndChecksPitch) {
  void* d = nullptr;
  const size_t pitch = 16, width = 10, height = 3;
  ASSERT_EQ(rt.malloc(&d, pitch * height), Status::Success);
  ASSERT_EQ(rt.memset(d, 0, pitch * height), Status::Success);
  std::vector<unsigned char> host(width * height);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<unsigned char>(i + 1);
  EXPECT_EQ(rt.memcpy_2d(d, pitch, host.data(), width, width, height, CopyKind::HostToDevice), Status::Success);
  auto* dev = static_cast<unsigned char*>(d);
  EXPECT_EQ(dev[0], 1);
  EXPECT_EQ(dev[9], 10);
  EXPECT_EQ(dev[10], 0);  // padding untouched
  EXPECT_EQ(dev[16], 11);
  EXPECT_EQ(dev[32 + 9], 30);
  EXPECT_EQ(rt.memcpy_2d(d, 8, host.data(), width, width, height, CopyKind::HostToDevice),
            Status::InvalidPitchValue);
  EXPECT_EQ(rt.memcpy_2d(d, pitch, host.data(), width, width, 4, CopyKind::HostToDevice), Status::InvalidValue);
  EXPECT_EQ(rt.free(d), Status::Success);
}

TEST_F(RuntimeTest, ManagedPinnedRegisteredMemory) {
  void* m = nullptr;
  EXPECT_EQ(rt.malloc_managed(&m, 0, 1), Status::InvalidValue);
  EXPECT_EQ(rt.malloc_managed(&m, 64, 5), Status::InvalidValue);
  ASSERT_EQ(rt.malloc_managed(&m, 64, 1), Status::Success);
  static_cast<int*>(m)[3] = 9;  // managed memory is host accessible
  PointerInfo pi;
  ASSERT_EQ(rt.pointer_info(m, &pi), Status::Success);
  EXPECT_EQ(pi.type, PointerInfo::Managed);
  EXPECT_EQ(rt.free(m), Status::Success);

  std::vector<char> buf(256);
  EXPECT_EQ(rt.host_register(buf.data(), buf.size(), 0), Status::Success);
  EXPECT_EQ(static_cast<int>(rt.host_register(buf.data(), buf.size(), 0)), 712);  // already registered
  void* dp = nullptr;
  EXPECT_EQ(rt.host_get_device_pointer(&dp, buf.data(), 0), Status::Success);
  EXPECT_EQ(dp, buf.data());
  ASSERT_EQ(rt.pointer_info(buf.data(), &pi), Status::Success);
  EXPECT_EQ(pi.type, PointerInfo::Host);
  EXPECT_EQ(rt.host_unregister(buf.data()), Status::Success);
  EXPECT_EQ(static_cast<int>(rt.host_unregister(buf.data())), 713);  // not registered
  int local = 0;
  ASSERT_EQ(rt.pointer_info(&local, &pi), Status::Success);
  EXPECT_EQ(pi.type, PointerInfo::Unregistered);
  EXPECT_EQ(rt.host_get_device_pointer(&dp, &local, 0), Status::InvalidValue);
}

TEST_F(RuntimeTest, StreamHandles) {
  void* s = nullptr;
  ASSERT_EQ(rt.stream_create(&s, 0, 0), Status::Success);
  EXPECT_EQ(rt.stream_query(s), Status::Success);
  EXPECT_EQ(rt.stream_synchronize(s), Status::Success);
  EXPECT_EQ(rt.stream_synchronize(nullptr), Status::Success);
  EXPECT_EQ(rt.stream_synchronize(kPerThreadStream), Status::Success);
  EXPECT_EQ(rt.stream_create(&s, 0x10, 0), Status::InvalidValue);
  EXPECT_EQ(rt.stream_destroy(s), Status::Success);
  EXPECT_EQ(rt.stream_destroy(s), Status::InvalidResourceHandle);
  EXPECT_EQ(rt.stream_synchronize(s), Status::InvalidResourceHandle);
  char buf[4];
  void* d = nullptr;
  ASSERT_EQ(rt.malloc(&d, 4), Status::Success);
  EXPECT_EQ(rt.memcpy(d, buf, 4, CopyKind::HostToDevice, s), Status::InvalidResourceHandle);
  EXPECT_EQ(rt.free(d), Status::Success);
}

TEST_F(RuntimeTest, WorkOnAStreamRunsInIssueOrder) {
  void* s = nullptr;
  ASSERT_EQ(rt.stream_create(&s, kStreamNonBlocking, -1), Status::Success);
  void* d = nullptr;
  ASSERT_EQ(rt.malloc(&d, sizeof(int)), Status::Success);
  struct Ctx {
    int* dev;
    std::vector<int> seen;
  } ctx{static_cast<int*>(d), {}};
  auto observe = [](void* p) {
    auto* c = static_cast<Ctx*>(p);
    c->seen.push_back(*c->dev);
  };
  for (int v : {1, 2, 3}) {
    ASSERT_EQ(rt.memcpy(d, &v, sizeof v, CopyKind::HostToDevice, s), Status::Success);
    ASSERT_EQ(rt.launch_host_func(s, observe, &ctx), Status::Success);
  }
  EXPECT_EQ(ctx.seen, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(rt.launch_host_func(s, nullptr, nullptr), Status::InvalidValue);
  EXPECT_EQ(rt.stream_destroy(s), Status::Success);
  EXPECT_EQ(rt.free(d), Status::Success);
}

TEST_F(RuntimeTest, EventsRecordAndMeasure) {
  void *a = nullptr, *b = nullptr, *nt = nullptr;
  ASSERT_EQ(rt.event_create(&a, 0), Status::Success);
  ASSERT_EQ(rt.event_create(&b, 0), Status::Success);
  ASSERT_EQ(rt.event_create(&nt, kEventDisableTiming), Status::Success);
  float ms = -1;
  EXPECT_EQ(rt.event_elapsed(&ms, a, b), Status::InvalidResourceHandle);  // not recorded yet
  EXPECT_EQ(rt.event_query(a), Status::Success);
  ASSERT_EQ(rt.event_record(a, nullptr), Status::Success);
  std::vector<char> big(1 << 22);
  void* d = nullptr;
  ASSERT_EQ(rt.malloc(&d, big.size()), Status::Success);
  ASSERT_EQ(rt.memcpy(d, big.data(), big.size(), CopyKind::HostToDevice), Status::Success);
  ASSERT_EQ(rt.event_record(b, nullptr), Status::Success);
  EXPECT_EQ(rt.event_synchronize(b), Status::Success);
  ASSERT_EQ(rt.event_elapsed(&ms, a, b), Status::Success);
  EXPECT_GE(ms, 0.0f);
  EXPECT_LT(ms, 10000.0f);
  float back = 0;
  ASSERT_EQ(rt.event_elapsed(&back, b, a), Status::Success);
  EXPECT_LE(back, 0.0f);
  ASSERT_EQ(rt.event_record(nt, nullptr), Status::Success);
  EXPECT_EQ(rt.event_elapsed(&ms, a, nt), Status::InvalidResourceHandle);  // timing disabled
  EXPECT_EQ(rt.event_create(&nt, 0x4), Status::InvalidValue);  // interprocess needs DisableTiming
  EXPECT_EQ(rt.event_record(a, reinterpret_cast<void*>(0x1234)), Status::InvalidResourceHandle);
  EXPECT_EQ(rt.event_destroy(a), Status::Success);
  EXPECT_EQ(rt.event_destroy(a), Status::InvalidResourceHandle);
  EXPECT_EQ(rt.event_record(a, nullptr), Status::InvalidResourceHandle);
  EXPECT_EQ(rt.free(d), Status::Success);
}

TEST_F(RuntimeTest, DeviceQueriesAndLimits) {
  int n = 0;
  EXPECT_EQ(rt.device_count(&n), Status::Success);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(rt.set_device(0), Status::Success);
  EXPECT_EQ(rt.set_device(1), Status::InvalidDevice);
  EXPECT_EQ(rt.set_device(-1), Status::InvalidDevice);
  size_t v = 0;
  EXPECT_EQ(rt.get_limit(Limit::StackSize, &v), Status::Success);
  EXPECT_EQ(v, 1024u);
  EXPECT_EQ(rt.set_limit(Limit::StackSize, 8192), Status::Success);
  EXPECT_EQ(rt.get_limit(Limit::StackSize, &v), Status::Success);
  EXPECT_EQ(v, 8192u);
  // An unknown limit: cudaErrorUnsupportedLimit (215), by set and get.
  EXPECT_EQ(rt.set_limit(static_cast<Limit>(99), 1), static_cast<Status>(215));
  EXPECT_EQ(rt.get_limit(static_cast<Limit>(99), &v), static_cast<Status>(215));
  // More stack than a thread's 512 KB of local memory is refused; the limit keeps its value.
  EXPECT_EQ(rt.set_limit(Limit::StackSize, SIZE_MAX), Status::InvalidValue);
  EXPECT_EQ(rt.get_limit(Limit::StackSize, &v), Status::Success);
  EXPECT_EQ(v, 8192u);
}

TEST_F(RuntimeTest, UnknownSymbolsAndKernels) {
  static char not_registered;
  void* p = nullptr;
  EXPECT_EQ(rt.symbol_address(&p, &not_registered), Status::InvalidSymbol);
  int x = 0;
  EXPECT_EQ(rt.memcpy_to_symbol(&not_registered, &x, 4, 0, CopyKind::HostToDevice), Status::InvalidSymbol);
  EXPECT_EQ(rt.launch(&not_registered, {1, 1, 1}, {1, 1, 1}, nullptr, 0, nullptr), Status::InvalidDeviceFunction);
  void* h = nullptr;
  EXPECT_EQ(rt.get_kernel(&h, &not_registered), Status::InvalidDeviceFunction);
}

TEST(RuntimeInit, UnknownGpuFailsEveryCallWithNoDevice) {
  Runtime rt(test_options("no-such-gpu", 1, 1.0));
  void* d = nullptr;
  EXPECT_EQ(rt.malloc(&d, 16), Status::NoDevice);
  int n = 5;
  EXPECT_EQ(rt.device_count(&n), Status::NoDevice);
  EXPECT_EQ(rt.last_error(true), Status::NoDevice);
  EXPECT_NE(rt.init_message().find("no-such-gpu"), std::string::npos);
}

TEST(RuntimeInit, OptionsFromEnvRejectsBadValues) {
  setenv("SOFTGPU_THREADS", "abc", 1);
  auto o = options_from_env();
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.error().message.find("SOFTGPU_THREADS"), std::string::npos);
  setenv("SOFTGPU_THREADS", "3", 1);
  setenv("SOFTGPU_WATCHDOG_SECONDS", "2.5", 1);
  setenv("SOFTGPU_GPU", "a100", 1);
  o = options_from_env();
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->threads, 3u);
  EXPECT_DOUBLE_EQ(o->watchdog_seconds, 2.5);
  EXPECT_EQ(o->gpu, "a100");
  setenv("SOFTGPU_WATCHDOG_SECONDS", "-1", 1);
  EXPECT_FALSE(options_from_env().ok());
  unsetenv("SOFTGPU_THREADS");
  unsetenv("SOFTGPU_WATCHDOG_SECONDS");
  unsetenv("SOFTGPU_GPU");
  // Defaults: no watchdog, progress line decided by the terminal.
  o = options_from_env();
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->watchdog_seconds, 0.0);
  EXPECT_FALSE(o->progress_seconds.has_value());
  setenv("SOFTGPU_PROGRESS", "0.5", 1);
  o = options_from_env();
  ASSERT_TRUE(o.ok());
  EXPECT_DOUBLE_EQ(o->progress_seconds.value_or(-9), 0.5);
  setenv("SOFTGPU_PROGRESS", "off", 1);
  o = options_from_env();
  ASSERT_TRUE(o.ok());
  EXPECT_LT(o->progress_seconds.value_or(0), 0.0);
  setenv("SOFTGPU_PROGRESS", "soon", 1);
  o = options_from_env();
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.error().message.find("SOFTGPU_PROGRESS"), std::string::npos);
  unsetenv("SOFTGPU_PROGRESS");
}

TEST(RuntimeInit, HostMemoryLimitFromEnv) {
  for (auto [text, bytes] : {std::pair<const char*, uint64_t>{"4096", 4096}, {"64M", 64ull << 20},
                             {"2G", 2ull << 30}, {"3K", 3072}}) {
    setenv("SOFTGPU_HOST_MEMORY_LIMIT", text, 1);
    auto o = options_from_env();
    ASSERT_TRUE(o.ok()) << text;
    EXPECT_EQ(o->host_memory_limit, bytes) << text;
  }
  for (const char* bad : {"x", "-5M", "0", "12T", "M", "99999999999G"}) {
    setenv("SOFTGPU_HOST_MEMORY_LIMIT", bad, 1);
    auto o = options_from_env();
    ASSERT_FALSE(o.ok()) << bad;
    EXPECT_NE(o.error().message.find("SOFTGPU_HOST_MEMORY_LIMIT"), std::string::npos);
  }
  unsetenv("SOFTGPU_HOST_MEMORY_LIMIT");
}

// Free bytes follow the arena's granularity: 512-byte steps below 2 MiB,
// whole 2 MiB pages from there on.
TEST_F(RuntimeTest, MemGetInfoCountsAllocationFootprints) {
  size_t free0 = 0, total = 0, f = 0;
  ASSERT_EQ(rt.mem_get_info(&free0, &total), Status::Success);
  void *a = nullptr, *b = nullptr;
  ASSERT_EQ(rt.malloc(&a, 1000), Status::Success);
  ASSERT_EQ(rt.malloc(&b, 5 << 20), Status::Success);
  ASSERT_EQ(rt.mem_get_info(&f, &total), Status::Success);
  EXPECT_EQ(free0 - f, 1024u + (6u << 20));
  ASSERT_EQ(rt.free(a), Status::Success);
  ASSERT_EQ(rt.mem_get_info(&f, &total), Status::Success);
  EXPECT_EQ(free0 - f, 6u << 20);
  ASSERT_EQ(rt.free(b), Status::Success);
  ASSERT_EQ(rt.mem_get_info(&f, &total), Status::Success);
  EXPECT_EQ(f, free0);
  void* c = nullptr;
  EXPECT_EQ(rt.malloc(&c, total + 1), Status::MemoryAllocation);
}

}  // namespace
}  // namespace softgpu::runtime::testing
