// The recorder's conversion of executor records into trace operations, on a
// decoded kernel and hand-made records; expectations worked out by hand.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <string>
#include <vector>

#include "../program/decode_util.h"
#include "timing/recorder.h"

using namespace softgpu;
using namespace softgpu::timing;

namespace {

exec::WarpStep step(const program::Function& f, uint32_t pc, std::span<const exec::MemoryAccess> mem = {},
                    exec::StepOutcome out = exec::StepOutcome::Retired) {
  exec::WarpStep s;
  s.fn = &f;
  s.pc = pc;
  s.inst = &f.code[pc];
  s.active = s.executed = ~0u;
  s.mem = mem;
  s.outcome = out;
  return s;
}

TEST(TraceRecorder, ConvertsEachKindOfRecord) {
  auto p = test::decode(
      "ld.global.f32 %f1, [%rd1];\n"       // 0
      "add.f32 %f2, %f1, %f1;\n"           // 1
      "st.shared.f32 [%rd2], %f2;\n"       // 2
      "atom.global.add.u32 %r1, [%rd3], 1;\n"  // 3
      "bar.sync 0;\n"                      // 4
      "exit;\n");                          // 5
  const auto& f = p.functions[0];
  uint64_t consecutive[32], strided[32], same[32];
  for (int l = 0; l < 32; ++l) {
    consecutive[l] = 0x10000 + 4 * l;
    strided[l] = 0x200 + 128 * l;  // shared: every lane in bank 0
    same[l] = 0x20000;
  }
  exec::MemoryAccess ld{ptx::Space::Global, exec::AccessKind::Load, 4, ~0u, consecutive};
  exec::MemoryAccess st{ptx::Space::Shared, exec::AccessKind::Store, 4, ~0u, strided};
  exec::MemoryAccess at{ptx::Space::Global, exec::AccessKind::Atomic, 4, 0xffu, same};
  CtaTrace t;
  TraceRecorder::append(t, step(f, 0, {&ld, 1}));
  TraceRecorder::append(t, step(f, 1));
  TraceRecorder::append(t, step(f, 2, {&st, 1}));
  TraceRecorder::append(t, step(f, 3, {&at, 1}));
  TraceRecorder::append(t, step(f, 4, {}, exec::StepOutcome::AtBarrier));
  TraceRecorder::append(t, step(f, 5, {}, exec::StepOutcome::Exited));
  ASSERT_EQ(t.warps.size(), 1u);
  const auto& ops = t.warps[0].ops;
  ASSERT_EQ(ops.size(), 6u);
  EXPECT_EQ(ops[0].kind, OpKind::Global);
  EXPECT_FALSE(ops[0].store);
  ASSERT_EQ(ops[0].n_lines, 1u);
  EXPECT_EQ(t.lines[ops[0].lines].line, 0x10000u);
  EXPECT_EQ(t.lines[ops[0].lines].sectors, 0b1111);
  EXPECT_EQ(ops[0].pipe, program::Pipe::Lsu);
  EXPECT_EQ(ops[1].kind, OpKind::Compute);
  EXPECT_EQ(ops[1].pipe, program::Pipe::Fma);
  // add.f32 %f2, %f1, %f1 writes %f2 (slot 18) and reads %f1 (slot 17).
  ASSERT_EQ(ops[1].n_writes, 1);
  ASSERT_EQ(ops[1].n_reads, 1);
  EXPECT_EQ(t.slots[ops[1].slots], 18u);
  EXPECT_EQ(t.slots[ops[1].slots + 1], 17u);
  EXPECT_EQ(ops[2].kind, OpKind::Shared);
  EXPECT_EQ(ops[2].wavefronts, 32u);  // a 32-way conflict
  EXPECT_EQ(ops[3].kind, OpKind::Atomic);
  EXPECT_EQ(ops[3].wavefronts, 8u);  // 8 lanes on one address
  EXPECT_EQ(ops[4].kind, OpKind::Barrier);
  EXPECT_EQ(ops[5].kind, OpKind::Exit);
}

// A bulk copy of 16 KB (one lane) is all its lines, every one recorded (a
// warp's ordinary access touches 64 at most). It skips the L1 (the TMA unit
// reads the L2), as .cg loads and cp.async do (PTX cache operator .cg:
// cache in L2 and below, not L1); cp.async.ca and plain loads do not.
TEST(TraceRecorder, ABulkCopyRecordsEveryLineAndCgAccessesSkipTheL1) {
  auto p = test::decode(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 16384, [%r2];\n"
      "cp.async.cg.shared.global [%r3], [%rd2], 16;\n"
      "cp.async.ca.shared.global [%r3], [%rd2], 16;\n"
      "ld.global.cg.v4.f32 {%f1, %f2, %f3, %f4}, [%rd2];\n"
      "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd2];\n");
  const auto& f = p.functions[0];
  uint64_t base[32] = {0x100000 + 64}, lanes[32];  // the bulk copy's start, mid-line
  for (int l = 0; l < 32; ++l) lanes[l] = 0x200000 + 16 * l;
  exec::MemoryAccess bulk{ptx::Space::Global, exec::AccessKind::AsyncCopy, 16384, 1u, base};
  exec::MemoryAccess small{ptx::Space::Global, exec::AccessKind::AsyncCopy, 16, ~0u, lanes};
  exec::MemoryAccess ld{ptx::Space::Global, exec::AccessKind::Load, 16, ~0u, lanes};
  CtaTrace t;
  TraceRecorder::append(t, step(f, 0, {&bulk, 1}));
  TraceRecorder::append(t, step(f, 1, {&small, 1}));
  TraceRecorder::append(t, step(f, 2, {&small, 1}));
  TraceRecorder::append(t, step(f, 3, {&ld, 1}));
  TraceRecorder::append(t, step(f, 4, {&ld, 1}));
  const auto& ops = t.warps[0].ops;
  ASSERT_EQ(ops.size(), 5u);
  EXPECT_EQ(ops[0].kind, OpKind::AsyncCopy);
  ASSERT_EQ(ops[0].n_lines, 129u);  // 16 KB from mid-line: 127 whole lines and two halves
  uint32_t sectors = 0;
  for (uint32_t i = 0; i < ops[0].n_lines; ++i) sectors += uint32_t(std::popcount(unsigned(t.lines[ops[0].lines + i].sectors)));
  EXPECT_EQ(sectors, 16384u / 32);
  EXPECT_EQ(ops[1].n_lines, 4u);
  const bool skips[5] = {true, true, false, true, false};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(ops[i].skips_l1, skips[i]) << i;
  EXPECT_EQ(ops[3].kind, OpKind::Global);
}

TEST(TraceRecorder, GuardedOffInstructionsWriteNothing) {
  auto p = test::decode("@%p1 add.s32 %r1, %r2, %r3;\n");
  const auto& f = p.functions[0];
  CtaTrace t;
  auto s = step(f, 0);
  s.executed = 0;
  TraceRecorder::append(t, s);
  EXPECT_EQ(t.warps[0].ops[0].n_writes, 0);
  EXPECT_EQ(t.warps[0].ops[0].n_reads, 3);  // %r2, %r3 and the guard
}

// Shared atomics pay the bank conflicts of their addresses like loads, and
// lanes on one word serialize: 32 lanes on one word are 32 wavefronts (a
// load of that word broadcasts in 1); 32 lanes on 16 words, two each and
// every word in its own bank, are 2.
TEST(TraceRecorder, SharedAtomicsOnOneWordSerialize) {
  auto p = test::decode(
      "atom.shared.add.u32 %r1, [%r2], 1;\n"  // 0
      "ld.shared.u32 %r3, [%r2];\n");         // 1
  const auto& f = p.functions[0];
  uint64_t same[32], pairs[32];
  for (int l = 0; l < 32; ++l) {
    same[l] = 0x100;
    pairs[l] = 0x100 + 4 * (l / 2);
  }
  exec::MemoryAccess at_same{ptx::Space::Shared, exec::AccessKind::Atomic, 4, ~0u, same};
  exec::MemoryAccess red_pairs{ptx::Space::Shared, exec::AccessKind::Reduce, 4, ~0u, pairs};
  exec::MemoryAccess ld_same{ptx::Space::Shared, exec::AccessKind::Load, 4, ~0u, same};
  CtaTrace t;
  TraceRecorder::append(t, step(f, 0, {&at_same, 1}));
  TraceRecorder::append(t, step(f, 0, {&red_pairs, 1}));
  TraceRecorder::append(t, step(f, 1, {&ld_same, 1}));
  const auto& ops = t.warps[0].ops;
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].kind, OpKind::Shared);
  EXPECT_EQ(ops[0].wavefronts, 32u);
  EXPECT_EQ(ops[1].wavefronts, 2u);
  EXPECT_EQ(ops[2].wavefronts, 1u);
}

TEST(TraceRecorder, HandsEachWantedCtaToTheSink) {
  std::vector<uint32_t> got;
  TraceRecorder r([&](std::unique_ptr<CtaTrace> t) { got.push_back(t->cta_linear); },
                  [](uint32_t cta) { return cta % 2 == 0; });
  for (uint32_t c = 0; c < 5; ++c) r.cta_end(c, r.cta_begin(c, {c, 0, 0}, 1));
  EXPECT_EQ(got, (std::vector<uint32_t>{0, 2, 4}));
}

// A mul the decoder fused into its add (program/contract.cpp) is no
// instruction on the GPU: the executor runs it, the trace has only the fma.
TEST(TraceRecorder, AFoldedMulIsNotIssued) {
  auto p = test::decode(
      "ld.param.u32 %r1, [n];\n"        // 0
      "cvt.rn.f32.u32 %f1, %r1;\n"      // 1
      "mul.f32 %f4, %f1, %f1;\n"        // 2: folded
      "add.f32 %f5, %f4, %f1;\n"        // 3: the fma
      "exit;\n");                       // 4
  const auto& f = p.functions[0];
  ASSERT_TRUE(f.code[2].m.folded());
  std::vector<std::unique_ptr<CtaTrace>> got;
  TraceRecorder r([&](std::unique_ptr<CtaTrace> t) { got.push_back(std::move(t)); }, [](uint32_t) { return true; });
  void* ctx = r.cta_begin(0, {0, 0, 0}, 1);
  for (uint32_t pc = 0; pc < 5; ++pc) {
    auto s = step(f, pc, {}, pc == 4 ? exec::StepOutcome::Exited : exec::StepOutcome::Retired);
    s.cta_context = ctx;
    r.step(s);
  }
  r.cta_end(0, ctx);
  ASSERT_EQ(got.size(), 1u);
  const auto& ops = got[0]->warps[0].ops;
  ASSERT_EQ(ops.size(), 4u);  // ld.param, cvt, fma, exit
  EXPECT_EQ(ops[2].pipe, program::Pipe::Fma);
  EXPECT_EQ(ops[3].kind, OpKind::Exit);
}

}  // namespace

namespace {

// A recorder's CTA context as TraceRecorder::step keeps it: append, then link.
struct Linked {
  PhaseCounts counts;
  CtaTrace t;
  PhaseLinker linker{counts};
  uint32_t feed(const exec::WarpStep& s) {
    TraceRecorder::append(t, s);
    return linker.link(t, s);
  }
};

exec::WarpStep on(const program::Function& f, uint32_t warp, uint32_t pc, std::span<const exec::SyncEvent> sync = {}) {
  exec::WarpStep s = step(f, pc);
  s.warp.warp_in_cta = warp;
  s.sync = sync;
  return s;
}

constexpr const char* kSpin =
    "mbarrier.arrive.shared.b64 %rd5, [%rd1];\n"               // 0
    "LOOP: mbarrier.try_wait.parity.shared.b64 %p1, [%rd1], %r1;\n"  // 1
    "@%p1 bra DONE;\n"                                         // 2
    "bra LOOP;\n"                                              // 3
    "DONE: add.f32 %f2, %f1, %f1;\n"                           // 4
    "exit;\n";                                                 // 5

}  // namespace

// Warp 0 spins on an mbarrier (the executor's failed try_waits) until warps
// 1 and 2 have arrived: its trace keeps the one wait that succeeded, linked
// to the phase both arrivals count toward; the spin iterations are gone.
TEST(TraceRecorder, MbarrierSpinBecomesOneWaitOnThePhase) {
  auto p = test::decode(kSpin);
  const auto& f = p.functions[0];
  const uint64_t obj = 0x5a5a0001;
  using K = exec::SyncEvent::Kind;
  const exec::SyncEvent pending{K::WaitPending, false, obj}, done{K::WaitDone, false, obj};
  const exec::SyncEvent arrive{K::Arrive, false, obj}, last{K::Arrive, true, obj};
  Linked c;
  EXPECT_EQ(c.feed(on(f, 1, 0, {&arrive, 1})), 1u);
  for (int spin = 0; spin < 3; ++spin) {
    EXPECT_EQ(c.feed(on(f, 0, 1, {&pending, 1})), 0u);
    EXPECT_EQ(c.feed(on(f, 0, 2)), 0u);
    EXPECT_EQ(c.feed(on(f, 0, 3)), 0u);
  }
  EXPECT_EQ(c.feed(on(f, 2, 0, {&last, 1})), 1u);
  EXPECT_EQ(c.feed(on(f, 0, 1, {&done, 1})), 1u);
  EXPECT_FALSE(c.linker.holding());
  c.feed(on(f, 0, 2));
  c.feed(on(f, 0, 4));
  const auto& w0 = c.t.warps[0].ops;
  ASSERT_EQ(w0.size(), 3u);  // the wait, its branch, the add
  EXPECT_EQ(w0[0].kind, OpKind::MbarWait);
  ASSERT_EQ(c.t.phases.size(), 1u);
  EXPECT_EQ(c.t.phases[0], 2u);  // two arrivals
  EXPECT_EQ(w0[0].phase, 1u);
  for (int w : {1, 2}) {
    ASSERT_EQ(c.t.warps[size_t(w)].ops.size(), 1u);
    EXPECT_EQ(c.t.warps[size_t(w)].ops[0].role, PhaseRole::Arrive);
    EXPECT_EQ(c.t.warps[size_t(w)].ops[0].phase, 1u);
  }
  // The next phase of the same object is another one.
  c.feed(on(f, 1, 0, {&last, 1}));
  EXPECT_EQ(c.t.warps[1].ops.back().phase, 2u);
}

// A failed wait followed by other work that never waits on the object again
// is not a spin: the held ops come back, in order, at the warp's exit.
TEST(TraceRecorder, HeldOpsComeBackWhenNoWaitFollows) {
  auto p = test::decode(kSpin);
  const auto& f = p.functions[0];
  const exec::SyncEvent pending{exec::SyncEvent::Kind::WaitPending, false, 0x5a5a0002};
  Linked c;
  EXPECT_EQ(c.feed(on(f, 0, 1, {&pending, 1})), 0u);
  EXPECT_EQ(c.feed(on(f, 0, 4)), 0u);
  exec::WarpStep ex = on(f, 0, 5);
  ex.outcome = exec::StepOutcome::Exited;
  EXPECT_EQ(c.feed(ex), 3u);
  const auto& ops = c.t.warps[0].ops;
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].pipe, program::Pipe::Lsu);  // the failed try_wait, an ordinary op
  EXPECT_NE(ops[0].kind, OpKind::MbarWait);
  EXPECT_EQ(ops[1].pipe, program::Pipe::Fma);
  EXPECT_EQ(ops[2].kind, OpKind::Exit);
}

// An op whose accesses come in several groups (a TMA box, one group per
// row; a lane's vector elements) keeps the lines of all of them, each once.
TEST(TraceRecorder, EveryGroupsLinesCountOnce) {
  auto p = test::decode("ld.global.v2.f32 {%f1, %f2}, [%rd1];\n");
  const auto& f = p.functions[0];
  uint64_t a0[32] = {0x1000}, a1[32] = {0x2004}, a2[32] = {0x1040};
  const exec::MemoryAccess groups[3] = {{ptx::Space::Global, exec::AccessKind::Load, 4, 1u, a0},
                                        {ptx::Space::Global, exec::AccessKind::Load, 4, 1u, a1},
                                        {ptx::Space::Global, exec::AccessKind::Load, 4, 1u, a2}};
  CtaTrace t;
  TraceRecorder::append(t, step(f, 0, groups));
  const TraceOp& op = t.warps[0].ops[0];
  ASSERT_EQ(op.n_lines, 2u);
  EXPECT_EQ(t.lines[op.lines].line, 0x1000u);
  EXPECT_EQ(t.lines[op.lines].sectors, 0b0101);  // 0x1000 and 0x1040: sectors 0 and 2
  EXPECT_EQ(t.lines[op.lines + 1].line, 0x2000u);
}

// A wgmma m64n64k16 f16 whose completing warp read A (64 rows x 32 bytes)
// once and B (64 x 32 bytes) once per warp of the warpgroup, as the
// executor does: the distinct 4 KB go through the banks, 32 wavefronts.
TEST(TraceRecorder, WgmmaChargesItsDistinctOperandBytes) {
  std::string d;
  for (int i = 1; i <= 32; ++i) d += (i > 1 ? ", %acc" : "%acc") + std::to_string(i);
  auto p = test::decode(".reg .f32 %acc<33>;\nwgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {" + d +
                        "}, %rd1, %rd2, 1, 1, 1, 0, 0;\n");
  const auto& f = p.functions[0];
  std::vector<std::array<uint64_t, 32>> addr;
  for (uint64_t i = 0; i < 128; ++i) addr.push_back({0x0 + 16 * i});  // A: 2 KB
  for (int rank = 0; rank < 4; ++rank)
    for (uint64_t i = 0; i < 128; ++i) addr.push_back({0x800 + 16 * i});  // B: 2 KB, four times
  std::vector<exec::MemoryAccess> mem;
  for (auto& a : addr) mem.push_back({ptx::Space::Shared, exec::AccessKind::Load, 16, 1u, a.data()});
  CtaTrace t;
  TraceRecorder::append(t, step(f, 0, mem));
  const TraceOp& op = t.warps[0].ops[0];
  EXPECT_EQ(op.kind, OpKind::Compute);
  EXPECT_TRUE(op.async_tensor);
  EXPECT_EQ(op.tensor_flops, 2u * 16 * 64 * 16);  // the warp's quarter
  EXPECT_EQ(op.wavefronts, 32u);
}
