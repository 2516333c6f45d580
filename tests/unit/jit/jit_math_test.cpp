// The JIT's float conversions, integer and float division, roots and
// special functions (jit/lower_math.cpp) against their handlers, bit for
// bit, on the values where their semantics have edges: signed zeros,
// subnormals, infinities, NaNs (quiet, signaling, negative), rounding ties,
// the integer limits and the values just past them; unguarded and under a
// guard (a partial mask in the lowered code).
#include <cfloat>

#include "jit_diff_util.h"

using namespace softgpu;
using namespace softgpu::exec;
using namespace softgpu::exec::test;
using isa::Opcode;
using program::Round;

namespace {

const std::vector<uint64_t>& f32_values() {
  static const std::vector<uint64_t> v = [] {
    std::vector<uint64_t> r;
    for (float f : {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 1.5f, 2.5f, -2.5f, 3.5f, 0x1p-149f, -0x1p-149f, 0x1p-126f,
                    FLT_MAX, -FLT_MAX, INFINITY, -INFINITY, 0x1p31f, -0x1p31f, 0x1p32f, 4294967040.0f, 2147483520.0f,
                    0x1p63f, -0x1p63f, 0x1p64f, 0x1p126f, 0x1.8p126f, 0x1p127f, -0x1.8p127f, 65504.0f, 65520.0f,
                    65519.0f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f, 0x1p-14f, 1e-8f, 3.14159f, -100.0f, 1e30f, 0.1f, -7.25f,
                    1.00048828125f, 1.000732421875f})
      r.push_back(fbits(f));
    for (uint64_t b : {0x7fc00000ull, 0xffc00001ull, 0x7f800001ull, 0x807fffffull, 0x3f808000ull, 0x3f818000ull,
                       0x3f808001ull, 0x7f7fffffull, 0x7f7f8000ull, 0x00008000ull, 0x00018000ull, 0xffffffff80000000ull})
      r.push_back(b);
    return r;
  }();
  return v;
}

const std::vector<uint64_t>& f64_values() {
  static const std::vector<uint64_t> v = [] {
    std::vector<uint64_t> r;
    for (double d : {0.0, -0.0, 0.5, -0.5, 2.5, -2.5, 1.5, 0x1p31 - 0.5, 2147483647.5, -2147483648.5, -2147483649.0,
                     4294967295.5, 4294967296.0, 0x1p63, -0x1p63, 0x1p64, 0x1.fffffffffffffp63, 1e300, -1e300, 1e-310,
                     0x1p-1022, 1e-40, 3.4028235677973366e38, 0x1.fffffffp127, 1.0 + 0x1p-24, 1.0 + 0x1.8p-24,
                     double(INFINITY), -double(INFINITY), 0.1, -7.25, 1e10})
      r.push_back(dbits(d));
    for (uint64_t b : {0x7ff8000000000000ull, 0xfff8000000000001ull, 0x7ff0000000000001ull, 0x000fffffffffffffull})
      r.push_back(b);
    return r;
  }();
  return v;
}

const std::vector<uint64_t> kIntValues = {0,
                                          1,
                                          ~0ull,
                                          2,
                                          3,
                                          7,
                                          0xfffffffffffffff9ull,  // -7
                                          0x7fffffffull,
                                          0x80000000ull,
                                          0xffffffff80000000ull,
                                          0xffffffffull,
                                          0x8000000000000000ull,
                                          0x7fffffffffffffffull,
                                          0x8000ull,
                                          0xffff8000ull,
                                          0x7fffull,
                                          0xffffull,
                                          0x100000000ull,
                                          0x123456789abcdefull,
                                          1000,
                                          0xfffffffffffffc18ull};  // -1000

const std::vector<uint64_t> kHalfValues = {0,      0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0x3555, 0x7bff, 0x7c00,
                                           0xfc00, 0x7e00, 0x7c01, 0xfe01, 0x8001, 0x83ff, 0x7f80, 0x7fc0, 0x7f81,
                                           0xff80, 0x0080, 0x8080, 0x3f80, 0xc2f7, 0x1234ffff};

const Round kIntRounds[] = {Round::Rni, Round::Rzi, Round::Rmi, Round::Rpi};

Inst cvt(Type d, Type s, Round r, bool ftz) {
  Inst in = make(Opcode::Cvt, d, {R(0), R(1)}, s);
  in.m.rnd = r;
  in.m.ftz = ftz;
  return in;
}

const std::vector<uint64_t>& values_of(Type t) { return t == Type::F32 ? f32_values() : f64_values(); }

}  // namespace

TEST(JitMath, FloatToInteger) {
  for (Type s : {Type::F32, Type::F64})
    for (Type d : {Type::S32, Type::U32, Type::S64, Type::U64})
      for (Round r : kIntRounds)
        for (bool z : {false, true}) {
          if (z && s == Type::F64) continue;
          check_lowered(cvt(d, s, r, z), values_of(s));
        }
}

TEST(JitMath, FloatToFloat) {
  for (bool z : {false, true}) {
    check_lowered(cvt(Type::F32, Type::F32, Round::None, z), f32_values());
    for (Round r : kIntRounds) check_lowered(cvt(Type::F32, Type::F32, r, z), f32_values());
    check_lowered(cvt(Type::F32, Type::F64, Round::Rn, z), f64_values());
    check_lowered(cvt(Type::F64, Type::F32, Round::None, z), f32_values());
  }
  check_lowered(cvt(Type::F64, Type::F64, Round::None, false), f64_values());
  for (Round r : kIntRounds) check_lowered(cvt(Type::F64, Type::F64, r, false), f64_values());
}

TEST(JitMath, HalfConversions) {
  for (Type d : {Type::F16, Type::BF16})
    for (bool z : {false, true}) check_lowered(cvt(d, Type::F32, Round::Rn, z), f32_values());
  for (Type s : {Type::F16, Type::BF16})
    for (Type d : {Type::F32, Type::F64}) check_lowered(cvt(d, s, Round::None, false), kHalfValues);
  for (Type d : {Type::F16x2, Type::BF16x2}) {
    Inst pack = make(Opcode::Cvt, d, {R(0), R(1), R(2)}, Type::F32);
    pack.m.rnd = Round::Rn;
    check_lowered(pack, f32_values());
  }
}

TEST(JitMath, IntegerDivision) {
  for (Type t : {Type::S16, Type::U16, Type::S32, Type::U32, Type::S64, Type::U64})
    for (Opcode op : {Opcode::Div, Opcode::Rem}) {
      check_lowered(make(op, t, {R(0), R(1), R(2)}), kIntValues);
      for (int64_t imm : {0, -1, 7})
        check_lowered(make(op, t, {R(3), R(1), I(imm)}), kIntValues);
    }
}

TEST(JitMath, FloatDivision) {
  for (bool z : {false, true}) {
    Inst rn = make(Opcode::Div, Type::F32, {R(0), R(1), R(2)});
    rn.m.rnd = Round::Rn;
    rn.m.ftz = z;
    check_lowered(rn, f32_values());
    for (bool full : {false, true}) {
      Inst ap = make(Opcode::Div, Type::F32, {R(0), R(1), R(2)});
      (full ? ap.m.full : ap.m.approx) = true;
      ap.m.ftz = z;
      check_lowered(ap, f32_values());
    }
  }
  Inst d = make(Opcode::Div, Type::F64, {R(0), R(1), R(2)});
  d.m.rnd = Round::Rn;
  check_lowered(d, f64_values());
}

TEST(JitMath, Roots) {
  for (Opcode op : {Opcode::Rcp, Opcode::Sqrt, Opcode::Rsqrt})
    for (bool z : {false, true}) {
      Inst ap = make(op, Type::F32, {R(0), R(1)});
      ap.m.approx = true;
      ap.m.ftz = z;
      check_lowered(ap, f32_values());
      if (op == Opcode::Rsqrt) continue;
      Inst rn = make(op, Type::F32, {R(0), R(1)});
      rn.m.rnd = Round::Rn;
      rn.m.ftz = z;
      check_lowered(rn, f32_values());
    }
  for (Opcode op : {Opcode::Rcp, Opcode::Sqrt}) {
    Inst rn = make(op, Type::F64, {R(0), R(1)});
    rn.m.rnd = Round::Rn;
    check_lowered(rn, f64_values());
  }
  Inst rcp = make(Opcode::Rcp, Type::F64, {R(0), R(1)});  // rcp.approx.ftz.f64
  rcp.m.approx = rcp.m.ftz = true;
  check_lowered(rcp, f64_values());
  for (bool z : {false, true}) {
    Inst rs = make(Opcode::Rsqrt, Type::F64, {R(0), R(1)});
    rs.m.approx = true;
    rs.m.ftz = z;
    check_lowered(rs, f64_values());
  }
}

TEST(JitMath, SpecialFunctions) {
  std::vector<uint64_t> vals = f32_values();
  for (float f : {-126.5f, -149.0f, -150.0f, 127.9f, 128.0f, 1e-3f, 100.5f, 1e6f, -9.5f, 0.7853982f})
    vals.push_back(fbits(f));
  for (Opcode op : {Opcode::Sin, Opcode::Cos, Opcode::Lg2, Opcode::Ex2, Opcode::Tanh})
    for (bool z : {false, true}) {
      Inst in = make(op, Type::F32, {R(0), R(1)});
      in.m.approx = true;
      in.m.ftz = z;
      check_lowered(in, vals);
    }
}

TEST(JitMath, MinMaxAndSaturation) {
  for (Opcode op : {Opcode::Min, Opcode::Max}) {
    for (bool z : {false, true}) {
      Inst in = make(op, Type::F32, {R(0), R(1), R(2)});
      in.m.ftz = z;
      check_lowered(in, f32_values());
    }
    check_lowered(make(op, Type::F64, {R(0), R(1), R(2)}), f64_values());
    // Integers: the register's low bits read by the type's sign.
    const std::vector<uint64_t> ints = {0, 1, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff,
                                        0x8000000000000000ull, ~0ull, 0x123456789abcdefull, 0xfffffffe00000001ull};
    for (Type t : {Type::S16, Type::U16, Type::S32, Type::U32, Type::S64, Type::U64})
      check_lowered(make(op, t, {R(0), R(1), R(2)}), ints);
  }
  for (bool z : {false, true}) {
    for (Round r : {Round::None, Round::Rni, Round::Rpi}) {
      Inst in = cvt(Type::F32, Type::F32, r, z);
      in.m.sat = true;
      check_lowered(in, f32_values());
    }
    Inst nar = cvt(Type::F32, Type::F64, Round::Rn, z);
    nar.m.sat = true;
    check_lowered(nar, f64_values());
    Inst wid = cvt(Type::F64, Type::F32, Round::None, z);
    wid.m.sat = true;
    check_lowered(wid, f32_values());
  }
}

// Forms the lowering leaves to their handlers stay exact (they still run).
TEST(JitMath, HandlerForms) {
  Inst rz = cvt(Type::F32, Type::F64, Round::Rz, false);  // a directed mode
  EXPECT_FALSE(lowered(rz));
  check(rz, f64_values());
  Inst narrow = cvt(Type::S16, Type::F32, Round::Rni, false);  // 16-bit destination
  EXPECT_FALSE(lowered(narrow));
  check(narrow, f32_values());
  Inst sat = cvt(Type::S32, Type::F32, Round::Rni, false);  // .sat on an integer destination
  sat.m.sat = true;
  EXPECT_FALSE(lowered(sat));
  check(sat, f32_values());
  Inst nan = make(Opcode::Max, Type::F32, {R(0), R(1), R(2)});  // max.NaN
  nan.raw_mods.push_back(".NaN");
  EXPECT_FALSE(lowered(nan));
  check(nan, f32_values());
}
