// Libraries loaded at run time (runtime/library.cpp): PTX and fatbinary
// images, kernels and globals by name, parameter layout, corrupt images,
// unloading; and the queries the driver API adds (16/32-bit memsets,
// address ranges, cluster occupancy, the thread's last error).
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "runtime_fixture.h"

namespace softgpu::runtime::testing {
namespace {

constexpr const char* kPtx = R"(.version 8.0
.target sm_80
.address_size 64
.global .align 4 .u32 counter[3];
.visible .entry pack(.param .u64 out, .param .u8 a, .param .u64 b, .param .u32 c)
{
  .reg .b16 %rs<2>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<7>;
  ld.param.u64 %rd1, [out];
  ld.param.u8 %rs1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u32 %r1, [c];
  cvta.to.global.u64 %rd3, %rd1;
  cvt.u64.u16 %rd4, %rs1;
  st.global.u64 [%rd3], %rd4;
  st.global.u64 [%rd3+8], %rd2;
  cvt.u64.u32 %rd5, %r1;
  st.global.u64 [%rd3+16], %rd5;
  atom.global.add.u32 %r2, [counter+4], 1;
  ret;
}
)";

std::vector<char> load_data(const char* name) {
  std::ifstream f(std::string(FATBIN_TEST_DATA_DIR) + "/" + name, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

class LibraryTest : public RuntimeTest {};

TEST_F(LibraryTest, PtxKernelsAndGlobalsByName) {
  void* lib = nullptr;
  {
    std::string copy = kPtx;  // the runtime keeps its own copy
    ASSERT_EQ(rt.library_load(&lib, copy.c_str()), Status::Success);
  }
  void* k = nullptr;
  ASSERT_EQ(rt.library_kernel(&k, lib, "pack"), Status::Success);
  void* again = nullptr;
  ASSERT_EQ(rt.library_kernel(&again, lib, "pack"), Status::Success);
  EXPECT_EQ(k, again);
  // The parameter layout: u64 at 0, u8 at 8, u64 at 16 (8-aligned), u32 at 24.
  const size_t want_off[] = {0, 8, 16, 24}, want_size[] = {8, 1, 8, 4};
  for (size_t i = 0; i < 4; ++i) {
    size_t off = 99, size = 99;
    ASSERT_EQ(rt.func_param_info(k, i, &off, &size), Status::Success);
    EXPECT_EQ(off, want_off[i]);
    EXPECT_EQ(size, want_size[i]);
  }
  size_t off = 0, size = 0, count = 0;
  EXPECT_EQ(rt.func_param_info(k, 4, &off, &size), Status::InvalidValue);
  ASSERT_EQ(rt.func_param_count(k, &count), Status::Success);
  EXPECT_EQ(count, 4u);

  void* out = nullptr;
  ASSERT_EQ(rt.malloc(&out, 24), Status::Success);
  uint8_t a = 200;
  uint64_t b = 0x123456789abcdefull;
  uint32_t c = 77;
  void* args[] = {&out, &a, &b, &c};
  ASSERT_EQ(rt.launch(k, {1, 1, 1}, {1, 1, 1}, args, 0, nullptr), Status::Success);
  uint64_t got[3];
  ASSERT_EQ(rt.memcpy(got, out, sizeof got, CopyKind::DeviceToHost), Status::Success);
  EXPECT_EQ(got[0], 200u);
  EXPECT_EQ(got[1], b);
  EXPECT_EQ(got[2], 77u);

  void* g = nullptr;
  size_t bytes = 0;
  ASSERT_EQ(rt.library_global(&g, &bytes, lib, "counter"), Status::Success);
  EXPECT_EQ(bytes, 12u);
  uint32_t counters[3];
  ASSERT_EQ(rt.memcpy(counters, g, sizeof counters, CopyKind::DeviceToHost), Status::Success);
  EXPECT_EQ(counters[0], 0u);
  EXPECT_EQ(counters[1], 1u);

  EXPECT_EQ(rt.library_kernel(&k, lib, "missing"), Status::NotFound);
  EXPECT_EQ(rt.library_global(&g, &bytes, lib, "missing"), Status::NotFound);
  ASSERT_EQ(rt.library_unload(lib), Status::Success);
  EXPECT_EQ(rt.library_unload(lib), Status::InvalidResourceHandle);
  EXPECT_EQ(rt.library_kernel(&k, lib, "pack"), Status::InvalidResourceHandle);
  EXPECT_EQ(rt.launch(again, {1, 1, 1}, {1, 1, 1}, args, 0, nullptr), Status::InvalidDeviceFunction);
  rt.last_error(true);
}

TEST_F(LibraryTest, FatbinaryFromMemoryIsCopied) {
  auto* bytes = new std::vector<char>(load_data("vadd_default.fatbin"));
  ASSERT_GT(bytes->size(), 16u);
  void* lib = nullptr;
  ASSERT_EQ(rt.library_load(&lib, bytes->data()), Status::Success);
  std::memset(bytes->data(), 0, bytes->size());
  delete bytes;
  void* k = nullptr;
  ASSERT_EQ(rt.library_kernel(&k, lib, "_Z4vaddPKfS0_Pfi"), Status::Success);
  const int n = 300;
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) a[i] = i * 0.5f, b[i] = 100.0f - i;
  void *da, *db, *dc;
  ASSERT_EQ(rt.malloc(&da, n * 4), Status::Success);
  ASSERT_EQ(rt.malloc(&db, n * 4), Status::Success);
  ASSERT_EQ(rt.malloc(&dc, n * 4), Status::Success);
  ASSERT_EQ(rt.memcpy(da, a.data(), n * 4, CopyKind::HostToDevice), Status::Success);
  ASSERT_EQ(rt.memcpy(db, b.data(), n * 4, CopyKind::HostToDevice), Status::Success);
  int nn = n;
  void* args[] = {&da, &db, &dc, &nn};
  ASSERT_EQ(rt.launch(k, {3, 1, 1}, {128, 1, 1}, args, 0, nullptr), Status::Success);
  ASSERT_EQ(rt.memcpy(c.data(), dc, n * 4, CopyKind::DeviceToHost), Status::Success);
  for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
  EXPECT_EQ(rt.library_unload(lib), Status::Success);
}

TEST_F(LibraryTest, CorruptImagesFailWithoutLoading) {
  void* lib = reinterpret_cast<void*>(1);
  std::vector<unsigned char> junk(256);
  for (size_t i = 0; i < junk.size(); ++i) junk[i] = static_cast<unsigned char>(i * 131 + 7);
  junk.back() = 0;
  EXPECT_EQ(rt.library_load(&lib, junk.data()), static_cast<Status>(200));  // not PTX nor a fatbinary
  auto fat = load_data("vadd_default.fatbin");
  for (size_t i = 16; i < fat.size(); ++i) fat[i] = static_cast<char>(0xcd);
  EXPECT_EQ(rt.library_load(&lib, fat.data()), static_cast<Status>(200));  // corrupt entries
  uint64_t huge = uint64_t(1) << 40;
  std::memcpy(fat.data() + 8, &huge, 8);
  EXPECT_EQ(rt.library_load(&lib, fat.data()), static_cast<Status>(200));  // size past the buffer
  auto sass = load_data("vadd_sass_only.fatbin");
  EXPECT_EQ(rt.library_load(&lib, sass.data()), Status::NoKernelImageForDevice);
  std::vector<char> elf(64, 0);
  std::memcpy(elf.data(), "\x7f" "ELF", 4);
  EXPECT_EQ(rt.library_load(&lib, elf.data()), Status::NoKernelImageForDevice);
  EXPECT_EQ(rt.library_load(&lib, ".version 8.0\n.target sm_80\n.entry k( {"), Status::InvalidPtx);
  EXPECT_EQ(rt.library_load(&lib, nullptr), Status::InvalidValue);
  EXPECT_EQ(rt.library_load_file(&lib, "/nonexistent/softgpu.ptx"), Status::FileNotFound);
  EXPECT_EQ(lib, reinterpret_cast<void*>(1));  // untouched on failure
  rt.last_error(true);
}

TEST_F(LibraryTest, MemsetElementsAndAddressRanges) {
  void* p = nullptr;
  ASSERT_EQ(rt.malloc(&p, 64), Status::Success);
  ASSERT_EQ(rt.memset(p, 0, 64), Status::Success);
  auto* b = static_cast<uint8_t*>(p);
  ASSERT_EQ(rt.memset_elements(b + 2, 0xbeef, 2, 5), Status::Success);
  ASSERT_EQ(rt.memset_elements(b + 20, 0x01020304u, 4, 3), Status::Success);
  uint8_t got[64];
  ASSERT_EQ(rt.memcpy(got, p, 64, CopyKind::DeviceToHost), Status::Success);
  uint8_t want[64] = {};
  for (int i = 0; i < 5; ++i) want[2 + 2 * i] = 0xef, want[3 + 2 * i] = 0xbe;
  for (int i = 0; i < 3; ++i) want[20 + 4 * i] = 4, want[21 + 4 * i] = 3, want[22 + 4 * i] = 2, want[23 + 4 * i] = 1;
  EXPECT_EQ(std::memcmp(got, want, 64), 0);
  EXPECT_EQ(rt.memset_elements(b + 1, 1, 2, 1), Status::InvalidValue);   // misaligned
  EXPECT_EQ(rt.memset_elements(b, 1, 3, 1), Status::InvalidValue);       // no 3-byte elements
  EXPECT_EQ(rt.memset_elements(b, 1, 4, 17), Status::InvalidValue);      // past the allocation
  void* base = nullptr;
  size_t size = 0;
  ASSERT_EQ(rt.address_range(b + 40, &base, &size), Status::Success);
  EXPECT_EQ(base, p);
  EXPECT_EQ(size, 64u);
  int local = 0;
  EXPECT_EQ(rt.address_range(&local, &base, &size), Status::NotFound);
  rt.last_error(true);
}

// The rule: floor(sm_count x blocks per SM / cluster size). On the test GPU
// (4 SMs, 2048 threads, 32 blocks, 64 warps, 164 KB shared memory per SM,
// 1 KB reserved per block):
//   128 threads, cluster 2: 16 blocks/SM -> 4*16/2 = 32
//   128 threads + 40000 B dynamic shared, cluster 4: 167936/41024 = 4 -> 4*4/4 = 4
TEST_F(LibraryTest, MaxActiveClusters) {
  void* lib = nullptr;
  ASSERT_EQ(rt.library_load(&lib, kPtx), Status::Success);
  void* k = nullptr;
  ASSERT_EQ(rt.library_kernel(&k, lib, "pack"), Status::Success);
  int n = 0;
  ASSERT_EQ(rt.occupancy_max_active_clusters(&n, k, 128, 0, {2, 1, 1}), Status::Success);
  EXPECT_EQ(n, 32);
  ASSERT_EQ(rt.occupancy_max_active_clusters(&n, k, 128, 40000, {2, 2, 1}), Status::Success);
  EXPECT_EQ(n, 4);
  EXPECT_EQ(rt.occupancy_max_active_clusters(&n, k, 128, 0, {16, 1, 1}), Status::InvalidClusterSize);
  EXPECT_EQ(rt.occupancy_max_active_clusters(&n, k, 128, 0, {1, 1, 1}), Status::InvalidClusterSize);
  EXPECT_EQ(rt.occupancy_max_active_clusters(&n, k, 0, 0, {2, 1, 1}), Status::InvalidValue);
  rt.last_error(true);
}

TEST_F(LibraryTest, ThreadErrorIsSavedAndRestored) {
  void* k = nullptr;
  EXPECT_EQ(rt.library_kernel(&k, nullptr, "x"), Status::InvalidResourceHandle);
  EXPECT_EQ(rt.thread_error(), Status::InvalidResourceHandle);
  rt.set_thread_error(Status::Success);
  EXPECT_EQ(rt.last_error(false), Status::Success);
  rt.set_thread_error(Status::InvalidValue);
  EXPECT_EQ(rt.last_error(true), Status::InvalidValue);
  EXPECT_EQ(rt.last_error(true), Status::Success);
}

}  // namespace
}  // namespace softgpu::runtime::testing
