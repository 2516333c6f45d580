// Register read/write sets per instruction, against sets worked out by hand.
// decode_util.h declares %r<8>, %rd<8>, %f<8>, %fd<8>, %h<8> in that order,
// so their slots are 0-7, 8-15, 16-23, 24-31, 32-39; %p<4> are predicates 0-3.
#include <gtest/gtest.h>

#include "decode_util.h"
#include "program/facts.h"
#include "program/sequence.h"
#include "program/pipe.h"

using namespace softgpu;

namespace {

uint32_t R(uint32_t i) { return i; }
uint32_t RD(uint32_t i) { return 8 + i; }
uint32_t F(uint32_t i) { return 16 + i; }
uint32_t P(uint32_t i) { return program::kPredSlot | i; }

using Set = std::vector<uint32_t>;

void expect_use(const std::string& inst, Set writes, Set reads, uint32_t pc = 0) {
  auto p = test::decode(inst + "\n");
  ASSERT_EQ(p.functions.size(), 1u);
  const auto& f = p.functions[0];
  ASSERT_LT(pc, f.code.size());
  auto w = program::writes(f, pc), r = program::reads(f, pc);
  std::sort(writes.begin(), writes.end());
  std::sort(reads.begin(), reads.end());
  EXPECT_EQ(Set(w.begin(), w.end()), writes) << inst;
  EXPECT_EQ(Set(r.begin(), r.end()), reads) << inst;
}

TEST(RegisterUse, Arithmetic) {
  expect_use("add.s32 %r1, %r2, %r3;", {R(1)}, {R(2), R(3)});
  expect_use("fma.rn.f32 %f1, %f2, %f3, %f1;", {F(1)}, {F(1), F(2), F(3)});
  expect_use("add.s32 %r1, %r2, 7;", {R(1)}, {R(2)});
  expect_use("add.s32 %r1, %r1, %r1;", {R(1)}, {R(1)});  // a slot once per set
}

TEST(RegisterUse, GuardAndPredicates) {
  expect_use("@%p2 add.s32 %r1, %r2, %r3;", {R(1)}, {R(2), R(3), P(2)});
  expect_use("setp.lt.s32 %p1|%p3, %r4, %r5;", {P(1), P(3)}, {R(4), R(5)});
  expect_use("selp.b32 %r1, %r2, %r3, %p0;", {R(1)}, {R(2), R(3), P(0)});
}

TEST(RegisterUse, Memory) {
  expect_use("ld.global.f32 %f1, [%rd2+4];", {F(1)}, {RD(2)});
  expect_use("st.global.f32 [%rd2], %f3;", {}, {RD(2), F(3)});
  expect_use("ld.global.v4.f32 {%f1,%f2,%f3,%f4}, [%rd1];", {F(1), F(2), F(3), F(4)}, {RD(1)});
  expect_use("st.global.v2.u32 [%rd3], {%r1,%r2};", {}, {RD(3), R(1), R(2)});
  expect_use("atom.global.add.u32 %r1, [%rd2], %r3;", {R(1)}, {RD(2), R(3)});
  expect_use("red.global.add.u32 [%rd2], %r3;", {}, {RD(2), R(3)});
  expect_use("shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;", {R(1), P(1)}, {R(2)});
}

TEST(RegisterUse, BranchesReadOnlyTheirGuard) {
  expect_use("@!%p1 bra L;\nL:\nexit;", {}, {P(1)});
  expect_use("exit;", {}, {});
}

TEST(RegisterUse, TensorCoreAccumulatorsAreReadAndWritten) {
  expect_use("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, "
             "{%r5,%r6}, {%f1,%f2,%f3,%f4};",
             {F(1), F(2), F(3), F(4)}, {R(1), R(2), R(3), R(4), R(5), R(6), F(1), F(2), F(3), F(4)});
}

}  // namespace

namespace {

TEST(InstFacts, PipeFlagsAndSequenceAreStoredPerPc) {
  auto p = test::decode(
      "add.f64 %fd1, %fd2, %fd3;\n"
      "div.rn.f32 %f1, %f2, %f3;\n"
      "cp.async.wait_group 0;\n"
      "cp.async.commit_group;\n"
      "div.s64 %rd1, %rd2, %rd3;\n");
  const auto& f = p.functions[0];
  ASSERT_EQ(f.facts.size(), 5u);
  EXPECT_EQ(program::Pipe(f.facts[0].pipe), program::Pipe::Fp64);
  EXPECT_EQ(f.facts[0].flags, 0);
  EXPECT_EQ(program::Sequence(f.facts[0].sequence), program::Sequence::None);
  EXPECT_EQ(f.facts[1].flags, 0);
  EXPECT_EQ(program::Sequence(f.facts[1].sequence), program::Sequence::DivRnF32);
  EXPECT_EQ(f.facts[2].flags, program::kFactAsyncWait);
  EXPECT_EQ(program::Sequence(f.facts[2].sequence), program::Sequence::None);
  EXPECT_EQ(f.facts[3].flags, 0);
  EXPECT_EQ(program::Sequence(f.facts[4].sequence), program::Sequence::DivS64);
  EXPECT_EQ(program::Pipe(f.facts[4].pipe), program::Pipe::Alu);
}

}  // namespace

namespace {

// Tensor-core products: the shape's 2 x m x n x k and the input type.
TEST(InstFacts, TensorProducts) {
  auto p = test::decode(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, "
      "{%f1,%f2,%f3,%f4};\n"
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, "
      "{%f1,%f2,%f3,%f4};\n"
      "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%r1,%r2,%r3,%r4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, "
      "{%r1,%r2,%r3,%r4};\n"
      "add.f32 %f1, %f2, %f3;\n"
      "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, "
      "{%r1,%r2,%r3,%r4}, {%r5,%r6,%r1,%r2}, {%f1,%f2,%f3,%f4}, %r3, 0x0;\n"
      "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%r1,%r2,%r3,%r4}, {%r1,%r2,%r3,%r4}, "
      "{%r5,%r6}, {%r1,%r2,%r3,%r4};\n");
  const auto& f = p.functions[0];
  ASSERT_EQ(f.facts.size(), 6u);
  EXPECT_EQ(program::TensorKind(f.facts[0].tensor), program::TensorKind::Fp16F32);
  EXPECT_EQ(f.facts[0].tensor_flops, 2u * 16 * 8 * 16);
  EXPECT_EQ(program::TensorKind(f.facts[1].tensor), program::TensorKind::Tf32);
  EXPECT_EQ(f.facts[1].tensor_flops, 2u * 16 * 8 * 8);
  EXPECT_EQ(program::TensorKind(f.facts[2].tensor), program::TensorKind::Int8);
  EXPECT_EQ(f.facts[2].tensor_flops, 2u * 16 * 8 * 32);
  EXPECT_EQ(f.facts[3].tensor_flops, 0u);
  // Sparse: the work of the dense K/2 product (2x the dense throughput).
  EXPECT_EQ(program::TensorKind(f.facts[4].tensor), program::TensorKind::Fp16F32);
  EXPECT_EQ(f.facts[4].tensor_flops, 2u * 16 * 8 * 16);
  EXPECT_EQ(f.facts[4].pipe, uint8_t(program::Pipe::Tensor));
  EXPECT_EQ(program::TensorKind(f.facts[5].tensor), program::TensorKind::Int8);
  EXPECT_EQ(f.facts[5].tensor_flops, 2u * 16 * 8 * 256);
  EXPECT_EQ(f.facts[5].pipe, uint8_t(program::Pipe::Tensor));
}

}  // namespace
