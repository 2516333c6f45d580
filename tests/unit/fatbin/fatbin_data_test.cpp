// The reader against real nvcc 13 fatbins (committed under data/, built by
// data/regen.sh): every compression mode, several archs, -rdc, SASS only.
#include <gtest/gtest.h>

#include <cstring>

#include "fatbin/fatbin.h"
#include "test_util.h"

using namespace softgpu;
using namespace softgpu::fatbin;
using fatbin_test::load;
using fatbin_test::normalize_ptx;
using fatbin_test::read_text;

namespace {

Container must_read(const std::string& file) {
  auto blob = load(file);
  auto c = read_container(blob.bytes());
  EXPECT_TRUE(c.ok()) << file << ": " << (c.ok() ? "" : c.error().message);
  return c.ok() ? c.value() : Container{};
}

// Every mode decompresses to the same PTX, which matches `nvcc -ptx` up to
// the documented differences (comments, indentation, blank lines, NUL).
class CompressionMode : public ::testing::TestWithParam<std::pair<const char*, uint64_t>> {};

TEST_P(CompressionMode, PtxMatchesNvccPtxOutput) {
  auto [file, compression_flag] = GetParam();
  Container c = must_read(file);
  ASSERT_EQ(c.ptx.size(), 1u);
  ASSERT_EQ(c.elf.size(), 1u);
  EXPECT_EQ(c.elf[0].arch, 75u);
  const PtxEntry& p = c.ptx[0];
  EXPECT_EQ(p.arch, 75u);
  EXPECT_EQ(p.isa_major, 9u);
  EXPECT_EQ(p.isa_minor, 0u);
  EXPECT_EQ(p.flags & (kFlagLz4 | kFlagZstd), compression_flag);
  EXPECT_NE(p.text.find(".version 9.0"), std::string::npos);
  EXPECT_NE(p.text.find(".target sm_75"), std::string::npos);
  EXPECT_NE(p.text.find(".entry _Z4vaddPKfS0_Pfi"), std::string::npos);
  ASSERT_FALSE(p.text.empty());
  EXPECT_NE(p.text.back(), '\0');
  EXPECT_EQ(normalize_ptx(p.text), normalize_ptx(read_text("vadd_sm75.ptx")));
  EXPECT_EQ(c.best_ptx(), &c.ptx[0]);
}

INSTANTIATE_TEST_SUITE_P(Nvcc13, CompressionMode,
                         ::testing::Values(std::make_pair("vadd_default.fatbin", kFlagZstd),
                                           std::make_pair("vadd_speed.fatbin", kFlagLz4),
                                           std::make_pair("vadd_none.fatbin", uint64_t(0)),
                                           std::make_pair("vadd_compress_all.fatbin", kFlagZstd)),
                         [](const auto& info) {  // "vadd_speed.fatbin" -> "speed"
                           std::string n = info.param.first;
                           n = n.substr(5, n.find('.') - 5);
                           std::erase(n, '_');
                           return n;
                         });

TEST(FatbinData, AllModesGiveIdenticalText) {
  std::string ref = must_read("vadd_none.fatbin").ptx.at(0).text;
  EXPECT_EQ(ref.size(), 974u);  // uncompressedSize 975 includes the NUL terminator
  for (const char* f : {"vadd_default.fatbin", "vadd_speed.fatbin", "vadd_compress_all.fatbin"}) {
    EXPECT_EQ(must_read(f).ptx.at(0).text, ref) << f;
  }
}

TEST(FatbinData, MultipleArchsPicksHighest) {
  Container c = must_read("vadd_multi.fatbin");
  ASSERT_EQ(c.ptx.size(), 3u);
  std::vector<uint32_t> archs;
  for (auto& p : c.ptx) archs.push_back(p.arch);
  EXPECT_EQ(archs, (std::vector<uint32_t>{75, 80, 90}));
  ASSERT_EQ(c.elf.size(), 1u);
  EXPECT_EQ(c.elf[0].arch, 80u);
  const PtxEntry* best = c.best_ptx();
  ASSERT_NE(best, nullptr);
  EXPECT_EQ(best->arch, 90u);
  EXPECT_NE(best->text.find(".target sm_90"), std::string::npos);
  EXPECT_EQ(normalize_ptx(best->text), normalize_ptx(read_text("vadd_sm90.ptx")));
  for (auto& p : c.ptx) {
    EXPECT_NE(p.text.find(".target sm_" + std::to_string(p.arch)), std::string::npos) << p.arch;
  }
  auto sel = select_ptx(c);
  ASSERT_TRUE(sel.ok());
  EXPECT_EQ(sel.value(), best);
}

// Machine code the device runs with PTX only for newer GPUs beside it (as
// in CuPy's wheels: sm_75..sm_120 SASS, compute_120 PTX): the lowest such
// PTX, and only where the SASS's major version is the device's, not newer.
TEST(FatbinData, NewerPtxBesideSassTheDeviceRuns) {
  Container c;
  auto ptx = [](uint32_t a) {
    PtxEntry e;
    e.arch = a;
    return e;
  };
  auto elf = [](uint32_t a) {
    ElfEntry e;
    e.arch = a;
    return e;
  };
  for (uint32_t a : {120u, 100u}) c.ptx.push_back(ptx(a));
  for (uint32_t a : {80u, 90u, 100u}) c.elf.push_back(elf(a));
  EXPECT_EQ(c.ptx_for(90), nullptr);
  ASSERT_NE(c.newer_ptx_beside_sass(90), nullptr);
  EXPECT_EQ(c.newer_ptx_beside_sass(90)->arch, 100u);  // the lowest above 90
  ASSERT_NE(c.newer_ptx_beside_sass(89), nullptr);     // sm_80 SASS runs on 8.9
  EXPECT_EQ(c.newer_ptx_beside_sass(89)->arch, 100u);
  EXPECT_EQ(c.newer_ptx_beside_sass(75), nullptr);     // no SASS for 7.x
  c.elf = {elf(86)};
  EXPECT_EQ(c.newer_ptx_beside_sass(80), nullptr);  // sm_86 SASS does not run on 8.0
  Container multi = must_read("vadd_multi.fatbin");   // PTX 75/80/90, SASS 80
  EXPECT_EQ(multi.newer_ptx_beside_sass(86)->arch, 90u);
  EXPECT_EQ(multi.newer_ptx_beside_sass(90), nullptr);
}

TEST(FatbinData, SassOnlyHasNoPtx) {
  Container c = must_read("vadd_sass_only.fatbin");
  EXPECT_TRUE(c.ptx.empty());
  ASSERT_EQ(c.elf.size(), 1u);
  EXPECT_EQ(c.elf[0].arch, 80u);
  EXPECT_EQ(c.best_ptx(), nullptr);
  auto sel = select_ptx(c);
  ASSERT_FALSE(sel.ok());
  EXPECT_EQ(sel.error().status, Status::NoKernelImageForDevice);
  EXPECT_NE(sel.error().message.find("sm_80"), std::string::npos) << sel.error().message;
  EXPECT_NE(sel.error().message.find("code=compute_80"), std::string::npos) << sel.error().message;
}

TEST(FatbinData, RdcSectionsHoldPerObjectPtx) {
  Container linked = must_read("rdc_linked.fatbin");
  EXPECT_TRUE(linked.ptx.empty());  // nvlink output: ELF only
  ASSERT_EQ(linked.elf.size(), 1u);

  auto blob = load("rdc_relfatbin.fatbin");
  auto sec = read_section(blob.bytes());
  ASSERT_TRUE(sec.ok()) << sec.error().message;
  ASSERT_EQ(sec->size(), 2u);
  const PtxEntry& a = sec.value()[0].ptx.at(0);
  const PtxEntry& b = sec.value()[1].ptx.at(0);
  EXPECT_EQ(a.options, "--compile-only");
  EXPECT_EQ(b.options, "--compile-only");
  EXPECT_EQ(normalize_ptx(a.text), normalize_ptx(read_text("a_sm75.ptx")));
  EXPECT_EQ(normalize_ptx(b.text), normalize_ptx(read_text("b_sm75.ptx")));
  EXPECT_NE(a.text.find(".entry _Z5kmainPfi"), std::string::npos);
  EXPECT_TRUE(fatbin_test::ptx_has(a.text, ".extern .func (.param .b32 func_retval0) _Z5scalef"));
  EXPECT_NE(b.text.find(".visible .global .align 4 .f32 factor"), std::string::npos);
}

TEST(FatbinData, ReadSectionOfSingleObject) {
  auto blob = load("vadd_default.fatbin");
  auto sec = read_section(blob.bytes());
  ASSERT_TRUE(sec.ok()) << sec.error().message;
  EXPECT_EQ(sec->size(), 1u);
}

}  // namespace

namespace {

// The register count ptxas allocated, read from the embedded machine code.
// `nvcc -cubin -Xptxas -v` on data/vadd.cu reports "Used 12 registers" for
// _Z4vaddPKfS0_Pfi on sm_75 and sm_80 (nvcc 13.0).
TEST(FatbinData, MachineCodeGivesRegisterCounts) {
  for (const char* file : {"vadd_default.fatbin", "vadd_compress_all.fatbin", "vadd_sass_only.fatbin"}) {
    Container c = must_read(file);
    ASSERT_EQ(c.elf.size(), 1u) << file;
    const ElfEntry& e = c.elf[0];
    EXPECT_EQ(e.resources_error, "") << file;
    ASSERT_EQ(e.kernels.size(), 1u) << file;
    EXPECT_EQ(e.kernels[0].name, "_Z4vaddPKfS0_Pfi");
    EXPECT_EQ(e.kernels[0].registers, 12u) << file;
    EXPECT_EQ(e.kernels[0].shared_bytes, 0u);
  }
}

TEST(Cubin, MalformedElfIsAnErrorNotACrash) {
  // A truncated, a non-ELF and a header-lying buffer.
  std::vector<std::byte> junk(100, std::byte{0x41});
  EXPECT_FALSE(read_cubin_resources(junk).ok());
  std::vector<std::byte> elf(64, std::byte{0});
  const char magic[] = {0x7f, 'E', 'L', 'F', 2, 1};
  std::memcpy(elf.data(), magic, sizeof magic);
  elf[0x3a] = std::byte{64};  // shentsize 64
  elf[0x3c] = std::byte{200}; // 200 section headers that are not there
  auto r = read_cubin_resources(elf);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("run past"), std::string::npos) << r.error().message;
}

}  // namespace
