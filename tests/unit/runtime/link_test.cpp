// runtime::PtxLinker (cuLink*) without nvcc: PTX written here, archives built
// by hand; the image read back; every refusal with its status.
#include "runtime/link.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include <fmt/format.h>

namespace softgpu::runtime {
namespace {

constexpr Status kInvalidImage = static_cast<Status>(200);

const char* kCaller = R"(.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b32 r) twice(.param .b32 x);
.extern .global .align 4 .u32 bias;
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  mov.u32 %r1, 21;
  { .param .b32 a; .param .b32 r; st.param.b32 [a], %r1;
    call.uni (r), twice, (a); ld.param.b32 %r2, [r]; }
  ld.global.u32 %r3, [bias];
  add.u32 %r2, %r2, %r3;
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], %r2;
  ret;
}
)";

const char* kCallee = R"(.version 8.0
.target sm_80
.address_size 64
.visible .global .align 4 .u32 bias = 5;
.visible .func (.param .b32 r) twice(.param .b32 x) {
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  add.u32 %r2, %r1, %r1;
  st.param.b32 [r], %r2;
  ret;
}
)";

std::span<const std::byte> bytes(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size() + 1};
}

// An ar archive of the given (name, data) members, as `ar` writes them:
// names over 15 characters in the "//" table, referred to as "/offset".
std::string archive(const std::vector<std::pair<std::string, std::string>>& members) {
  std::string a = "!<arch>\n", long_names;
  auto member = [&](const std::string& header_name, const std::string& data) {
    a += fmt::format("{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n", header_name, 0, 0, 0, 644, data.size());
    a += data;
    if (data.size() & 1) a += '\n';
  };
  for (const auto& m : members)
    if (m.first.size() > 15) long_names += m.first + "/\n";
  if (!long_names.empty()) member("//", long_names);
  size_t at = 0;
  for (const auto& [name, data] : members) {
    if (name.size() > 15) {
      member(fmt::format("/{}", at), data);
      at += name.size() + 2;
    } else {
      member(name + "/", data);
    }
  }
  return a;
}

TEST(PtxLinker, LinksTwoModulesIntoAnImageThatReadsBack) {
  PtxLinker l(90);
  ASSERT_EQ(l.add(int(LinkInput::Ptx), bytes(kCaller), "caller.ptx"), Status::Success) << l.error_log();
  ASSERT_EQ(l.add(int(LinkInput::Ptx), bytes(kCallee), "callee.ptx"), Status::Success) << l.error_log();
  ASSERT_EQ(l.complete(), Status::Success) << l.error_log();
  EXPECT_TRUE(is_linked_image(l.image()));
  auto mods = read_linked_image(l.image());
  ASSERT_TRUE(mods) << mods.error().message;
  ASSERT_EQ(mods.value().size(), 2u);
  EXPECT_EQ(mods.value()[0].name, "caller.ptx");
  EXPECT_EQ(mods.value()[0].text, kCaller);
  EXPECT_EQ(mods.value()[1].name, "callee.ptx");
  EXPECT_EQ(mods.value()[1].text, kCallee);
}

TEST(PtxLinker, UndefinedAndDoublyDefinedSymbolsFailTheLinkNamingThem) {
  {
    PtxLinker l(90);
    ASSERT_EQ(l.add(int(LinkInput::Ptx), bytes(kCaller), "caller.ptx"), Status::Success);
    EXPECT_EQ(l.complete(), kInvalidImage);
    EXPECT_NE(l.error_log().find("undefined reference to 'twice' in 'caller.ptx'"), std::string::npos) << l.error_log();
    EXPECT_NE(l.error_log().find("undefined reference to 'bias' in 'caller.ptx'"), std::string::npos) << l.error_log();
    EXPECT_TRUE(l.image().empty());
  }
  PtxLinker l(90);
  ASSERT_EQ(l.add(int(LinkInput::Ptx), bytes(kCaller), "caller.ptx"), Status::Success);
  ASSERT_EQ(l.add(int(LinkInput::Ptx), bytes(kCallee), "one.ptx"), Status::Success);
  ASSERT_EQ(l.add(int(LinkInput::Ptx), bytes(kCallee), "two.ptx"), Status::Success);
  EXPECT_EQ(l.complete(), kInvalidImage);
  EXPECT_NE(l.error_log().find("multiple definition of 'twice' in 'two.ptx', first defined in 'one.ptx'"),
            std::string::npos)
      << l.error_log();
}

TEST(PtxLinker, RefusedInputsSayWhyAndLeaveTheLinkerAsItWas) {
  PtxLinker l(90);
  const std::string broken = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() {\n";
  EXPECT_EQ(l.add(int(LinkInput::Ptx), bytes(broken), "broken.ptx"), Status::InvalidPtx);
  EXPECT_NE(l.error_log().find("broken.ptx"), std::string::npos) << l.error_log();
  const std::string elf = std::string("\x7f" "ELF", 4) + std::string(60, '\0');
  EXPECT_EQ(l.add(int(LinkInput::Cubin), bytes(elf), "k.cubin"), Status::NoKernelImageForDevice);
  EXPECT_NE(l.error_log().find("machine code only"), std::string::npos);
  EXPECT_EQ(l.add(int(LinkInput::Nvvm), bytes(elf), "k.ltoir"), Status::NotSupported);
  EXPECT_EQ(l.add(42, bytes(elf), "x"), Status::InvalidValue);
  EXPECT_EQ(l.add(int(LinkInput::Fatbinary), bytes(std::string("not a fatbinary")), "x.fatbin"), kInvalidImage);
  EXPECT_EQ(l.add(int(LinkInput::Object), bytes(elf), "x.o"), kInvalidImage);  // a damaged ELF
  EXPECT_EQ(l.add(int(LinkInput::Library), bytes(std::string("!<arch>\nshort")), "lib.a"), kInvalidImage);
  // An archive whose only member is not an object holds no device code.
  EXPECT_EQ(l.add(int(LinkInput::Library), bytes(archive({{"readme.txt", "hello"}})), "lib.a"), kInvalidImage);
  EXPECT_NE(l.error_log().find("holds no device code"), std::string::npos) << l.error_log();
  // A member that runs past the end of the archive.
  std::string cut = archive({{"a.o", std::string(100, 'x')}});
  cut.resize(cut.size() - 50);
  EXPECT_EQ(l.add(int(LinkInput::Library), bytes(cut), "cut.a"), kInvalidImage);
  EXPECT_EQ(l.complete(), Status::InvalidValue);  // nothing was added
  ASSERT_EQ(l.add(int(LinkInput::Ptx), bytes(kCaller), "caller.ptx"), Status::Success);
  ASSERT_EQ(l.add(int(LinkInput::Ptx), bytes(kCallee), "callee.ptx"), Status::Success);
  EXPECT_EQ(l.complete(), Status::Success) << l.error_log();
}

TEST(PtxLinker, DynamicSharedMemoryIsNotAnUndefinedSymbol) {
  // `.extern .shared` declares the dynamic shared memory; an extern .global
  // still needs a definition.
  const std::string dyn = R"(.version 8.0
.target sm_80
.address_size 64
.extern .shared .align 4 .b8 dyn_smem[];
.extern .global .align 4 .u32 elsewhere;
.visible .entry k() {
  .reg .b32 %r<2>;
  ld.global.u32 %r1, [elsewhere];
  st.shared.u32 [dyn_smem], %r1;
  ret;
}
)";
  PtxLinker l(90);
  ASSERT_EQ(l.add(int(LinkInput::Ptx), bytes(dyn), "dyn.ptx"), Status::Success) << l.error_log();
  EXPECT_EQ(l.complete(), kInvalidImage);
  EXPECT_NE(l.error_log().find("undefined reference to 'elsewhere'"), std::string::npos) << l.error_log();
  EXPECT_EQ(l.error_log().find("dyn_smem"), std::string::npos) << l.error_log();
}

TEST(PtxLinker, TheDeviceRuntimeArchiveLinksSoftgpusGridSync) {
  // Code calling cudaCGGetIntrinsicHandle/cudaCGSynchronize (Numba's grid
  // sync) links against libcudadevrt.a, whose machine code softgpu cannot
  // run: the archive (recognized by its member) brings softgpu's PTX
  // definitions instead, once however often it is added.
  const std::string caller = R"(.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b64 h) cudaCGGetIntrinsicHandle(.param .b32 scope);
.extern .func (.param .b32 s) cudaCGSynchronize(.param .b64 h, .param .b32 flags);
.visible .entry k() {
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  mov.u32 %r1, 1;
  { .param .b32 a; .param .b64 r; st.param.b32 [a], %r1;
    call.uni (r), cudaCGGetIntrinsicHandle, (a); ld.param.b64 %rd1, [r]; }
  { .param .b64 a; .param .b32 f; .param .b32 r; st.param.b64 [a], %rd1; st.param.b32 [f], 0;
    call.uni (r), cudaCGSynchronize, (a, f); ld.param.b32 %r2, [r]; }
  ret;
}
)";
  {
    PtxLinker l(90);
    ASSERT_EQ(l.add(int(LinkInput::Ptx), bytes(caller), "caller.ptx"), Status::Success);
    EXPECT_EQ(l.complete(), kInvalidImage);
    EXPECT_NE(l.error_log().find("undefined reference to 'cudaCGSynchronize'"), std::string::npos);
  }
  PtxLinker l(90);
  const std::string devrt = archive({{"cuda_device_runtime.o", std::string("\x7f" "ELF", 4) + std::string(60, '\0')}});
  ASSERT_EQ(l.add(int(LinkInput::Ptx), bytes(caller), "caller.ptx"), Status::Success);
  ASSERT_EQ(l.add(int(LinkInput::Library), bytes(devrt), "libcudadevrt.a"), Status::Success) << l.error_log();
  ASSERT_EQ(l.add(int(LinkInput::Library), bytes(devrt), "libcudadevrt.a"), Status::Success) << l.error_log();
  ASSERT_EQ(l.complete(), Status::Success) << l.error_log();
  EXPECT_EQ(l.modules().size(), 2u);
  EXPECT_NE(l.info_log().find("NVIDIA's device runtime"), std::string::npos) << l.info_log();
}

TEST(PtxLinker, DamagedImagesAreRefusedNotOverread) {
  PtxLinker l(90);
  ASSERT_EQ(l.add(int(LinkInput::Ptx), bytes(kCaller), "caller.ptx"), Status::Success);
  ASSERT_EQ(l.add(int(LinkInput::Ptx), bytes(kCallee), "callee.ptx"), Status::Success);
  ASSERT_EQ(l.complete(), Status::Success);
  const std::string image(l.image());
  // Every prefix of the image either reads back whole modules or is refused.
  for (size_t n = 0; n < image.size(); n += 7) {
    auto r = read_linked_image(std::string_view(image).substr(0, n));
    if (r) {
      for (const auto& m : r.value()) EXPECT_TRUE(m.text == kCaller || m.text == kCallee) << n;
    }
  }
  std::string big = image;
  big.replace(big.find("//softgpu-module ") + 17, 1, "9");  // a length past the end
  EXPECT_FALSE(read_linked_image(big));
  EXPECT_FALSE(read_linked_image("// softgpu: PTX modules linked by cuLinkComplete: 0 modules\n"));
  EXPECT_FALSE(read_linked_image(".version 8.0\n"));
}

}  // namespace
}  // namespace softgpu::runtime
