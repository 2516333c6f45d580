// Valid PTX softgpu does not implement: an opcode it does not know, or a
// form of a known one whose operands its opcode table does not describe.
// The module parses (the kernels that reach such an instruction fail at
// launch); the diagnostic is Severity::NotImplemented, not an error.
#include <gtest/gtest.h>

#include "isa/opcode.h"
#include "ptx/parser.h"

namespace softgpu::ptx {
namespace {

const char* kHead = ".version 8.0\n.target sm_90a\n.address_size 64\n";  // 3 lines

// A kernel whose body is `body` (starting on line 6).
std::string kernel(const std::string& body) {
  return std::string(kHead) + ".visible .entry k()\n{\n" + body + "}\n";
}

const Instruction* first_instruction(const Module& m) {
  for (const auto& st : m.functions.at(0).body->body)
    if (const auto* in = std::get_if<Instruction>(&st)) return in;
  return nullptr;
}

TEST(Unimplemented, UnknownOpcodeParsesAndIsReported) {
  std::string t = kernel("\t.reg .pred %p<2>;\n\t@%p1 multimem.red.relaxed.sys.global.add.u32 [0], 240;\n\tret;\n");
  auto r = parse(t, "k.ptx");
  ASSERT_TRUE(r.module) << render(r.diagnostics, t);
  EXPECT_FALSE(has_errors(r.diagnostics));
  EXPECT_TRUE(has_not_implemented(r.diagnostics));
  ASSERT_EQ(r.diagnostics.size(), 1u);
  const auto& d = r.diagnostics[0];
  EXPECT_EQ(d.severity, Severity::NotImplemented);
  EXPECT_EQ(d.loc.line, 7u);
  EXPECT_EQ(d.loc.col, 7u);  // the mnemonic, after the guard
  EXPECT_EQ(d.message,
            "instruction 'multimem.red.relaxed.sys.global.add.u32' is not implemented by softgpu ('multimem' is not "
            "an opcode it knows); kernels that use it fail at launch");
  EXPECT_EQ(render(r.diagnostics, t),
            "k.ptx:7:7: not implemented: instruction 'multimem.red.relaxed.sys.global.add.u32' is not implemented by "
            "softgpu ('multimem' is not an opcode it knows); kernels that use it fail at launch\n"
            "\t@%p1 multimem.red.relaxed.sys.global.add.u32 [0], 240;\n\t     ^\n");
  const Instruction* in = first_instruction(*r.module);
  ASSERT_NE(in, nullptr);
  EXPECT_TRUE(in->not_implemented);
  EXPECT_EQ(in->opcode, "multimem");
  EXPECT_EQ(in->modifiers, (std::vector<std::string>{".red", ".relaxed", ".sys", ".global", ".add", ".u32"}));
  ASSERT_EQ(in->operands.size(), 2u);
  EXPECT_EQ(in->operands[1].ival, 240);
  EXPECT_EQ(in->guard, "%p1");
}

TEST(Unimplemented, UnknownOpcodeWithVectorAndAddressOperands) {
  std::string body =
      "\t.reg .f32 %f<5>;\n\t.reg .b64 %rd<3>;\n"
      "\tmultimem.ld_reduce.relaxed.sys.global.add.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];\n"
      "\tmultimem.st.relaxed.sys.global.v4.f32 [%rd2+16], {%f1, %f2, %f3, %f4};\n\tret;\n";
  auto r = parse(kernel(body), "k.ptx");
  ASSERT_TRUE(r.module) << render(r.diagnostics, kernel(body));
  ASSERT_EQ(r.diagnostics.size(), 2u);
  for (const auto& d : r.diagnostics) EXPECT_EQ(d.severity, Severity::NotImplemented);
  EXPECT_EQ(r.diagnostics[1].loc.line, 9u);
  EXPECT_NE(r.diagnostics[1].message.find("'multimem.st.relaxed.sys.global.v4.f32'"), std::string::npos);
}

TEST(Unimplemented, MalformedOperandsOfAnUnknownOpcodeAreStillErrors) {
  auto r = parse(kernel("\tmultimem.red.relaxed.sys.global.add.u32 [%rd1] %r2;\n\tret;\n"), "k.ptx");
  EXPECT_FALSE(r.module);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics[0].severity, Severity::Error);
  EXPECT_EQ(r.diagnostics[0].message, "expected ';' after instruction");
  // An unknown opcode next to a syntax error: the error fails the module.
  auto r2 = parse(kernel("\tmultimem.red.relaxed.sys.global.add.u32 [0], 1;\n\tadd.s32 %r1, ;\n"), "k.ptx");
  EXPECT_FALSE(r2.module);
  EXPECT_TRUE(has_errors(r2.diagnostics));
}

TEST(Unimplemented, TmaOperandListsParse) {
  // "[tmap, {c0, c1}]" counts as two operands: six in all with the multicast
  // mask and the cache policy, more than the opcode table's other cp forms take.
  std::string t = kernel(
      "\t.reg .b32 %r<5>;\n\t.reg .b64 %rd<3>;\n\t.reg .b16 %rs<2>;\n"
      "\tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster."
      "L2::cache_hint [%r1], [%rd1, {%r2, %r3}], [%r4], %rs1, %rd2;\n\tret;\n");
  auto r = parse(t, "k.ptx");
  ASSERT_TRUE(r.module) << render(r.diagnostics, t);
  EXPECT_TRUE(r.diagnostics.empty()) << render(r.diagnostics, t);
  // Beyond what any TMA form takes: malformed, and the message says so.
  std::string bad = kernel(
      "\t.reg .b32 %r<5>;\n\t.reg .b64 %rd<3>;\n\t.reg .b16 %rs<2>;\n"
      "\tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], "
      "[%r4], %rs1, %rd2, %rd2, %rd2;\n\tret;\n");
  auto r2 = parse(bad, "k.ptx");
  EXPECT_FALSE(r2.module);
  ASSERT_EQ(r2.diagnostics.size(), 1u);
  EXPECT_EQ(r2.diagnostics[0].message,
            "'cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes' expects 0 to 7 operands, "
            "found 8");
}

TEST(Unimplemented, OperandCountErrorsNameTheWholeInstruction) {
  // A form softgpu implements with the wrong operands is malformed.
  auto r = parse(kernel("\t.reg .b64 %rd<3>;\n\tcp.async.ca.shared.global [%rd1], [%rd2], 16, 16, 1, 2;\n"), "k.ptx");
  EXPECT_FALSE(r.module);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].message, "'cp.async.ca.shared.global' expects 0 to 5 operands, found 6");
}

TEST(Unimplemented, WideFormsMatchWholeWords) {
  EXPECT_EQ(isa::wide_form_max_operands("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group"), 7);
  EXPECT_EQ(isa::wide_form_max_operands("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile"), 4);
  EXPECT_FALSE(isa::wide_form_max_operands("cp.async.bulk.global.shared::cta.bulk_group"));
  EXPECT_FALSE(isa::wide_form_max_operands("cp.async.bulk.tensorx"));
}

}  // namespace
}  // namespace softgpu::ptx
