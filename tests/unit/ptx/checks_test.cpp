// What `softgpu check` rejects beyond the grammar: the fixtures of
// tests/ptx/invalid, each diagnostic's exact line:col and message (counted
// by hand from the fixture text), all errors of a file in one run.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "ptx/parser.h"

namespace softgpu::ptx {
namespace {

struct Want {
  uint32_t line, col;
  std::string message;
};

std::string fixture(const std::string& name) {
  std::ifstream f(std::string(PTX_INVALID_DIR) + "/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void expect_diags(const std::string& name, const std::vector<Want>& want, bool check_local = false) {
  std::string text = fixture(name);
  ParseOptions o;
  o.check_local_limit = check_local;
  auto r = parse(text, name, o);
  EXPECT_FALSE(r.module.has_value());
  std::string all = render(r.diagnostics, text);
  ASSERT_EQ(r.diagnostics.size(), want.size()) << all;
  for (size_t i = 0; i < want.size(); ++i) {
    const auto& d = r.diagnostics[i];
    EXPECT_EQ(d.severity, Severity::Error) << all;
    EXPECT_EQ(d.loc.line, want[i].line) << all;
    EXPECT_EQ(d.loc.col, want[i].col) << all;
    EXPECT_EQ(d.message, want[i].message) << all;
  }
}

const char* kEmpty = "empty file: a PTX module starts with a .version directive";
const char* kComment = "unterminated comment: '/*' has no closing '*/'";
const char* kV3 = "'.v3' is not a PTX vector: vectors have 2, 4 or 8 elements (pad three to .v4)";

TEST(Checks, EmptyFile) {
  expect_diags("empty.ptx", {{1, 1, kEmpty}});
  expect_diags("comment_only.ptx", {{1, 1, kEmpty}});
}

TEST(Checks, UnterminatedComment) {
  expect_diags("unterminated_comment.ptx", {{9, 1, kComment}});
  // Inside a body the open block is reported too, after the comment.
  expect_diags("unterminated_comment_in_body.ptx",
               {{8, 18, kComment}, {8, 20, "unexpected end of file: '{' at line 6:1 is not closed"}});
}

TEST(Checks, LabelsDuplicateAndUndefinedWithOtherErrors) {
  expect_diags("labels.ptx", {{15, 15, "unknown label '$L__BB0_9'"},
                              {16, 1, "duplicate label '$L__BB0_1' (first defined at 13:1)"},
                              {17, 18, "expected ';' after instruction"},
                              {19, 1, "unknown label '$L__BB0_7'"}});
}

TEST(Checks, StaticSharedLimit) {
  expect_diags("shared_limit.ptx",
               {{21, 23, "entry function 'one_array' uses too much shared data (0xc350 bytes, 0xc000 max)"},
                {28, 23, "entry function 'two_arrays' uses too much shared data (0xea60 bytes, 0xc000 max)"},
                {35, 23, "entry function 'with_module_shared' uses too much shared data (0xc350 bytes, 0xc000 max)"}});
}

TEST(Checks, LocalLimitOnlyWhenAsked) {
  expect_diags("local_limit.ptx",
               {{16, 22, "entry function 'too_big' uses too much local data (0x927c0 bytes, 0x80000 max per thread)"}},
               true);
  // The runtime's load accepts it (a launch error later, as with ptxas).
  std::string text = fixture("local_limit.ptx");
  auto r = parse(text, "local_limit.ptx");
  EXPECT_TRUE(r.module.has_value()) << render(r.diagnostics, text);
}

TEST(Checks, NoThreeElementVectors) {
  expect_diags("vector3.ptx", {{7, 19, kV3}, {14, 7, kV3}, {16, 11, kV3}, {18, 11, kV3}});
}

// Every rule of validation.ptx broken once or twice: each error reported,
// the unknown mnemonic on line 8 with the others.
TEST(Checks, IsaRulesAllReported) {
  const char* kB16 = "is a .b16 register; the instruction takes .f32 or .b32";
  expect_diags("validation.ptx",
               {{8, 2, "unknown instruction 'frobnicate'"},
                {12, 12, "duplicate declaration of '%r2' (first declared by '%r<4>' at 9:12)"},
                {13, 12, "'%f<2>' declares '%f0' again (first declared by '%f<3>' at 11:12)"},
                {18, 15, std::string("operand '%h1' of 'add.f32' ") + kB16},
                {18, 20, std::string("operand '%h2' of 'add.f32' ") + kB16},
                {20, 20, "operand '%f1' of 'add.u32' is a .f32 register; the instruction takes .u32, .s32 or .b32"},
                {24, 56, "entry function 'big' has 32768 bytes of parameters (2 of them), more than the 32764 a "
                         "kernel can take"},
                {25, 1, "'.reqntid 2048': more than the 1024 threads a CTA can have"},
                {30, 24, "'.maxntid 32, 32, 2': more than the 1024 threads a CTA can have"},
                {31, 24, "'.reqntid 1, 1, 128': a CTA has at most 64 threads in z"}});
}

TEST(Checks, TargetAndVersion) {
  expect_diags("target_version.ptx",
               {{3, 10, "unsupported .version 99.9: the newest PTX ISA version CUDA 13.0 supports is 9.0"},
                {4, 9, "unknown target 'sm_99': PTX ISA 9.0 has no such architecture (.target sm_XX as the ISA "
                       "lists them, e.g. sm_80, sm_90a)"},
                {4, 16, "unknown .target option 'texmode_bogus' (texmode_unified, texmode_independent, debug or "
                        "map_f64_to_f32)"}});
}

TEST(Checks, LabelsAreScopedToTheirFunction) {
  std::string t = ".version 9.0\n.target sm_80\n.address_size 64\n"
                  ".visible .entry a()\n{\nL1:\n\tbra.uni L1;\n}\n"
                  ".visible .entry b()\n{\nL1:\n\tbra.uni L1;\n}\n";
  auto r = parse(t, "t.ptx");
  EXPECT_TRUE(r.module.has_value()) << render(r.diagnostics, t);
}

}  // namespace
}  // namespace softgpu::ptx
