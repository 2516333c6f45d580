// %clock64 and %globaltimer under the timing model, through the executor:
// a kernel reads the clock around a dependent FMA chain; the values are
// the warp's issue cycles worked out by hand (every pipe latency 4, the
// launch starting at cycle 1000 of a 1000 MHz clock: 1 ns a cycle), the
// same on any number of host threads; without a model the executor keeps
// its own count.
#include <gtest/gtest.h>

#include "../../timing/ptx_device.h"
#include "timing/kernel_model.h"
#include "timing/recorder.h"

using namespace softgpu;

namespace {

const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry clocked(.param .u64 pout)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<12>;
  .reg .f32 %f<2>;
  ld.param.u64 %rd1, [pout];
  mov.f32 %f1, 0f3F800000;
  mov.u64 %rd2, %clock64;
  fma.rn.f32 %f1, %f1, %f1, %f1;
  fma.rn.f32 %f1, %f1, %f1, %f1;
  fma.rn.f32 %f1, %f1, %f1, %f1;
  fma.rn.f32 %f1, %f1, %f1, %f1;
  mov.u64 %rd3, %clock64;
  mov.u64 %rd4, %globaltimer;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mad.lo.u32 %r3, %r2, 64, %r1;
  mul.wide.u32 %rd5, %r3, 32;
  add.s64 %rd6, %rd1, %rd5;
  st.global.u64 [%rd6], %rd2;
  st.global.u64 [%rd6+8], %rd3;
  st.global.u64 [%rd6+16], %rd4;
  st.global.f32 [%rd6+24], %f1;
  ret;
}
)";

struct Row {
  uint64_t t0, t1, ns;
  float f;
  uint32_t pad;
};

timing::TimingParams params() {
  timing::TimingParams p;
  p.sm_count = 4;
  p.clock_mhz = 1000;
  for (auto& pt : p.pipes) pt = {4, 1};
  return p;
}

std::vector<Row> run(unsigned threads, bool with_model) {
  test::PtxDevice g(kPtx, "clock.ptx", 1ull << 28);
  constexpr uint32_t kCtas = 4, kThreads = 64;
  auto* out = g.alloc<Row>(kCtas * kThreads);
  const auto p = params();
  timing::KernelModel model(p, {"clocked", {kCtas, 1, 1}, {kThreads, 1, 1}, 8}, 64, {});
  timing::TraceRecorder rec([&](std::unique_ptr<timing::CtaTrace> t) { model.add(std::move(t)); },
                            [&](uint32_t c) { return model.wanted(c) && c == 0; },  // one CTA traced, all clocked
                            timing::ClockSetup{&p, model.l2_share(), 1000});
  exec::ExecOptions o;
  o.threads = threads;
  if (with_model) o.listener = &rec;
  EXPECT_EQ(g.launch("clocked", g.config("clocked", {kCtas, 1, 1}, {kThreads, 1, 1}, out), o).status,
            Status::Success);
  if (with_model) {
    EXPECT_GT(model.finish().warp_instructions, 0u);
  }
  return {out, out + kCtas * kThreads};
}

TEST(Clock, ReadsTheWarpsIssueCycleUnderTheModel) {
  const auto rows = run(1, true);
  for (const Row& r : rows) {
    // ld.param at 0, mov.f32 at 1, the first read at 2; the FMAs wait for
    // %f1: at 5 (mov's result), 9, 13, 17; the second read at 18, the
    // timer at 19.
    EXPECT_EQ(r.t0, 1002u);
    EXPECT_EQ(r.t1, 1018u);
    EXPECT_EQ(r.ns, 1019u);
    EXPECT_EQ(r.f, 1806.0f);  // f = f * f + f four times from 1: 2, 6, 42, 1806
  }
}

TEST(Clock, IsTheSameOnAnyNumberOfHostThreads) {
  const auto a = run(1, true), b = run(2, true);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].t0, b[i].t0);
    EXPECT_EQ(a[i].t1, b[i].t1);
    EXPECT_EQ(a[i].ns, b[i].ns);
  }
}

TEST(Clock, WithoutAModelResultsAreTheSameAndTheClockStillAdvances) {
  const auto with = run(1, true), without = run(1, false);
  for (size_t i = 0; i < with.size(); ++i) {
    EXPECT_EQ(with[i].f, without[i].f);
    EXPECT_GE(without[i].t1, without[i].t0);
  }
}

}  // namespace
