// Malformed input: the right message at the right line:col, with a caret.
#include <gtest/gtest.h>

#include "ptx/parser.h"

namespace softgpu::ptx {
namespace {

const char* kHead = ".version 8.0\n.target sm_80\n.address_size 64\n";  // 3 lines

// A kernel whose body is `body` (starting on line 5).
std::string kernel(const std::string& body) {
  return std::string(kHead) + ".visible .entry k(.param .u64 p)\n{\n" + body + "}\n";
}

struct Expect {
  uint32_t line, col;
  std::string message;
};

void expect_diags(const std::string& text, const std::vector<Expect>& want) {
  auto r = parse(text, "t.ptx");
  EXPECT_FALSE(r.module.has_value());
  std::string all = render(r.diagnostics, text);
  ASSERT_EQ(r.diagnostics.size(), want.size()) << all;
  for (size_t i = 0; i < want.size(); ++i) {
    const auto& d = r.diagnostics[i];
    EXPECT_EQ(d.severity, Severity::Error);
    EXPECT_EQ(d.loc.line, want[i].line) << all;
    EXPECT_EQ(d.loc.col, want[i].col) << all;
    EXPECT_EQ(d.message, want[i].message) << all;
  }
}

// A word that is no PTX mnemonic is malformed PTX. A PTX instruction
// softgpu does not know (multimem, tcgen05, ...) is one it does not
// implement: the module parses (tests/unit/ptx/unimplemented_test.cpp).
TEST(Diagnostics, UnknownInstruction) {
  expect_diags(kernel("\tFoo.b32 %r1, %r2;\n\tret;\n"), {{6, 2, "unknown instruction 'Foo'"}});
  expect_diags(kernel("\tsetmax-nreg.u32 1;\n"), {{6, 2, "unknown instruction 'setmax'"}});
  expect_diags(kernel("\tfrobnicate.u32 %r1, %r2, %r3;\n\tret;\n"), {{6, 2, "unknown instruction 'frobnicate'"}});
}

// setmaxnreg's register count: an immediate in 24..256, a multiple of 8 (ISA).
TEST(Diagnostics, SetmaxnregCount) {
  expect_diags(kernel("\tsetmaxnreg.inc.sync.aligned.u32 20;\n\tret;\n"),
               {{6, 34, "setmaxnreg: register count 20 is not a multiple of 8 in the range 24..256"}});
  expect_diags(kernel("\tsetmaxnreg.dec.sync.aligned.u32 100;\n\tret;\n"),
               {{6, 34, "setmaxnreg: register count 100 is not a multiple of 8 in the range 24..256"}});
  expect_diags(kernel("\tsetmaxnreg.inc.sync.aligned.u32 264;\n\tret;\n"),
               {{6, 34, "setmaxnreg: register count 264 is not a multiple of 8 in the range 24..256"}});
  expect_diags(kernel("\t.reg .b32 %r<2>;\n\tsetmaxnreg.inc.sync.aligned.u32 %r1;\n\tret;\n"),
               {{7, 34, "setmaxnreg: the register count must be an integer constant"}});
  for (const char* ok : {"24", "256", "240"}) {
    auto r = parse(kernel(std::string("\tsetmaxnreg.dec.sync.aligned.u32 ") + ok + ";\n\tret;\n"), "t.ptx");
    EXPECT_TRUE(r.module) << ok;
    EXPECT_TRUE(r.diagnostics.empty()) << ok;
  }
}

TEST(Diagnostics, WrongOperandCount) {
  expect_diags(kernel("\tadd.s32 %r1, %r2;\n"), {{6, 2, "'add.s32' expects 3 operands, found 2"}});
  expect_diags(kernel("  setp.lt.s32 %p1;\n"), {{6, 3, "'setp.lt.s32' expects 3 to 4 operands, found 1"}});
  expect_diags(kernel("  ret 1;\n"), {{6, 3, "'ret' expects 0 operands, found 1"}});
}

TEST(Diagnostics, SeveralErrorsRecoverAtSemicolon) {
  std::string body =
      "\tFoo %r1;\n"           // line 6
      "\tadd.s32 %r1, %r2;\n"  // line 7
      "\tmov.u32 %r1, 1;\n"    // fine
      "\tbar %r1 %r2;\n";      // line 9: missing comma
  expect_diags(kernel(body), {{6, 2, "unknown instruction 'Foo'"},
                              {7, 2, "'add.s32' expects 3 operands, found 2"},
                              {9, 9, "expected ';' after instruction"}});
}

TEST(Diagnostics, BadToken) {
  expect_diags(kernel("\tmov.u32 %r1, #5;\n"), {{6, 15, "invalid token '#'"}});
  expect_diags(kernel("\tmov.u32 %r1, 12abc;\n"), {{6, 15, "invalid token '12abc'"}});
  expect_diags(kernel("\tmov.f32 %f1, 0f3F80;\n"), {{6, 15, "invalid token '0f3F80'"}});
}

TEST(Diagnostics, UnterminatedBlock) {
  std::string t = kernel("\tret;\n");
  t.pop_back();
  t.pop_back();  // drop "}\n": the file ends after "\tret;\n"
  expect_diags(t, {{6, 6, "unexpected end of file: '{' at line 5:1 is not closed"}});
}

TEST(Diagnostics, TruncatedFile) {
  std::string t = std::string(kHead) + ".visible .entry k(.param .u64 p";
  expect_diags(t, {{4, 32, "expected ')' after parameter list, found end of file"}});
  expect_diags(std::string(kHead) + ".global .u32 x", {{4, 15, "expected ';' after declaration, found end of file"}});
}

TEST(Diagnostics, UnterminatedSection) {
  std::string t = std::string(kHead) + "\t.section .debug_info\n\t{\n.b8 1\n";
  expect_diags(t, {{4, 2, "unterminated .section block"}});
}

TEST(Diagnostics, DeepNestingIsAnErrorNotACrash) {
  std::string body;
  for (int i = 0; i < 100000; ++i) body += '{';
  body += "\n";
  for (int i = 0; i < 100000; ++i) body += '}';
  body += "\n";
  // The outer body is depth 1; the 64th nested '{' is refused.
  expect_diags(kernel(body), {{6, 64, "blocks nested too deeply (limit 64)"}});
}

TEST(Diagnostics, DeepInitializerNesting) {
  std::string init(100, '{');
  expect_diags(std::string(kHead) + ".global .u32 x[1] = " + init + "1;\n",
               {{4, 37, "initializer nested too deeply"}});
}

TEST(Diagnostics, RenderShowsLineAndCaret) {
  std::string t = kernel("\tmov.u32 %r1, %r2;\n\tFoo.bar %r1;\n");
  auto r = parse(t, "k.ptx");
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(render(r.diagnostics, t), "k.ptx:7:2: error: unknown instruction 'Foo'\n\tFoo.bar %r1;\n\t^\n");
  EXPECT_TRUE(has_errors(r.diagnostics));
}

TEST(Diagnostics, RenderCaretAfterSpaces) {
  std::string t = kernel("    add.s32 %r1, %r2, @;\n");
  auto r = parse(t, "k.ptx");
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(render(r.diagnostics, t),
            "k.ptx:6:23: error: expected an operand, found '@'\n    add.s32 %r1, %r2, @;\n                      ^\n");
}

TEST(Diagnostics, StopsAfterMaxErrors) {
  std::string body;
  for (int i = 0; i < 50; ++i) body += "\tBogus;\n";
  auto r = parse(kernel(body), "t.ptx", 5);
  ASSERT_EQ(r.diagnostics.size(), 6u);  // 5 errors and a note
  EXPECT_EQ(r.diagnostics[4].loc.line, 10u);
  EXPECT_EQ(r.diagnostics[5].severity, Severity::Note);
  EXPECT_EQ(r.diagnostics[5].message, "too many errors, stopping");
}

TEST(Diagnostics, ModuleLevelGarbageThenValidKernelStillChecked) {
  std::string t = std::string(kHead) + "garbage here;\n.visible .entry k()\n{\n\tNope;\n}\n";
  expect_diags(t, {{4, 1, "expected a directive, found 'garbage'"}, {7, 2, "unknown instruction 'Nope'"}});
}

TEST(Diagnostics, UnknownDirectives) {
  expect_diags(std::string(kHead) + ".bogus 1;\n", {{4, 1, "unknown or misplaced directive '.bogus'"}});
  expect_diags(kernel("\t.bogus;\n"), {{6, 2, "unexpected directive '.bogus' in function body"}});
  expect_diags(std::string(kHead) + ".visible .entry k() .maxntid 1,2,3,4 {}\n", {{4, 36, "too many values (at most 3)"}});
}

TEST(Diagnostics, ValidInputHasNoDiagnostics) {
  auto r = parse(kernel("\tmov.u32 %r1, %tid.x;\n\tret;\n"));
  EXPECT_TRUE(r.module.has_value());
  EXPECT_TRUE(r.diagnostics.empty());
  EXPECT_FALSE(has_errors(r.diagnostics));
}

TEST(Diagnostics, OtherValidFormsParse) {
  const char* snippets[] = {
      "prototype_0 : .callprototype ()_ (.param .b64 _, .param .b64 _);\n\tret;\n",
      "prototype_1 : .callprototype (.param .align 8 .b8 _[16]) _ (.param .b32 _) .noreturn;\n",
      "\tret.uni;\n\tmov.u32 %r1, %nctaid.z;\n",
      "\ttex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];\n",
      "\tst.global.v2.f32 [%rd1+16], {%f1, %f2};\n",
      "\tmov.f64 %fd1, 1.5;\n\tmov.f32 %f1, -0f3F800000;\n",
      "\t.reg .v4 .b32 v;\n\tmov.b32 %r1, v.x;\n",
      "$L__BB0_1: add.s32 %r1, %r1, 1; @%p1 bra.uni $L__BB0_1;\n",
      "\tsetp.ne.and.s32 %p1|%p2, %r1, 0, %p3;\n",
      "\tmma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, "
      "{%f1,%f2,%f3,%f4};\n",
  };
  for (const char* body : snippets) {
    std::string t = kernel(body);
    auto r = parse(t);
    EXPECT_TRUE(r.module.has_value()) << body << render(r.diagnostics, t);
  }
}

}  // namespace
}  // namespace softgpu::ptx
