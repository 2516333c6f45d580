// read_wrapper on __fatBinC_Wrapper_t structs built in memory around the
// committed fatbins, as nvcc lays them out in .nvFatBinSegment.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fmt/format.h>

#include "fatbin/fatbin.h"
#include "test_util.h"

using namespace softgpu;
using namespace softgpu::fatbin;
using fatbin_test::Blob;
using fatbin_test::load;

namespace {

struct Wrapper {  // __fatBinC_Wrapper_t (include/fatbinary_section.h)
  int magic;
  int version;
  const void* data;
  const void* filename_or_fatbins;
};
static_assert(sizeof(Wrapper) == 24);

TEST(Wrapper, V1WholeProgram) {
  Blob b = load("vadd_default.fatbin");
  Wrapper w{int(kWrapperMagic), 1, b.data(), nullptr};
  auto img = read_wrapper(&w);
  ASSERT_TRUE(img.ok()) << img.error().message;
  EXPECT_EQ(img->wrapper_version, 1u);
  EXPECT_TRUE(img->prelinked.empty());
  auto mods = img->modules_to_load();
  ASSERT_EQ(mods.size(), 1u);
  EXPECT_EQ(mods[0]->arch, 75u);
  EXPECT_NE(mods[0]->text.find(".entry _Z4vaddPKfS0_Pfi"), std::string::npos);
}

TEST(Wrapper, V1ReadsOnlyItsOwnContainer) {
  // Two containers back to back (as in a section): the size comes from the
  // first one's header, so the second is not read.
  Blob a = load("vadd_multi.fatbin"), s = load("vadd_sass_only.fatbin");
  Blob both;
  both.size = a.size + s.size;
  both.store.resize(both.size / 8 + 2);
  std::memcpy(both.data(), a.data(), a.size);
  std::memcpy(both.data() + a.size, s.data(), s.size);
  Wrapper w{int(kWrapperMagic), 1, both.data(), nullptr};
  auto img = read_wrapper(&w);
  ASSERT_TRUE(img.ok()) << img.error().message;
  EXPECT_EQ(img->main.ptx.size(), 3u);
  EXPECT_EQ(img->main.elf.size(), 1u);
  ASSERT_EQ(img->modules_to_load().size(), 1u);
  EXPECT_EQ(img->modules_to_load()[0]->arch, 90u);
}

TEST(Wrapper, V2RdcWalksPrelinkedArray) {
  Blob linked = load("rdc_linked.fatbin");
  Blob rel = load("rdc_relfatbin.fatbin");
  // Second per-object container starts at 1616 in the section (see regen.sh).
  ASSERT_EQ(std::memcmp(rel.data() + 1616, rel.data(), 4), 0);
  const void* objs[] = {rel.data(), rel.data() + 1616, nullptr};
  Wrapper w{int(kWrapperMagic), 2, linked.data(), objs};
  auto img = read_wrapper(&w);
  ASSERT_TRUE(img.ok()) << img.error().message;
  EXPECT_EQ(img->wrapper_version, 2u);
  EXPECT_TRUE(img->main.ptx.empty());
  ASSERT_EQ(img->prelinked.size(), 2u);
  auto mods = img->modules_to_load();
  ASSERT_EQ(mods.size(), 2u);
  EXPECT_NE(mods[0]->text.find(".visible .entry _Z5kmainPfi"), std::string::npos);
  EXPECT_TRUE(fatbin_test::ptx_has(mods[1]->text, ".visible .func (.param .b32 func_retval0) _Z5scalef"));
  EXPECT_EQ(mods[0]->options, "--compile-only");
}

TEST(Wrapper, V2WithoutPtxAnywhereIsNoKernelImage) {
  Blob linked = load("rdc_linked.fatbin");
  const void* objs[] = {nullptr};
  for (const void* arr : {static_cast<const void*>(objs), static_cast<const void*>(nullptr)}) {
    Wrapper w{int(kWrapperMagic), 2, linked.data(), arr};
    auto img = read_wrapper(&w);
    ASSERT_FALSE(img.ok());
    EXPECT_EQ(img.error().status, Status::NoKernelImageForDevice);
    EXPECT_NE(img.error().message.find("sm_75"), std::string::npos) << img.error().message;
  }
}

TEST(Wrapper, SassOnlyIsNoKernelImage) {
  Blob b = load("vadd_sass_only.fatbin");
  Wrapper w{int(kWrapperMagic), 1, b.data(), nullptr};
  auto img = read_wrapper(&w);
  ASSERT_FALSE(img.ok());
  EXPECT_EQ(img.error().status, Status::NoKernelImageForDevice);
  EXPECT_NE(img.error().message.find("arch=compute_80,code=compute_80"), std::string::npos);
}

TEST(Wrapper, RejectsBadWrappers) {
  Blob b = load("vadd_default.fatbin");
  auto expect_bad = [](const Wrapper& w, const std::string& needle) {
    auto img = read_wrapper(&w);
    ASSERT_FALSE(img.ok()) << needle;
    EXPECT_EQ(img.error().status, Status::InvalidSource);
    EXPECT_NE(img.error().message.find(needle), std::string::npos) << img.error().message;
  };
  expect_bad(Wrapper{int(kWrapperMagic ^ 1), 1, b.data(), nullptr}, "magic");
  // A bare container where a wrapper is expected is rejected on its magic.
  EXPECT_FALSE(read_wrapper(b.data()).ok());
  expect_bad(Wrapper{int(kWrapperMagic), 3, b.data(), nullptr}, "version 3");
  expect_bad(Wrapper{int(kWrapperMagic), 1, nullptr, nullptr}, "null");
  Blob bad = b;
  bad.data()[0] = std::byte{0};
  expect_bad(Wrapper{int(kWrapperMagic), 1, bad.data(), nullptr}, "magic");
  Blob huge = b;
  uint64_t payload = uint64_t(1) << 50;
  std::memcpy(huge.data() + 8, &payload, 8);
  expect_bad(Wrapper{int(kWrapperMagic), 1, huge.data(), nullptr}, "implausible");
  // A prelinked entry that is not a container.
  Blob rel = load("rdc_relfatbin.fatbin");
  const void* objs[] = {rel.data(), bad.data(), nullptr};
  expect_bad(Wrapper{int(kWrapperMagic), 2, b.data(), objs}, "prelinked fatbin 1");
  EXPECT_FALSE(read_wrapper(nullptr).ok());
}

// Bytes placed so that they end exactly at an inaccessible page, as a
// fatbin section can end at the end of its mapped segment.
struct GuardedBytes {
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  size_t len = 0;
  std::byte* base = nullptr;
  std::byte* data = nullptr;
  explicit GuardedBytes(std::span<const std::byte> bytes) : len(bytes.size()) {
    size_t pages = (len + page - 1) / page + 1;
    void* m = mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return;
    base = static_cast<std::byte*>(m);
    mprotect(base + (pages - 1) * page, page, PROT_NONE);
    data = base + (pages - 1) * page - len;
    std::memcpy(data, bytes.data(), len);
  }
  ~GuardedBytes() {
    if (base) munmap(base, ((len + page - 1) / page + 1) * page);
  }
  std::byte* guard() const { return data + len; }
};

TEST(Readable, StopsAtAnInaccessiblePage) {
  std::vector<std::byte> bytes(100);
  GuardedBytes g(bytes);
  ASSERT_NE(g.data, nullptr);
  EXPECT_EQ(readable_bytes(g.data), 100u);
  EXPECT_EQ(readable_bytes(g.data + 99), 1u);
  EXPECT_EQ(readable_bytes(g.guard()), 0u);
  EXPECT_EQ(readable_bytes(nullptr), 0u);
  // This test's own code is in a loaded segment: readable, bounded.
  static const int in_rodata = 7;
  size_t n = readable_bytes(&in_rodata);
  EXPECT_GE(n, sizeof in_rodata);
  EXPECT_LT(n, size_t(1) << 32);
}

// The regression of issue 7: a corrupted container header-size field made
// the reader run past the end of the mapped fatbin (SIGSEGV at the first
// launch). Now every corrupted size is reported, naming the field.
TEST(Wrapper, CorruptSizesNeverReadPastReadableMemory) {
  Blob b = load("vadd_default.fatbin");
  auto check = [&](auto patch, const std::string& needle) {
    Blob c = b;
    patch(c);
    GuardedBytes g(c.bytes());
    ASSERT_NE(g.data, nullptr);
    Wrapper w{int(kWrapperMagic), 1, g.data, nullptr};
    auto img = read_wrapper(&w);
    ASSERT_FALSE(img.ok()) << needle;
    EXPECT_EQ(img.error().status, Status::InvalidSource);
    EXPECT_EQ(img.error().message.find("fatbin wrapper data: "), 0u) << img.error().message;
    EXPECT_NE(img.error().message.find(needle), std::string::npos) << img.error().message;
  };
  size_t end = b.size;
  check([](Blob& c) { uint16_t h = 0xffff; std::memcpy(c.data() + 6, &h, 2); },
        fmt::format("container header size 65535 + payload size {} runs past the end of readable memory "
                    "({} bytes from the container start)", end - 16, end));
  check([](Blob& c) { uint16_t h = 24; std::memcpy(c.data() + 6, &h, 2); },
        fmt::format("container header size 24 + payload size {} runs past the end of readable memory",
                    end - 16));
  check([](Blob& c) { uint16_t h = 8; std::memcpy(c.data() + 6, &h, 2); },
        "implausible container header (header size 8, payload");
  check([&](Blob& c) { uint64_t p = end; std::memcpy(c.data() + 8, &p, 8); },
        fmt::format("container header size 16 + payload size {} runs past", end));
  // Entry header size past the container: reported by the entry reader.
  check([](Blob& c) { uint32_t h = 0x7fffffff; std::memcpy(c.data() + 16 + 4, &h, 4); },
        "fatbin entry 0 (offset 16): header size 2147483647 is outside [64,");
  // Entry payload size past the container.
  check([](Blob& c) { uint64_t s = uint64_t(1) << 40; std::memcpy(c.data() + 16 + 8, &s, 8); },
        "fatbin entry 0 (offset 16): payload size 1099511627776 runs past the container end");
}

TEST(Wrapper, UnreadablePointersAreErrors) {
  std::vector<std::byte> none(8);
  GuardedBytes g(none);
  ASSERT_NE(g.data, nullptr);
  auto img = read_wrapper(g.guard());
  ASSERT_FALSE(img.ok());
  EXPECT_EQ(img.error().status, Status::InvalidSource);
  EXPECT_NE(img.error().message.find("is not readable memory (0 bytes readable, it needs 24)"), std::string::npos)
      << img.error().message;
  // A wrapper whose data points at the inaccessible page.
  Wrapper w{int(kWrapperMagic), 1, g.guard(), nullptr};
  img = read_wrapper(&w);
  ASSERT_FALSE(img.ok());
  EXPECT_NE(img.error().message.find("fatbin wrapper data: container pointer"), std::string::npos)
      << img.error().message;
  EXPECT_NE(img.error().message.find("is not readable memory (0 bytes readable, the header needs 16)"),
            std::string::npos) << img.error().message;
  // A v2 prelinked array that runs into the inaccessible page with no NULL.
  Blob b = load("vadd_default.fatbin");
  std::vector<std::byte> arr(2 * sizeof(void*));
  const void* p = b.data();
  std::memcpy(arr.data(), &p, sizeof p);
  std::memcpy(arr.data() + sizeof p, &p, sizeof p);
  GuardedBytes ga(arr);
  Wrapper w2{int(kWrapperMagic), 2, b.data(), ga.data};
  img = read_wrapper(&w2);
  ASSERT_FALSE(img.ok());
  EXPECT_NE(img.error().message.find("prelinked array has no NULL within 2 entries"), std::string::npos)
      << img.error().message;
}

}  // namespace
