// read_wrapper on __fatBinC_Wrapper_t structs built in memory around the
// committed fatbins, as nvcc lays them out in .nvFatBinSegment.
#include <gtest/gtest.h>

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

}  // namespace
