// Tiered compilation (ExecOptions::jit_hot, exec/compiled.cpp): a kernel
// starts interpreted and switches to compiled code once hot, counted over
// its launches, in the middle of a launch (new CTAs, and warps already
// running at their next quantum); the results are the CPU reference's
// either way.
#include "tier_prog.h"

using namespace softgpu;
using namespace softgpu::jit_test;


TEST(JitTier, EagerCompilesBeforeTheFirstInstruction) {
  Prog p;
  p.opts.jit_hot = 0;
  auto r = p.run(4, 64, 50);
  EXPECT_GT(r.compiled_instructions, r.warp_instructions * 9 / 10);
}

TEST(JitTier, ColdKernelStaysInterpreted) {
  Prog p;
  p.opts.jit_hot = 1u << 30;
  auto r = p.run(4, 64, 50);
  EXPECT_EQ(r.compiled_instructions, 0u);
  EXPECT_FALSE(p.lp->jit.published[0].load());
}

TEST(JitTier, LaunchSwitchesToCompiledCodeOnceHot) {
  // 128 warps of 2000 instructions; compiled at the first check (100000
  // warp instructions), on this thread: the CTAs after it run compiled.
  Prog p;
  p.opts.jit_hot = 1;
  auto r = p.run(64, 64, 400);
  EXPECT_GT(r.compiled_instructions, r.warp_instructions / 4);
  EXPECT_LT(r.compiled_instructions, r.warp_instructions * 3 / 4);
}

TEST(JitTier, RunningWarpSwitchesAtItsNextQuantum) {
  Prog p;
  p.opts.jit_hot = 1;
  auto r = p.run(1, 32, 100000);  // one warp, 500000 instructions
  EXPECT_GT(r.compiled_instructions, r.warp_instructions / 2);
  EXPECT_LT(r.compiled_instructions, r.warp_instructions);
}

TEST(JitTier, NextLaunchRunsCompiledFromItsStart) {
  Prog p;
  p.opts.jit_hot = 1;
  auto first = p.run(64, 64, 400);
  EXPECT_TRUE(p.lp->jit.published[0].load());
  auto second = p.run(64, 64, 400);
  EXPECT_LT(first.compiled_instructions, first.warp_instructions);
  EXPECT_GT(second.compiled_instructions, second.warp_instructions * 9 / 10);
}

TEST(JitTier, HotnessCountsOverLaunches) {
  // Launches of 8 warps x ~2013 instructions (16104); the threshold is
  // jit_hot 1000 x the kernel's 19 instructions: passed after two launches,
  // so the third compiles before it starts.
  Prog p;
  p.opts.jit_hot = 1000;
  for (int i = 0; i < 2; ++i) {
    auto r = p.run(4, 64, 400);
    EXPECT_EQ(r.warp_instructions, 16104u);
    EXPECT_EQ(r.compiled_instructions, 0u) << "launch " << i;
  }
  EXPECT_FALSE(p.lp->jit.published[0].load());
  auto third = p.run(4, 64, 400);
  EXPECT_GT(third.compiled_instructions, third.warp_instructions * 9 / 10);
}

TEST(JitTier, TwoHostThreadsShareTheSwitch) {
  Prog p;
  p.opts.jit_hot = 1;
  p.opts.threads = 2;
  auto r = p.run(64, 64, 400);
  EXPECT_GT(r.compiled_instructions, 0u);
}
