// Which mul + add/sub pairs the decoder fuses into fma (program/contract.cpp).
// The reference is ptxas: each listing below was compiled with
// `ptxas -arch=sm_90` (CUDA 13.0) as a kernel and its SASS read with
// cuobjdump -sass (2026-12-07); the comment gives what ptxas made of it.
#include <gtest/gtest.h>

#include "decode_util.h"

using namespace softgpu;
using isa::Opcode;
using program::Modifiers;

namespace {

const std::vector<program::Inst>& code(const program::Program& p) { return p.functions.at(0).code; }

// The decoded instruction at `line` of the body (1-based), found by its
// PTX source line (the body starts after 11 lines of header).
const program::Inst& at_line(const program::Program& p, uint32_t line) {
  for (const auto& in : code(p))
    if (in.line == line + 11) return in;
  ADD_FAILURE() << "no instruction at body line " << line;
  static program::Inst none;
  return none;
}

// Whether the instruction at `line` is a mul folded into all its uses, no
// instruction on the GPU (ptxas drops it): marked, and in its facts.
bool folded(const program::Program& p, uint32_t line) {
  const auto& f = p.functions.at(0);
  for (uint32_t pc = 0; pc < f.code.size(); ++pc)
    if (f.code[pc].line == line + 11) {
      EXPECT_EQ(f.code[pc].m.folded(), (f.facts[pc].flags & program::kFactFolded) != 0);
      return f.code[pc].m.folded();
    }
  ADD_FAILURE() << "no instruction at body line " << line;
  return false;
}

const std::string kLoads =
    "ld.param.u32 %r1, [n];\n"         // 1
    "cvt.rn.f32.u32 %f1, %r1;\n"       // 2
    "add.f32 %f2, %f1, 0f3F800000;\n"  // 3
    "add.f32 %f3, %f1, 0f40000000;\n"; // 4

}  // namespace

// FFMA R5, R0, R5, R7.
TEST(Contract, OneUseIsFused) {
  auto p = test::decode(kLoads + "mul.f32 %f4, %f1, %f2;\nadd.f32 %f5, %f4, %f3;\nret;\n");
  const auto& in = at_line(p, 6);
  EXPECT_EQ(in.op, Opcode::Fma);
  EXPECT_EQ(in.o[1].reg, at_line(p, 5).o[1].reg);
  EXPECT_EQ(in.o[2].reg, at_line(p, 5).o[2].reg);
  EXPECT_EQ(in.o[3].reg, at_line(p, 4).o[0].reg);
  EXPECT_FALSE(in.m.neg_product() || in.m.neg_addend());
  EXPECT_EQ(at_line(p, 5).op, Opcode::Mul);  // the mul stays; its result is unused
  EXPECT_TRUE(folded(p, 5));                 // and is not issued: SASS has only the FFMA
}

// FFMA R9, R0, R5, R7 and FFMA R5, -R0, R5, R7.
TEST(Contract, EveryUseAnAddOrSubFusesEach) {
  auto p = test::decode(kLoads + "mul.f32 %f4, %f1, %f2;\nadd.f32 %f5, %f4, %f3;\nsub.f32 %f6, %f3, %f4;\nret;\n");
  EXPECT_EQ(at_line(p, 6).op, Opcode::Fma);
  EXPECT_FALSE(at_line(p, 6).m.neg_product());
  EXPECT_EQ(at_line(p, 7).op, Opcode::Fma);
  EXPECT_TRUE(at_line(p, 7).m.neg_product());
  EXPECT_TRUE(folded(p, 5));
}

// FFMA R5, R0, R5, -R7 (the product first, the other second).
TEST(Contract, ProductMinusAddendNegatesTheAddend) {
  auto p = test::decode(kLoads + "mul.f32 %f4, %f1, %f2;\nsub.f32 %f5, %f4, %f3;\nret;\n");
  EXPECT_EQ(at_line(p, 6).op, Opcode::Fma);
  EXPECT_TRUE(at_line(p, 6).m.neg_addend());
  EXPECT_FALSE(at_line(p, 6).m.neg_product());
}

// FMUL + FADD: the product is also stored, moved or multiplied.
TEST(Contract, AnyOtherUseKeepsBothRoundings) {
  for (const char* other : {"mov.f32 %f6, %f4;\n", "mul.f32 %f6, %f4, %f3;\n", "st.global.f32 [%rd1], %f4;\n"}) {
    auto p = test::decode(kLoads + "mul.f32 %f4, %f1, %f2;\nadd.f32 %f5, %f4, %f3;\n" + other + "ret;\n");
    EXPECT_EQ(at_line(p, 6).op, Opcode::Add) << other;
    EXPECT_FALSE(folded(p, 5)) << other;
  }
}

// FMUL + FADD: add.rn or mul.rn, mul.ftz with a plain add.
TEST(Contract, RoundingModifiersAndFtzMismatchKeepBoth) {
  for (const char* pair : {"mul.f32 %f4, %f1, %f2;\nadd.rn.f32 %f5, %f4, %f3;\n",
                           "mul.rn.f32 %f4, %f1, %f2;\nadd.f32 %f5, %f4, %f3;\n",
                           "mul.ftz.f32 %f4, %f1, %f2;\nadd.f32 %f5, %f4, %f3;\n"}) {
    auto p = test::decode(kLoads + pair + "ret;\n");
    EXPECT_NE(at_line(p, 6).op, Opcode::Fma) << pair;
  }
  // Both .ftz: FFMA.FTZ. add.sat: FFMA.SAT.
  auto p = test::decode(kLoads + "mul.ftz.f32 %f4, %f1, %f2;\nadd.ftz.sat.f32 %f5, %f4, %f3;\nret;\n");
  EXPECT_EQ(at_line(p, 6).op, Opcode::Fma);
  EXPECT_TRUE(at_line(p, 6).m.ftz && at_line(p, 6).m.sat);
}

// FMUL + FADD: the add is in another basic block.
TEST(Contract, NotAcrossABranch) {
  auto p = test::decode(kLoads +
                        "mul.f32 %f4, %f1, %f2;\nsetp.gt.f32 %p1, %f3, 0f00000000;\n@%p1 bra L1;\n"
                        "add.f32 %f5, %f4, %f3;\nL1:\nret;\n");
  EXPECT_EQ(at_line(p, 8).op, Opcode::Add);
}

// FFMA: the first operand's product is fused whichever mul comes first;
// then the other add of a chain takes the product in its second operand.
TEST(Contract, TheFirstOperandsProductWins) {
  auto p = test::decode(kLoads + "mul.f32 %f6, %f3, %f3;\nmul.f32 %f4, %f1, %f2;\nadd.f32 %f5, %f4, %f6;\nret;\n");
  EXPECT_EQ(at_line(p, 7).op, Opcode::Fma);
  EXPECT_EQ(at_line(p, 7).o[1].reg, at_line(p, 6).o[1].reg);  // %f1 * %f2
  EXPECT_EQ(at_line(p, 7).o[3].reg, at_line(p, 5).o[0].reg);  // + %f6
  auto q = test::decode(kLoads + "mul.f32 %f4, %f1, %f1;\nmul.f32 %f5, %f2, %f2;\nadd.f32 %f6, %f4, %f5;\n"
                                 "mul.f32 %f7, %f3, %f3;\nadd.f32 %f0, %f6, %f7;\nret;\n");
  EXPECT_EQ(at_line(q, 7).op, Opcode::Fma);
  EXPECT_EQ(at_line(q, 7).o[1].reg, at_line(q, 5).o[1].reg);  // %f1 * %f1 + %f5
  EXPECT_EQ(at_line(q, 9).op, Opcode::Fma);
  EXPECT_EQ(at_line(q, 9).o[1].reg, at_line(q, 8).o[1].reg);  // %f3 * %f3 + %f6
  // Folded: the products each fused into its one add; kept: %f6 = %f3 * %f3
  // and %f5 = %f2 * %f2, their add having taken the other product.
  EXPECT_TRUE(folded(p, 6));
  EXPECT_FALSE(folded(p, 5));
  EXPECT_TRUE(folded(q, 5));
  EXPECT_FALSE(folded(q, 6));
  EXPECT_TRUE(folded(q, 8));
}

// f64, and a guarded add: DFMA. A guarded mul is left alone.
TEST(Contract, DoubleAndGuardedAdd) {
  auto p = test::decode("ld.param.u32 %r1, [n];\ncvt.rn.f64.u32 %fd1, %r1;\nsetp.gt.u32 %p1, %r1, 3;\n"
                        "mul.f64 %fd2, %fd1, %fd1;\nmov.f64 %fd3, %fd1;\n@%p1 add.f64 %fd3, %fd2, %fd1;\nret;\n");
  EXPECT_EQ(at_line(p, 6).op, Opcode::Fma);
  EXPECT_TRUE(at_line(p, 6).has_guard);
}

// softgpu's own limit (ptxas, on SSA values, fuses it): a source of the mul
// written between the mul and the add.
TEST(Contract, NotWhenAMulSourceChangesInBetween) {
  auto p = test::decode(kLoads + "mul.f32 %f4, %f1, %f2;\nmov.f32 %f1, %f3;\nadd.f32 %f5, %f4, %f3;\nret;\n");
  EXPECT_EQ(at_line(p, 7).op, Opcode::Add);
  EXPECT_FALSE(folded(p, 5));
}
