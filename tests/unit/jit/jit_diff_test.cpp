// The JIT against the interpreter, instruction form by instruction form:
// the same warp state (random registers and predicates, with the values
// where semantics have edges: NaNs, infinities, subnormals, signed zeros,
// extreme integers, shift amounts past the width), one run through the
// bound handler and one through the compiled block, then every register
// lane and predicate compared bit for bit. Partial masks and guards too.
#include "jit_diff_util.h"

using namespace softgpu;
using namespace softgpu::exec;
using namespace softgpu::exec::test;
using isa::Opcode;
using program::Cmp;

namespace {

const Type kInts[] = {Type::S16, Type::U16, Type::S32, Type::U32, Type::S64, Type::U64, Type::B32, Type::B64};

}  // namespace

TEST(JitDiff, IntegerArithmetic) {
  for (Type t : kInts) {
    check(make(Opcode::Add, t, {R(0), R(1), R(2)}));
    check(make(Opcode::Sub, t, {R(3), R(1), I(-7)}));
    Inst mul = make(Opcode::Mul, t, {R(4), R(1), R(2)});
    mul.m.mul = program::MulMode::Lo;
    check(mul);
    Inst mad = make(Opcode::Mad, t, {R(1), R(1), R(2), R(3)});
    mad.m.mul = program::MulMode::Lo;
    check(mad);
    check(guarded(make(Opcode::Add, t, {R(5), R(5), I(1)}), 2, true));
  }
  for (Type t : {Type::S32, Type::S64, Type::S16}) check(make(Opcode::Neg, t, {R(6), R(7)}));
  for (Type t : {Type::S16, Type::U16, Type::S32, Type::U32}) {
    Inst w = make(Opcode::Mul, t, {R(8), R(1), R(2)});
    w.m.mul = program::MulMode::Wide;
    check(w);
    Inst mw = make(Opcode::Mad, t, {R(9), R(1), R(2), R(3)});
    mw.m.mul = program::MulMode::Wide;
    check(mw);
  }
}

TEST(JitDiff, ShiftsAndLogic) {
  for (Type t : {Type::B16, Type::B32, Type::B64}) {
    check(make(Opcode::Shl, t, {R(0), R(1), R(2)}));
    check(make(Opcode::Shl, t, {R(0), R(1), I(3)}));
    check(make(Opcode::And, t, {R(3), R(1), R(2)}));
    check(make(Opcode::Or, t, {R(3), R(1), I(0x55)}));
    check(make(Opcode::Xor, t, {R(3), R(3), R(2)}));
    check(make(Opcode::Not, t, {R(4), R(1)}));
  }
  for (Type t : {Type::S16, Type::U16, Type::S32, Type::U32, Type::B32, Type::S64, Type::U64, Type::B64})
    check(make(Opcode::Shr, t, {R(5), R(1), R(2)}));
}

TEST(JitDiff, CompareAndSelect) {
  const Cmp icmps[] = {Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge};
  for (Type t : {Type::S32, Type::U32, Type::S64, Type::U64, Type::S16, Type::U16, Type::B32})
    for (Cmp c : icmps) {
      if (t == Type::B32 && c != Cmp::Eq && c != Cmp::Ne) continue;
      Inst s = make(Opcode::Setp, t, {P(0), R(1), R(2)});
      s.m.cmp = c;
      check(s);
    }
  const Cmp fcmps[] = {Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Equ, Cmp::Neu,
                       Cmp::Ltu, Cmp::Leu, Cmp::Gtu, Cmp::Geu, Cmp::Num, Cmp::Nan};
  for (Type t : {Type::F32, Type::F64})
    for (Cmp c : fcmps) {
      Inst s = make(Opcode::Setp, t, {P(1), R(1), R(2)});
      s.m.cmp = c;
      check(s);
      if (t == Type::F32) {
        s.m.ftz = true;
        check(s);
      }
    }
  // p|q with a boolean combination, and a negated c.
  for (auto op : {program::BoolOp::And, program::BoolOp::Or, program::BoolOp::Xor}) {
    Inst s = make(Opcode::Setp, Type::S32, {P(2), R(1), R(2), P(3, true)});
    s.m.cmp = Cmp::Lt;
    s.m.boolop = op;
    s.o[Inst::kPairSlot] = P(4);
    check(s);
  }
  for (Type t : {Type::B32, Type::F32, Type::U64, Type::S32})
    check(make(Opcode::Selp, t, {R(3), R(1), I(42), P(5)}));
  check(guarded(make(Opcode::Selp, Type::B64, {R(3), R(1), R(2), P(5, true)}), 6, false));
}

TEST(JitDiff, FloatArithmetic) {
  for (Type t : {Type::F32, Type::F64}) {
    for (bool z : {false, true}) {
      if (z && t == Type::F64) continue;
      for (Opcode op : {Opcode::Add, Opcode::Sub, Opcode::Mul}) {
        Inst in = make(op, t, {R(0), R(1), R(2)});
        in.m.ftz = z;
        check(in);
        in.m.rnd = program::Round::Rn;
        check(in);
      }
      for (Opcode op : {Opcode::Fma, Opcode::Mad}) {
        Inst in = make(op, t, {R(3), R(1), R(2), R(3)});
        in.m.rnd = program::Round::Rn;
        in.m.ftz = z;
        check(in);
      }
      for (Opcode op : {Opcode::Neg, Opcode::Abs}) {
        Inst in = make(op, t, {R(4), R(1)});
        in.m.ftz = z;
        check(in);
      }
    }
  }
}

TEST(JitDiff, ConversionsAndMoves) {
  const Type ints[] = {Type::S8, Type::U8, Type::S16, Type::U16, Type::S32, Type::U32, Type::S64, Type::U64};
  for (Type d : ints)
    for (Type s : ints) {
      if (d == Type::S8 || d == Type::U8) continue;
      check(make(Opcode::Cvt, d, {R(0), R(1)}, s));
    }
  for (Type d : {Type::F32, Type::F64})
    for (Type s : ints) {
      Inst in = make(Opcode::Cvt, d, {R(2), R(1)}, s);
      in.m.rnd = program::Round::Rn;
      EXPECT_TRUE(lowered(in)) << "not lowered: " << in.text();
      check(in);
    }
  for (Type t : {Type::B32, Type::B64, Type::F32, Type::U16}) {
    check(make(Opcode::Mov, t, {R(0), R(1)}));
    check(make(Opcode::Mov, t, {R(0), I(-3)}));
  }
  for (auto sr : {program::Sreg::TidX, program::Sreg::TidY, program::Sreg::NtidX, program::Sreg::CtaidY,
                  program::Sreg::NctaidZ, program::Sreg::Laneid}) {
    Operand o;
    o.kind = Operand::Kind::Sreg;
    o.sreg = sr;
    check(make(Opcode::Mov, Type::U32, {R(7), o}));
  }
  // cvta to and from each window, 64- and 32-bit.
  for (auto sp : {ptx::Space::Global, ptx::Space::Shared, ptx::Space::Local})
    for (Type t : {Type::U64, Type::U32})
      for (bool to : {false, true}) {
        Inst c = make(Opcode::Cvta, t, {R(4), R(1)});
        c.m.space = sp;
        c.m.to = to;
        check(c);
      }
  // ld.param at constant offsets of each size, signed and not.
  for (Type t : {Type::U8, Type::S8, Type::S16, Type::U32, Type::S32, Type::F32, Type::U64, Type::F64})
    for (int64_t off : {0, 3, 8, 16}) {
      if (off + program::type_size(t) > 24) continue;
      Operand a;
      a.kind = Operand::Kind::Addr;
      a.addr_kind = Operand::AddrKind::KParam;
      a.imm = off;
      Inst ld = make(Opcode::Ld, t, {R(5), a});
      ld.m.space = ptx::Space::Param;
      check(ld);
    }
}

TEST(JitDiff, PredicateLogic) {
  for (Opcode op : {Opcode::And, Opcode::Or, Opcode::Xor}) {
    check(make(op, Type::Pred, {P(0), P(1), P(2, true)}));
    check(guarded(make(op, Type::Pred, {P(3), P(3), P(4)}), 5, false));
  }
  check(make(Opcode::Not, Type::Pred, {P(6), P(7)}));
}

TEST(JitDiff, SharedLoadsAndStores) {
  // Addresses in R(1): lane-dependent, in bounds; R(2): random (mostly out
  // of bounds or misaligned: the handler reports the fault both times).
  auto addr = [](uint32_t reg, int64_t imm) {
    Operand a;
    a.kind = Operand::Kind::Addr;
    a.reg = reg;
    a.imm = imm;
    return a;
  };
  for (Type t : {Type::U32, Type::S32, Type::F32, Type::B64, Type::U64, Type::F64}) {
    const uint32_t size = program::type_size(t);
    for (int64_t imm : {0, 8, 200, 252, 256}) {
      Inst ld = make(Opcode::Ld, t, {R(0), addr(3, imm)});
      ld.m.space = ptx::Space::Shared;
      Inst st = make(Opcode::St, t, {addr(3, imm), R(1)});
      st.m.space = ptx::Space::Shared;
      for (uint32_t stride : {0u, 1u, 2u}) {
        // R(3) = lane * size * stride / 2: same address, dense, or gaps.
        for (uint64_t seed = 1; seed <= 3; ++seed)
          for (uint32_t mask : {0xffffffffu, 0x00ff0f01u}) {
            Side a(false), b(true);
            a.seed(seed);
            b.seed(seed);
            for (uint32_t l = 0; l < 32; ++l)
              a.h.reg(3)[l] = b.h.reg(3)[l] = (uint64_t(l) * size * stride / 2) % 256 & ~uint64_t(size - 1);
            for (const Inst& in : {ld, st}) {
              std::shared_ptr<const CompiledCode> keep;
              ASSERT_TRUE(a.exec(in, mask, keep));
              ASSERT_TRUE(b.exec(in, mask, keep));
              ASSERT_EQ(a.h.w->faulted(), b.h.w->faulted()) << in.text() << " imm " << imm;
              if (a.h.w->faulted()) break;
              for (uint32_t r = 0; r < kRegs; ++r)
                for (uint32_t l = 0; l < 32; ++l) ASSERT_EQ(a.h.reg(r)[l], b.h.reg(r)[l]) << in.text();
              ASSERT_TRUE(a.h.cta.shared == b.h.cta.shared) << in.text() << " imm " << imm;
            }
          }
      }
      // Misaligned and random addresses: both fault (or not) alike.
      Inst bad = make(Opcode::Ld, t, {R(0), addr(2, 1)});
      bad.m.space = ptx::Space::Shared;
      check(bad);
    }
  }
}
