// Each instruction's pipe and flags from the opcode table and its type,
// against the classification worked out by hand from Nsight Compute's pipe
// descriptions (alu, fma, fp16, fp64, xu, lsu, tex, tensor, cbu).
#include <gtest/gtest.h>

#include "decode_util.h"
#include "program/pipe.h"

using namespace softgpu;
using program::Pipe;

namespace {

struct Case {
  const char* inst;
  Pipe pipe;
  bool sequence;
};

class PipeOf : public testing::TestWithParam<Case> {};

TEST_P(PipeOf, Instruction) {
  const Case& c = GetParam();
  auto p = test::decode(std::string(c.inst) + "\n");
  ASSERT_EQ(p.functions.size(), 1u);
  ASSERT_GE(p.functions[0].code.size(), 1u);
  const auto& in = p.functions[0].code[0];
  EXPECT_EQ(program::pipe_name(program::pipe(in)), program::pipe_name(c.pipe)) << c.inst;
  EXPECT_EQ(program::is_sequence(in), c.sequence) << c.inst;
}

INSTANTIATE_TEST_SUITE_P(
    Table, PipeOf,
    testing::Values(
        Case{"add.s32 %r1, %r2, %r3;", Pipe::Alu, false},
        Case{"add.f32 %f1, %f2, %f3;", Pipe::Fma, false},
        Case{"add.f64 %fd1, %fd2, %fd3;", Pipe::Fp64, false},
        Case{"fma.rn.f32 %f1, %f2, %f3, %f4;", Pipe::Fma, false},
        Case{"fma.rn.f16x2 %r1, %r2, %r3, %r4;", Pipe::Fp16, false},
        Case{"fma.rn.bf16 %h1, %h2, %h3, %h4;", Pipe::Fp16, false},
        Case{"mul.lo.s32 %r1, %r2, %r3;", Pipe::Fma, false},
        Case{"mul.wide.s32 %rd1, %r2, %r3;", Pipe::Fma, false},
        Case{"mul.lo.u64 %rd1, %rd2, %rd3;", Pipe::Fma, true},
        Case{"div.s32 %r1, %r2, %r3;", Pipe::Fma, true},
        Case{"div.rn.f32 %f1, %f2, %f3;", Pipe::Fma, true},
        Case{"div.approx.f32 %f1, %f2, %f3;", Pipe::Xu, false},
        Case{"div.rn.f64 %fd1, %fd2, %fd3;", Pipe::Fp64, true},
        Case{"ex2.approx.f32 %f1, %f2;", Pipe::Xu, false},
        Case{"sqrt.rn.f32 %f1, %f2;", Pipe::Xu, true},
        Case{"sqrt.rn.f64 %fd1, %fd2;", Pipe::Fp64, true},
        Case{"rsqrt.approx.f32 %f1, %f2;", Pipe::Xu, false},
        Case{"setp.lt.f32 %p1, %f1, %f2;", Pipe::Alu, false},
        Case{"setp.lt.f64 %p1, %fd1, %fd2;", Pipe::Fp64, false},
        Case{"max.f32 %f1, %f2, %f3;", Pipe::Alu, false},
        Case{"cvt.rn.f32.s32 %f1, %r1;", Pipe::Xu, false},
        Case{"cvt.rn.f16.f32 %h1, %f1;", Pipe::Fp16, false},
        Case{"cvt.f64.f32 %fd1, %f1;", Pipe::Fp64, false},
        Case{"cvt.u64.u32 %rd1, %r1;", Pipe::Alu, false},
        Case{"mov.u32 %r1, %r2;", Pipe::Alu, false},
        Case{"ld.global.f32 %f1, [%rd1];", Pipe::Lsu, false},
        Case{"st.shared.u32 [%rd1], %r1;", Pipe::Lsu, false},
        Case{"atom.global.add.u32 %r1, [%rd1], 1;", Pipe::Lsu, false},
        Case{"shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1;", Pipe::Lsu, false},
        Case{"vote.sync.ballot.b32 %r1, %p1, -1;", Pipe::Alu, false},
        Case{"bar.sync 0;", Pipe::Barrier, false},
        Case{"bra.uni L;\nL:", Pipe::Branch, false},
        Case{"exit;", Pipe::Branch, false},
        Case{"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, "
             "{%r5,%r6}, {%f1,%f2,%f3,%f4};",
             Pipe::Tensor, false}));

// The flags come from the table: nothing else lists opcodes by kind.
TEST(OpcodeFlags, ControlMemoryAndDestinations) {
  using isa::Opcode;
  for (auto op : {Opcode::Bra, Opcode::Brx, Opcode::Call, Opcode::Ret, Opcode::Exit, Opcode::Trap, Opcode::Bar,
                  Opcode::Barrier})
    EXPECT_TRUE(isa::has_flag(op, isa::kControl)) << isa::info(op).mnemonic;
  for (auto op : {Opcode::Add, Opcode::Ld, Opcode::Shfl, Opcode::Mma, Opcode::Brkpt})
    EXPECT_FALSE(isa::has_flag(op, isa::kControl)) << isa::info(op).mnemonic;
  for (auto op : {Opcode::Ret, Opcode::Exit, Opcode::Trap}) EXPECT_TRUE(isa::has_flag(op, isa::kTerminator));
  EXPECT_FALSE(isa::has_flag(Opcode::Bra, isa::kTerminator));
  EXPECT_TRUE(isa::has_flag(Opcode::Ld, isa::kMemRead));
  EXPECT_FALSE(isa::has_flag(Opcode::Ld, isa::kMemWrite));
  EXPECT_TRUE(isa::has_flag(Opcode::St, isa::kMemWrite));
  EXPECT_TRUE(isa::has_flag(Opcode::Atom, isa::kAtomic));
  EXPECT_TRUE(isa::has_flag(Opcode::Red, isa::kAtomic));
  EXPECT_TRUE(isa::has_flag(Opcode::Cp, isa::kAsync));
  EXPECT_TRUE(isa::has_flag(Opcode::Mbarrier, isa::kBarrier));
  EXPECT_TRUE(isa::has_flag(Opcode::Shfl, isa::kWarpCollective));
  EXPECT_TRUE(isa::info(Opcode::Prefetch).touches_memory());
  EXPECT_FALSE(isa::info(Opcode::Add).touches_memory());
  EXPECT_EQ(isa::info(Opcode::Add).destinations, 1);
  EXPECT_EQ(isa::info(Opcode::St).destinations, 0);
  EXPECT_EQ(isa::info(Opcode::Red).destinations, 0);
  EXPECT_EQ(isa::info(Opcode::Atom).destinations, 1);
  EXPECT_EQ(isa::info(Opcode::Bra).destinations, 0);
}

}  // namespace
