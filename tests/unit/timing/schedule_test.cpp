// The compiler-like issue order (timing/schedule.h): which loads move up,
// how far, and what stops them; and what it is for, an unrolled sum whose
// loads overlap once hoisted, in SM-model cycles worked out by hand.
#include <gtest/gtest.h>

#include "timing/schedule.h"
#include "timing/sm_model.h"
#include "trace_builder.h"

using namespace softgpu::timing;
using softgpu::program::Pipe;

namespace {

// The order of warp 0's ops after hoisting, by their first written slot
// (or 0 for none).
std::vector<uint32_t> order(Cta& c) {
  hoist_loads(c.t);
  std::vector<uint32_t> v;
  for (const TraceOp& o : c.t.warps[0].ops) v.push_back(o.n_writes ? c.t.slots[o.slots] : 0);
  return v;
}

TEST(HoistLoads, LoadsOfAnUnrolledSumMoveAheadOfItsAdds) {
  Cta c(1);  // r2 += ld [r1]; r2 += ld [r1 + 128]; r2 += ld [r1 + 256]
  for (uint32_t k = 0; k < 3; ++k) {
    c.load(0, 10 + k, 1, 128 * k, 0b0001);
    c.op(0, Pipe::Fma, {2}, {2, 10 + k});
  }
  EXPECT_EQ(order(c), (std::vector<uint32_t>{10, 11, 12, 2, 2, 2}));
}

TEST(HoistLoads, ALoadStaysBehindWhatItDependsOn) {
  Cta raw(1);  // its address is computed just before it
  raw.op(0, Pipe::Alu, {1}, {1});
  raw.load(0, 10, 1, 0, 0b0001);
  EXPECT_EQ(order(raw), (std::vector<uint32_t>{1, 10}));
  Cta war(1);  // the add reads the register the load overwrites
  war.op(0, Pipe::Fma, {3}, {10});
  war.load(0, 10, 1, 0, 0b0001);
  EXPECT_EQ(order(war), (std::vector<uint32_t>{3, 10}));
  Cta waw(1);  // both write r10
  waw.op(0, Pipe::Fma, {10}, {4});
  waw.load(0, 10, 1, 0, 0b0001);
  EXPECT_EQ(order(waw), (std::vector<uint32_t>{10, 10}));
  EXPECT_EQ(waw.t.warps[0].ops[1].kind, OpKind::Global);
}

TEST(HoistLoads, StoresBranchesBarriersAndShufflesStopIt) {
  for (auto stop : {0, 1, 2, 3}) {
    Cta c(1);
    c.op(0, Pipe::Fma, {5}, {6});
    if (stop == 0) {  // a store (of r7): no load passes it (it may alias)
      TraceOp& st = c.op(0, Pipe::Lsu, {}, {7}, OpKind::Global);
      st.store = true;
      st.lines = uint32_t(c.t.lines.size());
      st.n_lines = 1;
      c.t.lines.push_back({4096, 0b0001});
    }
    if (stop == 1) c.op(0, Pipe::Branch, {}, {});
    if (stop == 2) c.op(0, Pipe::Barrier, {}, {}, OpKind::Barrier);
    if (stop == 3) c.op(0, Pipe::Lsu, {8}, {9});  // a shuffle (or a fence)
    c.op(0, Pipe::Fma, {2}, {3});
    c.load(0, 10, 1, 0, 0b0001);
    const auto v = order(c);
    EXPECT_EQ(v.size(), 4u);
    EXPECT_EQ(v[2], 10u) << "stop " << stop;  // past the add, not past the stop
  }
}

TEST(HoistLoads, MovesAtMostTheWindow) {
  Cta c(1);
  for (uint32_t i = 0; i < 100; ++i) c.op(0, Pipe::Alu, {100 + i}, {});
  c.load(0, 10, 1, 0, 0b0001);
  hoist_loads(c.t);
  const auto& ops = c.t.warps[0].ops;
  EXPECT_EQ(ops[100 - kLoadHoistWindow].kind, OpKind::Global);
}

// One warp: r2 += ld, four times, each load a distinct cold line (from
// DRAM: 500 cycles), the add 4. As written, each add waits for its load
// and the next load issues the cycle after that add: loads at 0, 501,
// 1002, 1503, the last add at 2003, done at 2007. Hoisted, the four loads
// issue at 0..3 and overlap; the adds follow the first at 500, 4 cycles
// apart: done at 516.
TEST(HoistLoads, HoistedLoadsOverlapTheirLatencies) {
  auto cycles = [](bool hoist) {
    Cta c(1);
    for (uint32_t k = 0; k < 4; ++k) {
      c.load(0, 10 + k, 1, 4096 * k, 0b0001);
      c.op(0, Pipe::Fma, {2}, {2, 10 + k});
    }
    if (hoist) hoist_loads(c.t);
    TimingParams p = params();
    MemorySystem mem(p, 1.0);
    return SmModel(p, mem).run({&c.t}, 1).cycles;
  };
  EXPECT_EQ(cycles(false), 3u * 501 + 500 + 4);
  EXPECT_EQ(cycles(true), 500u + 4 * 4);
}

}  // namespace
