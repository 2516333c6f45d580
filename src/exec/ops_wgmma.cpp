// Instruction semantics: the Hopper warpgroup-level matrix multiply
// (wgmma.fence, .commit_group, .wait_group, .mma_async; sm_90a) and
// setmaxnreg.
//
// wgmma.mma_async computes D = A * B + (scale-d ? D : 0), D 64 x N, A 64 x K,
// B K x N, for a warpgroup: four consecutive warps (warp id in the CTA / 4).
// Warp r of the group holds rows 16r..16r+15 of D, and of A when A comes
// from registers, in the layouts of the ISA's "Register Fragments" (those of
// mma.m16n8k16/k8/k32 with 16r added to the row, repeated over N in 8-column
// tiles). Those rows depend on nothing the other warps hold, so each warp
// computes its own slice when it executes the instruction, from shared
// memory as it is then, and writes its D at once. A correct program cannot
// tell this from the asynchronous completion: it may not touch D or the
// operands' shared memory between the mma_async and the wgmma.wait_group
// that covers it. wgmma.fence, commit_group and wait_group therefore have
// nothing left to do. Arithmetic as mma.sync (ops_tensor.cpp): exact
// products summed in double in k order from D, rounded once.
//
// Shared-memory operands come as 64-bit matrix descriptors (ISA "Matrix
// Descriptor Format"): start address in bits 0-13, leading dimension byte
// offset LBO in 16-29, stride dimension byte offset SBO in 32-45 (each
// (x & 0x3ffff) >> 4), base offset in 49-51, swizzle in 62-63 (0 none,
// 1 128-byte, 2 64-byte, 3 32-byte). Address of element (mn, k) of A (mn =
// row m) or B (mn = column n), e = element bytes, relative to the start
// address (ISA "Shared Memory Matrix Layout": core matrices of 8 rows of 16
// bytes; CuTe's GMMA::Layout_*_Atom describe the same):
//   K-major (imm-trans 0), kb = k*e (K spans 32 bytes):
//     no swizzle:   16*(mn%8) + SBO*(mn/8) + LBO*(kb/16) + kb%16
//     W-byte rows:  W*(mn%8) + SBO*(mn/8) + kb
//   MN-major (imm-trans 1, f16/bf16 only), mb = mn*e (k in 0..15):
//     no swizzle:   mb%16 + SBO*(mb/16) + 16*(k%8) + LBO*(k/8)
//     W-byte rows:  mb%W + LBO*(mb/W) + W*(k%8) + SBO*(k/8)
// The W-byte swizzle (W = 32/64/128) then permutes the 16-byte units of
// each row by the row's place in its pattern of W*8 bytes: address bits 4
// and up (log2(W/16) of them) are XORed with as many bits from bit 7 up, of
// the shared address counted from the pattern's start. Patterns start at
// multiples of W*8 bytes, or, with a base offset b != 0, where address bits
// 7-9 equal b (the ISA: b = (pattern start >> 7) & 7).
#include <fmt/format.h>

#include <cstring>

#include "exec/float_util.h"
#include "exec/tensor_layout.h"
#include "exec/tensor_values.h"
#include "exec/warp.h"

namespace softgpu::exec {
namespace {

using isa::Opcode;
using OK = Operand::Kind;
using namespace tensor;

// ---- the form, decoded once at bind ----
struct Form {
  Elem d = Elem::None, a = Elem::None, b = Elem::None;
  bool a_regs = false;  // A from registers (a vector), else a descriptor
  bool sat = false;     // .satfinite (integer)
};

constexpr bool is_f8(Elem e) { return e == Elem::E4M3 || e == Elem::E5M2; }
constexpr bool is_i8(Elem e) { return e == Elem::S8 || e == Elem::U8; }
constexpr bool is_f16ish(Elem e) { return e == Elem::F16 || e == Elem::BF16; }
uint32_t k_of(Elem a) { return 256 / elem_bits(a); }  // K spans 32 bytes
// Accumulator registers per thread: 16 rows x N / 32 lanes, packed.
uint32_t d_regs(const Form& f, uint32_t n) { return n / 2 / per_reg(f.d); }
// imm-trans-a / imm-trans-b exist for f16/bf16 only; imm-scale for all but integers.
uint32_t imm_count(const Form& f) { return is_i8(f.a) ? 0 : !is_f16ish(f.a) ? 2 : f.a_regs ? 3 : 4; }

bool n_ok(const Form& f, uint32_t n) {
  if (n < 8 || n > 256 || n % 8) return false;
  return !is_i8(f.a) || n <= 24 || n % 16 == 0;  // integer: 8, 16, 24, then multiples of 16
}

bool types_ok(const Form& f) {
  if (f.sat && f.d != Elem::S32) return false;
  switch (f.a) {
    case Elem::F16: return f.b == Elem::F16 && (f.d == Elem::F16 || f.d == Elem::F32);
    case Elem::BF16: case Elem::TF32: return f.b == f.a && f.d == Elem::F32;
    case Elem::E4M3: case Elem::E5M2: return is_f8(f.b) && (f.d == Elem::F16 || f.d == Elem::F32);
    case Elem::S8: case Elem::U8: return is_i8(f.b) && f.d == Elem::S32;
    default: return false;
  }
}

// ---- shared-memory operands ----
struct Desc {
  uint32_t start, lbo, sbo, base, swizzle_bytes;  // swizzle_bytes: W, 0 = none
};

Desc decode_desc(uint64_t v) {
  static constexpr uint32_t kWidth[4] = {0, 128, 64, 32};
  return Desc{uint32_t(v & 0x3fff) << 4, uint32_t((v >> 16) & 0x3fff) << 4, uint32_t((v >> 32) & 0x3fff) << 4,
              uint32_t((v >> 49) & 7), kWidth[v >> 62]};
}

uint32_t swizzle(const Desc& d, uint32_t addr) {
  if (!d.swizzle_bytes) return addr;
  const uint32_t mask = d.swizzle_bytes / 16 - 1;  // 7, 3, 1
  const uint32_t phase = ((addr >> 7) - d.base) & mask;
  return addr ^ (phase << 4);
}

// Shared address of element (mn, k); e = element bytes.
uint32_t elem_addr(const Desc& d, bool mn_major, uint32_t mn, uint32_t k, uint32_t e) {
  const uint32_t w = d.swizzle_bytes;
  uint32_t off;
  if (!mn_major) {
    const uint32_t kb = k * e;
    off = w ? w * (mn % 8) + d.sbo * (mn / 8) + kb : 16 * (mn % 8) + d.sbo * (mn / 8) + d.lbo * (kb / 16) + kb % 16;
  } else {
    const uint32_t mb = mn * e;
    off = w ? mb % w + d.lbo * (mb / w) + w * (k % 8) + d.sbo * (k / 8)
            : mb % 16 + d.sbo * (mb / 16) + 16 * (k % 8) + d.lbo * (k / 8);
  }
  return swizzle(d, d.start + off);
}

// Rows [mn0, mn0 + rows) x K of an operand into out[row][k]; false after a fault.
bool load_smem(Warp& w, uint64_t desc, bool mn_major, uint32_t mn0, uint32_t rows, Elem t, double (*out)[32]) {
  const Desc d = decode_desc(desc);
  const uint32_t e = elem_bits(t) / 8, K = k_of(t);
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t k = 0; k < K; ++k) {
      const std::byte* p = w.translate(ptx::Space::Shared, elem_addr(d, mn_major, mn0 + r, k, e), e, 0, false);
      if (!p) return false;
      uint32_t bits = 0;
      std::memcpy(&bits, p, e);
      out[r][k] = decode(t, bits);
    }
  return true;
}

// Element i of a thread's A fragment (rows of its warp's 16-row slice).
RC a_elem(Elem t, uint32_t lane, uint32_t i) {
  if (is_f16ish(t)) return mma::a_f16_k16(lane, i);
  if (t == Elem::TF32) return mma::a_tf32_k8(lane, i);
  return mma::a_i8_k32(lane, i);
}

// Element i of a thread's D fragment: mma's 16 x 8 accumulator tile, once per 8 columns.
RC d_elem(uint32_t lane, uint32_t i) {
  const RC x = mma::c_16x8(lane, i & 3);
  return {x.r, x.c + 8 * (i >> 2)};
}

struct Operands {
  double a[16][32];   // this warp's rows of A
  double b[256][32];  // B transposed: b[n][k]
};

void mma_async(Warp& w, const Inst& in, uint32_t mask, const Form& f) {
  if (!require_full_warp(w, in, mask)) return;
  static thread_local Operands x;
  const uint32_t K = k_of(f.a), N = in.o[0].vec_n * 2 * per_reg(f.d);  // N/2 elements per thread
  const uint32_t rank = w.warp_id() % 4;
  // imm-scale-a, imm-scale-b, then imm-trans-a (descriptor A only), imm-trans-b.
  const uint32_t nimm = program::wgmma_imm_count(in);
  const double sa = nimm >= 2 ? program::wgmma_imm(in, 0) : 1, sb = nimm >= 2 ? program::wgmma_imm(in, 1) : 1;
  const bool trans_a = nimm == 4 && program::wgmma_imm(in, 2) == 1;
  const bool trans_b = nimm >= 3 && program::wgmma_imm(in, nimm - 1) == 1;
  uint64_t s1[kWarpSize], s2[kWarpSize];
  if (f.a_regs) {
    VecVals va;
    va.load(w, in.o[1]);
    const uint32_t cnt = 16 * K / kWarpSize;
    for (uint32_t l = 0; l < kWarpSize; ++l)
      for (uint32_t i = 0; i < cnt; ++i) {
        const RC rc = a_elem(f.a, l, i);
        x.a[rc.r][rc.c] = decode(f.a, va.elem(f.a, l, i));
      }
  } else if (!load_smem(w, w.src(in.o[1], s1)[0], trans_a, 16 * rank, 16, f.a, x.a)) {  // lane 0's descriptor
    return;
  }
  if (!load_smem(w, w.src(in.o[2], s2)[0], trans_b, 0, N, f.b, x.b)) return;
  if (sa < 0)
    for (auto& row : x.a)
      for (double& v : row) v = -v;
  if (sb < 0)
    for (uint32_t c = 0; c < N; ++c)
      for (uint32_t k = 0; k < K; ++k) x.b[c][k] = -x.b[c][k];
  const Operand& sd = in.o[3];
  const uint32_t keep = sd.kind == OK::Pred ? w.pred_value(sd) : (sd.imm != 0 ? kFullMask : 0);
  const uint32_t per = per_reg(f.d), bits = elem_bits(f.d);
  const uint64_t emask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  uint64_t scratch[kWarpSize];
  for (uint32_t r = 0; r < in.o[0].vec_n; ++r) {
    const Operand& reg = w.vec_elem(in.o[0], r);
    const uint64_t* old = w.src(reg, scratch);
    uint64_t out[kWarpSize];
    for (uint32_t l = 0; l < kWarpSize; ++l) {
      uint64_t v = 0;
      for (uint32_t j = 0; j < per; ++j) {
        const RC rc = d_elem(l, r * per + j);
        double acc = (keep >> l & 1) ? tensor::decode(f.d, (old[l] >> (j * bits)) & emask) : 0.0;
        for (uint32_t k = 0; k < K; ++k) acc += x.a[rc.r][k] * x.b[rc.c][k];
        v |= (encode(f.d, acc, f.sat) & emask) << (j * bits);
      }
      out[l] = v;
    }
    if (uint64_t* dst = w.dst(reg)) std::memcpy(dst, out, sizeof out);
  }
}

template <Form F>
void exec_mma_async(Warp& w, const Inst& in, uint32_t mask) {
  mma_async(w, in, mask, F);
}

template <Elem D, Elem A, Elem B>
ExecFn pick(bool a_regs, bool sat) {
  if (sat) return a_regs ? &exec_mma_async<Form{D, A, B, true, true}> : &exec_mma_async<Form{D, A, B, false, true}>;
  return a_regs ? &exec_mma_async<Form{D, A, B, true, false}> : &exec_mma_async<Form{D, A, B, false, false}>;
}

// fp8 and integer forms mix their two multiplicand types freely.
template <Elem D, Elem A>
ExecFn pick_b(Elem b, bool a_regs, bool sat) {
  if constexpr (is_f8(A))
    return b == Elem::E5M2 ? pick<D, A, Elem::E5M2>(a_regs, sat) : pick<D, A, Elem::E4M3>(a_regs, sat);
  else
    return b == Elem::U8 ? pick<D, A, Elem::U8>(a_regs, sat) : pick<D, A, Elem::S8>(a_regs, sat);
}

ExecFn handler(const Form& f) {
  const bool r = f.a_regs, s = f.sat;
  const bool h = f.d == Elem::F16;
  switch (f.a) {
    case Elem::F16:
      return h ? pick<Elem::F16, Elem::F16, Elem::F16>(r, s) : pick<Elem::F32, Elem::F16, Elem::F16>(r, s);
    case Elem::BF16: return pick<Elem::F32, Elem::BF16, Elem::BF16>(r, s);
    case Elem::TF32: return pick<Elem::F32, Elem::TF32, Elem::TF32>(r, s);
    case Elem::E4M3: return h ? pick_b<Elem::F16, Elem::E4M3>(f.b, r, s) : pick_b<Elem::F32, Elem::E4M3>(f.b, r, s);
    case Elem::E5M2: return h ? pick_b<Elem::F16, Elem::E5M2>(f.b, r, s) : pick_b<Elem::F32, Elem::E5M2>(f.b, r, s);
    case Elem::S8: return pick_b<Elem::S32, Elem::S8>(f.b, r, s);
    case Elem::U8: return pick_b<Elem::S32, Elem::U8>(f.b, r, s);
    default: return nullptr;
  }
}

// wgmma.mma_async.sync.aligned.shape.dtype.atype.btype{.satfinite}
ExecFn bind_mma_async(const Inst& in, const std::vector<std::string_view>& mods) {
  Form f;
  Shape s;
  Elem types[3];
  uint32_t ntypes = 0;
  bool shape_seen = false;
  for (std::string_view m : mods) {
    if (m == ".sync" || m == ".aligned") continue;
    if (m == ".satfinite") { f.sat = true; continue; }
    if (Elem e = elem_of(m); e != Elem::None) {
      if (ntypes == 3) return nullptr;
      types[ntypes++] = e;
      continue;
    }
    if (!shape_seen && parse_shape(m, s)) { shape_seen = true; continue; }
    return nullptr;  // .sp and anything else: not implemented
  }
  if (ntypes != 3 || !shape_seen || s.m != 64) return nullptr;
  f.d = types[0], f.a = types[1], f.b = types[2];
  if (!types_ok(f) || s.k != k_of(f.a) || !n_ok(f, s.n) || in.nops != 4) return nullptr;
  const Operand &d = in.o[0], &a = in.o[1], &b = in.o[2], &sd = in.o[3];
  f.a_regs = a.kind == OK::Vec;
  if (d.kind != OK::Vec || d.vec_n != d_regs(f, s.n)) return nullptr;
  if (f.a_regs ? a.vec_n != 4 : a.kind != OK::Reg && a.kind != OK::Imm) return nullptr;
  if (b.kind != OK::Reg && b.kind != OK::Imm) return nullptr;
  if (sd.kind != OK::Pred && sd.kind != OK::Imm) return nullptr;
  const uint32_t nimm = program::wgmma_imm_count(in);
  if (nimm != imm_count(f)) return nullptr;
  for (uint32_t i = 0; i < nimm; ++i)
    if (i < 2 && program::wgmma_imm(in, i) == 0) return nullptr;  // imm-scale: 1 or -1
  for (uint32_t i = 2; i < nimm; ++i)
    if (program::wgmma_imm(in, i) < 0) return nullptr;  // imm-trans: 0 or 1
  return handler(f);
}

void exec_nothing(Warp&, const Inst&, uint32_t) {}

ExecFn bind_wgmma(const Inst& in) {
  std::vector<std::string_view> mods(in.raw_mods.begin(), in.raw_mods.end());
  if (mods.empty()) return nullptr;
  const std::string_view kind = mods[0];
  mods.erase(mods.begin());
  if (kind == ".mma_async") return bind_mma_async(in, mods);
  const bool sync_aligned = mods.size() == 2 && mods[0] == ".sync" && mods[1] == ".aligned";
  if (!sync_aligned) return nullptr;
  // Results are complete at issue (see the top of the file): nothing to order or wait for.
  if (kind == ".fence" || kind == ".commit_group") return in.nops == 0 ? &exec_nothing : nullptr;
  if (kind == ".wait_group")
    return in.nops == 1 && in.o[0].kind == OK::Imm && in.o[0].imm >= 0 ? &exec_nothing : nullptr;
  return nullptr;
}

// setmaxnreg.{inc,dec}.sync.aligned.u32 n (n checked by the parser): the
// executor has no register file to resize.
ExecFn bind_setmaxnreg(const Inst& in) {
  const auto& m = in.raw_mods;
  if (m.size() != 4 || (m[0] != ".inc" && m[0] != ".dec") || m[1] != ".sync" || m[2] != ".aligned" ||
      m[3] != ".u32")
    return nullptr;
  return in.nops == 1 && in.o[0].kind == OK::Imm ? &exec_nothing : nullptr;
}

}  // namespace

void register_wgmma_handlers(HandlerTable& t) {
  t.bind[size_t(Opcode::Wgmma)] = &bind_wgmma;
  t.bind[size_t(Opcode::Setmaxnreg)] = &bind_setmaxnreg;
}

}  // namespace softgpu::exec
