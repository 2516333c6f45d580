// Registers a function may read before writing them (program/decoder.h,
// find_undefined_reads), against the paths of small listings read by hand:
// a frame zeroes only these. decode_util.h declares %r<8> first, so %rN is
// slot N.
#include <gtest/gtest.h>

#include "decode_util.h"

using namespace softgpu;

namespace {

using Slots = std::vector<uint32_t>;

Slots undefined(const std::string& body) {
  auto p = test::decode(body);
  const auto& f = p.functions.at(0);
  EXPECT_TRUE(f.regs_analysed);
  return f.undefined_regs;
}

// nvcc's shape: every register written before it is read.
TEST(UndefinedReads, StraightLineCodeWritesBeforeItReads) {
  EXPECT_EQ(undefined("ld.param.u32 %r1, [n];\n"
                      "add.s32 %r2, %r1, 1;\n"
                      "mul.lo.s32 %r3, %r2, %r1;\n"
                      "ret;\n"),
            Slots{});
}

TEST(UndefinedReads, AReadBeforeTheFirstWrite) {
  EXPECT_EQ(undefined("add.s32 %r2, %r1, 1;\n"
                      "mov.u32 %r1, 5;\n"
                      "add.s32 %r3, %r1, %r2;\n"
                      "ret;\n"),
            Slots{1});
}

// Lanes whose guard is false keep the register unwritten.
TEST(UndefinedReads, AGuardedWriteDefinesNothing) {
  EXPECT_EQ(undefined("ld.param.u32 %r1, [n];\n"
                      "setp.eq.s32 %p1, %r1, 0;\n"
                      "@%p1 mov.u32 %r2, 7;\n"
                      "add.s32 %r3, %r2, 1;\n"
                      "ret;\n"),
            Slots{2});
}

// %r2 is written on one arm only, %r3 on both.
TEST(UndefinedReads, AWriteOnOneArmOfABranchDoesNotReachTheJoin) {
  EXPECT_EQ(undefined("ld.param.u32 %r1, [n];\n"
                      "setp.eq.s32 %p1, %r1, 0;\n"
                      "@%p1 bra ELSE;\n"
                      "mov.u32 %r2, 1;\n"
                      "mov.u32 %r3, 1;\n"
                      "bra.uni JOIN;\n"
                      "ELSE: mov.u32 %r3, 2;\n"
                      "JOIN: add.s32 %r4, %r2, %r3;\n"
                      "ret;\n"),
            Slots{2});
}

// The loop reads %r2 at its top, first written at its bottom: the first
// iteration reads it unwritten. %r3, written before the loop, is defined.
TEST(UndefinedReads, ALoopCarriedReadOfARegisterTheLoopWritesLater) {
  EXPECT_EQ(undefined("ld.param.u32 %r1, [n];\n"
                      "mov.u32 %r3, 0;\n"
                      "TOP: add.s32 %r4, %r2, %r3;\n"
                      "add.s32 %r2, %r1, 1;\n"
                      "add.s32 %r3, %r3, 1;\n"
                      "setp.lt.s32 %p1, %r3, %r1;\n"
                      "@%p1 bra TOP;\n"
                      "ret;\n"),
            Slots{2});
}

// A read reached only by a path that wrote the register first.
TEST(UndefinedReads, AReadOnlyAfterTheWriteOnItsPath) {
  EXPECT_EQ(undefined("ld.param.u32 %r1, [n];\n"
                      "setp.eq.s32 %p1, %r1, 0;\n"
                      "@%p1 bra DONE;\n"
                      "mov.u32 %r2, 1;\n"
                      "add.s32 %r3, %r2, 1;\n"
                      "DONE: ret;\n"),
            Slots{});
}

}  // namespace
