// Asynchronous copies (cp.async), mbarrier objects, and the float atomics
// the integer atom binder does not cover (f16/bf16 and their packed and
// vector forms, f32 min/max).
//
// cp.async performs its copy synchronously when the instruction executes.
// That is one legal ordering of the asynchronous semantics (the copy is
// complete before any later wait could observe it), so commit_group,
// wait_group and wait_all have nothing left to do.
//
// mbarrier object encoding (our choice; the ISA leaves it opaque). One
// little-endian u64 in shared memory:
//   bits  0..19  pending arrival count of the current phase
//   bits 20..39  expected arrival count (reloaded when a phase completes)
//   bits 40..61  tx-count, 22-bit two's complement (ISA range +-(2^20-1))
//   bit  62      initialized (set by init, cleared by inval)
//   bit  63      current phase parity
// A state returned by arrive has bit 63 = parity of the phase the arrival
// counted toward, bit 62 set, and bits 0..19 = the pending count right after
// the arrival (what mbarrier.pending_count reads back).
//
// All warps of a CTA run on one host thread, so shared-memory mbarrier
// updates need no host atomics. A warp spinning on test_wait/try_wait is
// switched out by the CTA scheduler after its quantum; try_wait returns
// false at once when the phase is incomplete (a zero time limit).
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "exec/float_util.h"
#include "exec/ops_common.h"

namespace softgpu::exec {
namespace {

using isa::Opcode;
using OK = Operand::Kind;
using program::AtomOp;
using program::Type;
using ptx::Space;
using ops::has_mod;

// ---------------------------------------------------------------- cp.async

// Copies cp-size bytes from global to shared, zero-filling past src-size.
// Operands: [dst], [src], cp-size{, src-size | ignore-src}{, cache-policy}.
void exec_cp_async(Warp& w, const Inst& in, uint32_t mask) {
  const Operand& dop = in.o[0];
  const Operand& sop = in.o[1];
  uint64_t sd[kWarpSize], ss[kWarpSize], sc[kWarpSize], sz[kWarpSize];
  const uint64_t* dbase = dop.reg == program::kNoReg ? sd : w.reg(dop.reg);
  const uint64_t* sbase = sop.reg == program::kNoReg ? ss : w.reg(sop.reg);
  const uint64_t* cpsz = w.src(in.o[2], sc);
  // The optional fourth operand: src-size (an integer) or ignore-src (a predicate).
  const bool hint = has_mod(in, ".L2::cache_hint");
  const int n_extra = int(in.nops) - 3 - (hint ? 1 : 0);
  const bool has_srcsize = n_extra >= 1 && in.o[3].kind != OK::Pred;
  const uint32_t ignore = n_extra >= 1 && in.o[3].kind == OK::Pred ? w.pred_value(in.o[3]) : 0;
  const uint64_t* srcsz = has_srcsize ? w.src(in.o[3], sz) : nullptr;
  for_lanes(mask, [&](uint32_t l) {
    if (w.faulted()) return;
    const uint32_t cp = uint32_t(cpsz[l]);
    if (cp != 4 && cp != 8 && cp != 16) {
      w.fault(Status::IllegalInstruction, l, 0, fmt::format("cp.async cp-size {} (must be 4, 8 or 16)", cp));
      return;
    }
    uint32_t n = cp;
    if (srcsz) n = uint32_t(srcsz[l]);
    if (ignore >> l & 1) n = 0;
    if (n > cp) {
      w.fault(Status::IllegalInstruction, l, 0, fmt::format("cp.async src-size {} exceeds cp-size {}", n, cp));
      return;
    }
    const uint64_t da = w.address(dop, l, dbase);
    const uint64_t sa = w.address(sop, l, sbase);
    std::byte* d = w.translate(Space::Shared, da, cp, l, true);
    if (!d) return;
    std::byte buf[16] = {};
    if (n > 0) {
      if (sa % cp) {
        w.fault(Status::MisalignedAddress, l, sa, fmt::format("misaligned {}-byte cp.async source", cp));
        return;
      }
      // Read n bytes as descending power-of-two pieces: each piece starts at a
      // multiple of its size, so the per-access alignment checks hold.
      uint32_t off = 0;
      for (uint32_t piece = 16; piece; piece >>= 1) {
        if (!(n & piece)) continue;
        const std::byte* s = w.translate(Space::Global, sa + off, piece, l, false);
        if (!s) return;
        std::memcpy(buf + off, s, piece);
        off += piece;
      }
    }
    std::memcpy(d, buf, cp);
  });
}

void exec_nop(Warp&, const Inst&, uint32_t) {}

// ---------------------------------------------------------------- mbarrier

constexpr uint64_t kCountMask = (1ull << 20) - 1;
constexpr uint64_t kInit = 1ull << 62;
constexpr uint64_t kPhase = 1ull << 63;
constexpr uint64_t kMaxCount = (1ull << 20) - 1;

struct Mbar {
  uint32_t pending = 0, expected = 0;
  int32_t tx = 0;
  bool init = false, phase = false;

  static Mbar decode(uint64_t v) {
    Mbar m;
    m.pending = uint32_t(v & kCountMask);
    m.expected = uint32_t(v >> 20 & kCountMask);
    uint32_t t = uint32_t(v >> 40) & 0x3fffffu;
    m.tx = int32_t(t << 10) >> 10;  // sign-extend 22 bits
    m.init = v & kInit;
    m.phase = v & kPhase;
    return m;
  }
  uint64_t encode() const {
    return uint64_t(pending) | uint64_t(expected) << 20 | uint64_t(uint32_t(tx) & 0x3fffffu) << 40 |
           (init ? kInit : 0) | (phase ? kPhase : 0);
  }
  // A phase completes when every expected arrival and transaction is in.
  void maybe_complete() {
    if (pending == 0 && tx == 0) {
      phase = !phase;
      pending = expected;
    }
  }
};

// The lane's mbarrier object in shared memory, or nullptr after a fault.
std::byte* mbar_ptr(Warp& w, const Inst& in, const Operand& a, const uint64_t* base, uint32_t lane) {
  uint64_t addr = w.address(a, lane, base);
  Space sp = in.m.space;
  if (sp == Space::Generic) {
    if (w.generic_space(addr) != Space::Shared) {
      w.fault(Status::IllegalAddress, lane, addr, "mbarrier object is not in shared memory");
      return nullptr;
    }
    addr -= program::kSharedWindow;
    sp = Space::Shared;
  }
  if (sp != Space::Shared) {
    w.fault(Status::IllegalAddress, lane, addr, "mbarrier object is not in shared memory");
    return nullptr;
  }
  return w.translate(Space::Shared, addr, 8, lane, true);
}

bool load_init(Warp& w, std::byte* p, uint32_t lane, Mbar& m, const char* what) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  m = Mbar::decode(v);
  if (!m.init) {
    w.fault(Status::IllegalInstruction, lane, 0,
            fmt::format("{} on an mbarrier object that was not initialized with mbarrier.init", what));
    return false;
  }
  return true;
}
void store(std::byte* p, const Mbar& m) {
  uint64_t v = m.encode();
  std::memcpy(p, &v, 8);
}

bool check_count(Warp& w, uint32_t lane, uint64_t c, const char* what) {
  if (c < 1 || c > kMaxCount) {
    w.fault(Status::IllegalInstruction, lane, 0, fmt::format("{} count {} outside 1..{}", what, c, kMaxCount));
    return false;
  }
  return true;
}

// Arrive-on with `count`; `drop` also lowers the expected count. Returns the state.
bool arrive(Warp& w, Mbar& m, uint32_t lane, uint32_t count, bool drop, uint64_t* state) {
  if (count > m.pending || (drop && count > m.expected)) {
    w.fault(Status::IllegalInstruction, lane, 0,
            fmt::format("mbarrier arrive with count {} but only {} arrivals pending", count, m.pending));
    return false;
  }
  const bool parity = m.phase;
  if (drop) m.expected -= count;
  m.pending -= count;
  const uint32_t after = m.pending;
  m.maybe_complete();
  if (state) *state = (parity ? kPhase : 0) | kInit | after;
  return true;
}

// The timing model's record of an update or wait on the object at p.
void note(Warp& w, const std::byte* p, SyncEvent::Kind k, bool completed = false) {
  w.note_sync({k, completed, uint64_t(reinterpret_cast<uintptr_t>(p))});
}

bool tx_update(Warp& w, Mbar& m, uint32_t lane, int64_t delta) {
  const int64_t t = int64_t(m.tx) + delta;
  if (t > int64_t(kMaxCount) || t < -int64_t(kMaxCount)) {
    w.fault(Status::IllegalInstruction, lane, 0, fmt::format("mbarrier tx-count {} outside +-{}", t, kMaxCount));
    return false;
  }
  m.tx = int32_t(t);
  return true;
}

}  // namespace

bool mbarrier_complete_tx(Warp& w, std::byte* p, uint32_t lane, uint32_t bytes, const char* what) {
  Mbar m;
  if (!load_init(w, p, lane, m, what)) return false;
  if (!tx_update(w, m, lane, -int64_t(bytes))) return false;
  const bool before = m.phase;
  m.maybe_complete();
  store(p, m);
  note(w, p, SyncEvent::Kind::Tx, m.phase != before);
  return true;
}

namespace {

enum class MbOp { Init, Inval, Arrive, ArriveDrop, TestWait, TryWait, PendingCount, ExpectTx, CompleteTx, CpAsyncArrive };

template <MbOp Op>
void exec_mbarrier(Warp& w, const Inst& in, uint32_t mask) {
  if constexpr (Op == MbOp::PendingCount) {
    uint64_t s[kWarpSize];
    const uint64_t* st = w.src(in.o[1], s);
    if (uint64_t* d = w.dst(in.o[0])) for_lanes(mask, [&](uint32_t l) { d[l] = st[l] & kCountMask; });
    return;
  }
  // Which operand holds the address.
  constexpr int ai = (Op == MbOp::Init || Op == MbOp::Inval || Op == MbOp::ExpectTx || Op == MbOp::CompleteTx ||
                      Op == MbOp::CpAsyncArrive) ? 0 : 1;
  const Operand& a = in.o[ai];
  uint64_t sa[kWarpSize], s2[kWarpSize];
  const uint64_t* base = a.reg == program::kNoReg ? sa : w.reg(a.reg);
  const int vi = ai + 1;  // count / txCount / state / parity operand
  const uint64_t* v = (vi < in.nops && in.o[vi].kind != OK::None) ? w.src(in.o[vi], s2) : nullptr;
  const bool expect_tx = has_mod(in, ".expect_tx");
  uint64_t out[kWarpSize] = {};
  uint32_t done = 0;
  for_lanes(mask, [&](uint32_t l) {
    if (w.faulted()) return;
    std::byte* p = mbar_ptr(w, in, a, base, l);
    if (!p) return;
    Mbar m;
    if constexpr (Op == MbOp::Init) {
      if (!check_count(w, l, v ? v[l] : 0, "mbarrier.init")) return;
      m.init = true;
      m.expected = m.pending = uint32_t(v[l]);
      store(p, m);
    } else if constexpr (Op == MbOp::Inval) {
      store(p, Mbar{});
    } else if constexpr (Op == MbOp::Arrive || Op == MbOp::ArriveDrop) {
      if (!load_init(w, p, l, m, "mbarrier.arrive")) return;
      uint32_t count = 1;
      if (expect_tx) {
        // arrive.expect_tx: expect-tx(txCount) first, then arrive with count 1.
        if (!v || !tx_update(w, m, l, int64_t(uint32_t(v[l])))) return;
      } else if (v) {
        if (!check_count(w, l, v[l], "mbarrier.arrive")) return;
        count = uint32_t(v[l]);
      }
      const bool before = m.phase;
      if (!arrive(w, m, l, count, Op == MbOp::ArriveDrop, &out[l])) return;
      store(p, m);
      note(w, p, SyncEvent::Kind::Arrive, m.phase != before);
    } else if constexpr (Op == MbOp::CpAsyncArrive) {
      // The copies already happened. Without .noinc the pending count is
      // raised by one before the arrive: no net change.
      if (!load_init(w, p, l, m, "cp.async.mbarrier.arrive")) return;
      const bool before = m.phase;
      if (has_mod(in, ".noinc")) {
        if (!arrive(w, m, l, 1, false, nullptr)) return;
        store(p, m);
      }
      note(w, p, SyncEvent::Kind::Arrive, m.phase != before);
    } else if constexpr (Op == MbOp::ExpectTx || Op == MbOp::CompleteTx) {
      if (!load_init(w, p, l, m, Op == MbOp::ExpectTx ? "mbarrier.expect_tx" : "mbarrier.complete_tx")) return;
      const int64_t c = int64_t(uint32_t(v ? v[l] : 0));
      if (!tx_update(w, m, l, Op == MbOp::ExpectTx ? c : -c)) return;
      const bool before = m.phase;
      if (Op == MbOp::CompleteTx) m.maybe_complete();
      store(p, m);
      if (Op == MbOp::CompleteTx) note(w, p, SyncEvent::Kind::Tx, m.phase != before);
    } else {  // test_wait / try_wait
      if (!load_init(w, p, l, m, "mbarrier wait")) return;
      // .parity: the operand is the parity of the phase waited for;
      // otherwise a state from arrive. Either way the phase is complete once
      // the current parity differs from it.
      const bool want = has_mod(in, ".parity") ? (v[l] & 1) != 0 : (v[l] & kPhase) != 0;
      if (m.phase != want) done |= 1u << l;
      note(w, p, m.phase != want ? SyncEvent::Kind::WaitDone : SyncEvent::Kind::WaitPending);
    }
  });
  if (w.faulted()) return;
  if constexpr (Op == MbOp::Arrive || Op == MbOp::ArriveDrop) {
    if (uint64_t* d = w.dst(in.o[0])) for_lanes(mask, [&](uint32_t l) { d[l] = out[l]; });
  } else if constexpr (Op == MbOp::TestWait || Op == MbOp::TryWait) {
    w.set_pred(in.o[0], done, mask);
  }
}

ExecFn bind_mbarrier(const Inst& in) {
  if (in.raw_mods.empty()) return nullptr;
  if (in.type != Type::B64 && in.type != Type::None) return nullptr;
  const std::string& op = in.raw_mods[0];
  const bool nocomplete = has_mod(in, ".noComplete");
  if (op == ".init") return in.nops == 2 ? &exec_mbarrier<MbOp::Init> : nullptr;
  if (op == ".inval") return in.nops == 1 ? &exec_mbarrier<MbOp::Inval> : nullptr;
  if (op == ".arrive" || op == ".arrive_drop") {
    if (in.nops < 2 || in.nops > 3) return nullptr;
    if (has_mod(in, ".expect_tx") && (in.nops != 3 || nocomplete)) return nullptr;
    if (nocomplete && in.nops != 3) return nullptr;  // .noComplete needs an explicit count
    return op == ".arrive" ? &exec_mbarrier<MbOp::Arrive> : &exec_mbarrier<MbOp::ArriveDrop>;
  }
  if (op == ".test_wait") return in.nops == 3 ? &exec_mbarrier<MbOp::TestWait> : nullptr;
  if (op == ".try_wait") return in.nops == 3 || in.nops == 4 ? &exec_mbarrier<MbOp::TryWait> : nullptr;
  if (op == ".pending_count") return in.nops == 2 ? &exec_mbarrier<MbOp::PendingCount> : nullptr;
  if (op == ".expect_tx") return in.nops == 2 ? &exec_mbarrier<MbOp::ExpectTx> : nullptr;
  if (op == ".complete_tx") return in.nops == 2 ? &exec_mbarrier<MbOp::CompleteTx> : nullptr;
  return nullptr;
}

// cp.async.bulk (sm_90): a bulk copy of `size` bytes (a multiple of 16,
// both addresses 16-byte aligned), done at once. Global -> shared completes
// `size` bytes of transactions on the mbarrier operand; shared -> global
// belongs to a bulk group, whose commit/wait are then no-ops.
template <bool ToShared>
void exec_cp_bulk(Warp& w, const Inst& in, uint32_t mask) {
  const Operand& d = in.o[0];
  const Operand& s = in.o[1];
  uint64_t sd[kWarpSize], ss[kWarpSize], sz[kWarpSize], sm[kWarpSize];
  const uint64_t* db = d.reg == program::kNoReg ? sd : w.reg(d.reg);
  const uint64_t* sb = s.reg == program::kNoReg ? ss : w.reg(s.reg);
  const uint64_t* size = w.src(in.o[2], sz);
  const Operand& mb = in.o[3];
  const uint64_t* mbase = ToShared ? (mb.reg == program::kNoReg ? sm : w.reg(mb.reg)) : nullptr;
  for_lanes(mask, [&](uint32_t l) {
    if (w.faulted()) return;
    const uint32_t n = uint32_t(size[l]);
    if (n % 16) {
      w.fault(Status::MisalignedAddress, l, 0, fmt::format("cp.async.bulk size {} is not a multiple of 16", n));
      return;
    }
    std::byte* dst = w.translate(ToShared ? Space::Shared : Space::Global, w.address(d, l, db), n, l, true);
    if (!dst) return;
    std::byte* src = w.translate(ToShared ? Space::Global : Space::Shared, w.address(s, l, sb), n, l, false);
    if (!src) return;
    std::memmove(dst, src, n);
    if constexpr (ToShared) {
      std::byte* p = mbar_ptr(w, in, mb, mbase, l);
      Mbar m;
      if (!p || !load_init(w, p, l, m, "cp.async.bulk complete_tx")) return;
      if (!tx_update(w, m, l, -int64_t(n))) return;
      const bool before = m.phase;
      m.maybe_complete();
      store(p, m);
      note(w, p, SyncEvent::Kind::Tx, m.phase != before);
    }
  });
}

// cp is listed as one opcode; its forms are told apart by the modifiers.
ExecFn bind_cp(const Inst& in) {
  // The tensor (TMA) forms: exec/ops_tma.cpp.
  if (has_mod(in, ".tensor")) return bind_cp_tensor(in);
  if (in.raw_mods.size() < 2 || in.raw_mods[0] != ".async") return nullptr;  // cp.reduce.async.bulk: not yet
  const std::string& k = in.raw_mods[1];
  if (k == ".bulk") {
    if (in.raw_mods.size() < 3) return nullptr;
    const std::string& f = in.raw_mods[2];
    if (f == ".commit_group") return in.nops == 0 ? &exec_nop : nullptr;
    if (f == ".wait_group") return in.nops == 1 ? &exec_nop : nullptr;
    if ((f == ".shared::cluster" || f == ".shared::cta") && has_mod(in, ".global") &&
        has_mod(in, ".mbarrier::complete_tx::bytes") && in.nops >= 4 && !has_mod(in, ".multicast::cluster"))
      return &exec_cp_bulk<true>;
    if (f == ".global" && (has_mod(in, ".shared::cta") || has_mod(in, ".shared")) && has_mod(in, ".bulk_group") &&
        in.nops >= 3)
      return &exec_cp_bulk<false>;
    return nullptr;  // multicast forms: not implemented
  }
  if (k == ".commit_group") return in.nops == 0 ? &exec_nop : nullptr;
  if (k == ".wait_group") return in.nops == 1 ? &exec_nop : nullptr;
  if (k == ".wait_all") return in.nops == 0 ? &exec_nop : nullptr;
  if (k == ".mbarrier") {
    if (in.raw_mods.size() < 3 || in.raw_mods[2] != ".arrive" || in.nops != 1) return nullptr;
    return &exec_mbarrier<MbOp::CpAsyncArrive>;
  }
  if (k == ".ca" || k == ".cg") {
    // cp.async.{ca,cg}.shared{::cta}.global: destination shared, source global.
    if (in.m.space != Space::Shared || !has_mod(in, ".global")) return nullptr;
    if (in.nops < 3 || in.o[0].kind != OK::Addr || in.o[1].kind != OK::Addr) return nullptr;
    const int extra = int(in.nops) - 3 - (has_mod(in, ".L2::cache_hint") ? 1 : 0);
    if (extra < 0 || extra > 1) return nullptr;
    if (k == ".cg" && in.o[2].kind == OK::Imm && in.o[2].imm != 16) return nullptr;  // .cg copies 16 bytes only
    return &exec_cp_async;
  }
  return nullptr;
}

// ---------------------------------------------------------------- float atomics

// One element's update. Kinds: f16, bf16 (16-bit), f32.
enum class FK { F16, BF16, F32 };

template <FK K>
uint32_t float_op(AtomOp op, uint32_t old, uint32_t b) {
  if constexpr (K == FK::F32) {
    float x = std::bit_cast<float>(old), y = std::bit_cast<float>(b), r;
    if (op == AtomOp::Add) {
      r = canon(x + y);  // rn, subnormals preserved (atom.add.f32 does not flush on sm_90 global)
    } else {
      // min/max as min.f32/max.f32: NaN inputs ignored, -0 < +0.
      const bool mx = op == AtomOp::Max;
      if (x != x && y != y) r = std::bit_cast<float>(kCanonicalNanF32);
      else if (x != x) r = y;
      else if (y != y) r = x;
      else if (x == y) r = (std::signbit(x) == mx) ? y : x;
      else r = (x < y) == mx ? y : x;
    }
    return std::bit_cast<uint32_t>(r);
  } else {
    constexpr bool bf = K == FK::BF16;
    const double x = bf ? bf16_to_f32(uint16_t(old)) : f16_to_f32(uint16_t(old));
    const double y = bf ? bf16_to_f32(uint16_t(b)) : f16_to_f32(uint16_t(b));
    double r;
    if (op == AtomOp::Add) {
      r = fma_sticky(x, 1.0, y);  // exact sum with a sticky bit: one rounding to the narrow format
    } else {
      const bool mx = op == AtomOp::Max;
      if (x != x && y != y) r = x;
      else if (x != x) r = y;
      else if (y != y) r = x;
      else if (x == y) r = (std::signbit(x) == mx) ? y : x;
      else r = (x < y) == mx ? y : x;
    }
    if (r != r) return bf ? kCanonicalNanBF16 : kCanonicalNanF16;
    return encode_mini(r, bf ? kBF16 : kF16, program::Round::Rn);
  }
}

// Applies the op to `lanes` elements of `esize` bytes packed in one word of W
// (f16x2 = two f16 in a u32), atomically as a whole word.
template <FK K, class W>
W atomic_word(AtomOp op, W* p, W b) {
  constexpr uint32_t ebits = K == FK::F32 ? 32 : 16;
  constexpr uint32_t n = sizeof(W) * 8 / ebits;
  std::atomic_ref<W> ref(*p);
  W old = ref.load(std::memory_order_relaxed);
  for (;;) {
    W nv = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t m = (ebits == 32) ? 0xffffffffull : 0xffffull;
      uint32_t o = uint32_t((uint64_t(old) >> (i * ebits)) & m);
      uint32_t v = uint32_t((uint64_t(b) >> (i * ebits)) & m);
      nv |= W(uint64_t(float_op<K>(op, o, v)) << (i * ebits));
    }
    if (ref.compare_exchange_weak(old, nv, std::memory_order_relaxed)) return old;
  }
}

}  // namespace

// One f32, f16 or bf16 element at p updated as atom/red would (a 16-bit
// element through its naturally aligned 32-bit word; exec/ops_tma.cpp).
void atomic_float_element(AtomOp op, std::byte* p, uint32_t bits, program::Type t) {
  if (t == Type::F32) {
    atomic_word<FK::F32, uint32_t>(op, reinterpret_cast<uint32_t*>(p), bits);
    return;
  }
  auto* word = reinterpret_cast<uint32_t*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t(3));
  const uint32_t shift = uint32_t(p - reinterpret_cast<std::byte*>(word)) * 8;
  std::atomic_ref<uint32_t> ref(*word);
  uint32_t old = ref.load(std::memory_order_relaxed);
  for (;;) {
    const uint32_t o = (old >> shift) & 0xffff;
    const uint32_t r = t == Type::BF16 ? float_op<FK::BF16>(op, o, bits) : float_op<FK::F16>(op, o, bits);
    const uint32_t nv = (old & ~(0xffffu << shift)) | (r & 0xffff) << shift;
    if (ref.compare_exchange_weak(old, nv, std::memory_order_relaxed)) return;
  }
}

namespace {

// atom/red on float elements: scalar (W = element or packed pair word) or
// vector (.v2/.v4/.v8: `vec` words, operands are {..} lists).
template <FK K, class W>
void exec_float_atom(Warp& w, const Inst& in, uint32_t mask) {
  const bool is_red = in.op == Opcode::Red;
  const Operand& a = is_red ? in.o[0] : in.o[1];
  const Operand& bo = is_red ? in.o[1] : in.o[2];
  const uint32_t n = in.m.vec;
  uint64_t s0[kWarpSize], bs[8][kWarpSize];
  const uint64_t* base = a.reg == program::kNoReg ? s0 : w.reg(a.reg);
  const uint64_t* b[8];
  for (uint32_t i = 0; i < n; ++i) b[i] = w.src(bo.kind == OK::Vec ? w.vec_elem(bo, i) : bo, bs[i]);
  uint64_t old[8][kWarpSize];
  for_lanes(mask, [&](uint32_t l) {
    if (w.faulted()) return;
    const uint64_t addr = w.address(a, l, base);
    std::byte* p = w.translate(in.m.space, addr, uint32_t(sizeof(W)) * n, l, true);
    if (!p) return;
    for (uint32_t i = 0; i < n; ++i)
      old[i][l] = uint64_t(atomic_word<K, W>(in.m.atom, reinterpret_cast<W*>(p) + i, W(b[i][l])));
  });
  if (w.faulted() || is_red) return;
  const Operand& d = in.o[0];
  for (uint32_t i = 0; i < n; ++i)
    if (uint64_t* out = w.dst(d.kind == OK::Vec ? w.vec_elem(d, i) : d))
      for_lanes(mask, [&](uint32_t l) { out[l] = old[i][l]; });
}

BindFn g_prev_atom = nullptr;
BindFn g_prev_red = nullptr;

ExecFn bind_float_atom(const Inst& in) {
  const AtomOp op = in.m.atom;
  const uint32_t vec = in.m.vec;
  const bool vector = vec > 1;
  if (vector && in.m.space != Space::Global && in.m.space != Space::Generic) return nullptr;  // vectors: global only
  const bool minmax = op == AtomOp::Min || op == AtomOp::Max;
  switch (in.type) {
    case Type::F16: case Type::BF16: case Type::F16x2: case Type::BF16x2: {
      // Scalar forms: add.noftz only; vector forms (sm_90): add/min/max.noftz.
      if (!in.m.noftz) return nullptr;
      if (op != AtomOp::Add && !(vector && minmax)) return nullptr;
      const bool x2 = in.type == Type::F16x2 || in.type == Type::BF16x2;
      const bool bf = in.type == Type::BF16 || in.type == Type::BF16x2;
      if (vector && (x2 ? (vec != 2 && vec != 4) : (vec != 2 && vec != 4 && vec != 8))) return nullptr;
      if (x2) return bf ? &exec_float_atom<FK::BF16, uint32_t> : &exec_float_atom<FK::F16, uint32_t>;
      return bf ? &exec_float_atom<FK::BF16, uint16_t> : &exec_float_atom<FK::F16, uint16_t>;
    }
    case Type::F32:
      if (vector) {
        if (op != AtomOp::Add || (vec != 2 && vec != 4)) return nullptr;
        return &exec_float_atom<FK::F32, uint32_t>;
      }
      if (minmax) return &exec_float_atom<FK::F32, uint32_t>;
      return nullptr;
    default:
      return nullptr;
  }
}

ExecFn bind_atom_ext(const Inst& in) {
  if (ExecFn f = bind_float_atom(in)) return f;
  return g_prev_atom ? g_prev_atom(in) : nullptr;
}
ExecFn bind_red_ext(const Inst& in) {
  if (ExecFn f = bind_float_atom(in)) return f;
  return g_prev_red ? g_prev_red(in) : nullptr;
}

ExecFn bind_mbarrier_entry(const Inst& in) { return bind_mbarrier(in); }

}  // namespace

void register_async_handlers(HandlerTable& t) {
  t.bind[size_t(Opcode::Cp)] = &bind_cp;
  t.bind[size_t(Opcode::Mbarrier)] = &bind_mbarrier_entry;
  // Float atomics wrap the memory binder (registered earlier), which keeps
  // every integer and f32/f64 add form.
  if (t.bind[size_t(Opcode::Atom)] != &bind_atom_ext) g_prev_atom = t.bind[size_t(Opcode::Atom)];
  if (t.bind[size_t(Opcode::Red)] != &bind_red_ext) g_prev_red = t.bind[size_t(Opcode::Red)];
  t.bind[size_t(Opcode::Atom)] = &bind_atom_ext;
  t.bind[size_t(Opcode::Red)] = &bind_red_ext;
}

}  // namespace softgpu::exec
