// The pieces the JitDiff tests share: a one-instruction kernel run through
// its bound handler or compiled as a block, on the same random warp state.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "../exec/ops_test_util.h"
#include "exec/device_memory.h"
#include "jit/jit.h"

namespace softgpu::exec::test {

inline constexpr uint32_t kRegs = 16, kPreds = 8;

inline uint64_t edge_value(std::mt19937_64& rng) {
  static const uint64_t edges[] = {
      0, 1, ~0ull, 0x7fffffffull, 0x80000000ull, 0xffffffff80000000ull, 0x8000000000000000ull, 0x7fffffffffffffffull,
      fbits(0.0f), fbits(-0.0f), fbits(1.5f), fbits(-2.25f), fbits(INFINITY), fbits(-INFINITY), 0x7fc00000, 0xffc00001,
      0x7f800001, 0x00000001, 0x807fffff, fbits(1e-40f), fbits(3.4e38f), dbits(0.0), dbits(-0.0), dbits(1e308),
      dbits(-INFINITY), 0x7ff8000000000001ull, 0x0000000000000001ull, dbits(2.5), 31, 32, 33, 63, 64, 65, 15, 16, 17,
      0xffff, 0x8000, 0x7fff, 0x100000000ull};
  switch (rng() % 4) {
    case 0: return edges[rng() % std::size(edges)];
    case 1: return rng() % 80;  // small values: shift amounts, counts
    case 2: return fbits(float(int64_t(rng() % 2001) - 1000) / 8.0f);
    default: return rng();
  }
}

// One JIT for the whole test program, as a process has one.
inline CodeCompiler* shared_jit() {
  static std::unique_ptr<CodeCompiler> jit = [] {
    std::string why;
    auto j = jit::make_compiler({}, &why);
    EXPECT_TRUE(j) << why;
    return j;
  }();
  return jit.get();
}

struct Side {
  WarpHarness h;
  CodeCompiler* jit = nullptr;
  std::byte params[32] = {};
  explicit Side(bool with_jit) {
    h.L.kernel = &h.lp.prog.functions[0];
    h.lp.prog.functions[0].num_regs = kRegs;
    h.lp.prog.functions[0].num_preds = kPreds;
    h.cta.shared.resize(256);
    // A kernel with 24 bytes of parameters (random, from seed()).
    h.lp.prog.functions[0].is_entry = true;
    h.lp.prog.functions[0].kernel_param_bytes = 24;
    h.L.params = params;
    if (with_jit) jit = shared_jit();
  }
  // ld/st.global reach `mem`'s arena, as in a launch on that memory.
  void use_global(DeviceMemory& mem) {
    h.L.memory = &mem;
    h.L.arena_base = mem.arena().base();
    h.L.arena_size = mem.arena().size();
    h.L.arena_flags = mem.arena().flags();
    h.w = std::make_unique<Warp>(h.L, h.cta, 0, 32);
  }
  void seed(uint64_t s) {
    std::mt19937_64 rng(s);
    for (uint32_t r = 0; r < kRegs; ++r)
      for (uint32_t l = 0; l < 32; ++l) h.reg(r)[l] = edge_value(rng);
    for (uint32_t p = 0; p < kPreds; ++p) h.pred(p) = uint32_t(rng());
    for (auto& b : h.cta.shared) b = std::byte(rng());
    for (auto& b : params) b = std::byte(rng());
  }
  // Runs `in` under `mask`: interpreted, or as a compiled one-instruction block.
  bool exec(const Inst& in, uint32_t mask, std::shared_ptr<const CompiledCode>& keep) {
    BindFn b = handler_table().bind[size_t(in.op)];
    ExecFn e = b ? b(in) : nullptr;
    if (!e) return false;
    h.lp.prog.functions[0].code[0] = in;
    h.lp.fns[0][0] = e;
    if (!jit) {
      uint32_t m = mask;
      if (in.has_guard) m &= in.guard_neg ? ~h.pred(in.guard) : h.pred(in.guard);
      if (m) e(*h.w, h.lp.prog.functions[0].code[0], m);
      return true;
    }
    keep = jit->compile(h.lp, 0);
    if (!keep || !keep->entry[0]) { ADD_FAILURE() << "not compiled: " << in.text(); return false; }
    BlockCtx c = h.w->block_ctx(mask);
    c.shared = h.cta.shared.data();
    c.shared_size = h.cta.shared.size();
    *c.pc = 0;  // the one-instruction function, from its start
    EXPECT_EQ(keep->entry[0](&c), 1u);
    if (!h.w->faulted()) {
      EXPECT_EQ(h.w->current_pc(), 1u);
    }
    return true;
  }
};

// Sets R(1) and R(2) from `vals` (when given): with `pairs`, lane l of
// seed s gets the pair number (s - 1) * 32 + l of vals x vals, so that the
// seeds together cover every pair of edges as operands; else a mix.
inline void set_values(Side& s, const std::vector<uint64_t>& vals, uint64_t seed, bool pairs) {
  const size_t n = vals.size();
  if (!n) return;
  for (uint32_t l = 0; l < 32; ++l) {
    const size_t p = size_t(seed - 1) * 32 + l;
    s.h.reg(1)[l] = pairs ? vals[p % n] : vals[(l + seed * 32) % n];
    s.h.reg(2)[l] = pairs ? vals[p / n % n] : vals[(l * 7 + seed * 13) % n];
  }
}

// True if `in` reads R(2) as a second source (check then covers all pairs).
inline bool binary_form(const Inst& in) { return in.nops == 3 && in.o[2].kind == Operand::Kind::Reg && in.o[2].reg == 2; }

// Runs the form on both, over several seeds and masks, and compares
// (R(1) and R(2) from `vals` if given).
inline void check(const Inst& in, const std::vector<uint64_t>& vals = {}) {
  const bool pairs = binary_form(in) && !vals.empty();
  const uint64_t seeds = pairs ? (vals.size() * vals.size() + 31) / 32 : 3;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    for (uint32_t mask : {0xffffffffu, 0x0f0f00f1u, 0x80000000u}) {
      if (seed > 3 && mask != 0xffffffffu) continue;  // the rest of the pairs: the lowered (full-warp) code
      Side a(false), b(true);
      a.seed(seed);
      b.seed(seed);
      set_values(a, vals, seed, pairs);
      set_values(b, vals, seed, pairs);
      std::shared_ptr<const CompiledCode> keep;
      if (!a.exec(in, mask, keep)) { ADD_FAILURE() << "no handler: " << in.text(); return; }
      ASSERT_TRUE(b.exec(in, mask, keep));
      ASSERT_EQ(a.h.w->faulted(), b.h.w->faulted()) << in.text();
      for (uint32_t r = 0; r < kRegs; ++r)
        for (uint32_t l = 0; l < 32; ++l)
          ASSERT_EQ(a.h.reg(r)[l], b.h.reg(r)[l])
              << in.text() << " seed " << seed << " mask " << std::hex << mask << " reg " << std::dec << r << " lane " << l;
      for (uint32_t p = 0; p < kPreds; ++p) ASSERT_EQ(a.h.pred(p), b.h.pred(p)) << in.text() << " pred " << p;
      ASSERT_TRUE(a.h.cta.shared == b.h.cta.shared) << in.text() << ": shared memory differs";
    }
  }
}

inline Inst guarded(Inst in, uint32_t p, bool neg) {
  in.has_guard = true;
  in.guard = p;
  in.guard_neg = neg;
  return in;
}

// True if the JIT lowers `in` to IR (no handler call in its full-warp copy),
// run on `b` (a compiling side, set up as the instruction needs).
inline bool lowered_on(Side& b, const Inst& in) {
  b.seed(1);
  const jit::JitStats before = jit::stats(*b.jit);
  std::shared_ptr<const CompiledCode> keep;
  if (!b.exec(in, ~0u, keep)) return false;
  const jit::JitStats after = jit::stats(*b.jit);
  return after.lowered == before.lowered + 1 && after.through_handlers == before.through_handlers;
}
inline bool lowered(const Inst& in) {
  Side b(true);
  return lowered_on(b, in);
}

// A form the JIT lowers: it is lowered, and matches its handler unguarded
// and under a guard (a partial mask in the lowered code), on `vals`.
inline void check_lowered(const Inst& in, const std::vector<uint64_t>& vals) {
  EXPECT_TRUE(lowered(in)) << "not lowered: " << in.text();
  check(in, vals);
  check(guarded(in, 2, false), vals);
}

}  // namespace softgpu::exec::test
