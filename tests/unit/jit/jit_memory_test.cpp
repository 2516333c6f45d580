// The JIT's memory paths (src/jit/lower_mem.cpp, lower_vec.cpp) against the
// handlers: ld/st.shared, ld/st.global and ld.const, scalar (1 to 8 bytes) and .v2/.v4, at the lane
// addresses of tiled kernels
// (consecutive, two half-warp runs apart, overlapping or swapped, a
// broadcast, a broadcast per half warp) and at others (gaps, reversed, one
// lane off the run), without a guard and under guards that leave a half
// warp or scattered lanes; and the faults (a lane or a half warp past the
// end, misaligned lanes) with the same report and the same partial writes.
#include <algorithm>
#include <cstring>
#include <functional>
#include <vector>

#include "jit_diff_util.h"

using namespace softgpu;
using namespace softgpu::exec;
using namespace softgpu::exec::test;
using isa::Opcode;

namespace {

constexpr uint32_t kShared = 4096;  // the CTA's shared memory in these tests
constexpr uint64_t kWindow = 4096;  // the global bytes compared, at each end of the buffer

// Lane l's offset from the start of the region, for elements of `size`
// bytes; `end` is where accessible memory ends (the region's size).
struct Pattern {
  const char* name;
  std::function<uint64_t(uint32_t l, uint64_t size, uint64_t end)> at;
};
const Pattern kPatterns[] = {
    {"consecutive", [](uint32_t l, uint64_t s, uint64_t) { return l * s; }},
    {"halves apart", [](uint32_t l, uint64_t s, uint64_t) { return (l % 16) * s + (l / 16) * 384; }},
    {"halves overlapping", [](uint32_t l, uint64_t s, uint64_t) { return (l % 16) * s + (l / 16) * 4 * s; }},
    {"halves swapped", [](uint32_t l, uint64_t s, uint64_t) { return (l % 16) * s + (l < 16 ? 16 * s : 0); }},
    {"broadcast", [](uint32_t, uint64_t s, uint64_t) { return 40 * s; }},
    {"broadcast per half", [](uint32_t l, uint64_t s, uint64_t) { return (l / 16) * 64 + 2 * s; }},
    {"gaps", [](uint32_t l, uint64_t s, uint64_t) { return 2 * l * s; }},
    {"reversed", [](uint32_t l, uint64_t s, uint64_t) { return (31 - l) * s; }},
    {"one lane off", [](uint32_t l, uint64_t s, uint64_t) { return (l == 7 ? 50 : l) * s; }},
    {"misaligned", [](uint32_t l, uint64_t s, uint64_t) { return l * s + 2; }},
    {"past the end", [](uint32_t l, uint64_t s, uint64_t e) { return e - 24 * s + l * s; }},
    {"half past the end", [](uint32_t l, uint64_t s, uint64_t e) { return (l % 16) * s + (l < 16 ? 0 : e); }},
    {"broadcast past the end", [](uint32_t l, uint64_t, uint64_t e) { return l < 16 ? 0 : e; }},
};

Operand addr(uint32_t reg, int64_t imm) {
  Operand a;
  a.kind = Operand::Kind::Addr;
  a.reg = reg;
  a.imm = imm;
  return a;
}

// The global buffer both sides use in turn, and where its arena chunk ends
// (the next chunk is unmapped: accesses there fault).
struct GlobalBuffer {
  DeviceMemory mem{Bytes{64ull << 20}};
  uint64_t base = 0, end = 0;
  GlobalBuffer() {
    auto a = mem.allocate(Bytes{64 << 10}, MemKind::Device);
    base = a->value;
    const uint64_t ab = mem.arena().base();
    end = ab + ((base + (64 << 10) - ab + Arena::kChunk - 1) / Arena::kChunk) * Arena::kChunk - base;
    EXPECT_EQ(mem.prepare_write(reinterpret_cast<void*>(base), 64 << 10, "test", nullptr), Status::Success);
  }
  // The bytes a test may touch: the first and the last kWindow before `end`.
  std::byte* window(int i) { return reinterpret_cast<std::byte*>(base + (i ? end - kWindow : 0)); }
};
GlobalBuffer& global_buffer() {
  static GlobalBuffer g;
  return g;
}

// One side's run: the seeded state, the address register set to the
// pattern, the guard's predicate, the memory filled from the seed.
struct Run {
  Side side;
  std::vector<std::byte> global;  // the global windows after the run
  explicit Run(bool jit, bool global_space) : side(jit) {
    side.h.cta.shared.resize(kShared);
    if (global_space) side.use_global(global_buffer().mem);
  }
};

// `elems`: a vector form's element operands (the function's vec_operands).
void check_access(const Inst& in, const Pattern& p, bool global, uint32_t guard,
                  const std::vector<Operand>& elems = {}) {
  const uint32_t size = program::type_size(in.type) * std::max<uint32_t>(in.m.vec, 1);  // bytes per lane
  GlobalBuffer& g = global_buffer();
  const uint64_t region = global ? g.base : 0, end = global ? g.end : kShared;
  Run runs[2] = {Run(false, global), Run(true, global)};
  for (Run& r : runs) {
    r.side.h.lp.prog.functions[0].vec_operands = elems;
    r.side.seed(7);
    for (uint32_t l = 0; l < 32; ++l) r.side.h.reg(3)[l] = region + p.at(l, size, end) - uint64_t(in.o[in.op == Opcode::St ? 0 : 1].imm);
    r.side.h.pred(5) = guard;
    if (global) {
      std::mt19937_64 rng(11);
      for (int i = 0; i < 2; ++i)
        for (size_t b = 0; b < kWindow; ++b) g.window(i)[b] = std::byte(rng());
    }
    std::shared_ptr<const CompiledCode> keep;
    ASSERT_TRUE(r.side.exec(in, kFullMask, keep));
    if (global)
      for (int i = 0; i < 2; ++i) r.global.insert(r.global.end(), g.window(i), g.window(i) + kWindow);
  }
  const WarpHarness &a = runs[0].side.h, &b = runs[1].side.h;
  const std::string what = in.text() + " at " + p.name + (in.has_guard ? " guarded" : "");
  ASSERT_EQ(a.w->faulted(), b.w->faulted()) << what;
  if (a.w->faulted()) {
    ASSERT_TRUE(a.L.fault && b.L.fault);
    EXPECT_EQ(a.L.fault->status, b.L.fault->status) << what;
    // The same report; the compiled side's names the instruction (its pc
    // was advanced as the interpreter does; the handler here runs alone).
    EXPECT_EQ(b.L.fault->message.substr(0, a.L.fault->message.size()), a.L.fault->message) << what;
  }
  for (uint32_t r = 0; r < kRegs; ++r)
    for (uint32_t l = 0; l < 32; ++l)
      ASSERT_EQ(runs[0].side.h.reg(r)[l], runs[1].side.h.reg(r)[l]) << what << " reg " << r << " lane " << l;
  ASSERT_TRUE(a.cta.shared == b.cta.shared) << what << ": shared memory differs";
  ASSERT_TRUE(runs[0].global == runs[1].global) << what << ": global memory differs";
}

void check_space(ptx::Space space) {
  const bool global = space != ptx::Space::Shared;  // ld.const reads global memory
  for (Type t : {Type::U8, Type::S8, Type::U16, Type::S16, Type::U32, Type::S32, Type::F64})
    for (bool st : {false, true})
      for (int64_t imm : {0, 8}) {
        if (st && space == ptx::Space::Const) continue;
        Inst in = st ? make(Opcode::St, t, {addr(3, imm), R(1)}) : make(Opcode::Ld, t, {R(0), addr(3, imm)});
        in.m.space = space;
        EXPECT_TRUE(lowered(in)) << "not lowered: " << in.text();
        for (const Pattern& p : kPatterns) {
          check_access(in, p, global, 0);
          for (uint32_t guard : {0x0000ffffu, 0xffff0000u, 0x00ff0f01u, 0xffffffffu})
            check_access(guarded(in, 5, false), p, global, guard);
        }
      }
  if (space != ptx::Space::Const) return;
  // A __constant__ symbol plus an offset: no address register, one address
  // for every lane (inside the buffer, then past its chunk: a fault).
  for (uint64_t at : {uint64_t(72), global_buffer().end})
    for (Type t : {Type::U16, Type::F64}) {
      Inst in = make(Opcode::Ld, t, {R(0), addr(program::kNoReg, int64_t(global_buffer().base + at))});
      in.m.space = space;
      EXPECT_TRUE(lowered(in)) << "not lowered: " << in.text();
      check_access(in, kPatterns[0], true, 0);
      check_access(guarded(in, 5, false), kPatterns[0], true, 0x00ff0f01u);
    }
}

Operand vec(uint32_t n) {
  Operand v;
  v.kind = Operand::Kind::Vec;
  v.vec_begin = 0;
  v.vec_n = uint8_t(n);
  return v;
}

// .v2 and .v4: loads into distinct registers, with a sink, and into the
// address register (twice: the last element wins); stores of registers and
// an immediate.
void check_vectors(ptx::Space space) {
  const std::vector<std::vector<Operand>> loads = {
      {R(0), R(4)}, {R(0), R(4), Sink(), R(5)}, {R(3), R(4), R(5), R(3)}};
  const std::vector<std::vector<Operand>> stores = {{R(1), R(2)}, {R(1), I(-5), R(2), R(6)}};
  for (Type t : {Type::U8, Type::S16, Type::S32, Type::F64})
    for (bool st : {false, true})
      for (const auto& elems : st ? stores : loads) {
        const uint32_t n = uint32_t(elems.size());
        Inst in = st ? make(Opcode::St, t, {addr(3, 8), vec(n)}) : make(Opcode::Ld, t, {vec(n), addr(3, 8)});
        in.m.space = space;
        in.m.vec = uint8_t(n);
        {  // lowered (the function's vector operands set as check_access sets them)
          Side probe(true);
          probe.h.lp.prog.functions[0].vec_operands = elems;
          EXPECT_TRUE(lowered_on(probe, in)) << "not lowered: " << in.text();
        }
        for (const Pattern& p : kPatterns) {
          check_access(in, p, space == ptx::Space::Global, 0, elems);
          for (uint32_t guard : {0xffff0000u, 0x00ff0f01u})
            check_access(guarded(in, 5, false), p, space == ptx::Space::Global, guard, elems);
        }
      }
}

}  // namespace

TEST(JitDiff, SharedAccessPatterns) { check_space(ptx::Space::Shared); }
TEST(JitDiff, GlobalAccessPatterns) { check_space(ptx::Space::Global); }
TEST(JitDiff, ConstLoadPatterns) { check_space(ptx::Space::Const); }
TEST(JitDiff, SharedVectorAccessPatterns) { check_vectors(ptx::Space::Shared); }
TEST(JitDiff, GlobalVectorAccessPatterns) { check_vectors(ptx::Space::Global); }
