// cp.async, mbarrier, 16-bit float atomics and the ALU forms added with them,
// checked against hand-computed values and the PTX ISA's rules.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ops_test_util.h"

using namespace softgpu::exec;
using namespace softgpu::exec::test;
using isa::Opcode;
using program::AtomOp;
using program::Round;
using softgpu::ptx::Space;
using softgpu::Status;

namespace {

Operand A(uint32_t base_reg, int64_t off = 0) {
  Operand o;
  o.kind = Operand::Kind::Addr;
  o.reg = base_reg;
  o.imm = off;
  return o;
}
Operand AImm(int64_t addr) {
  Operand o;
  o.kind = Operand::Kind::Addr;
  o.imm = addr;
  return o;
}

Inst mk(Opcode op, Type t, std::vector<std::string> mods, std::initializer_list<Operand> ops) {
  Inst in = make(op, t, ops);
  for (const auto& m : mods) {
    if (m == ".approx") in.m.approx = true;
    if (m == ".ftz") in.m.ftz = true;
    if (m == ".relu") in.m.relu = true;
  }
  in.raw_mods = std::move(mods);
  return in;
}

// A harness with 256 bytes of shared memory and one global buffer.
struct MemHarness : WarpHarness {
  std::vector<unsigned char> global;
  MemHarness(size_t gbytes = 1024) : global(gbytes) {
    L.kernel = &lp.prog.functions[0];
    cta.shared.assign(256, std::byte{0});
    L.external = AllocationSnapshot({Allocation{reinterpret_cast<uint64_t>(global.data()), global.size(), MemKind::Device, "buf"}});
  }
  uint64_t gaddr(size_t off = 0) { return reinterpret_cast<uint64_t>(global.data()) + off; }
  unsigned char* sh() { return reinterpret_cast<unsigned char*>(cta.shared.data()); }
  uint64_t sh64(size_t off) { uint64_t v; std::memcpy(&v, sh() + off, 8); return v; }
  uint16_t sh16(size_t off) { uint16_t v; std::memcpy(&v, sh() + off, 2); return v; }
  uint32_t sh32(size_t off) { uint32_t v; std::memcpy(&v, sh() + off, 4); return v; }
  bool faulted() { return L.fault.has_value(); }
};

// ---------------------------------------------------------------- cp.async

Inst cp_async(const char* cache, std::initializer_list<Operand> ops) {
  Inst in = mk(Opcode::Cp, Type::None, {".async", cache, ".shared", ".global"}, ops);
  in.m.space = Space::Shared;
  return in;
}

TEST(CpAsync, CopiesSixteenBytesPerLane) {
  MemHarness h;
  for (size_t i = 0; i < 256; ++i) h.global[i] = uint8_t(i * 7 + 1);
  for (uint32_t l = 0; l < 32; ++l) { h.reg(1)[l] = 16 * (l % 16); h.reg(2)[l] = h.gaddr(16 * (15 - l % 16)); }
  ASSERT_TRUE(h.run(cp_async(".cg", {A(1), A(2), I(16)}), 0xffffu));
  ASSERT_FALSE(h.faulted());
  for (uint32_t l = 0; l < 16; ++l)
    for (uint32_t b = 0; b < 16; ++b) EXPECT_EQ(h.sh()[16 * l + b], uint8_t((16 * (15 - l) + b) * 7 + 1));
}

TEST(CpAsync, ZeroFillsPastSrcSize) {
  MemHarness h(21);  // the buffer ends 5 bytes after offset 16
  for (size_t i = 0; i < h.global.size(); ++i) h.global[i] = uint8_t(0x10 + i);
  std::memset(h.sh(), 0xAA, 64);
  h.fill(1, 0);
  h.fill(2, h.gaddr(16));
  h.fill(3, 5);  // src-size 5 < cp-size 16: bytes 5..15 become zero
  ASSERT_TRUE(h.run(cp_async(".ca", {A(1), A(2), I(16), R(3)}), 1));
  ASSERT_FALSE(h.faulted()) << h.L.fault->message;
  for (int b = 0; b < 5; ++b) EXPECT_EQ(h.sh()[b], 0x10 + 16 + b);
  for (int b = 5; b < 16; ++b) EXPECT_EQ(h.sh()[b], 0);
  EXPECT_EQ(h.sh()[16], 0xAA);  // nothing past cp-size

  // src-size 0: nothing is read (even past the buffer), 8 zero bytes written.
  std::memset(h.sh(), 0xAA, 64);
  h.fill(2, h.gaddr(32));
  ASSERT_TRUE(h.run(cp_async(".ca", {A(1), A(2), I(8), I(0)}), 1));
  ASSERT_FALSE(h.faulted());
  for (int b = 0; b < 8; ++b) EXPECT_EQ(h.sh()[b], 0);
  EXPECT_EQ(h.sh()[8], 0xAA);
}

TEST(CpAsync, IgnoreSrcPredicateWritesZeros) {
  MemHarness h;
  std::memset(h.global.data(), 0x55, 64);
  std::memset(h.sh(), 0xAA, 64);
  h.fill(2, h.gaddr(0));
  for (uint32_t l = 0; l < 2; ++l) h.reg(1)[l] = 4 * l;
  h.pred(0) = 0b10;  // lane 1 ignores its source
  ASSERT_TRUE(h.run(cp_async(".ca", {A(1), A(2), I(4), P(0)}), 0b11));
  EXPECT_EQ(h.sh32(0), 0x55555555u);
  EXPECT_EQ(h.sh32(4), 0u);
}

TEST(CpAsync, MisalignedAndOutOfBoundsFault) {
  MemHarness h;
  h.fill(1, 8);  // 16-byte copy to an 8-aligned shared address
  h.fill(2, h.gaddr(0));
  ASSERT_TRUE(h.run(cp_async(".cg", {A(1), A(2), I(16)}), 1));
  ASSERT_TRUE(h.faulted());
  EXPECT_EQ(h.L.fault->status, Status::MisalignedAddress);

  MemHarness g(16);
  g.fill(1, 0);
  g.fill(2, g.gaddr(16));  // past the buffer with a non-zero src-size
  ASSERT_TRUE(g.run(cp_async(".ca", {A(1), A(2), I(4)}), 1));
  ASSERT_TRUE(g.faulted());
  EXPECT_EQ(g.L.fault->status, Status::IllegalAddress);
}

TEST(CpAsync, GroupsAreBoundAndBulkIsNot) {
  WarpHarness h;
  EXPECT_TRUE(h.bound(mk(Opcode::Cp, Type::None, {".async", ".commit_group"}, {})));
  EXPECT_TRUE(h.bound(mk(Opcode::Cp, Type::None, {".async", ".wait_group"}, {I(0)})));
  EXPECT_TRUE(h.bound(mk(Opcode::Cp, Type::None, {".async", ".wait_all"}, {})));
  EXPECT_FALSE(h.bound(mk(Opcode::Cp, Type::None, {".async", ".bulk", ".shared::cluster", ".global"}, {AImm(0), AImm(0), I(16)})));
  Inst cg8 = cp_async(".cg", {AImm(0), AImm(0), I(8)});
  EXPECT_FALSE(h.bound(cg8));  // .cg copies 16 bytes only
}

// ---------------------------------------------------------------- mbarrier

Inst mbar(const char* op, std::initializer_list<Operand> ops, std::vector<std::string> extra = {}) {
  std::vector<std::string> mods{op};
  mods.insert(mods.end(), extra.begin(), extra.end());
  mods.push_back(".shared");
  mods.push_back(".b64");
  Inst in = mk(Opcode::Mbarrier, Type::B64, mods, ops);
  in.m.space = Space::Shared;
  return in;
}

constexpr uint64_t kInitBit = 1ull << 62, kPhaseBit = 1ull << 63;

TEST(Mbarrier, InitEncodingAndOnePhase) {
  MemHarness h;
  ASSERT_TRUE(h.run(mbar(".init", {AImm(8), I(3)}), 1));
  EXPECT_EQ(h.sh64(8), kInitBit | (3ull << 20) | 3ull);  // pending 3, expected 3, phase 0
  // Two of three arrive: lanes in order get pending 2 and 1.
  ASSERT_TRUE(h.run(mbar(".arrive", {R(0), AImm(8)}), 0b11));
  EXPECT_EQ(h.reg(0)[0], kInitBit | 2);
  EXPECT_EQ(h.reg(0)[1], kInitBit | 1);
  ASSERT_TRUE(h.run(mbar(".pending_count", {R(4), R(0)}), 0b11));
  EXPECT_EQ(h.reg(4)[1], 1u);
  ASSERT_TRUE(h.run(mbar(".test_wait", {P(0), AImm(8), R(0)}), 0b11));
  EXPECT_EQ(h.pred(0) & 0b11, 0u);
  // Third arrival completes phase 0: parity flips, pending reloads to 3.
  ASSERT_TRUE(h.run(mbar(".arrive", {R(0), AImm(8)}), 0b100));
  EXPECT_EQ(h.sh64(8), kPhaseBit | kInitBit | (3ull << 20) | 3ull);
  ASSERT_TRUE(h.run(mbar(".test_wait", {P(0), AImm(8), R(0)}), 0b111));
  EXPECT_EQ(h.pred(0) & 0b111, 0b111u);
  // .parity: phase 0 is complete, phase 1 (the current one) is not.
  ASSERT_TRUE(h.run(mbar(".try_wait", {P(1), AImm(8), I(0)}, {".parity"}), 1));
  EXPECT_EQ(h.pred(1) & 1, 1u);
  ASSERT_TRUE(h.run(mbar(".try_wait", {P(1), AImm(8), I(1)}, {".parity"}), 1));
  EXPECT_EQ(h.pred(1) & 1, 0u);
}

TEST(Mbarrier, ArriveDropAndCounts) {
  MemHarness h;
  ASSERT_TRUE(h.run(mbar(".init", {AImm(0), I(4)}), 1));
  ASSERT_TRUE(h.run(mbar(".arrive_drop", {Sink(), AImm(0)}), 1));  // expected 4 -> 3, pending 3
  EXPECT_EQ(h.sh64(0), kInitBit | (3ull << 20) | 3ull);
  ASSERT_TRUE(h.run(mbar(".arrive", {Sink(), AImm(0), I(2)}, {".noComplete"}), 1));
  EXPECT_EQ(h.sh64(0) & 0xfffff, 1u);
  ASSERT_TRUE(h.run(mbar(".arrive", {R(0), AImm(0), I(1)}), 1));  // completes; next phase expects 3
  EXPECT_EQ(h.sh64(0), kPhaseBit | kInitBit | (3ull << 20) | 3ull);
  EXPECT_EQ(h.reg(0)[0], kInitBit | 0);  // state of phase 0, nothing pending after it
  // Arriving with more than is pending is an error.
  ASSERT_TRUE(h.run(mbar(".arrive", {Sink(), AImm(0), I(4)}), 1));
  ASSERT_TRUE(h.faulted());
}

TEST(Mbarrier, TransactionCount) {
  MemHarness h;
  ASSERT_TRUE(h.run(mbar(".init", {AImm(0), I(1)}), 1));
  // arrive.expect_tx 64: arrivals done, 64 bytes outstanding: not complete.
  ASSERT_TRUE(h.run(mbar(".arrive", {R(0), AImm(0), I(64)}, {".expect_tx"}), 1));
  EXPECT_EQ(h.sh64(0) >> 63, 0u);
  EXPECT_EQ(h.sh64(0) >> 40 & 0x3fffff, 64u);
  ASSERT_TRUE(h.run(mbar(".complete_tx", {AImm(0), I(48)}), 1));
  EXPECT_EQ(h.sh64(0) >> 63, 0u);
  ASSERT_TRUE(h.run(mbar(".complete_tx", {AImm(0), I(16)}), 1));
  EXPECT_EQ(h.sh64(0) >> 63, 1u);  // tx-count reached zero: phase done
  ASSERT_TRUE(h.run(mbar(".test_wait", {P(0), AImm(0), R(0)}), 1));
  EXPECT_EQ(h.pred(0) & 1, 1u);
  // expect_tx on its own, then an arrive: still waits for the bytes.
  ASSERT_TRUE(h.run(mbar(".expect_tx", {AImm(0), I(8)}), 1));
  ASSERT_TRUE(h.run(mbar(".arrive", {R(0), AImm(0)}), 1));
  EXPECT_EQ(h.sh64(0) >> 63, 1u);
  ASSERT_TRUE(h.run(mbar(".complete_tx", {AImm(0), I(8)}), 1));
  EXPECT_EQ(h.sh64(0) >> 63, 0u);
}

TEST(Mbarrier, UninitializedAndCpAsyncArrive) {
  MemHarness h;
  ASSERT_TRUE(h.run(mbar(".arrive", {R(0), AImm(16)}), 1));
  ASSERT_TRUE(h.faulted());
  EXPECT_NE(h.L.fault->message.find("not initialized"), std::string::npos);

  MemHarness g;
  ASSERT_TRUE(g.run(mbar(".init", {AImm(0), I(2)}), 1));
  Inst inc = mk(Opcode::Cp, Type::B64, {".async", ".mbarrier", ".arrive", ".shared", ".b64"}, {AImm(0)});
  inc.m.space = Space::Shared;
  ASSERT_TRUE(g.run(inc, 1));
  EXPECT_EQ(g.sh64(0) & 0xfffff, 2u);  // +1 then arrive: no net change
  Inst noinc = mk(Opcode::Cp, Type::B64, {".async", ".mbarrier", ".arrive", ".noinc", ".shared", ".b64"}, {AImm(0)});
  noinc.m.space = Space::Shared;
  ASSERT_TRUE(g.run(noinc, 0b11));  // two arrivals complete the phase
  EXPECT_EQ(g.sh64(0) >> 63, 1u);
  ASSERT_TRUE(g.run(mbar(".inval", {AImm(0)}), 1));
  EXPECT_EQ(g.sh64(0), 0u);
}

// ---------------------------------------------------------------- atomics

Inst atom(AtomOp op, Type t, Space sp, std::initializer_list<Operand> ops, bool red = false) {
  Inst in = make(red ? Opcode::Red : Opcode::Atom, t, ops);
  in.m.atom = op;
  in.m.space = sp;
  in.m.noftz = true;
  return in;
}

TEST(FloatAtomics, HalfAddFromEveryLane) {
  MemHarness h;
  h.fill(1, 0x3c00);  // 1.0
  ASSERT_TRUE(h.run(atom(AtomOp::Add, Type::F16, Space::Shared, {R(0), AImm(0), R(1)})));
  EXPECT_EQ(h.sh16(0), 0x5000u);  // 32.0
  // Old values: lane l saw l (0, 1, 2, ... as f16), applied in lane order.
  EXPECT_EQ(h.reg(0)[0], 0u);
  EXPECT_EQ(h.reg(0)[1], 0x3c00u);
  EXPECT_EQ(h.reg(0)[31], 0x4fc0u);  // 31.0
  // .noftz keeps subnormals; overflow rounds to infinity.
  std::memset(h.sh(), 0, 8);
  std::memcpy(h.sh(), "\x01\x00\xff\x7b", 4);  // lo f16 0x0001, hi f16 0x7bff (65504)
  h.fill(1, 0x50000001u);                        // lo + 0x0001, hi + 32.0
  ASSERT_TRUE(h.run(atom(AtomOp::Add, Type::F16x2, Space::Shared, {R(0), AImm(0), R(1)}), 1));
  EXPECT_EQ(h.sh16(0), 0x0002u);
  EXPECT_EQ(h.sh16(2), 0x7c00u);  // 65536 > 65520: +inf under rn
}

TEST(FloatAtomics, Bf16TiesToEvenAndRed) {
  MemHarness h;
  std::memcpy(h.sh(), "\x80\x3f\x81\x3f", 4);  // bf16 1.0, 1.0078125
  h.fill(1, 0x3b803b80u);                        // 2^-8 in both halves: exact ties
  ASSERT_TRUE(h.run(atom(AtomOp::Add, Type::BF16x2, Space::Shared, {AImm(0), R(1)}, true), 1));
  EXPECT_EQ(h.sh16(0), 0x3f80u);  // tie -> even (1.0)
  EXPECT_EQ(h.sh16(2), 0x3f82u);  // tie -> even (1.015625)
  // Global scalar bf16 through a register address.
  std::memcpy(h.global.data() + 6, "\x40\x40", 2);  // 3.0
  h.fill(2, h.gaddr(6));
  h.fill(1, 0xc000);  // -2.0
  ASSERT_TRUE(h.run(atom(AtomOp::Add, Type::BF16, Space::Global, {R(0), A(2), R(1)}), 1));
  EXPECT_EQ(h.reg(0)[0], 0x4040u);
  uint16_t v;
  std::memcpy(&v, h.global.data() + 6, 2);
  EXPECT_EQ(v, 0x3f80u);  // 1.0
}

TEST(FloatAtomics, F32MinMaxAndVector) {
  MemHarness h;
  float z = 0.0f;
  std::memcpy(h.sh(), &z, 4);
  h.fill(1, fbits(-0.0f));
  ASSERT_TRUE(h.run(atom(AtomOp::Min, Type::F32, Space::Shared, {R(0), AImm(0), R(1)}), 1));
  EXPECT_EQ(h.sh32(0), 0x80000000u);  // -0 < +0
  h.fill(1, 0x7fc00000u);  // NaN operand is ignored
  ASSERT_TRUE(h.run(atom(AtomOp::Max, Type::F32, Space::Shared, {R(0), AImm(0), R(1)}), 1));
  EXPECT_EQ(h.sh32(0), 0x80000000u);
  // atom.global.v2.f32.add with a vector operand.
  float g[2] = {1.5f, -4.0f};
  std::memcpy(h.global.data(), g, 8);
  Inst v = atom(AtomOp::Add, Type::F32, Space::Global, {}, true);
  v.m.vec = 2;
  v.o[0] = A(2);
  v.o[1].kind = Operand::Kind::Vec;
  v.o[1].vec_n = 2;
  v.o[1].vec_begin = 0;
  v.nops = 2;
  h.lp.prog.functions[0].vec_operands = {R(3), R(4)};
  h.fill(2, h.gaddr(0));
  h.fill(3, fbits(0.25f));
  h.fill(4, fbits(1.0f));
  ASSERT_TRUE(h.run(v, 0b111));
  std::memcpy(g, h.global.data(), 8);
  EXPECT_EQ(g[0], 2.25f);
  EXPECT_EQ(g[1], -1.0f);
}

TEST(FloatAtomics, Cas16AndUnsupportedForms) {
  MemHarness h;
  std::memcpy(h.sh(), "\x34\x12", 2);
  h.fill(1, 0x1234);
  h.fill(2, 0xbeef);
  Inst cas = atom(AtomOp::Cas, Type::B16, Space::Shared, {R(0), AImm(0), R(1), R(2)});
  ASSERT_TRUE(h.run(cas, 1));
  EXPECT_EQ(h.reg(0)[0], 0x1234u);
  EXPECT_EQ(h.sh16(0), 0xbeefu);
  ASSERT_TRUE(h.run(cas, 1));  // compare fails now: unchanged
  EXPECT_EQ(h.reg(0)[0], 0xbeefu);
  EXPECT_EQ(h.sh16(0), 0xbeefu);
  Inst no_noftz = atom(AtomOp::Add, Type::F16, Space::Shared, {R(0), AImm(0), R(1)});
  no_noftz.m.noftz = false;
  EXPECT_FALSE(h.bound(no_noftz));
  EXPECT_FALSE(h.bound(atom(AtomOp::Min, Type::F16, Space::Shared, {R(0), AImm(0), R(1)})));  // scalar: add only
  EXPECT_TRUE(h.bound(atom(AtomOp::Add, Type::U32, Space::Shared, {R(0), AImm(0), R(1)})));    // still delegated
}

// ---------------------------------------------------------------- ALU forms

uint64_t run2(Opcode op, Type t, std::vector<std::string> mods, uint64_t a, uint64_t b, Type t2 = Type::None,
              bool ftz = false, bool relu = false) {
  WarpHarness h;
  h.fill(1, a);
  h.fill(2, b);
  Inst in = mk(op, t, mods, {R(0), R(1), R(2)});
  in.type2 = t2;
  in.m.ftz = ftz;
  in.m.relu = relu;
  h.run(in);
  return h.reg(0)[3];
}
uint64_t run3(Opcode op, Type t, std::vector<std::string> mods, uint64_t a, uint64_t b, uint64_t c) {
  WarpHarness h;
  h.fill(1, a);
  h.fill(2, b);
  h.fill(3, c);
  Inst in = mk(op, t, mods, {R(0), R(1), R(2), R(3)});
  h.run(in);
  return h.reg(0)[3];
}

TEST(AluForms, PackedSixteenBit) {
  EXPECT_EQ(run2(Opcode::Add, Type::None, {".s16x2"}, 0x7fff0001, 0x00010002), 0x80000003u);
  EXPECT_EQ(run2(Opcode::Sub, Type::None, {".u16x2"}, 0x00000005, 0x00010007), 0xfffffffeu);
  EXPECT_EQ(run2(Opcode::Min, Type::None, {".s16x2"}, 0xffff0001, 0x00010002), 0xffff0001u);
  EXPECT_EQ(run2(Opcode::Min, Type::None, {".u16x2"}, 0xffff0001, 0x00010002), 0x00010001u);
  EXPECT_EQ(run2(Opcode::Max, Type::None, {".s16x2"}, 0xfff00005, 0xffe00003, Type::None, false, true), 0x00000005u);
  EXPECT_EQ(run2(Opcode::Max, Type::None, {".u16x2"}, 0xfff00005, 0xffe00003), 0xfff00005u);
}

TEST(AluForms, ThreeInputAndXorsign) {
  EXPECT_EQ(run3(Opcode::Min, Type::F32, {".f32"}, fbits(3), fbits(-0.0f), fbits(0.0f)), 0x80000000u);
  EXPECT_EQ(asf(run3(Opcode::Min, Type::F32, {".f32"}, 0x7fc00000, fbits(2), fbits(1))), 1.0f);
  EXPECT_EQ(run3(Opcode::Min, Type::F32, {".NaN", ".f32"}, 0x7fc00000, fbits(2), fbits(1)), 0x7fffffffu);
  EXPECT_EQ(asf(run3(Opcode::Max, Type::F32, {".abs", ".f32"}, fbits(-5), fbits(3), fbits(4))), 5.0f);
  EXPECT_EQ(asf(run2(Opcode::Max, Type::F32, {".xorsign", ".abs", ".f32"}, fbits(-2), fbits(3))), -3.0f);
  EXPECT_EQ(asf(run2(Opcode::Min, Type::F32, {".xorsign", ".abs", ".f32"}, fbits(-2), fbits(-3))), 2.0f);
  // f16x2: lo max.xorsign.abs(-2, 3) = -3; hi (1, 0.5) = 1.
  EXPECT_EQ(run2(Opcode::Max, Type::F16x2, {".xorsign", ".abs", ".f16x2"}, 0x3c00c000, 0x38004200), 0x3c00c200u);
  WarpHarness h;
  EXPECT_FALSE(h.bound(mk(Opcode::Min, Type::F32, {".abs", ".f32"}, {R(0), R(1), R(2)})));  // .abs: 3 inputs only
}

TEST(AluForms, HalfSpecialFunctions) {
  EXPECT_EQ(run2(Opcode::Ex2, Type::F16x2, {".approx", ".f16x2"}, 0xbc003c00, 0), 0x38004000u);  // 2^1, 2^-1
  EXPECT_EQ(run2(Opcode::Ex2, Type::BF16, {".approx", ".ftz", ".bf16"}, 0x4040, 0, Type::None, true), 0x4100u);  // 2^3
  EXPECT_EQ(run2(Opcode::Tanh, Type::F16, {".approx", ".f16"}, 0x4900, 0), 0x3c00u);  // tanh(10) -> 1.0
  // tanh(0.5) = 0.4621171573 -> bf16 1.8515625 * 2^-2 = 0x3eed.
  EXPECT_EQ(run2(Opcode::Tanh, Type::BF16, {".approx", ".bf16"}, 0x3f00, 0), 0x3eedu);
  WarpHarness h;
  Inst bad = mk(Opcode::Ex2, Type::BF16, {".approx", ".bf16"}, {R(0), R(1)});
  bad.m.approx = true;
  EXPECT_FALSE(h.bound(bad));  // ex2.bf16 requires .ftz
}

TEST(AluForms, SetWithHalfSources) {
  auto set = [](Type d, Type s, program::Cmp c, uint64_t a, uint64_t b) {
    WarpHarness h;
    h.fill(1, a);
    h.fill(2, b);
    Inst in = make(Opcode::Set, d, {R(0), R(1), R(2)}, s);
    in.m.cmp = c;
    h.run(in);
    return h.reg(0)[0];
  };
  using program::Cmp;
  EXPECT_EQ(set(Type::U32, Type::F16, Cmp::Lt, 0x3c00, 0x4000), 0xffffffffu);
  EXPECT_EQ(set(Type::F16, Type::F16, Cmp::Lt, 0x3c00, 0x4000), 0x3c00u);
  EXPECT_EQ(set(Type::U16, Type::BF16, Cmp::Ge, 0x3f80, 0x4000), 0u);
  EXPECT_EQ(set(Type::U32, Type::F16x2, Cmp::Gt, 0x42003c00, 0x40004000), 0xffff0000u);
  EXPECT_EQ(set(Type::BF16x2, Type::BF16x2, Cmp::Nan, 0x7fc03f80, 0x3f803f80), 0x3f800000u);
}

TEST(AluForms, ReduxF32) {
  auto redux = [](AtomOp op, std::vector<std::string> mods, uint32_t nan_lane) {
    WarpHarness h;
    for (uint32_t l = 0; l < 32; ++l) h.reg(1)[l] = fbits(float(l) - 10.0f);
    h.reg(1)[nan_lane] = 0x7fc00000;
    Inst in = mk(Opcode::Redux, Type::F32, mods, {R(0), R(1), I(-1)});
    in.m.atom = op;
    in.m.sync = true;
    h.run(in);
    return h.reg(0)[9];
  };
  EXPECT_EQ(asf(redux(AtomOp::Min, {".sync", ".min", ".f32"}, 5)), -10.0f);
  EXPECT_EQ(redux(AtomOp::Min, {".sync", ".min", ".NaN", ".f32"}, 5), 0x7fffffffu);
  EXPECT_EQ(asf(redux(AtomOp::Max, {".sync", ".max", ".abs", ".f32"}, 31)), 20.0f);  // |20| beats |-10|
}

TEST(AluForms, CvtIntegralHalfAndFp8Sources) {
  auto cvt = [](Type d, Type s, Round r, uint64_t a) {
    WarpHarness h;
    h.fill(1, a);
    Inst in = make(Opcode::Cvt, d, {R(0), R(1)}, s);
    in.m.rnd = r;
    h.run(in);
    return h.reg(0)[0];
  };
  EXPECT_EQ(cvt(Type::F16, Type::F16, Round::Rni, 0x4100), 0x4000u);  // 2.5 -> 2
  EXPECT_EQ(cvt(Type::F16, Type::F16, Round::Rni, 0x4300), 0x4400u);  // 3.5 -> 4
  EXPECT_EQ(cvt(Type::F16, Type::F16, Round::Rzi, 0xb4cd), 0x8000u);  // -0.3 -> -0
  EXPECT_EQ(cvt(Type::BF16, Type::BF16, Round::Rmi, 0xbf00), 0xbf80u);  // -0.5 -> -1
  EXPECT_EQ(cvt(Type::F32, Type::E4M3, Round::None, 0x38), fbits(1.0f));
  EXPECT_EQ(cvt(Type::F32, Type::E4M3, Round::None, 0x7e), fbits(448.0f));
  EXPECT_EQ(cvt(Type::F32, Type::E4M3, Round::None, 0x7f), 0x7fffffffu);
  EXPECT_EQ(cvt(Type::F16, Type::E5M2, Round::None, 0xbc), 0xbc00u);  // -1.0
}

}  // namespace
