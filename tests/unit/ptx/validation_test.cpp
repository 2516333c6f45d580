// PTX the ISA's rules reject though the grammar allows it: targets and
// versions, names declared twice in one scope, registers of the wrong type
// for an arithmetic instruction, CTA shapes past 1024 threads, kernel
// parameters past 32,764 bytes, mnemonics that are not PTX. And the valid
// forms next to each rule, which must still parse without a diagnostic.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "ptx/parser.h"

namespace softgpu::ptx {
namespace {

std::string module(const std::string& header, const std::string& rest) {
  return header + ".address_size 64\n" + rest;
}
const char* kHead = ".version 9.0\n.target sm_90\n";  // 2 lines, then .address_size

// A kernel whose body is `body` (starting on line 6).
std::string kernel(const std::string& body) {
  return module(kHead, ".visible .entry k(.param .u64 p)\n{\n" + body + "\tret;\n}\n");
}

struct Want {
  uint32_t line, col;
  std::string message;
};

ParseResult expect_diags(const std::string& text, const std::vector<Want>& want) {
  auto r = parse(text, "t.ptx");
  EXPECT_FALSE(r.module.has_value());
  std::string all = render(r.diagnostics, text);
  EXPECT_EQ(r.diagnostics.size(), want.size()) << all;
  for (size_t i = 0; i < std::min(want.size(), r.diagnostics.size()); ++i) {
    const auto& d = r.diagnostics[i];
    EXPECT_EQ(d.severity, Severity::Error) << all;
    EXPECT_EQ(d.loc.line, want[i].line) << all;
    EXPECT_EQ(d.loc.col, want[i].col) << all;
    EXPECT_EQ(d.message, want[i].message) << all;
  }
  return r;
}

void expect_clean(const std::string& text) {
  auto r = parse(text, "t.ptx");
  EXPECT_TRUE(r.module.has_value()) << render(r.diagnostics, text);
  EXPECT_TRUE(r.diagnostics.empty()) << render(r.diagnostics, text);
}

TEST(Validation, TargetsOfTheIsa) {
  for (const char* t : {"sm_50", "sm_80", "sm_90a", "sm_100f", "sm_103a", "sm_110", "sm_120a", "sm_121f", "sm_20"})
    expect_clean(module(fmt::format(".version 9.0\n.target {}\n", t), ""));
  expect_clean(module(".version 9.0\n.target sm_80, texmode_independent, debug\n", ""));
  auto r = expect_diags(module(".version 9.0\n.target sm_99\n", ""),
                        {{2, 9, "unknown target 'sm_99': PTX ISA 9.0 has no such architecture (.target sm_XX as "
                                "the ISA lists them, e.g. sm_80, sm_90a)"}});
  EXPECT_FALSE(r.unsupported_version);
  expect_diags(module(".version 9.0\n.target sm_90, fast\n", ""),
               {{2, 16, "unknown .target option 'fast' (texmode_unified, texmode_independent, debug or "
                        "map_f64_to_f32)"}});
}

TEST(Validation, VersionNewerThanCuda13) {
  for (const char* v : {"9.0", "8.8", "7.0", "6.4"}) expect_clean(module(fmt::format(".version {}\n.target sm_80\n", v), ""));
  const char* kWhy = "the newest PTX ISA version CUDA 13.0 supports is 9.0";
  auto r = expect_diags(module(".version 99.9\n.target sm_80\n", ""),
                        {{1, 10, fmt::format("unsupported .version 99.9: {}", kWhy)}});
  EXPECT_TRUE(r.unsupported_version);
  r = expect_diags(module(".version 9.1\n.target sm_80\n", ""), {{1, 10, fmt::format("unsupported .version 9.1: {}", kWhy)}});
  EXPECT_TRUE(r.unsupported_version);
  // Both at once: each reported.
  r = expect_diags(module(".version 10.0\n.target sm_99\n", ""),
                   {{1, 10, fmt::format("unsupported .version 10.0: {}", kWhy)},
                    {2, 9, "unknown target 'sm_99': PTX ISA 9.0 has no such architecture (.target sm_XX as the ISA "
                           "lists them, e.g. sm_80, sm_90a)"}});
  EXPECT_TRUE(r.unsupported_version);
}

// PTX the runtime runs in place of machine code (a fatbinary's only PTX is
// for a newer GPU, perhaps from a newer toolkit) is read whatever its
// .version; what it contains is checked as always.
TEST(Validation, NewerVersionAcceptedWhenAsked) {
  ParseOptions o;
  o.accept_newer_version = true;
  auto r = parse(module(".version 9.2\n.target sm_120\n", ""), "<ptx>", o);
  EXPECT_TRUE(r.module.has_value());
  EXPECT_FALSE(has_errors(r.diagnostics));
  EXPECT_FALSE(r.unsupported_version);
  r = parse(module(".version 9.2\n.target sm_80\n",
                  ".visible .entry k()\n{\n\t.reg .u32 %r1;\n\tbogus.op.u32 %r1;\n\tret;\n}\n"),
            "<ptx>", o);
  EXPECT_TRUE(has_errors(r.diagnostics));
  r = parse(module(".version 9.2\n.target sm_80\n", ""));  // without the option, refused as before
  EXPECT_TRUE(r.unsupported_version);
}

TEST(Validation, NamesDeclaredTwiceInOneScope) {
  expect_diags(kernel("\t.reg .u32 %r1;\n\t.reg .u32 %r1;\n"),
               {{7, 12, "duplicate declaration of '%r1' (first declared at 6:12)"}});
  expect_diags(kernel("\t.reg .b32 %r<10>;\n\t.reg .b32 %r9;\n"),
               {{7, 12, "duplicate declaration of '%r9' (first declared by '%r<10>' at 6:12)"}});
  expect_diags(kernel("\t.reg .b32 %r<10>;\n\t.reg .b64 %r<2>;\n"),
               {{7, 12, "'%r<2>' declares '%r0' again (first declared by '%r<10>' at 6:12)"}});
  expect_diags(kernel("\t.reg .b32 %r7;\n\t.reg .b32 %r<8>;\n"),
               {{7, 12, "'%r<8>' declares '%r7' again (first declared at 6:12)"}});
  expect_diags(kernel("\t.shared .b32 buf;\n\t.local .b32 buf;\n"),
               {{7, 14, "duplicate declaration of 'buf' (first declared at 6:15)"}});
  // Legal: ranges that do not meet, names past a range, nested scopes that
  // shadow (inline asm), the same names in two functions.
  expect_clean(kernel("\t.reg .b32 %r<10>;\n\t.reg .b32 %r10;\n\t.reg .b32 %rd<3>;\n\t.reg .pred p;\n"
                      "\t{\n\t.reg .b32 %r<10>;\n\t.reg .pred p;\n\t{\n\t.reg .b32 %r1;\n\t}\n\t}\n"
                      "\t{\n\t.reg .pred p;\n\t}\n"));
  expect_clean(module(kHead, ".func f(.reg .b32 a)\n{\n\t.reg .b32 a;\n\tret;\n}\n"
                             ".visible .entry k()\n{\n\t.reg .b32 a;\n\tret;\n}\n"));
}

TEST(Validation, OperandTypesOfArithmetic) {
  const std::string regs = "\t.reg .b16 %h<3>;\n\t.reg .f32 %f<3>;\n\t.reg .b32 %r<3>;\n\t.reg .u32 %u<3>;\n"
                           "\t.reg .s64 %sd<3>;\n\t.reg .f16 %hf<3>;\n\t.reg .pred %p<3>;\n";  // lines 6-12
  expect_diags(kernel(regs + "\tadd.f32 %f1, %h1, %h2;\n"),
               {{13, 15, "operand '%h1' of 'add.f32' is a .b16 register; the instruction takes .f32 or .b32"},
                {13, 20, "operand '%h2' of 'add.f32' is a .b16 register; the instruction takes .f32 or .b32"}});
  expect_diags(kernel(regs + "\tadd.u32 %u1, %u2, %f1;\n"),
               {{13, 20, "operand '%f1' of 'add.u32' is a .f32 register; the instruction takes .u32, .s32 or .b32"}});
  expect_diags(kernel(regs + "\tfma.rn.f32 %f1, %u1, %f1, %f2;\n"),
               {{13, 18, "operand '%u1' of 'fma.rn.f32' is a .u32 register; the instruction takes .f32 or .b32"}});
  expect_diags(kernel(regs + "\tand.b32 %r1, %r2, %sd1;\n"),
               {{13, 20, "operand '%sd1' of 'and.b32' is a .s64 register; the instruction takes a register of 32 "
                         "bits"}});
  expect_diags(kernel(regs + "\tand.pred %p1, %p2, %r1;\n"),
               {{13, 21, "operand '%r1' of 'and.pred' is a .b32 register; the instruction takes .pred"}});
  // Compatible: bit-size registers of the size, integers of the size,
  // packed halves in .b32, the wide forms, mixed precision, immediates,
  // special registers, registers of a nested scope.
  expect_clean(kernel(regs +
                      "\tadd.f32 %f1, %r1, %f2;\n\tadd.u32 %u1, %r1, %u2;\n\tadd.s32 %u1, %u1, 7;\n"
                      "\tand.b32 %r1, %f1, %u1;\n\tadd.f16 %h1, %h1, %hf1;\n\tneg.f16 %hf1, %h2;\n"
                      "\tadd.rn.f16x2 %r1, %r1, %r2;\n\tmin.u16x2 %r1, %r1, %u2;\n\tmul.wide.u32 %sd1, %u1, %r2;\n"
                      "\tmad.wide.s32 %sd1, %r1, %u2, %sd2;\n\tadd.s64 %sd1, %sd1, %sd2;\n"
                      "\tadd.rn.f32.f16 %f1, %h1, %f2;\n\tadd.u32 %u1, %tid.x, 1;\n\tsub.f32 %f1, 0f3F800000, %f2;\n"
                      "\tand.pred %p1, %p2, %p1;\n\t{\n\t.reg .f32 %r1;\n\tadd.f32 %r1, %r1, %f1;\n\t}\n"));
}

TEST(Validation, CtaShapeDirectives) {
  auto entry = [](const std::string& dir) {
    return module(kHead, ".visible .entry k() " + dir + "\n{\n\tret;\n}\n");
  };
  expect_diags(entry(".reqntid 2048"), {{4, 21, "'.reqntid 2048': more than the 1024 threads a CTA can have"}});
  expect_diags(entry(".maxntid 2048"), {{4, 21, "'.maxntid 2048': more than the 1024 threads a CTA can have"}});
  expect_diags(entry(".reqntid 32, 32, 2"),
               {{4, 21, "'.reqntid 32, 32, 2': more than the 1024 threads a CTA can have"}});
  expect_diags(entry(".maxntid 1, 1, 128"), {{4, 21, "'.maxntid 1, 1, 128': a CTA has at most 64 threads in z"}});
  expect_diags(entry(".reqntid 0"), {{4, 21, "'.reqntid 0': a CTA dimension is at least 1"}});
  expect_diags(entry(".maxntid 18446744073709551615, 2"),
               {{4, 21, "'.maxntid 18446744073709551615, 2': more than the 1024 threads a CTA can have"}});
  for (const char* ok : {".reqntid 1024", ".maxntid 32, 32, 1", ".reqntid 16, 16, 4", ".maxntid 1, 16, 64"})
    expect_clean(entry(ok));
}

TEST(Validation, KernelParameterBytes) {
  // 70,000 .u32 parameters: 280,000 bytes; reported once, at the first
  // parameter that ends past 32,764 bytes (p8191, at bytes 32764..32767).
  std::string params;
  for (int i = 0; i < 70000; ++i) params += fmt::format("{}.param .u32 p{}", i ? ", " : "", i);
  const std::string text = module(kHead, ".visible .entry many(" + params + ")\n{\n\tret;\n}\n");
  auto r = parse(text, "t.ptx");
  EXPECT_FALSE(r.module);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].message,
            "entry function 'many' has 280000 bytes of parameters (70000 of them), more than the 32764 a kernel "
            "can take");
  EXPECT_EQ(r.diagnostics[0].loc.line, 4u);
  const size_t line4 = text.find(".visible");
  EXPECT_EQ(r.diagnostics[0].loc.col, text.find(" p8191,") + 1 - line4 + 1);
  // Exactly the limit fits; one byte more does not. An array (a struct by
  // value) counts its whole size, at its alignment.
  expect_clean(module(kHead, ".visible .entry fits(.param .align 4 .b8 blob[32760], .param .u32 n)\n{\n\tret;\n}\n"));
  expect_diags(module(kHead, ".visible .entry over(.param .u8 c, .param .align 8 .b8 blob[32757])\n{\n\tret;\n}\n"),
               {{4, 56, "entry function 'over' has 32765 bytes of parameters (2 of them), more than the 32764 a "
                        "kernel can take"}});
  // Device functions take their parameters on the stack: no such limit.
  expect_clean(module(kHead, ".func f(.param .align 4 .b8 blob[40000])\n{\n\tret;\n}\n"));
}

TEST(Validation, MnemonicsThatAreNotPtx) {
  // frobnicate is no PTX instruction: an error, reported with the others.
  auto r = expect_diags(kernel("\t.reg .b32 %r<4>;\n\tfrobnicate.u32 %r1, %r2, %r3;\n\t.reg .b32 %r1;\n"),
                        {{7, 2, "unknown instruction 'frobnicate'"},
                         {8, 12, "duplicate declaration of '%r1' (first declared by '%r<4>' at 6:12)"}});
  // A PTX instruction softgpu does not implement still parses.
  auto ok = parse(kernel("\t.reg .b32 %r<4>;\n\ttcgen05.fence::before_thread_sync;\n"
                         "\tvadd.s32.s32.s32.sat %r1, %r2, %r3, %r1;\n"),
                  "t.ptx");
  EXPECT_TRUE(ok.module);
  ASSERT_EQ(ok.diagnostics.size(), 2u);
  for (const auto& d : ok.diagnostics) EXPECT_EQ(d.severity, Severity::NotImplemented);
}

}  // namespace
}  // namespace softgpu::ptx
