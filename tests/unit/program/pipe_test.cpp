// Each instruction's pipe and flags from the opcode table and its type,
// against the classification worked out by hand from Nsight Compute's pipe
// descriptions (alu, fma, fp16, fp64, xu, lsu, tex, tensor, cbu).
#include <gtest/gtest.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "decode_util.h"
#include "program/pipe.h"
#include "program/sequence.h"

using namespace softgpu;
using program::Pipe;
using S = program::Sequence;

namespace {

struct Case {
  const char* inst;
  Pipe pipe;
  S sequence;
};

class PipeOf : public testing::TestWithParam<Case> {};

TEST_P(PipeOf, Instruction) {
  const Case& c = GetParam();
  auto p = test::decode(std::string(c.inst) + "\n");
  ASSERT_EQ(p.functions.size(), 1u);
  ASSERT_GE(p.functions[0].code.size(), 1u);
  const auto& in = p.functions[0].code[0];
  EXPECT_EQ(program::pipe_name(program::pipe(in)), program::pipe_name(c.pipe)) << c.inst;
  EXPECT_EQ(int(program::sequence(in)), int(c.sequence)) << c.inst;
  EXPECT_EQ(program::is_sequence(in), c.sequence != S::None) << c.inst;
}

INSTANTIATE_TEST_SUITE_P(
    Table, PipeOf,
    testing::Values(
        Case{"add.s32 %r1, %r2, %r3;", Pipe::Alu, S::None},
        Case{"add.f32 %f1, %f2, %f3;", Pipe::Fma, S::None},
        Case{"add.f64 %fd1, %fd2, %fd3;", Pipe::Fp64, S::None},
        Case{"fma.rn.f32 %f1, %f2, %f3, %f4;", Pipe::Fma, S::None},
        Case{"fma.rn.f16x2 %r1, %r2, %r3, %r4;", Pipe::Fp16, S::None},
        Case{"fma.rn.bf16 %h1, %h2, %h3, %h4;", Pipe::Fp16, S::None},
        Case{"mul.lo.s32 %r1, %r2, %r3;", Pipe::Fma, S::None},
        Case{"mul.wide.s32 %rd1, %r2, %r3;", Pipe::Fma, S::None},
        Case{"mul.lo.u64 %rd1, %rd2, %rd3;", Pipe::Fma, S::MulLo64},
        Case{"div.s32 %r1, %r2, %r3;", Pipe::Alu, S::DivS32},
        Case{"div.rn.f32 %f1, %f2, %f3;", Pipe::Fma, S::DivRnF32},
        Case{"div.approx.f32 %f1, %f2, %f3;", Pipe::Xu, S::None},
        Case{"div.rn.f64 %fd1, %fd2, %fd3;", Pipe::Fp64, S::DivF64},
        Case{"ex2.approx.f32 %f1, %f2;", Pipe::Xu, S::None},
        Case{"sqrt.rn.f32 %f1, %f2;", Pipe::Fma, S::SqrtRnF32},
        Case{"sqrt.rn.f64 %fd1, %fd2;", Pipe::Fp64, S::SqrtF64},
        Case{"rsqrt.approx.f32 %f1, %f2;", Pipe::Xu, S::None},
        // The sequence kinds (scripts/sass-sequences.py measured each form):
        Case{"div.full.f32 %f1, %f2, %f3;", Pipe::Fma, S::DivFullF32},
        Case{"div.rz.f32 %f1, %f2, %f3;", Pipe::Fma, S::DivRzF32},
        Case{"div.rp.f32 %f1, %f2, %f3;", Pipe::Fma, S::DivRzF32},
        Case{"div.rz.f64 %fd1, %fd2, %fd3;", Pipe::Fp64, S::DivF64},
        Case{"rcp.rn.f32 %f1, %f2;", Pipe::Fma, S::RcpF32},
        Case{"rcp.approx.f32 %f1, %f2;", Pipe::Xu, S::None},
        Case{"rcp.rn.f64 %fd1, %fd2;", Pipe::Fp64, S::RcpF64},
        Case{"rcp.approx.ftz.f64 %fd1, %fd2;", Pipe::Xu, S::None},
        Case{"sqrt.rm.f32 %f1, %f2;", Pipe::Fma, S::SqrtRzF32},
        Case{"sqrt.approx.f32 %f1, %f2;", Pipe::Xu, S::None},
        Case{"rsqrt.approx.f64 %fd1, %fd2;", Pipe::Fp64, S::RsqrtF64},
        Case{"rsqrt.approx.ftz.f64 %fd1, %fd2;", Pipe::Xu, S::None},
        Case{"div.u32 %r1, %r2, %r3;", Pipe::Alu, S::DivU32},
        Case{"rem.s32 %r1, %r2, %r3;", Pipe::Alu, S::RemS32},
        Case{"rem.u32 %r1, %r2, %r3;", Pipe::Alu, S::RemU32},
        Case{"div.u64 %rd1, %rd2, %rd3;", Pipe::Alu, S::DivU64},
        Case{"div.s64 %rd1, %rd2, %rd3;", Pipe::Alu, S::DivS64},
        Case{"rem.u64 %rd1, %rd2, %rd3;", Pipe::Alu, S::RemU64},
        Case{"rem.s64 %rd1, %rd2, %rd3;", Pipe::Alu, S::RemS64},
        Case{"mad.lo.s64 %rd1, %rd2, %rd3, %rd4;", Pipe::Fma, S::MulLo64},
        Case{"mul.hi.u64 %rd1, %rd2, %rd3;", Pipe::Fma, S::MulHi64},
        Case{"mad.hi.s64 %rd1, %rd2, %rd3, %rd4;", Pipe::Fma, S::MulHi64},
        Case{"mul.wide.u32 %rd1, %r2, %r3;", Pipe::Fma, S::None},
        Case{"mul.hi.u32 %r1, %r2, %r3;", Pipe::Fma, S::None},
        Case{"cvt.rn.f64.s64 %fd1, %rd1;", Pipe::Fp64, S::None},
        Case{"cvt.rzi.s64.f64 %rd1, %fd1;", Pipe::Fp64, S::None},
        Case{"setp.lt.f32 %p1, %f1, %f2;", Pipe::Alu, S::None},
        Case{"setp.lt.f64 %p1, %fd1, %fd2;", Pipe::Fp64, S::None},
        Case{"max.f32 %f1, %f2, %f3;", Pipe::Alu, S::None},
        Case{"cvt.rn.f32.s32 %f1, %r1;", Pipe::Xu, S::None},
        Case{"cvt.rn.f16.f32 %h1, %f1;", Pipe::Fp16, S::None},
        Case{"cvt.f64.f32 %fd1, %f1;", Pipe::Fp64, S::None},
        Case{"cvt.u64.u32 %rd1, %r1;", Pipe::Alu, S::None},
        Case{"mov.u32 %r1, %r2;", Pipe::Alu, S::None},
        Case{"ld.global.f32 %f1, [%rd1];", Pipe::Lsu, S::None},
        Case{"st.shared.u32 [%rd1], %r1;", Pipe::Lsu, S::None},
        Case{"atom.global.add.u32 %r1, [%rd1], 1;", Pipe::Lsu, S::None},
        Case{"shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1;", Pipe::Lsu, S::None},
        Case{"vote.sync.ballot.b32 %r1, %p1, -1;", Pipe::Alu, S::None},
        Case{"bar.sync 0;", Pipe::Barrier, S::None},
        Case{"bra.uni L;\nL:", Pipe::Branch, S::None},
        Case{"exit;", Pipe::Branch, S::None},
        Case{"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, "
             "{%r5,%r6}, {%f1,%f2,%f3,%f4};",
             Pipe::Tensor, S::None}));

// The flags come from the table: nothing else lists opcodes by kind.
// Each kind has its own config key, and None none.
TEST(SequenceKey, OnePerKind) {
  std::vector<std::string_view> keys;
  for (size_t k = 1; k < size_t(S::Count_); ++k) {
    const std::string_view key = program::sequence_key(S(k));
    EXPECT_FALSE(key.empty()) << k;
    EXPECT_EQ(std::count(keys.begin(), keys.end(), key), 0) << key;
    keys.push_back(key);
  }
  EXPECT_EQ(program::sequence_key(S::None), "");
  EXPECT_EQ(keys.size(), program::kSequenceKinds);
}

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
