// Reconvergence points (immediate post-dominators) on small hand-written PTX,
// checked against the post-dominators worked out by hand from the listings.
#include <gtest/gtest.h>

#include <unordered_map>

#include "decode_util.h"

using namespace softgpu;

namespace {

using test::decode;

TEST(Reconvergence, IfElseJoinsAfterBothArms) {
  auto p = decode(
      "ld.param.u32 %r1, [n];\n"          // 0
      "setp.eq.s32 %p1, %r1, 0;\n"        // 1
      "@%p1 bra ELSE;\n"                  // 2
      "add.s32 %r2, %r1, 1;\n"            // 3
      "bra.uni JOIN;\n"                   // 4
      "ELSE: add.s32 %r2, %r1, 2;\n"      // 5
      "JOIN: add.s32 %r3, %r2, 1;\n"      // 6
      "ret;\n");                          // 7
  const auto& f = p.functions.at(0);
  EXPECT_EQ(f.code[2].reconv, 6u);
  EXPECT_EQ(f.code[2].target, 5u);
}

TEST(Reconvergence, EarlyReturnReconvergesAtExit) {
  auto p = decode(
      "ld.param.u32 %r1, [n];\n"          // 0
      "setp.eq.s32 %p1, %r1, 0;\n"        // 1
      "@%p1 bra DONE;\n"                  // 2
      "add.s32 %r2, %r1, 1;\n"            // 3
      "ret;\n"                            // 4
      "DONE: ret;\n");                    // 5
  const auto& f = p.functions.at(0);
  EXPECT_EQ(f.code[2].reconv, uint32_t(f.code.size()));  // the virtual exit
}

// nvcc lowers a switch's default case to `trap`; a trap never continues, so
// it must not drag the cases' reconvergence point down to the exit.
TEST(Reconvergence, TrapDoesNotPullTheJoinToTheExit) {
  auto p = decode(
      "ld.param.u32 %r1, [n];\n"          // 0
      "setp.eq.s32 %p1, %r1, 0;\n"        // 1
      "@%p1 bra A;\n"                     // 2
      "setp.eq.s32 %p2, %r1, 1;\n"        // 3
      "@%p2 bra B;\n"                     // 4
      "bra.uni BAD;\n"                    // 5
      "A: mov.u32 %r2, 10;\n"             // 6
      "bra.uni JOIN;\n"                   // 7
      "B: mov.u32 %r2, 20;\n"             // 8
      "bra.uni JOIN;\n"                   // 9
      "BAD: trap;\n"                      // 10
      "JOIN: add.s32 %r3, %r2, 1;\n"      // 11
      "ret;\n");                          // 12
  const auto& f = p.functions.at(0);
  EXPECT_EQ(f.code[2].reconv, 11u);
  // From 4 every path that can finish goes through B (the other leads to the
  // trap), so B itself post-dominates it.
  EXPECT_EQ(f.code[4].reconv, 8u);
}

TEST(Reconvergence, LoopExitIsTheJoin) {
  auto p = decode(
      "mov.u32 %r1, 0;\n"                 // 0
      "LOOP: add.s32 %r1, %r1, 1;\n"      // 1
      "setp.lt.s32 %p1, %r1, 10;\n"       // 2
      "@%p1 bra LOOP;\n"                  // 3
      "add.s32 %r2, %r1, 1;\n"            // 4
      "ret;\n");                          // 5
  EXPECT_EQ(p.functions.at(0).code[3].reconv, 4u);
}

}  // namespace
