// Instructions softgpu does not implement decode to Opcode::Unimplemented:
// nothing of their operands is resolved, the text and the lines (PTX and
// CUDA) are kept for the launch message, and the function lists their pcs.
#include <gtest/gtest.h>

#include "decode_util.h"

namespace softgpu::program {
namespace {

TEST(Unimplemented, UnknownOpcodeDecodesToAStandIn) {
  Program p = test::decode(
      ".file 1 \"/src/k.cu\"\n"
      "\tmov.u32 %r1, 1;\n"
      "\t.loc 1 12 3\n"
      "\ttcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, {%r3, %r4, %r5, %r6}, %p1, 1, 0, 0, 0, "
      "%r7;\n"
      "\t@%p1 multimem.red.relaxed.sys.global.add.u32 [%undeclared], 1;\n"
      "\tret;\n");
  ASSERT_EQ(p.functions.size(), 1u);
  const Function& f = p.functions[0];
  ASSERT_EQ(f.code.size(), 4u);
  EXPECT_EQ(f.unimplemented, (std::vector<uint32_t>{1, 2}));
  const Inst& w = f.code[1];
  EXPECT_EQ(w.op, isa::Opcode::Unimplemented);
  EXPECT_EQ(w.text(), "tcgen05.mma.cta_group::1.kind::f16");
  EXPECT_EQ(w.nops, 0);  // eleven operands, not decoded
  EXPECT_EQ(w.line, 15u);
  EXPECT_EQ(describe_source(p, f, 1), "k.cu:12");
  // Nothing of it is resolved, not even the guard or an undeclared register.
  EXPECT_EQ(f.code[2].text(), "multimem.red.relaxed.sys.global.add.u32");
  EXPECT_FALSE(f.code[2].has_guard);
  // It falls through like any ordinary instruction.
  EXPECT_EQ(f.code[3].op, isa::Opcode::Ret);
}

TEST(Unimplemented, TmaFormsDecodeAsCp) {
  // A TMA form is an ordinary cp to the decoder, whether exec implements it
  // (tile) or not (im2col: the loader reports it, exec/unimplemented_test).
  Program p = test::decode(
      "\tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
      "[%r1], [%rd1, {%r2, %r3}], [%r4], %h1;\n"
      "\tcp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes "
      "[%r1], [%rd1, {%r2, %r3, %r4}], [%r4], {%h1};\n\tret;\n");
  const Function& f = p.functions[0];
  EXPECT_TRUE(f.unimplemented.empty());
  EXPECT_EQ(f.code[0].op, isa::Opcode::Cp);
  EXPECT_EQ(f.code[0].nops, 4);
  EXPECT_EQ(f.code[1].op, isa::Opcode::Cp);
  EXPECT_EQ(f.code[1].nops, 4);
}

}  // namespace
}  // namespace softgpu::program
