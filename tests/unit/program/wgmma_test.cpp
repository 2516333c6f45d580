// wgmma.mma_async decodes its first four operands (d, a, b, scale-d) into
// operand slots and its trailing immediates into Inst::aux; anything but
// -1, 0 or 1 there is an error. Its facts: a tensor-core product of a
// quarter of the warpgroup's m64 per warp.
#include <gtest/gtest.h>

#include "decode_util.h"
#include "program/facts.h"
#include "program/pipe.h"

namespace softgpu::program {
namespace {

const std::string kRegs = ".reg .f32 %d<33>;\n.reg .b32 %a<4>;\n";

TEST(Wgmma, TrailingImmediatesGoToAux) {
  Program p = test::decode(kRegs +
      "\twgmma.fence.sync.aligned;\n"
      "\twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%d1, %d2, %d3, %d4}, %rd1, %rd2, %p1, 1, -1, 0, 1;\n"
      "\twgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%d1, %d2, %d3, %d4}, {%a0, %a1, %a2, %a3}, %rd2, 1, "
      "-1, 1, 1;\n"
      "\twgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%d1, %d2, %d3, %d4}, %rd1, %rd2, 0;\n"
      "\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 1;\n\tret;\n");
  const Function& f = p.functions[0];
  ASSERT_EQ(f.code.size(), 7u);
  const Inst& ss = f.code[1];
  EXPECT_EQ(ss.op, isa::Opcode::Wgmma);
  EXPECT_EQ(ss.nops, 4);
  EXPECT_EQ(ss.o[0].kind, Operand::Kind::Vec);
  EXPECT_EQ(ss.o[0].vec_n, 4);
  EXPECT_EQ(ss.o[3].kind, Operand::Kind::Pred);
  ASSERT_EQ(wgmma_imm_count(ss), 4u);
  EXPECT_EQ(wgmma_imm(ss, 0), 1);
  EXPECT_EQ(wgmma_imm(ss, 1), -1);
  EXPECT_EQ(wgmma_imm(ss, 2), 0);
  EXPECT_EQ(wgmma_imm(ss, 3), 1);
  const Inst& rs = f.code[2];
  EXPECT_EQ(rs.o[1].kind, Operand::Kind::Vec);
  EXPECT_EQ(rs.o[3].kind, Operand::Kind::Imm);
  ASSERT_EQ(wgmma_imm_count(rs), 3u);
  EXPECT_EQ(wgmma_imm(rs, 0), -1);
  EXPECT_EQ(wgmma_imm(rs, 1), 1);
  EXPECT_EQ(wgmma_imm(rs, 2), 1);
  EXPECT_EQ(wgmma_imm_count(f.code[3]), 0u);  // integers: no immediates
  EXPECT_EQ(f.code[3].nops, 4);
  EXPECT_EQ(f.code[5].nops, 1);
  EXPECT_EQ(f.code[5].o[0].imm, 1);
  // Facts: each warp of the group computes 16 x N x K.
  EXPECT_EQ(f.facts[1].tensor, uint8_t(TensorKind::Fp16F32));
  EXPECT_EQ(f.facts[1].tensor_flops, 2u * 16 * 8 * 16);
  EXPECT_EQ(f.facts[3].tensor, uint8_t(TensorKind::Int8));
  EXPECT_EQ(f.facts[3].tensor_flops, 2u * 16 * 8 * 32);
  EXPECT_EQ(f.facts[0].tensor, 0);
  EXPECT_EQ(Pipe(f.facts[1].pipe), Pipe::Tensor);
  EXPECT_EQ(Pipe(f.facts[0].pipe), Pipe::Branch);
}

TEST(Wgmma, TrailingOperandThatIsNotASmallConstantIsAnError) {
  const char* bad[] = {"%r1", "2", "-2"};
  for (const char* b : bad) {
    std::string text = ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n"
                       ".reg .f32 %d<5>;\n.reg .b64 %rd<3>;\n.reg .b32 %r<2>;\n"
                       "\twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%d1, %d2, %d3, %d4}, %rd1, %rd2, 1, 1, " +
                       std::string(b) + ", 0, 0;\n\tret;\n}\n";
    auto r = ptx::parse(text, "k.ptx");
    ASSERT_TRUE(r.module) << ptx::render(r.diagnostics, text);
    std::vector<ptx::Module> mods;
    mods.push_back(std::move(*r.module));
    std::unordered_map<std::string, uint64_t> vars;
    Program p;
    std::vector<ptx::Diagnostic> diags;
    EXPECT_FALSE(decode({&mods, &vars}, p, diags)) << b;
    ASSERT_EQ(diags.size(), 1u) << b;
    EXPECT_EQ(diags[0].loc.line, 9u);
    EXPECT_EQ(diags[0].message,
              "wgmma.mma_async operand 6 must be an integer constant (imm-scale: 1 or -1, imm-trans: 0 or 1)");
  }
}

}  // namespace
}  // namespace softgpu::program
