// Instruction semantics: the Hopper warpgroup-level matrix multiply
// (wgmma.fence, .commit_group, .wait_group, .mma_async; sm_90a) and
// setmaxnreg.
//
// wgmma.mma_async computes D = A * B + (scale-d ? D : 0), D 64 x N, A 64 x K,
// B K x N, for a warpgroup: four consecutive warps (warp id in the CTA / 4).
// The sparse form (.sp: K twice the dense one, A holding K/2 columns, a
// metadata register and a sparsity selector) expands A as mma.sp does.
// Warp r of the group holds rows 16r..16r+15 of D, and of A when A comes
// from registers, in the layouts of the ISA's "Register Fragments" (those of
// mma.m16n8k16/k8/k32 with 16r added to the row, repeated over N in 8-column
// tiles).
//
// The four warps issue one operation together, as the hardware's
// warpgroup arrive does: a warp's mma_async only records what it issued
// (its descriptors, its A registers, scale-d, where its D lives), and the
// operation runs when the last of the four warps issues it, reading shared
// memory as it is then and writing the D registers of all four warps. A
// warp's wgmma.wait_group waits (WarpState::AtWgmmaWait) until the
// operations of the groups it waits for have run, so a warp that finished
// its wait may overwrite the operands' shared memory (a CuTe mainloop with
// no CTA barrier between stages does) without changing what the other
// warps' slices read. Each warp's operations complete in the order it
// issued them, so a chain of mma_async into one D accumulates in order. A
// warpgroup whose operation can never complete (a warp exited, waits
// elsewhere, or the CTA has fewer than four warps there) is reported as a
// deadlock by the scheduler (exec/launch.cpp) when its warps wait for it.
// Arithmetic as mma.sync (ops_tensor.cpp): exact products summed in double
// in k order from D, rounded once.
//
// The other asynchronous operations need no such rendezvous: cp.async,
// cp.async.bulk (TMA) and mbarrier transactions are issued by one thread
// each and take effect at issue, the earliest point a correct program can
// tell; barrier.cluster counts arrivals per cluster phase (launch.cpp).
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

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <memory>

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
template <size_t W>
bool load_smem(Warp& w, uint64_t desc, bool mn_major, uint32_t mn0, uint32_t rows, Elem t, uint32_t K,
               double (*out)[W]) {
  const Desc d = decode_desc(desc);
  const uint32_t e = elem_bits(t) / 8;
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t k = 0; k < K;) {
      // Elements adjacent in shared memory (along K in a K-major layout,
      // inside one 16-byte unit, which swizzling keeps whole) are read as
      // one access: one translate, and one record for a listener.
      const uint32_t a = elem_addr(d, mn_major, mn0 + r, k, e);
      uint32_t n = 1;
      while (k + n < K && a % 16 + (n + 1) * e <= 16 && elem_addr(d, mn_major, mn0 + r, k + n, e) == a + n * e) ++n;
      const std::byte* p = w.translate(ptx::Space::Shared, a, n * e, 0, false);
      if (!p) return false;
      for (uint32_t i = 0; i < n; ++i, ++k) {
        uint32_t bits = 0;
        std::memcpy(&bits, p + i * e, e);
        out[r][k] = decode(t, bits);
      }
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

// K of a sparse form: twice the dense one (A holds half of its columns).
constexpr uint32_t kMaxK = 64;
struct Operands {
  double a[16][kMaxK];   // this warp's rows of A
  double b[256][kMaxK];  // B transposed: b[n][k]
  double stored[16][32];  // a sparse A's stored columns
};

// A sparse A (wgmma.mma_async.sp) expanded to its K columns: the stored
// column cc of row r goes where the metadata of its chunk says, as for
// mma.sp of the warp's 16 rows (tensor_layout.h; the ISA's warpgroup
// sparse metadata repeats mma.sp's m16n8k(K) layout in each warp).
void expand_sparse(Elem t, uint32_t K, const uint32_t* meta, uint32_t sel, const double (*stored)[32],
                   double (*a)[kMaxK]) {
  const uint32_t per_chunk = mma::sparse_chunk(t) / 2;
  for (uint32_t r = 0; r < 16; ++r) {
    std::fill(a[r], a[r] + K, 0.0);
    for (uint32_t cc = 0; cc < K / 2; ++cc) {
      const mma::MetaAt at = mma::sparse_meta_at(K, t, sel, r, cc / per_chunk);
      const uint32_t nib = (meta[at.lane] >> at.shift) & 0xf;
      a[r][mma::sparse_col(t, cc, nib)] = stored[r][cc];
    }
  }
}

}  // namespace

// One warp's part of a wgmma.mma_async, as it issued it.
struct WgmmaIssue {
  const Inst* in = nullptr;
  uint64_t desc_a = 0, desc_b = 0;  // lane 0's descriptors
  uint32_t keep = 0;                // lanes whose D accumulates (scale-d)
  bool sparse = false;              // .sp: metadata and selector below
  uint32_t sel = 0, meta[32] = {};
  uint32_t d_abs[128];              // D registers from the warp's first frame (UINT32_MAX: none)
  double a[16][32];                 // A from registers, decoded at issue
};

struct WgmmaState {
  struct Group {
    uint64_t completed = 0;  // operations run (issued by all four warps)
    // Operations completed, completed + 1, ...: each warp's issue, by rank.
    std::deque<std::array<WgmmaIssue*, 4>> pending;
  };
  struct WarpQ {
    uint64_t issued = 0;          // operations this warp issued
    std::deque<uint64_t> groups;  // committed groups not seen complete: `issued` at each commit
    uint32_t wait_n = 0;          // wait_group's N while the warp waits
  };
  std::vector<Group> groups;  // by warpgroup
  std::vector<WarpQ> warps;   // by warp id
  std::vector<std::unique_ptr<WgmmaIssue>> owned;  // every issue record, reused through `spare`
  std::vector<WgmmaIssue*> spare;

  explicit WgmmaState(size_t nwarps) : groups((nwarps + 3) / 4), warps(nwarps) {}
  WgmmaIssue* take() {
    if (spare.empty()) {
      owned.push_back(std::make_unique<WgmmaIssue>());
      return owned.back().get();
    }
    WgmmaIssue* x = spare.back();
    spare.pop_back();
    return x;
  }
  void give(WgmmaIssue* x) { spare.push_back(x); }
  // wait_group N is satisfied: at most N of the warp's committed groups
  // still hold operations that have not run.
  bool satisfied(uint32_t warp_id, uint32_t n) {
    WarpQ& q = warps[warp_id];
    const uint64_t done = groups[warp_id / 4].completed;
    while (!q.groups.empty() && q.groups.front() <= done) q.groups.pop_front();
    return q.groups.size() <= n;
  }
};

void WgmmaStateDeleter::operator()(WgmmaState* s) const { delete s; }

namespace {

// Operations a warp may run ahead of the rest of its warpgroup.
constexpr uint64_t kMaxPending = 4096;

WgmmaState& wgmma_state(Warp& w) {
  Cta& c = w.cta();
  if (!c.wgmma) c.wgmma.reset(new WgmmaState(c.warps ? c.warps->size() : w.warp_id() + 1));
  return *c.wgmma;
}

// Runs one warp's slice (rank r) of a completed operation; `w` is the warp
// that issued it last and reads shared memory (faults and accesses are its).
void run_slice(Warp& w, Warp& owner, uint32_t rank, const WgmmaIssue& is, const Form& f) {
  static thread_local Operands x;
  const Inst& in = *is.in;
  const uint32_t KS = k_of(f.a), K = is.sparse ? 2 * KS : KS;  // A's stored columns, the product's K
  const uint32_t N = in.o[0].vec_n * 2 * per_reg(f.d);          // N/2 elements per thread
  // imm-scale-a, imm-scale-b, then imm-trans-a (descriptor A only), imm-trans-b.
  const uint32_t nimm = program::wgmma_imm_count(in);
  const double sa = nimm >= 2 ? program::wgmma_imm(in, 0) : 1, sb = nimm >= 2 ? program::wgmma_imm(in, 1) : 1;
  const bool trans_a = nimm == 4 && program::wgmma_imm(in, 2) == 1;
  const bool trans_b = nimm >= 3 && program::wgmma_imm(in, nimm - 1) == 1;
  if (f.a_regs) std::memcpy(x.stored, is.a, sizeof x.stored);
  else if (!load_smem(w, is.desc_a, trans_a, 16 * rank, 16, f.a, KS, x.stored)) return;
  if (is.sparse) expand_sparse(f.a, K, is.meta, is.sel, x.stored, x.a);
  else
    for (uint32_t r = 0; r < 16; ++r) std::copy_n(x.stored[r], K, x.a[r]);
  if (!load_smem(w, is.desc_b, trans_b, 0, N, f.b, K, x.b)) return;
  if (sa < 0)
    for (auto& row : x.a)
      for (double& v : row) v = -v;
  if (sb < 0)
    for (uint32_t c = 0; c < N; ++c)
      for (uint32_t k = 0; k < K; ++k) x.b[c][k] = -x.b[c][k];
  const uint32_t per = per_reg(f.d), bits = elem_bits(f.d);
  const uint64_t emask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  for (uint32_t r = 0; r < in.o[0].vec_n; ++r) {
    uint64_t* reg = is.d_abs[r] == UINT32_MAX ? nullptr : owner.reg_abs(is.d_abs[r]);
    if (!reg) continue;  // a sink, or the frame has returned
    uint64_t out[kWarpSize];
    for (uint32_t l = 0; l < kWarpSize; ++l) {
      uint64_t v = 0;
      for (uint32_t j = 0; j < per; ++j) {
        const RC rc = d_elem(l, r * per + j);
        double acc = (is.keep >> l & 1) ? tensor::decode(f.d, (reg[l] >> (j * bits)) & emask) : 0.0;
        for (uint32_t k = 0; k < K; ++k) acc += x.a[rc.r][k] * x.b[rc.c][k];
        v |= (encode(f.d, acc, f.sat) & emask) << (j * bits);
      }
      out[l] = v;
    }
    std::memcpy(reg, out, sizeof out);
  }
}

// Releases the group's warps whose wait_group is now satisfied.
void release_waiters(Warp& w, WgmmaState& st, uint32_t group) {
  auto& warps = *w.cta().warps;
  for (uint32_t r = 0; r < 4; ++r) {
    const uint32_t id = 4 * group + r;
    if (id >= warps.size()) break;
    Warp& o = *warps[id];
    if (o.state == WarpState::AtWgmmaWait && st.satisfied(id, st.warps[id].wait_n)) o.state = WarpState::Ready;
  }
}

void mma_async(Warp& w, const Inst& in, uint32_t mask, const Form& f) {
  if (!require_full_warp(w, in, mask)) return;
  if (!w.cta().warps) {
    w.fault(Status::IllegalInstruction, 0, 0, "wgmma.mma_async outside a scheduled CTA");
    return;
  }
  WgmmaState& st = wgmma_state(w);
  const uint32_t id = w.warp_id(), g = id / 4, rank = id % 4;
  WgmmaState::Group& grp = st.groups[g];
  WgmmaState::WarpQ& q = st.warps[id];
  // What this warp issues: captured now, as the operation may run later.
  WgmmaIssue* is = st.take();
  is->in = &in;
  uint64_t s1[kWarpSize], s2[kWarpSize];
  if (f.a_regs) {
    const uint32_t K = k_of(f.a);
    VecVals va;
    va.load(w, in.o[1]);
    const uint32_t cnt = 16 * K / kWarpSize;
    for (uint32_t l = 0; l < kWarpSize; ++l)
      for (uint32_t i = 0; i < cnt; ++i) {
        const RC rc = a_elem(f.a, l, i);
        is->a[rc.r][rc.c] = decode(f.a, va.elem(f.a, l, i));
      }
  } else {
    is->desc_a = w.src(in.o[1], s1)[0];
  }
  is->desc_b = w.src(in.o[2], s2)[0];
  is->sparse = in.nops == program::kWgmmaSparseOperands;
  if (is->sparse) {
    uint64_t s3[kWarpSize];
    const uint64_t* m = w.src(in.o[3], s3);
    for (uint32_t l = 0; l < kWarpSize; ++l) is->meta[l] = uint32_t(m[l]);
    is->sel = uint32_t(in.o[4].imm);
  }
  const Operand& sd = in.o[is->sparse ? 5 : 3];
  is->keep = sd.kind == OK::Pred ? w.pred_value(sd) : (sd.imm != 0 ? kFullMask : 0);
  for (uint32_t r = 0; r < in.o[0].vec_n; ++r) {
    const Operand& reg = w.vec_elem(in.o[0], r);
    is->d_abs[r] = reg.kind == OK::Reg ? w.frame_reg_base() + reg.reg : UINT32_MAX;
  }
  const uint64_t k = q.issued++ - grp.completed;  // this warp's operation, from the group's oldest pending
  // A warp of the group that does not exist or has exited can never issue
  // it: the operation could never run.
  auto& warps = *w.cta().warps;
  for (uint32_t r = 0; r < 4; ++r) {
    const uint32_t o = 4 * g + r;
    if (o < warps.size() && (warps[o]->state != WarpState::Done || st.warps[o].issued > q.issued - 1)) continue;
    st.give(is);
    w.fault(Status::IllegalInstruction, 0, 0,
            o < warps.size()
                ? fmt::format("wgmma.mma_async: warp {} of warpgroup {} has exited, so the warpgroup's "
                              "operation can never run (all four warps must issue it)", o, g)
                : fmt::format("wgmma.mma_async: warpgroup {} needs warps {}-{}, but the CTA has {} warps "
                              "(a warpgroup is four consecutive warps)", g, 4 * g, 4 * g + 3, warps.size()));
    return;
  }
  if (k >= kMaxPending) {
    st.give(is);
    w.fault(Status::IllegalInstruction, 0, 0,
            fmt::format("wgmma.mma_async: warp {} issued {} operations that the other warps of warpgroup {} "
                        "have not issued", id, k + 1, g));
    return;
  }
  if (grp.pending.size() <= k) grp.pending.resize(k + 1, {});
  grp.pending[k][rank] = is;
  // The oldest operation runs once all four warps have issued it; only the
  // one this warp just issued can have become complete.
  auto& front = grp.pending.front();
  for (WgmmaIssue* x : front)
    if (!x) return;
  for (uint32_t r = 0; r < 4; ++r)
    if (front[r]->in != front[0]->in) {
      w.fault(Status::IllegalInstruction, 0, 0,
              fmt::format("wgmma.mma_async: the warps of warpgroup {} issued different wgmma.mma_async "
                          "instructions as one operation (warp {} at PTX line {}, warp {} at line {})",
                          g, 4 * g, front[0]->in->line, 4 * g + r, front[r]->in->line));
      return;
    }
  for (uint32_t r = 0; r < 4 && !w.faulted(); ++r) run_slice(w, *warps[4 * g + r], r, *front[r], f);
  for (WgmmaIssue* x : front) st.give(x);
  grp.pending.pop_front();
  ++grp.completed;
  release_waiters(w, st, g);
}

// wgmma.commit_group: the warp's operations issued so far that are in no
// group yet form one.
void exec_commit(Warp& w, const Inst&, uint32_t) {
  if (!w.cta().warps) return;
  WgmmaState& st = wgmma_state(w);
  WgmmaState::WarpQ& q = st.warps[w.warp_id()];
  q.groups.push_back(q.issued);
}

// wgmma.wait_group N: waits until at most N of the warp's groups are pending.
void exec_wait(Warp& w, const Inst& in, uint32_t) {
  if (!w.cta().warps) return;
  WgmmaState& st = wgmma_state(w);
  const uint32_t n = uint32_t(std::min<int64_t>(in.o[0].imm, UINT32_MAX));
  if (st.satisfied(w.warp_id(), n)) return;
  st.warps[w.warp_id()].wait_n = n;
  w.state = WarpState::AtWgmmaWait;
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
  bool shape_seen = false, sparse = false;
  for (std::string_view m : mods) {
    if (m == ".sync" || m == ".aligned") continue;
    if (m == ".sp") { sparse = true; continue; }
    if (m == ".satfinite") { f.sat = true; continue; }
    if (Elem e = elem_of(m); e != Elem::None) {
      if (ntypes == 3) return nullptr;
      types[ntypes++] = e;
      continue;
    }
    if (!shape_seen && parse_shape(m, s)) { shape_seen = true; continue; }
    return nullptr;  // anything else (.b1 and its bit ops): not implemented
  }
  if (ntypes != 3 || !shape_seen || s.m != 64) return nullptr;
  f.d = types[0], f.a = types[1], f.b = types[2];
  const uint32_t nops = sparse ? program::kWgmmaSparseOperands : program::kWgmmaOperands;
  if (!types_ok(f) || s.k != (sparse ? 2 : 1) * k_of(f.a) || !n_ok(f, s.n) || in.nops != nops) return nullptr;
  const Operand &d = in.o[0], &a = in.o[1], &b = in.o[2], &sd = in.o[nops - 1];
  if (sparse) {
    // sp-meta a register (or constant); sp-sel picks the threads of each
    // group of four that hold the metadata: 0..1 for 16- and 32-bit types
    // (two threads a group), 0 for 8-bit ones (all four).
    const Operand &meta = in.o[3], &sel = in.o[4];
    if (meta.kind != OK::Reg && meta.kind != OK::Imm) return nullptr;
    const uint32_t selectors = 4 / (s.k / mma::sparse_chunk(f.a) / 4);
    if (sel.kind != OK::Imm || sel.imm < 0 || uint64_t(sel.imm) >= selectors) return nullptr;
  }
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
  // wgmma.fence orders register accesses, which the executor performs in order already.
  if (kind == ".fence") return in.nops == 0 ? &exec_nothing : nullptr;
  if (kind == ".commit_group") return in.nops == 0 ? &exec_commit : nullptr;
  if (kind == ".wait_group") return in.nops == 1 && in.o[0].kind == OK::Imm && in.o[0].imm >= 0 ? &exec_wait : nullptr;
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
