// CUDA source locations in the decoded program: one file table for all
// modules, each instruction's file/line/column, inlined call sites, the
// helpers the fault messages and the sanitizers use.
#include <gtest/gtest.h>

#include <string>
#include <unordered_map>

#include "program/decoder.h"
#include "ptx/parser.h"

namespace softgpu::program {
namespace {

const char* kHead = ".version 9.0\n.target sm_80\n.address_size 64\n";

Program decode_all(const std::vector<std::string>& texts) {
  std::vector<ptx::Module> mods;
  for (size_t i = 0; i < texts.size(); ++i) {
    auto r = ptx::parse(texts[i], "m" + std::to_string(i) + ".ptx");
    EXPECT_TRUE(r.module) << ptx::render(r.diagnostics, texts[i]);
    if (r.module) mods.push_back(std::move(*r.module));
  }
  std::unordered_map<std::string, uint64_t> vars;
  Program p;
  std::vector<ptx::Diagnostic> diags;
  EXPECT_TRUE(decode({&mods, &vars}, p, diags));
  return p;
}

const Function& fn(const Program& p, const std::string& name) { return p.functions.at(p.function_index.at(name)); }

TEST(SourceLocation, InstructionsCarryFileLineAndColumn) {
  std::string a = std::string(kHead) +
                  ".visible .entry k(.param .u64 p)\n{\n"
                  "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n"
                  "\tmov.u32 %r1, 0;\n"                    // pc 0: no .loc yet
                  "\t.loc 2 12 5\n"
                  "\tld.param.u64 %rd1, [p];\n"            // pc 1
                  "\t.loc 2 14 3\n"
                  "\t.loc 1 3 9, function_name $L__s, inlined_at 2 14 3\n"
                  "\tst.global.u32 [%rd1], %r1;\n"         // pc 2: helper.cuh:3 inlined at kernel.cu:14
                  "\t.loc 2 15 70000\n"
                  "\tadd.u32 %r1, %r1, 1;\n"                // pc 3: column saturates
                  "\t.loc 2 0 3\n"
                  "\tret;\n"                               // pc 4: line 0, no location
                  "}\n"
                  ".file 1 \"/src/include/helper.cuh\"\n.file 2 \"/src/kernel.cu\", 1700000000, 99\n"
                  ".section .debug_str\n{\n$L__s:\n.b8 0\n}\n";
  // A second module numbering the same files the other way round, and one
  // .loc whose file no .file declares.
  std::string b = std::string(kHead) +
                  ".visible .entry k2()\n{\n"
                  "\t.loc 1 40 1\n\tret;\n"
                  "}\n"
                  ".visible .entry k3()\n{\n"
                  "\t.loc 9 1 1\n\tret;\n"
                  "}\n"
                  ".file 2 \"/src/include/helper.cuh\"\n.file 1 \"/src/kernel.cu\"\n";
  Program p = decode_all({a, b});
  EXPECT_EQ(p.source_files, (std::vector<std::string>{"/src/include/helper.cuh", "/src/kernel.cu"}));

  const Function& k = fn(p, "k");
  ASSERT_EQ(k.code.size(), 5u);
  EXPECT_FALSE(source_location(p, k.code[0]));
  EXPECT_EQ(source_location(p, k.code[1]), (SourceLine{1, 12, 5}));
  EXPECT_EQ(source_location(p, k.code[2]), (SourceLine{0, 3, 9}));
  EXPECT_EQ(source_location(p, k.code[3]), (SourceLine{1, 15, 65535}));
  EXPECT_FALSE(inlined_call_site(k, 1));
  EXPECT_EQ(inlined_call_site(k, 2), (SourceLine{1, 14, 3}));
  EXPECT_FALSE(inlined_call_site(k, 3));
  EXPECT_FALSE(source_location(p, k.code[4]));

  EXPECT_EQ(describe_source(p, k, 0), "");
  EXPECT_EQ(describe_source(p, k, 1), "kernel.cu:12");
  EXPECT_EQ(describe_source(p, k, 2), "helper.cuh:3 inlined at kernel.cu:14");
  EXPECT_EQ(describe_source(p, k, 2, true), "/src/include/helper.cuh:3 inlined at /src/kernel.cu:14");
  EXPECT_EQ(describe_source(p, k, 4), "");
  EXPECT_EQ(describe_source(p, k, 5), "");  // the exit sentinel
  EXPECT_EQ(format_source_line(p, {1, 12, 5}), "kernel.cu:12");
  EXPECT_EQ(format_source_line(p, {7, 12, 5}), "");

  const Function& k2 = fn(p, "k2");
  EXPECT_EQ(source_location(p, k2.code[0]), (SourceLine{1, 40, 1}));  // module b's file 1 is kernel.cu
  EXPECT_EQ(describe_source(p, k2, 0), "kernel.cu:40");
  const Function& k3 = fn(p, "k3");
  EXPECT_FALSE(source_location(p, k3.code[0]));  // file 9: ignored
}

TEST(SourceLocation, NoLocDirectivesNoLocations) {
  Program p = decode_all({std::string(kHead) + ".visible .entry k()\n{\n\tret;\n}\n"});
  EXPECT_TRUE(p.source_files.empty());
  const Function& k = fn(p, "k");
  EXPECT_FALSE(source_location(p, k.code[0]));
  EXPECT_TRUE(k.inlined_at.empty());
  EXPECT_EQ(describe_source(p, k, 0), "");
}

TEST(SourceLocation, InstSize) {
  // Inst is copied per pc into every function; the location adds 8 bytes (248 -> 256).
  EXPECT_LE(sizeof(Inst), 256u);
}

}  // namespace
}  // namespace softgpu::program
