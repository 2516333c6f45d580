// The default tier decision (exec::worth_compiling, exec/compiled.h) on
// hand-computed cases: without a projection of the launch's rest, compile
// once the interpreted seconds spent reach the estimate (instructions x
// seconds per instruction); with one, once the projected rest is at least
// twice the estimate. The values are exact in binary (seconds per
// instruction 1/1024), so the boundaries are exact.
#include <gtest/gtest.h>

#include <optional>

#include "exec/compiled.h"

using softgpu::exec::kDefaultCompileSecondsPerInstruction;
using softgpu::exec::worth_compiling;

namespace {

constexpr double kPerInst = 1.0 / 1024;  // 512 instructions: an estimate of 0.5 s
constexpr std::nullopt_t kNoProjection = std::nullopt;

TEST(TierRule, WithoutProjectionSpentReachingTheEstimateCompiles) {
  EXPECT_TRUE(worth_compiling(0.5, kNoProjection, 512, kPerInst));  // spent == estimate
  EXPECT_TRUE(worth_compiling(0.75, kNoProjection, 512, kPerInst));
  EXPECT_FALSE(worth_compiling(0.4990234375, kNoProjection, 512, kPerInst));  // 1/1024 s short of it
  EXPECT_FALSE(worth_compiling(0, kNoProjection, 512, kPerInst));
}

TEST(TierRule, ProjectedRestMustBeTwiceTheEstimate) {
  EXPECT_TRUE(worth_compiling(0, 1.0, 512, kPerInst));  // rest == 2 x 0.5
  EXPECT_FALSE(worth_compiling(0, 0.9990234375, 512, kPerInst));
  EXPECT_TRUE(worth_compiling(0.25, 4.0, 512, kPerInst));
}

TEST(TierRule, LaunchProjectedToEndSoonIsNotCompiledWhateverWasSpent) {
  // 0.75 s spent (past the 0.5 s estimate) but the launch's rest projected
  // at 0.75 s, less than twice the estimate: a compile now could not be
  // earned back in this launch; the next launch (no projection at its
  // start) compiles on the seconds spent.
  EXPECT_FALSE(worth_compiling(0.75, 0.75, 512, kPerInst));
  EXPECT_FALSE(worth_compiling(100, 0, 512, kPerInst));  // the launch's last check
  EXPECT_TRUE(worth_compiling(0.75, kNoProjection, 512, kPerInst));
}

TEST(TierRule, EstimateScalesWithInstructionsAndRate) {
  // 0.25 s spent: enough for 256 instructions at 1/1024 s, not for 257;
  // enough for 512 at 1/2048 s each, not at 1/512 s. A rest of 1 s: twice
  // the estimate of 512 instructions at 1/1024 s, not of 513.
  EXPECT_TRUE(worth_compiling(0.25, kNoProjection, 256, kPerInst));
  EXPECT_FALSE(worth_compiling(0.25, kNoProjection, 257, kPerInst));
  EXPECT_TRUE(worth_compiling(0.25, kNoProjection, 512, kPerInst / 2));
  EXPECT_FALSE(worth_compiling(0.25, kNoProjection, 512, kPerInst * 2));
  EXPECT_TRUE(worth_compiling(0, 1.0, 512, kPerInst));
  EXPECT_FALSE(worth_compiling(0, 1.0, 513, kPerInst));
}

TEST(TierRule, NothingToCompileIsAlwaysWorthIt) {
  EXPECT_TRUE(worth_compiling(0, kNoProjection, 0, kPerInst));
  EXPECT_TRUE(worth_compiling(0, 0.0, 0, kPerInst));
}

TEST(TierRule, LongKernelLaunchedBrieflyStaysInterpreted) {
  // MaxFlops-like: 3000 unrolled instructions at the default 3 ms each is
  // a 9 s estimate; a launch projected at 2 s or 17.9 s more is not worth
  // it, one projected at 18.1 s is, as is a kernel 9.1 s spent at a
  // launch's start.
  EXPECT_DOUBLE_EQ(kDefaultCompileSecondsPerInstruction, 3e-3);
  EXPECT_FALSE(worth_compiling(0.5, 2.0, 3000, kDefaultCompileSecondsPerInstruction));
  EXPECT_FALSE(worth_compiling(8.9, 17.9, 3000, kDefaultCompileSecondsPerInstruction));
  EXPECT_TRUE(worth_compiling(0.5, 18.1, 3000, kDefaultCompileSecondsPerInstruction));
  EXPECT_FALSE(worth_compiling(8.9, kNoProjection, 3000, kDefaultCompileSecondsPerInstruction));
  EXPECT_TRUE(worth_compiling(9.1, kNoProjection, 3000, kDefaultCompileSecondsPerInstruction));
}

}  // namespace
