// The executor's records through the ExecutionListener, on small hand-written
// kernels whose instruction streams and addresses are counted by hand; and
// the timing model fed from them, deterministic across host threads.
#include <gtest/gtest.h>

#include <cstring>
#include <mutex>

#include "../../timing/ptx_device.h"
#include "exec/listener.h"
#include "timing/kernel_model.h"
#include "timing/recorder.h"

using namespace softgpu;

namespace {

const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry copy(.param .u64 pin, .param .u64 pout)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<2>;
  .shared .align 4 .b8 buf[512];
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  mov.u64 %rd5, buf;
  cvta.shared.u64 %rd6, %rd5;
  add.s64 %rd6, %rd6, %rd3;
  st.f32 [%rd6], %f1;
  bar.sync 0;
  ld.shared.f32 %f1, [%rd5];
  add.s64 %rd7, %rd2, %rd3;
  st.global.f32 [%rd7], %f1;
  ret;
}
.visible .entry acopy(.param .u64 pin, .param .u64 pout)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<2>;
  .shared .align 16 .b8 sbuf[512];
  ld.param.u64 %rd1, [pin];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  mov.u64 %rd5, sbuf;
  add.s64 %rd6, %rd5, %rd3;
  cp.async.ca.shared.global [%rd6], [%rd4], 4;
  cp.async.wait_all;
  ld.shared.f32 %f1, [%rd6];
  ld.param.u64 %rd2, [pout];
  add.s64 %rd7, %rd2, %rd3;
  st.global.f32 [%rd7], %f1;
  ret;
}
)";

struct Rec {
  uint32_t cta, warp, pc;
  exec::StepOutcome outcome;
  struct M {
    ptx::Space space;
    exec::AccessKind kind;
    uint32_t bytes, lanes;
    uint64_t addr[32];
  };
  std::vector<M> mem;
};

struct Recorder : exec::ExecutionListener {
  std::mutex mu;
  std::vector<Rec> recs;
  int begins = 0, ends = 0;
  void* cta_begin(uint32_t, Dim3, uint32_t) override {
    std::lock_guard l(mu);
    ++begins;
    return this;
  }
  void cta_end(uint32_t, void*) override {
    std::lock_guard l(mu);
    ++ends;
  }
  void step(const exec::WarpStep& s) override {
    Rec r{s.warp.cta_linear, s.warp.warp_in_cta, s.pc, s.outcome, {}};
    for (const auto& a : s.mem) {
      Rec::M m{a.space, a.kind, a.bytes_per_lane, a.lanes, {}};
      std::memcpy(m.addr, a.lane_addr, sizeof m.addr);
      r.mem.push_back(m);
    }
    std::lock_guard l(mu);
    recs.push_back(std::move(r));
  }
  const Rec* find(uint32_t warp, uint32_t pc) const {
    for (const auto& r : recs)
      if (r.warp == warp && r.pc == pc) return &r;
    return nullptr;
  }
};

struct Gpu : test::PtxDevice {
  exec::ExecOptions opts;
  Gpu() : PtxDevice(kPtx, "listener.ptx", 1ull << 30) {}
  float* alloc(size_t n) { return PtxDevice::alloc<float>(n); }
  exec::LaunchResult run(const char* k, Dim3 grid, Dim3 block, float* in, float* out) {
    return launch(k, config(k, grid, block, in, out), opts);
  }
};

TEST(Listener, SeesEveryInstructionWithResolvedAccesses) {
  Gpu g;
  float* in = g.alloc(64);
  float* out = g.alloc(64);
  for (int i = 0; i < 64; ++i) in[i] = float(i + 1);
  Recorder rec;
  g.opts.listener = &rec;
  auto r = g.run("copy", {1, 1, 1}, {64, 1, 1}, in, out);
  ASSERT_EQ(r.status, Status::Success);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], 1.0f);  // every thread reads buf[0] = in[0]
  EXPECT_EQ(rec.begins, 1);
  EXPECT_EQ(rec.ends, 1);
  ASSERT_EQ(rec.recs.size(), 2u * 15);  // 15 instructions, two warps
  for (uint32_t w = 0; w < 2; ++w) {
    const Rec* p = rec.find(w, 0);  // ld.param
    ASSERT_TRUE(p && p->mem.size() == 1);
    EXPECT_EQ(p->mem[0].space, ptx::Space::Param);
    const Rec* ld = rec.find(w, 5);  // ld.global: in + 4 * tid
    ASSERT_TRUE(ld && ld->mem.size() == 1);
    EXPECT_EQ(ld->mem[0].space, ptx::Space::Global);
    EXPECT_EQ(ld->mem[0].kind, exec::AccessKind::Load);
    EXPECT_EQ(ld->mem[0].lanes, ~0u);
    EXPECT_EQ(ld->mem[0].bytes, 4u);
    for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(ld->mem[0].addr[l], uint64_t(in + w * 32 + l));
    const Rec* st = rec.find(w, 9);  // generic store that lands in shared memory
    ASSERT_TRUE(st && st->mem.size() == 1);
    EXPECT_EQ(st->mem[0].space, ptx::Space::Shared);
    EXPECT_EQ(st->mem[0].kind, exec::AccessKind::Store);
    for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(st->mem[0].addr[l] - st->mem[0].addr[0], 4u * l);
    EXPECT_EQ(rec.find(w, 10)->outcome, exec::StepOutcome::AtBarrier);
    EXPECT_EQ(rec.find(w, 7)->mem.size(), 0u);  // cvta touches no memory
    EXPECT_EQ(rec.find(w, 14)->outcome, exec::StepOutcome::Exited);
    const Rec* out_st = rec.find(w, 13);
    ASSERT_TRUE(out_st && out_st->mem.size() == 1);
    EXPECT_EQ(out_st->mem[0].addr[3], uint64_t(out + w * 32 + 3));
  }
  // The same results without a listener.
  std::vector<float> with(out, out + 64);
  std::memset(out, 0, 64 * 4);
  g.opts.listener = nullptr;
  ASSERT_EQ(g.run("copy", {1, 1, 1}, {64, 1, 1}, in, out).status, Status::Success);
  EXPECT_EQ(std::vector<float>(out, out + 64), with);
}

TEST(Listener, AsyncCopyReportsTheGlobalReadAndTheSharedWrite) {
  Gpu g;
  float* in = g.alloc(32);
  float* out = g.alloc(32);
  for (int i = 0; i < 32; ++i) in[i] = float(i * 3);
  Recorder rec;
  g.opts.listener = &rec;
  ASSERT_EQ(g.run("acopy", {1, 1, 1}, {32, 1, 1}, in, out).status, Status::Success);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(out[i], float(i * 3));
  const Rec* cp = rec.find(0, 6);
  ASSERT_TRUE(cp);
  ASSERT_EQ(cp->mem.size(), 2u);
  EXPECT_EQ(cp->mem[0].space, ptx::Space::Global);
  EXPECT_EQ(cp->mem[0].kind, exec::AccessKind::AsyncCopy);
  EXPECT_EQ(cp->mem[0].addr[5], uint64_t(in + 5));
  EXPECT_EQ(cp->mem[1].space, ptx::Space::Shared);
  EXPECT_EQ(cp->mem[1].kind, exec::AccessKind::Store);
  EXPECT_EQ(cp->mem[1].addr[5] - cp->mem[1].addr[0], 20u);
}

timing::TimingParams params() {
  timing::TimingParams p;
  p.sm_count = 4;
  for (auto& pt : p.pipes) pt = {4, 1};
  p.pipes[size_t(program::Pipe::Lsu)] = {4, 1};
  return p;
}

uint64_t predicted_cycles(unsigned threads, uint64_t* instructions) {
  Gpu g;
  float* in = g.alloc(64 * 64);
  float* out = g.alloc(64 * 64);
  const auto p = params();
  timing::KernelModel model(p, {"copy", {64, 1, 1}, {64, 1, 1}, 8}, 64, {true});
  timing::TraceRecorder rec([&](std::unique_ptr<timing::CtaTrace> t) { model.add(std::move(t)); },
                            [&](uint32_t c) { return model.wanted(c); });
  g.opts.listener = &rec;
  g.opts.threads = threads;
  EXPECT_EQ(g.run("copy", {64, 1, 1}, {64, 1, 1}, in, out).status, Status::Success);
  auto k = model.finish();
  *instructions = k.warp_instructions;
  return k.cycles;
}

TEST(Listener, TimingIsTheSameOnAnyNumberOfHostThreads) {
  uint64_t i1 = 0, i2 = 0;
  const uint64_t c1 = predicted_cycles(1, &i1), c2 = predicted_cycles(2, &i2);
  EXPECT_GT(c1, 0u);
  EXPECT_EQ(c1, c2);
  EXPECT_EQ(i1, 64u * 2 * 15);  // every executed warp instruction reached the model
  EXPECT_EQ(i2, i1);
}

}  // namespace
