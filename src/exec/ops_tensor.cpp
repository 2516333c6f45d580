// Instruction semantics: warp-level matrix instructions (wmma.load/store/mma,
// mma.sync, mma.sp, ldmatrix, stmatrix). Fragment layouts live in
// tensor_layout.h. A sparse A (mma.sp) is expanded to its dense M x K with
// the metadata operand and the product is then the dense one.
//
// Arithmetic (the ISA leaves the accumulation order unspecified):
//   * f16/bf16/tf32/fp8 products are exact in double; D = C + sum_k A*B is
//     accumulated in double in k order, starting from C, and rounded once to
//     the destination type (round to nearest even). For the usual magnitudes
//     this is the exactly rounded result; hardware may differ in the last
//     bit when terms cancel or span many binades.
//   * tf32 operands are f32 registers of which only the tf32 bits are used:
//     the low 13 mantissa bits are ignored (truncation), as on hardware.
//   * f64: D = fma(A[i][K-1], B[K-1][j], ... fma(A[i][0], B[0][j], C)) in k
//     order, under the instruction's rounding mode (.rn by default).
//   * integers (8-bit, .s4/.u4): exact; s32 results wrap modulo 2^32, or
//     clamp with .satfinite. .b1: C + popc of (a xor b) or (a and b) over K.
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <string_view>

#include "exec/float_util.h"
#include "exec/ops_common.h"
#include "exec/tensor_layout.h"
#include "exec/tensor_values.h"
#include "exec/warp.h"

namespace softgpu::exec {
namespace tensor {

Elem elem_of(std::string_view s) { return program::tensor_elem_of(s); }

bool parse_shape(std::string_view s, Shape& out) {
  Shape t;
  if (!program::parse_tensor_shape(s, t.m, t.n, t.k)) return false;
  out = t;
  return true;
}

double decode(Elem t, uint64_t bits) {
  switch (t) {
    case Elem::F16: return f16_to_f32(uint16_t(bits));
    case Elem::BF16: return bf16_to_f32(uint16_t(bits));
    case Elem::TF32: return std::bit_cast<float>(uint32_t(bits) & 0xffffe000u);
    case Elem::F32: return std::bit_cast<float>(uint32_t(bits));
    case Elem::F64: return std::bit_cast<double>(bits);
    case Elem::S8: return int8_t(bits);
    case Elem::U8: return uint8_t(bits);
    case Elem::S32: return int32_t(bits);
    case Elem::S4: return int32_t(uint32_t(bits) << 28) >> 28;
    case Elem::U4: return double(bits & 15);
    case Elem::B1: return double(bits & 1);
    case Elem::E4M3: return decode_mini(uint32_t(bits & 0xff), kE4M3);
    case Elem::E5M2: return decode_mini(uint32_t(bits & 0xff), kE5M2);
    default: return 0;
  }
}

uint64_t encode(Elem t, double v, bool satfinite) {
  switch (t) {
    case Elem::F16: return encode_mini(v, kF16, Round::Rn);
    case Elem::F32: return std::bit_cast<uint32_t>(canon(float(v)));
    case Elem::F64: return std::bit_cast<uint64_t>(canon(v));
    case Elem::S32: {
      // Integer sums are exact in double (|terms| < 2^53).
      const double lo = -2147483648.0, hi = 2147483647.0;
      if (satfinite) return uint32_t(int32_t(v < lo ? lo : v > hi ? hi : v));
      return uint32_t(uint64_t(int64_t(v)));
    }
    default: return 0;
  }
}

// Matrix instructions are warp-collective (.sync.aligned): every lane must
// execute them together, or the result is undefined on hardware.
bool require_full_warp(Warp& w, const Inst& in, uint32_t mask) {
  if (mask == kFullMask) return true;
  w.fault(Status::IllegalInstruction, uint32_t(std::countr_zero(~mask)), 0,
          fmt::format("{} executed by a partial warp (active mask 0x{:08x}); warp-collective matrix instructions "
                      "need all 32 lanes",
                      in.text(), mask));
  return false;
}

}  // namespace tensor

namespace {

using isa::Opcode;
using OK = Operand::Kind;
using ptx::Space;
using namespace tensor;

// The dotted modifiers of a matrix instruction, decoded.
struct Mods {
  enum class Kind : uint8_t { None, Load, Store, Mma } kind = Kind::None;
  Mat mat = Mat::A;
  bool mat_seen = false, d_seen = false;  // .a/.b/.c/.d given; .d (store) given
  bool layout[2] = {true, true};  // true = .row
  int nlayouts = 0;
  Shape shape;
  Elem types[4] = {};
  int ntypes = 0;
  bool satfinite = false, trans = false, m8n8 = false, b16 = false;
  int x = 0;  // ldmatrix/stmatrix .x1/.x2/.x4
  bool ok = true;
};

Mods parse(const Inst& in) {
  Mods p;
  for (const std::string& s : in.raw_mods) {
    Elem e = elem_of(s);
    if (e != Elem::None) {
      if (p.ntypes == 4) p.ok = false;
      else p.types[p.ntypes++] = e;
      continue;
    }
    if (s == ".sync" || s == ".aligned") continue;
    if (s == ".global" || s == ".shared" || s == ".shared::cta") continue;  // in.m.space
    if (s == ".row" || s == ".col") {
      if (p.nlayouts == 2) p.ok = false;
      else p.layout[p.nlayouts++] = s == ".row";
      continue;
    }
    if (s == ".load") { p.kind = Mods::Kind::Load; continue; }
    if (s == ".store") { p.kind = Mods::Kind::Store; continue; }
    if (s == ".mma") { p.kind = Mods::Kind::Mma; continue; }
    if (s == ".a" || s == ".b" || s == ".c" || s == ".d") {
      p.mat = s == ".a" ? Mat::A : s == ".b" ? Mat::B : Mat::C;
      p.mat_seen = true;
      p.d_seen = s == ".d";
      continue;
    }
    if (s == ".satfinite") { p.satfinite = true; continue; }
    if (s == ".rn" || s == ".rz" || s == ".rm" || s == ".rp") continue;  // in.m.rnd
    if (s == ".trans") { p.trans = true; continue; }
    if (s == ".b16") { p.b16 = true; continue; }
    if (s == ".x1" || s == ".x2" || s == ".x4") { p.x = s[2] - '0'; continue; }
    if (s == ".m8n8") { p.m8n8 = true; continue; }
    if (parse_shape(s, p.shape)) continue;
    p.ok = false;  // anything else (.sp, .kind::*, block scaling, ...) is not implemented
  }
  return p;
}

// ---- one warp-level matrix multiply, parametrized by its fragment layouts ----
struct Form {
  bool wmma = false;
  Shape s;
  Elem a = Elem::None, b = Elem::None, c = Elem::None, d = Elem::None;
  bool a_row = true, b_row = false;
  bool satfinite = false;
  bool sparse = false;                           // mma.sp: A holds K/2 stored columns (operands e, f)
  program::MmaBitOp bop = program::MmaBitOp::None;  // .b1: sum of popc(a xor b) or popc(a and b)
  bool quad() const { return !wmma && s.is(8, 8, 4) && a == Elem::F16; }  // m8n8k4.f16: 4 products
  Elem type(Mat m, bool dst = false) const { return m == Mat::A ? a : m == Mat::B ? b : dst ? d : c; }
  // The dense form whose A fragment layout a sparse A uses (K / 2).
  Form stored() const {
    Form h = *this;
    h.sparse = false;
    h.s.k /= 2;
    return h;
  }
};

// Elements per lane of an operand's fragment.
uint32_t frag_count(const Form& f, Mat m) {
  if (f.sparse && m == Mat::A) return frag_count(f.stored(), m);
  const RC d = dims(f.s, m);
  if (f.quad()) return m == Mat::C ? 8 : 4;
  if (f.wmma && m != Mat::C && f.a == Elem::F16) return 16;  // repeated halves (see tensor_layout.h)
  return d.r * d.c / 32;
}
uint32_t frag_regs(const Form& f, Mat m, bool dst = false) {
  return frag_count(f, m) / per_reg(f.type(m, dst));
}

// (row, col) of fragment element i of lane l in a layout of 8-bit or wider
// elements (the ISA's figures and the measured wmma layouts).
RC dense_elem(const Form& f, Mat m, uint32_t l, uint32_t i) {
  if (f.wmma) return wmma_elem(f.s, m, f.type(m), l, i);
  using namespace mma;
  const Shape& s = f.s;
  const Elem t = f.type(m);
  if (s.is(8, 8, 4)) {
    if (t == Elem::F64) return m == Mat::A ? a_f64_m8n8k4(l, i) : m == Mat::B ? b_f64_m8n8k4(l, i) : c_8x8(l, i);
    if (m == Mat::A) return a_f16_m8n8k4(l, i, f.a_row);
    if (m == Mat::B) return b_f16_m8n8k4(l, i, f.b_row);
    return f.c == Elem::F32 || f.d == Elem::F32 ? c_f32_m8n8k4(l, i) : c_f16_m8n8k4(l, i);
  }
  if (s.is(8, 8, 16)) return m == Mat::A ? a_i8_m8n8k16(l, i) : m == Mat::B ? b_i8_m8n8k16(l, i) : c_8x8(l, i);
  if (m == Mat::C) return c_16x8(l, i);
  const bool f16 = f.a == Elem::F16 || f.a == Elem::BF16, tf32 = f.a == Elem::TF32;
  if (m == Mat::A) {
    if (tf32) return s.k == 4 ? a_tf32_k4(l, i) : a_tf32_k8(l, i);
    if (f16) return s.k == 8 ? a_f16_k8(l, i) : a_f16_k16(l, i);
    return s.k == 16 ? a_i8_k16(l, i) : a_i8_k32(l, i);  // 8-bit k16, k32
  }
  // B: the sparse shapes' K (tf32 k16, f16 k32, 8-bit k64) continue the
  // pattern of the dense K/2 layout, one register per further block of rows.
  if (tf32) return s.k == 4 ? b_tf32_k4(l, i) : b_tf32_k8(l, i);
  if (f16) return s.k == 8 ? b_f16_k8(l, i) : b_f16_k16(l, i);
  return s.k == 16 ? b_i8_k16(l, i) : b_i8_k32(l, i);
}

// How an operand's fragment maps onto a dense_elem layout, decided once per
// operand rather than per element: a sparse A is the dense A of K/2 (the
// stored columns); a sub-byte operand is the 8-bit layout of K/per, each
// byte split into per elements consecutive in K.
struct Plan {
  Form g;
  uint32_t per = 1;
};
Plan plan_of(const Form& f, Mat m) {
  Plan p{f, 1};
  if (f.wmma) return p;
  if (f.sparse && m == Mat::A) p.g = f.stored();
  if (const uint32_t bits = elem_bits(f.type(m)); m != Mat::C && bits < 8) {
    p.per = 8 / bits;
    p.g.s.k /= p.per;
    p.g.a = p.g.b = Elem::S8;
  }
  return p;
}
inline RC plan_elem(const Plan& p, Mat m, uint32_t l, uint32_t i) {
  if (p.per == 1) return dense_elem(p.g, m, l, i);
  const RC x = dense_elem(p.g, m, l, i / p.per);
  return m == Mat::A ? mma::split_a(x, p.per, i) : mma::split_b(x, p.per, i);
}

// Which of the independent products lane l takes part in.
uint32_t group_of(const Form& f, uint32_t l) { return f.quad() ? (l >> 2) & 3 : 0; }

constexpr uint32_t kMaxK = 256;  // m16n8k256 .b1
struct Matrices {
  double a[4][32][kMaxK], b[4][kMaxK][32], c[4][32][32];
};

// A sparse A expanded to its dense M x K: stored element (r, cc) goes to
// the column its chunk's metadata names (tensor_layout.h); the rest are 0.
// Metadata outside the ISA's meaningful values still lands inside the row
// (two stored elements may then share a column: the later one stays).
void expand_sparse_a(Warp& w, const Inst& in, const Form& f, const VecVals& va, double (&a)[32][kMaxK]) {
  for (uint32_t r = 0; r < f.s.m; ++r)
    for (uint32_t k = 0; k < f.s.k; ++k) a[r][k] = 0;
  uint64_t scratch[kWarpSize];
  const uint64_t* meta = w.src(in.o[4], scratch);
  const uint32_t sel = uint32_t(in.o[5].imm), stored = mma::sparse_chunk(f.a) / 2;
  const Plan p = plan_of(f, Mat::A);  // (row, stored column)
  const uint32_t cnt = frag_count(f, Mat::A);
  for (uint32_t l = 0; l < kWarpSize; ++l)
    for (uint32_t i = 0; i < cnt; ++i) {
      const RC rc = plan_elem(p, Mat::A, l, i);
      const mma::MetaAt at = mma::sparse_meta_at(f.s.k, f.a, sel, rc.r, rc.c / stored);
      const uint32_t nib = uint32_t(meta[at.lane] >> at.shift) & 15;
      a[rc.r][mma::sparse_col(f.a, rc.c, nib)] = decode(f.a, va.elem(f.a, l, i));
    }
}

void run_mma(Warp& w, const Inst& in, uint32_t mask, const Form& f) {
  if (!require_full_warp(w, in, mask)) return;
  // 0.5 MiB, on the heap rather than in TLS, and not zeroed: the fragments
  // write every element of the operands' dims (a sparse A is zeroed first).
  static thread_local std::unique_ptr<Matrices> mxp;
  if (!mxp) mxp.reset(new Matrices);
  Matrices& mx = *mxp;
  VecVals va, vb, vc;
  va.load(w, in.o[1]);
  vb.load(w, in.o[2]);
  vc.load(w, in.o[3]);
  auto fill = [&](auto& dst, Mat m, const VecVals& vals) {
    const uint32_t cnt = frag_count(f, m);
    const Elem t = f.type(m);
    const Plan p = plan_of(f, m);
    for (uint32_t l = 0; l < kWarpSize; ++l)
      for (uint32_t i = 0; i < cnt; ++i) {
        const RC rc = plan_elem(p, m, l, i);
        dst[group_of(f, l)][rc.r][rc.c] = decode(t, vals.elem(t, l, i));
      }
  };
  if (f.sparse) expand_sparse_a(w, in, f, va, mx.a[0]);
  else fill(mx.a, Mat::A, va);
  fill(mx.b, Mat::B, vb);
  fill(mx.c, Mat::C, vc);
  const uint32_t groups = f.quad() ? 4 : 1;
  static thread_local double dmat[4][32][32];
  {
    HostRounding hr(fe_mode(in.m.rnd));
    for (uint32_t g = 0; g < groups; ++g)
      for (uint32_t i = 0; i < f.s.m; ++i)
        for (uint32_t j = 0; j < f.s.n; ++j) {
          double acc = mx.c[g][i][j];
          if (f.a == Elem::F64)
            for (uint32_t k = 0; k < f.s.k; ++k) acc = std::fma(mx.a[g][i][k], mx.b[g][k][j], acc);
          else if (f.bop == program::MmaBitOp::Xor)  // bits are 0/1: popc of the xor
            for (uint32_t k = 0; k < f.s.k; ++k) acc += double(mx.a[g][i][k] != mx.b[g][k][j]);
          else  // .and.popc too: a product of bits
            for (uint32_t k = 0; k < f.s.k; ++k) acc += mx.a[g][i][k] * mx.b[g][k][j];
          dmat[g][i][j] = acc;
        }
  }
  uint64_t regs[8][kWarpSize] = {};
  const uint32_t cnt = frag_count(f, Mat::C), per = per_reg(f.d), bits = elem_bits(f.d);
  for (uint32_t l = 0; l < kWarpSize; ++l)
    for (uint32_t i = 0; i < cnt; ++i) {
      RC rc = dense_elem(f, Mat::C, l, i);
      uint64_t v = encode(f.d, dmat[group_of(f, l)][rc.r][rc.c], f.satfinite);
      regs[i / per][l] |= bits >= 64 ? v : v << ((i % per) * bits);
    }
  write_frag(w, in.o[0], cnt / per, regs, mask);
}

// The selectors a sparse form allows: the groups of contributing threads
// that fit in four (ISA "Sparse matrix storage"; others are undefined).
uint32_t sparse_selectors(const Form& f) { return 4 / (f.s.k / mma::sparse_chunk(f.a) / 4); }

// Checks a bound Form against the instruction's operands.
bool operands_fit(const Form& f, const Inst& in) {
  auto n = [](const Operand& o) { return o.kind == OK::Vec ? uint32_t(o.vec_n) : 1u; };
  if (in.nops != (f.sparse ? 6 : 4) && !f.wmma) return false;
  if (f.sparse) {
    const Operand &e = in.o[4], &sel = in.o[5];
    if (e.kind != OK::Reg && e.kind != OK::Imm) return false;
    if (sel.kind != OK::Imm || sel.imm < 0 || uint64_t(sel.imm) >= sparse_selectors(f)) return false;
  }
  return in.nops >= 4 && n(in.o[0]) == frag_regs(f, Mat::C, true) && n(in.o[1]) == frag_regs(f, Mat::A) &&
         n(in.o[2]) == frag_regs(f, Mat::B) && n(in.o[3]) == frag_regs(f, Mat::C);
}

bool is_f16ish(Elem e) { return e == Elem::F16 || e == Elem::F32; }
bool is_i8(Elem e) { return e == Elem::S8 || e == Elem::U8; }
bool is_i4(Elem e) { return e == Elem::S4 || e == Elem::U4; }
bool is_f8(Elem e) { return e == Elem::E4M3 || e == Elem::E5M2; }

// The Form of an mma's decoded modifiers (Inst::aux; no string is compared).
Form form_of(const Inst& in) {
  const program::MmaForm p = program::unpack_mma_form(in.aux);
  Form f;
  f.s = Shape{p.m, p.n, p.k};
  f.d = p.d, f.a = p.a, f.b = p.b, f.c = p.c;
  f.a_row = p.a_row;
  f.b_row = p.b_row;
  f.satfinite = p.satfinite;
  f.sparse = p.sparse;
  f.bop = p.bop;
  return f;
}

// Dense mma.sync forms (PTX ISA "Warp-level MMA"): shape and types.
bool dense_ok(const Form& f) {
  const Shape& s = f.s;
  const bool rowcol = f.a_row && !f.b_row;
  if (s.is(8, 8, 4) && f.a == Elem::F16 && f.b == Elem::F16) return is_f16ish(f.c) && is_f16ish(f.d);
  if (s.is(8, 8, 4)) return rowcol && f.a == Elem::F64 && f.b == Elem::F64 && f.c == Elem::F64 && f.d == Elem::F64;
  if (!rowcol) return false;
  const bool s32 = f.c == Elem::S32 && f.d == Elem::S32, f32 = f.c == Elem::F32 && f.d == Elem::F32;
  if (f.a == Elem::F16 && f.b == Elem::F16 && (s.is(16, 8, 8) || s.is(16, 8, 16))) return is_f16ish(f.c) && f.d == f.c;
  if (f.a == Elem::BF16 && f.b == Elem::BF16 && (s.is(16, 8, 8) || s.is(16, 8, 16))) return f32;
  if (f.a == Elem::TF32 && f.b == Elem::TF32 && (s.is(16, 8, 8) || s.is(16, 8, 4))) return f32;
  if (is_i8(f.a) && is_i8(f.b) && (s.is(8, 8, 16) || s.is(16, 8, 16) || s.is(16, 8, 32))) return s32;
  if (is_i4(f.a) && is_i4(f.b) && (s.is(8, 8, 32) || s.is(16, 8, 32) || s.is(16, 8, 64))) return s32;
  if (is_f8(f.a) && is_f8(f.b) && (s.is(16, 8, 32) || s.is(16, 8, 16))) return f32;
  return false;
}

// mma.sp / mma.sp::ordered_metadata forms ("Warp-level MMA with sparse A").
bool sparse_ok(const Form& f) {
  const Shape& s = f.s;
  if (!f.a_row || f.b_row || s.m != 16 || s.n != 8) return false;
  const bool s32 = f.c == Elem::S32 && f.d == Elem::S32, f32 = f.c == Elem::F32 && f.d == Elem::F32;
  if (f.a == Elem::F16 && f.b == Elem::F16 && (s.k == 16 || s.k == 32)) return is_f16ish(f.c) && f.d == f.c;
  if (f.a == Elem::BF16 && f.b == Elem::BF16 && (s.k == 16 || s.k == 32)) return f32;
  if (f.a == Elem::TF32 && f.b == Elem::TF32 && (s.k == 8 || s.k == 16)) return f32;
  if (is_i8(f.a) && is_i8(f.b) && (s.k == 32 || s.k == 64)) return s32;
  if (is_i4(f.a) && is_i4(f.b) && (s.k == 64 || s.k == 128)) return s32;
  if (is_f8(f.a) && is_f8(f.b) && s.k == 64) return f32;
  return false;
}

// .b1: m8n8k128, m16n8k128, m16n8k256, .s32 with .xor.popc or .and.popc.
bool bits_ok(const Form& f) {
  const Shape& s = f.s;
  if (f.a != Elem::B1 || f.b != Elem::B1 || f.c != Elem::S32 || f.d != Elem::S32 || f.sparse || f.satfinite)
    return false;
  return f.bop != program::MmaBitOp::None && (s.is(8, 8, 128) || s.is(16, 8, 128) || s.is(16, 8, 256));
}

bool mma_form(const Inst& in, Form& f) {
  if (!program::unpack_mma_form(in.aux).ok) return false;
  f = form_of(in);
  bool ok = f.a == Elem::B1 || f.bop != program::MmaBitOp::None ? bits_ok(f) : f.sparse ? sparse_ok(f) : dense_ok(f);
  if (f.satfinite && f.d != Elem::S32) ok = false;
  return ok && operands_fit(f, in);
}

void exec_mma(Warp& w, const Inst& in, uint32_t mask) {
  run_mma(w, in, mask, form_of(in));  // validated at bind
}

// ---- wmma ----
uint32_t mem_bytes(Elem e) { return elem_bits(e) / 8; }

bool wmma_shape_ok(Shape s, Elem ab) {
  switch (ab) {
    case Elem::F16: case Elem::BF16: case Elem::S8: case Elem::U8:
      return s.is(16, 16, 16) || s.is(32, 8, 16) || s.is(8, 32, 16);
    case Elem::TF32: return s.is(16, 16, 8);
    case Elem::F64: return s.is(8, 8, 4);
    default: return false;
  }
}

// The multiplicand type implied by a load/store element type and shape.
Elem wmma_ab_of(Mat m, Elem t, Shape s) {
  if (m != Mat::C) return t;
  if (t == Elem::F64) return Elem::F64;
  if (t == Elem::S32) return Elem::U8;
  if (s.is(16, 16, 8)) return Elem::TF32;
  return Elem::F16;  // f16/f32 accumulators of the k16 shapes
}

bool wmma_mma_form(const Inst& in, const Mods& p, Form& f) {
  f.wmma = true;
  f.s = p.shape;
  if (p.nlayouts != 2) return false;
  f.a_row = p.layout[0];
  f.b_row = p.layout[1];
  f.satfinite = p.satfinite;
  if (p.ntypes == 2) {  // .dtype.ctype with f16 multiplicands
    f.d = p.types[0], f.c = p.types[1], f.a = f.b = Elem::F16;
    if (!is_f16ish(f.c) || !is_f16ish(f.d)) return false;
  } else if (p.ntypes == 4) {
    f.d = p.types[0], f.a = p.types[1], f.b = p.types[2], f.c = p.types[3];
    bool ok = false;
    if (f.a == Elem::BF16 || f.a == Elem::TF32) ok = f.b == f.a && f.c == Elem::F32 && f.d == Elem::F32;
    else if (is_i8(f.a)) ok = f.b == f.a && f.c == Elem::S32 && f.d == Elem::S32;
    else if (f.a == Elem::F64) ok = f.b == f.a && f.c == Elem::F64 && f.d == Elem::F64;
    if (!ok) return false;
  } else {
    return false;
  }
  if (f.satfinite && f.d != Elem::S32) return false;
  return wmma_shape_ok(f.s, f.a) && operands_fit(f, in);
}

// Per-lane load/store of a wmma fragment: element (r, c) lives at
// p + (row-major ? r*stride + c : c*stride + r) * sizeof(element).
template <bool Store>
void wmma_move(Warp& w, const Inst& in, uint32_t mask) {
  if (!require_full_warp(w, in, mask)) return;
  Mods p = parse(in);
  Form f;
  f.wmma = true;
  f.s = p.shape;
  const Elem t = p.types[0];
  const Mat m = Store ? Mat::C : p.mat;
  f.a = f.b = wmma_ab_of(m, t, f.s);
  f.c = f.d = t;
  if (m == Mat::A) f.a = t;
  if (m == Mat::B) f.b = t;
  const bool row = p.layout[0];
  const Operand& addr = Store ? in.o[0] : in.o[1];
  const Operand& frag = Store ? in.o[1] : in.o[0];
  const RC d = dims(f.s, m);
  uint64_t s0[kWarpSize], s1[kWarpSize];
  const uint64_t* base = addr.reg == program::kNoReg ? s0 : w.reg(addr.reg);
  const uint64_t* stride = in.nops >= 3 ? w.src(in.o[2], s1) : nullptr;
  const uint32_t esize = mem_bytes(t), cnt = frag_count(f, m), per = per_reg(t), bits = elem_bits(t);
  // Each row (column) start must be aligned to the fragment size (ISA
  // "Matrix Storage for WMMA"), capped at 16 bytes.
  const uint32_t align = std::min<uint32_t>(cnt * esize, 16);
  uint64_t regs[8][kWarpSize] = {};
  VecVals vals;
  if (Store) vals.load(w, frag);
  bool ok = true;
  for_lanes(mask, [&](uint32_t l) {
    if (!ok) return;
    const uint64_t p0 = w.address(addr, l, base);
    const uint64_t ld = stride ? uint32_t(stride[l]) : (row ? d.c : d.r);
    if ((p0 | (ld * esize)) & (align - 1)) {
      w.fault(Status::MisalignedAddress, l, p0,
              fmt::format("{}: address 0x{:x} and stride {} must keep every {} start {}-byte aligned", in.text(), p0,
                          ld, row ? "row" : "column", align));
      ok = false;
      return;
    }
    for (uint32_t i = 0; i < cnt && ok; ++i) {
      const RC rc = wmma_elem(f.s, m, t, l, i);
      const uint64_t off = row ? uint64_t(rc.r) * ld + rc.c : uint64_t(rc.c) * ld + rc.r;
      std::byte* q = w.translate(in.m.space, p0 + off * esize, esize, l, Store);
      if (!q) { ok = false; return; }
      if constexpr (Store) {
        const uint64_t v = vals.elem(t, l, i);
        std::memcpy(q, &v, esize);
      } else {
        uint64_t v = 0;
        std::memcpy(&v, q, esize);
        regs[i / per][l] |= bits >= 64 ? v : v << ((i % per) * bits);
      }
    }
  });
  if (ok && !Store) write_frag(w, frag, cnt / per, regs, mask);
}

void exec_wmma_mma(Warp& w, const Inst& in, uint32_t mask) {
  Form f;
  wmma_mma_form(in, parse(in), f);  // validated at bind
  run_mma(w, in, mask, f);
}

ExecFn bind_wmma(const Inst& in) {
  Mods p = parse(in);
  if (!p.ok) return nullptr;
  if (p.kind == Mods::Kind::Mma) {
    Form f;
    return wmma_mma_form(in, p, f) ? &exec_wmma_mma : nullptr;
  }
  if (p.kind != Mods::Kind::Load && p.kind != Mods::Kind::Store) return nullptr;
  if (!p.mat_seen || p.nlayouts != 1 || p.ntypes != 1 || p.satfinite || p.x || p.trans) return nullptr;
  const bool store = p.kind == Mods::Kind::Store;
  const Mat m = p.mat;
  const Elem t = p.types[0];
  if (store != p.d_seen) return nullptr;  // wmma.store.d, wmma.load.{a,b,c}
  if (m == Mat::C) {
    if (t != Elem::F16 && t != Elem::F32 && t != Elem::S32 && t != Elem::F64) return nullptr;
  } else if (t == Elem::F32 || t == Elem::S32 || t == Elem::None || is_f8(t)) {
    return nullptr;
  }
  if (!wmma_shape_ok(p.shape, wmma_ab_of(m, t, p.shape))) return nullptr;
  if ((m == Mat::C) && t == Elem::F64 && !p.shape.is(8, 8, 4)) return nullptr;
  // Register count of the fragment operand.
  Form f;
  f.wmma = true;
  f.s = p.shape;
  f.a = f.b = wmma_ab_of(m, t, p.shape);
  if (m == Mat::A) f.a = t;
  if (m == Mat::B) f.b = t;
  f.c = f.d = t;
  const Operand& frag = store ? in.o[1] : in.o[0];
  const uint32_t n = frag.kind == OK::Vec ? frag.vec_n : 1;
  if (n != frag_count(f, m) / per_reg(t) || in.nops < 2) return nullptr;
  return store ? &wmma_move<true> : &wmma_move<false>;
}

// ---- ldmatrix / stmatrix: 8x8 matrices of b16, one 16-byte row per lane ----
// Lanes 8i..8i+7 give the row addresses of matrix i. Lane l receives (or
// supplies) in register i the pair at row l/4, columns 2(l%4) and 2(l%4)+1
// of matrix i; with .trans, of its transpose.
template <bool Store>
void exec_matrix(Warp& w, const Inst& in, uint32_t mask) {
  if (!require_full_warp(w, in, mask)) return;
  const Mods p = parse(in);
  const uint32_t nm = uint32_t(p.x);
  const Operand& addr = Store ? in.o[0] : in.o[1];
  const Operand& frag = Store ? in.o[1] : in.o[0];
  uint64_t s0[kWarpSize];
  const uint64_t* base = addr.reg == program::kNoReg ? s0 : w.reg(addr.reg);
  uint16_t mat[4][8][8];
  std::byte* rows[4][8];
  for (uint32_t i = 0; i < nm; ++i)
    for (uint32_t r = 0; r < 8; ++r) {
      const uint32_t l = 8 * i + r;
      rows[i][r] = w.translate(in.m.space, w.address(addr, l, base), 16, l, Store);
      if (!rows[i][r]) return;
      if (!Store) std::memcpy(mat[i][r], rows[i][r], 16);
    }
  auto at = [&](uint32_t l, uint32_t j) -> std::pair<uint32_t, uint32_t> {  // (row, col) of half j
    const uint32_t a = l / 4, b = 2 * (l % 4) + j;
    return p.trans ? std::pair{b, a} : std::pair{a, b};
  };
  if constexpr (Store) {
    VecVals v;
    v.load(w, frag);
    for (uint32_t i = 0; i < nm; ++i)
      for (uint32_t l = 0; l < kWarpSize; ++l)
        for (uint32_t j = 0; j < 2; ++j) {
          auto [r, c] = at(l, j);
          mat[i][r][c] = uint16_t(v.v[i][l] >> (16 * j));
        }
    for (uint32_t i = 0; i < nm; ++i)
      for (uint32_t r = 0; r < 8; ++r) std::memcpy(rows[i][r], mat[i][r], 16);
  } else {
    uint64_t regs[4][kWarpSize];
    for (uint32_t i = 0; i < nm; ++i)
      for (uint32_t l = 0; l < kWarpSize; ++l) {
        auto [r0, c0] = at(l, 0);
        auto [r1, c1] = at(l, 1);
        regs[i][l] = uint64_t(mat[i][r0][c0]) | uint64_t(mat[i][r1][c1]) << 16;
      }
    write_frag(w, frag, nm, regs, mask);
  }
}

ExecFn bind_matrix(const Inst& in) {
  Mods p = parse(in);
  const bool store = in.op == Opcode::Stmatrix;
  if (!p.ok || !p.m8n8 || !p.b16 || p.ntypes || p.nlayouts || p.kind != Mods::Kind::None || p.shape.m) return nullptr;
  if (p.x != 1 && p.x != 2 && p.x != 4) return nullptr;
  if (in.m.space != Space::Shared && in.m.space != Space::Generic) return nullptr;
  const Operand& frag = store ? in.o[1] : in.o[0];
  const Operand& addr = store ? in.o[0] : in.o[1];
  const uint32_t n = frag.kind == OK::Vec ? frag.vec_n : 1;
  if (n != uint32_t(p.x) || addr.kind != OK::Addr) return nullptr;
  return store ? &exec_matrix<true> : &exec_matrix<false>;
}

ExecFn bind_mma(const Inst& in) {
  Form f;
  return mma_form(in, f) ? &exec_mma : nullptr;
}

}  // namespace

void register_tensor_handlers(HandlerTable& t) {
  t.bind[size_t(Opcode::Wmma)] = &bind_wmma;
  t.bind[size_t(Opcode::Mma)] = &bind_mma;
  t.bind[size_t(Opcode::Ldmatrix)] = &bind_matrix;
  t.bind[size_t(Opcode::Stmatrix)] = &bind_matrix;
}

}  // namespace softgpu::exec
