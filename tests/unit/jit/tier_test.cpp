// Tiered compilation (ExecOptions::jit_hot, exec/compiled.cpp): a kernel
// starts interpreted and switches to compiled code once hot, in the middle
// of a launch (new CTAs, and warps already running at their next quantum)
// or at the next launch when a background queue compiles it; the results
// are the CPU reference's either way.
#include <gtest/gtest.h>

#include <cstring>

#include "exec/compiled.h"
#include "exec/warp.h"
#include "exec/engine.h"
#include "jit/jit.h"
#include "ptx/parser.h"

using namespace softgpu;

namespace {

// out[gid] = h after `iters` rounds of h = h * 1664525 + 1013904223; h ^= i.
const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry spin(.param .u64 out, .param .u32 iters) {
  .reg .u32 %r<8>;
  .reg .u64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [iters];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.u32 %r5, %r3, %r4, %r2;
  mov.u32 %r6, %r5;
  mov.u32 %r7, 0;
LOOP:
  mad.lo.u32 %r6, %r6, 1664525, 1013904223;
  xor.b32 %r6, %r6, %r7;
  add.u32 %r7, %r7, 1;
  setp.lt.u32 %p1, %r7, %r1;
  @%p1 bra LOOP;
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r5, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r6;
  ret;
}
)";

uint32_t reference(uint32_t gid, uint32_t iters) {
  uint32_t h = gid;
  for (uint32_t i = 0; i < iters; ++i) h = (h * 1664525u + 1013904223u) ^ i;
  return h;
}

exec::CodeCompiler* tier_jit() {
  static std::unique_ptr<exec::CodeCompiler> jit = [] {
    std::string why;
    auto j = jit::make_compiler({}, &why);
    EXPECT_TRUE(j) << why;
    return j;
  }();
  return jit.get();
}

struct Prog {
  exec::DeviceMemory mem{Bytes{1ull << 28}};
  std::shared_ptr<exec::LoadedProgram> lp;
  uint32_t* out = nullptr;
  exec::ExecOptions opts;
  Prog() {
    auto pr = ptx::parse(kPtx, "tier.ptx");
    EXPECT_TRUE(pr.module);
    std::vector<ptx::Module> mods;
    mods.push_back(std::move(*pr.module));
    lp = exec::load_program(std::move(mods), mem).program;
    EXPECT_TRUE(lp);
    out = reinterpret_cast<uint32_t*>(mem.allocate(Bytes{1 << 16}, exec::MemKind::Device)->value);
    opts.compiler = tier_jit();
  }
  exec::LaunchResult run(uint32_t ctas, uint32_t threads, uint32_t iters) {
    std::memset(out, 0, size_t(ctas) * threads * 4);
    exec::LaunchConfig cfg;
    cfg.grid = Dim3{ctas};
    cfg.block = Dim3{threads};
    cfg.params.resize(12);
    std::memcpy(cfg.params.data(), &out, 8);
    std::memcpy(cfg.params.data() + 8, &iters, 4);
    auto r = exec::launch(*lp, "spin", cfg, mem, opts);
    EXPECT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : r.error);
    for (uint32_t g = 0; g < ctas * threads; ++g) {
      EXPECT_EQ(out[g], reference(g, iters)) << "thread " << g;
      if (out[g] != reference(g, iters)) break;
    }
    return r;
  }
};

}  // namespace

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

TEST(JitTier, BackgroundQueueCompilesForTheNextLaunches) {
  Prog p;
  exec::CompileQueue q(*tier_jit());
  p.opts.jit_hot = 1;
  p.opts.compile_queue = &q;
  auto first = p.run(64, 64, 400);
  q.drain();
  EXPECT_TRUE(p.lp->jit.published[0].load());
  auto second = p.run(64, 64, 400);
  EXPECT_LE(first.compiled_instructions, first.warp_instructions);
  EXPECT_GT(second.compiled_instructions, second.warp_instructions * 9 / 10);
}

TEST(JitTier, UnloadWhileCompilationIsQueued) {
  exec::CompileQueue q(*tier_jit());
  for (int i = 0; i < 3; ++i) {
    Prog p;
    p.opts.jit_hot = 1;
    p.opts.compile_queue = &q;
    p.run(64, 64, 400);
    // p goes now, its compilation queued or running: the program waits for it.
  }
  Prog p;
  p.opts.jit_hot = 1;
  p.opts.compile_queue = &q;
  p.run(64, 64, 400);
  q.drain();
  EXPECT_GT(p.run(8, 64, 400).compiled_instructions, 0u);
}
