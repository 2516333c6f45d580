// .file and .loc: CUDA source locations of instructions, as nvcc -lineinfo
// writes them (the .file table after the functions, inlined_at chains), and
// malformed directives reported at their place.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "ptx/parser.h"
#include "ptx/printer.h"

namespace softgpu::ptx {
namespace {

const char* kHead = ".version 9.0\n.target sm_80\n.address_size 64\n";  // 3 lines

std::vector<const Instruction*> instructions(const Block& b, std::vector<const Instruction*> out = {}) {
  for (const auto& s : b.body) {
    if (auto* in = std::get_if<Instruction>(&s)) out.push_back(in);
    else if (auto* blk = std::get_if<std::shared_ptr<Block>>(&s)) out = instructions(**blk, std::move(out));
  }
  return out;
}

Module parse_ok(const std::string& text) {
  auto r = parse(text, "t.ptx");
  EXPECT_TRUE(r.module) << render(r.diagnostics, text);
  EXPECT_FALSE(has_errors(r.diagnostics)) << render(r.diagnostics, text);
  return r.module ? std::move(*r.module) : Module{};
}

// As nvcc 13 writes a kernel with a function inlined into one inlined into it
// (nvcc -lineinfo -ptx): the chain 2 <- 5 <- 9 ends at the kernel's line 9.
const char* kInlined =
    ".visible .entry k(.param .u64 p)\n"  // 4
    "{\n"
    "\t.reg .b32 %r<5>;\n"
    "\t.reg .b64 %rd<5>;\n"
    "\tmov.u32 %r1, 0;\n"                  // 8: before any .loc
    "\t.loc\t1 7 0\n"
    "\tld.param.u64 %rd1, [p];\n"          // 10: 1 7 0
    "\t.loc\t1 9 3\n"
    "\t.loc\t1 5 3, function_name $L__info_string0, inlined_at 1 9 3\n"
    "\t.loc\t1 2 3, function_name $L__info_string1, inlined_at 1 5 3\n"
    "\tld.global.u32 %r2, [%rd1];\n"       // 14: 1 2 3, outermost 1 9 3
    "$L__BB0_1:\n"
    "\t.loc\t1 5 3, function_name $L__info_string0+4, inlined_at 1 9 3\n"
    "\t{\n"
    "\tadd.s32 %r3, %r2, 1;\n"             // 18: 1 5 3, outermost 1 9 3
    "\t}\n"
    "\t.loc\t2 9 3\n"
    "\tst.global.u32 [%rd1], %r3;\n"       // 21: 2 9 3, not inlined
    "\tret;\n"                             // 22: still 2 9 3
    "}\n"
    ".func f()\n"
    "{\n"
    "\tret;\n"                             // 26: a new function starts without a location
    "}\n"
    "\t.file\t1 \"/home/u/src/inl.cu\"\n"
    "\t.file\t2 \"/home/u/src/other.cuh\", 1700000000, 1234\n"
    "\t.section\t.debug_str\n"
    "\t{\n"
    "$L__info_string0:\n"
    ".b8 95,90,0\n"
    "$L__info_string1:\n"
    ".b8 95,90,0\n"
    "\t}\n";

TEST(SourceLoc, LocAppliesUntilTheNextOneWithinAFunction) {
  Module m = parse_ok(std::string(kHead) + kInlined);
  using F = std::vector<std::pair<uint32_t, std::string>>;
  EXPECT_EQ(m.files, (F{{1, "/home/u/src/inl.cu"}, {2, "/home/u/src/other.cuh"}}));
  ASSERT_EQ(m.functions.size(), 2u);
  auto ins = instructions(*m.functions[0].body);
  ASSERT_EQ(ins.size(), 6u);
  EXPECT_EQ(ins[0]->loc.line, 8u);
  EXPECT_FALSE(ins[0]->debug_loc);
  EXPECT_FALSE(ins[0]->inlined_at);
  EXPECT_EQ(ins[1]->debug_loc, (DebugLoc{1, 7, 0}));
  EXPECT_FALSE(ins[1]->inlined_at);
  EXPECT_EQ(ins[2]->debug_loc, (DebugLoc{1, 2, 3}));
  EXPECT_EQ(ins[2]->inlined_at, (DebugLoc{1, 9, 3}));  // through 1 5 3 to the kernel's own line
  EXPECT_EQ(ins[3]->debug_loc, (DebugLoc{1, 5, 3}));
  EXPECT_EQ(ins[3]->inlined_at, (DebugLoc{1, 9, 3}));
  EXPECT_EQ(ins[4]->debug_loc, (DebugLoc{2, 9, 3}));
  EXPECT_FALSE(ins[4]->inlined_at);
  EXPECT_EQ(ins[5]->debug_loc, (DebugLoc{2, 9, 3}));
  auto f = instructions(*m.functions[1].body);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_FALSE(f[0]->debug_loc);
}

TEST(SourceLoc, InlinedAtAPlainLocationIsThatLocation) {
  // The site is the most recent .loc at that position: here a plain one.
  std::string body =
      ".visible .entry k()\n{\n"
      "\t.loc 1 5 3, function_name $L__s, inlined_at 1 9 3\n"
      "\t.loc 1 5 3\n"
      "\t.loc 1 2 1, function_name $L__s, inlined_at 1 5 3\n"
      "\tret;\n}\n.file 1 \"a.cu\"\n";
  Module m = parse_ok(std::string(kHead) + body);
  auto ins = instructions(*m.functions[0].body);
  ASSERT_EQ(ins.size(), 1u);
  EXPECT_EQ(ins[0]->debug_loc, (DebugLoc{1, 2, 1}));
  EXPECT_EQ(ins[0]->inlined_at, (DebugLoc{1, 5, 3}));
}

TEST(SourceLoc, PrinterRoundTripKeepsLocations) {
  Module m = parse_ok(std::string(kHead) + kInlined);
  std::string printed = print(m);
  Module again = parse_ok(printed);
  auto a = instructions(*m.functions[0].body), b = instructions(*again.functions[0].body);
  ASSERT_EQ(a.size(), b.size()) << printed;
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i]->debug_loc, b[i]->debug_loc) << i << "\n" << printed;
  EXPECT_EQ(m.files, again.files);
}

TEST(SourceLoc, UnknownFileNumberIsAWarning) {
  std::string text = std::string(kHead) + ".visible .entry k()\n{\n\t.loc 7 3 1\n\tret;\n\t.loc 7 4 1\n}\n";
  auto r = parse(text, "t.ptx");
  ASSERT_TRUE(r.module) << render(r.diagnostics, text);
  ASSERT_EQ(r.diagnostics.size(), 1u) << render(r.diagnostics, text);  // once per file number
  const auto& d = r.diagnostics[0];
  EXPECT_EQ(d.severity, Severity::Warning);
  EXPECT_EQ(d.loc.line, 6u);
  EXPECT_EQ(d.loc.col, 7u);
  EXPECT_EQ(d.message, "'.loc' names file 7, which no '.file' directive declares: its source lines are ignored");
  EXPECT_NE(render(r.diagnostics, text).find("t.ptx:6:7: warning:"), std::string::npos);
  // The instruction keeps what the .loc said; the decoder drops it.
  auto ins = instructions(*r.module->functions[0].body);
  EXPECT_EQ(ins[0]->debug_loc, (DebugLoc{7, 3, 1}));
}

struct Expect {
  uint32_t line, col;
  std::string message;
};

// `body` is a kernel body starting on line 6; one error expected, and the
// parser goes on with the next line (a second error there is reported too).
void expect_error(const std::string& body, const Expect& want) {
  std::string text = std::string(kHead) + ".visible .entry k()\n{\n" + body + "\tFoo;\n}\n.file 1 \"a.cu\"\n";
  auto r = parse(text, "t.ptx");
  EXPECT_FALSE(r.module);
  std::string all = render(r.diagnostics, text);
  ASSERT_EQ(r.diagnostics.size(), 2u) << all;
  const auto& d = r.diagnostics[0];
  EXPECT_EQ(d.severity, Severity::Error);
  EXPECT_EQ(d.loc.line, want.line) << all;
  EXPECT_EQ(d.loc.col, want.col) << all;
  EXPECT_EQ(d.message, want.message) << all;
  EXPECT_EQ(r.diagnostics[1].message, "unknown instruction 'Foo'") << all;  // recovered on the next line
  EXPECT_NE(all.find(fmt::format("t.ptx:{}:{}: error: ", want.line, want.col)), std::string::npos) << all;
  EXPECT_NE(all.find('^'), std::string::npos) << all;
}

TEST(SourceLoc, MalformedLocIsAnErrorAtItsPlace) {
  expect_error("\t.loc 1 5\n", {6, 10, "expected a column number in .loc"});
  expect_error("\t.loc\n", {6, 6, "expected a file number in .loc"});
  expect_error("\t.loc 1 x 3\n", {6, 9, "expected a line number in .loc, found 'x'"});
  expect_error("\t.loc 1 -5 3\n", {6, 9, "expected a line number in .loc, found '-'"});
  expect_error("\t.loc 1 5 3 4\n", {6, 13, "unexpected '4' after .loc"});
  expect_error("\t.loc 1 5 3;\n", {6, 12, "unexpected ';' after .loc"});
  expect_error("\t.loc 1 99999999999 3\n", {6, 9, "expected a line number in .loc, found '99999999999'"});
  expect_error("\t.loc 1 5 3,\n", {6, 13, "expected 'function_name' in .loc"});
  expect_error("\t.loc 1 5 3, inlined_at 1 9 3\n", {6, 14, "expected 'function_name' in .loc, found 'inlined_at'"});
  expect_error("\t.loc 1 5 3, function_name\n", {6, 27, "expected a .debug_str label after 'function_name'"});
  expect_error("\t.loc 1 5 3, function_name $L__s\n", {6, 33, "expected ', inlined_at' after the function name in .loc"});
  expect_error("\t.loc 1 5 3, function_name $L__s+, inlined_at 1 9 3\n", {6, 34, "expected an offset after '+', found ','"});
  expect_error("\t.loc 1 5 3, function_name $L__s, inlined_at 1 9\n", {6, 49, "expected a column number in .loc"});
  expect_error("\t.loc 1 5 3, function_name $L__s inlined_at 1 9 3\n",
               {6, 34, "expected ',' before 'inlined_at', found 'inlined_at'"});
}

TEST(SourceLoc, LocAtTheEndOfTheFile) {
  std::string text = std::string(kHead) + ".loc 1";
  auto r = parse(text, "t.ptx");
  EXPECT_FALSE(r.module);
  ASSERT_EQ(r.diagnostics.size(), 1u) << render(r.diagnostics, text);
  EXPECT_EQ(r.diagnostics[0].loc.line, 4u);
  EXPECT_EQ(r.diagnostics[0].loc.col, 7u);
  EXPECT_EQ(r.diagnostics[0].message, "expected a line number in .loc");
}

TEST(SourceLoc, DuplicateFileNumberIsAnError) {
  // As ptxas: "Duplicate file index #1".
  std::string text = std::string(kHead) + ".file 1 \"a.cu\", 1700000000, 1234\n.file 2 \"b.cu\"\n.file 1 \"c.cu\"\n";
  auto r = parse(text, "t.ptx");
  EXPECT_FALSE(r.module);
  ASSERT_EQ(r.diagnostics.size(), 1u) << render(r.diagnostics, text);
  EXPECT_EQ(r.diagnostics[0].loc.line, 6u);
  EXPECT_EQ(r.diagnostics[0].loc.col, 9u);
  EXPECT_EQ(r.diagnostics[0].message, "duplicate file number 1 (first declared at line 4)");
}

}  // namespace
}  // namespace softgpu::ptx
