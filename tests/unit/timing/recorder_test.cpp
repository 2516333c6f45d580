// The recorder's conversion of executor records into trace operations, on a
// decoded kernel and hand-made records; expectations worked out by hand.
#include <gtest/gtest.h>

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

}  // namespace
