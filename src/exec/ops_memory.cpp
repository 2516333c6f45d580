// Moves, address conversion, loads, stores and atomics.
#include <fmt/format.h>

#include <atomic>
#include <emmintrin.h>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "exec/ops_common.h"
#include "exec/warp.h"

namespace softgpu::exec {
namespace {

using isa::Opcode;
using OK = Operand::Kind;
using program::AtomOp;
using program::Type;
using ptx::Space;

// ---- mov ----
void exec_mov(Warp& w, const Inst& in, uint32_t mask) {
  const Operand& d = in.o[0];
  const Operand& a = in.o[1];
  if (d.kind == OK::Pred) {  // mov.pred
    w.set_pred(d, w.pred_value(a), mask);
    return;
  }
  if (a.kind == OK::Vec) {  // pack: mov.b64 %rd, {%r1, %r2}
    uint64_t* out = w.dst(d);
    const uint32_t n = a.vec_n;
    const uint32_t bits = n ? program::type_size(in.type) * 8 / n : 0;
    uint64_t scratch[kWarpSize];
    uint64_t acc[kWarpSize] = {};
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t* e = w.src(w.vec_elem(a, i), scratch);
      const uint64_t m = bits >= 64 ? ~0ull : (1ull << bits) - 1;
      for_lanes(mask, [&](uint32_t l) { acc[l] |= (e[l] & m) << (i * bits); });
    }
    if (out) for_lanes(mask, [&](uint32_t l) { out[l] = acc[l]; });
    return;
  }
  if (d.kind == OK::Vec) {  // unpack: mov.b64 {%r1, %r2}, %rd
    uint64_t scratch[kWarpSize];
    const uint64_t* s = w.src(a, scratch);
    uint64_t v[kWarpSize];
    std::memcpy(v, s, sizeof v);
    const uint32_t n = d.vec_n;
    const uint32_t bits = n ? program::type_size(in.type) * 8 / n : 0;
    const uint64_t m = bits >= 64 ? ~0ull : (1ull << bits) - 1;
    for (uint32_t i = 0; i < n; ++i)
      if (uint64_t* out = w.dst(w.vec_elem(d, i)))
        for_lanes(mask, [&](uint32_t l) { out[l] = (v[l] >> (i * bits)) & m; });
    return;
  }
  uint64_t* out = w.dst(d);
  if (!out) return;
  if (a.kind == OK::Reg) {
    const uint64_t* s = w.reg(a.reg);
    for_lanes(mask, [&](uint32_t l) { out[l] = s[l]; });
    return;
  }
  uint64_t scratch[kWarpSize];
  const uint64_t* s = w.src(a, scratch);
  // Generic addresses of local symbols are formed by cvta; mov gives the
  // state-space address, which is what src() produced.
  for_lanes(mask, [&](uint32_t l) { out[l] = s[l]; });
}

// ---- cvta: state-space <-> generic ----
uint64_t window_of(Space s) {
  if (s == Space::Shared) return program::kSharedWindow;
  if (s == Space::Local) return program::kLocalWindow;
  return 0;  // global, const and param addresses are host addresses already
}

void exec_cvta(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t scratch[kWarpSize];
  const uint64_t* s = w.src(in.o[1], scratch);
  uint64_t* d = w.dst(in.o[0]);
  if (!d) return;
  const uint64_t win = window_of(in.m.space);
  const bool narrow = program::type_size(in.type) == 4;
  if (in.m.to) {
    for_lanes(mask, [&](uint32_t l) {
      uint64_t v = s[l] - win;
      d[l] = narrow ? uint32_t(v) : v;
    });
  } else {
    for_lanes(mask, [&](uint32_t l) {
      uint64_t v = narrow ? uint32_t(s[l]) : s[l];
      d[l] = v + win;
    });
  }
}

void exec_isspacep(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t scratch[kWarpSize];
  const uint64_t* s = w.src(in.o[1], scratch);
  uint32_t r = 0;
  for_lanes(mask, [&](uint32_t l) {
    Space sp = w.generic_space(s[l]);
    bool yes = sp == in.m.space || (in.m.space == Space::Const && sp == Space::Global) ||
               (in.m.space == Space::Param && sp == Space::Global);
    if (yes) r |= 1u << l;
  });
  w.set_pred(in.o[0], r, mask);
}

// ---- ld / st ----
// Sign/zero-extends a loaded element of the instruction type into a register.
inline uint64_t extend(uint64_t raw, Type t) {
  switch (t) {
    case Type::S8: return uint64_t(int64_t(int8_t(raw)));
    case Type::S16: return uint64_t(int64_t(int16_t(raw)));
    case Type::S32: return uint64_t(int64_t(int32_t(raw)));
    default: return raw;
  }
}

// Copies one lane's access as a single host access where the size allows
// (1, 2, 4, 8 or 16 aligned bytes), so a vector access is never torn by
// another host thread running another CTA: CUB's decoupled look-back packs a
// tile's status and value into one ld/st.v2.u32 and relies on that. (16-byte
// aligned SSE accesses are single-copy atomic on x86-64 processors with AVX.)
inline void copy_whole(void* dst, const void* src, uint32_t bytes) {
  switch (bytes) {
    case 8: {
      uint64_t v;
      std::memcpy(&v, src, 8);
      std::memcpy(dst, &v, 8);
      return;
    }
    case 16:
      // Unaligned forms: parameter areas need not be 16-byte aligned; on
      // aligned global addresses they behave as the aligned ones.
      _mm_storeu_si128(static_cast<__m128i*>(dst), _mm_loadu_si128(static_cast<const __m128i*>(src)));
      return;
    default:
      std::memcpy(dst, src, bytes);
  }
}

// Where one lane's access goes: kernel params, per-lane function params, or memory.
inline std::byte* locate(Warp& w, const Inst& in, const Operand& a, const uint64_t* base, uint32_t lane,
                         uint32_t size, bool write) {
  const uint64_t addr = w.address(a, lane, base);
  Space space = in.m.space;
  if (a.addr_kind == Operand::AddrKind::KParam) {
    LaunchState& L = w.launch();
    if (write || addr + size > L.kernel->kernel_param_bytes) {
      w.fault(Status::IllegalAddress, lane, addr, "invalid access to kernel parameters");
      return nullptr;
    }
    w.note_access(Space::Param, L.params_addr + addr, size, lane, write);
    return const_cast<std::byte*>(L.params) + addr;
  }
  if (a.addr_kind == Operand::AddrKind::FParam) return w.param_ptr(lane, addr, size);
  if (a.addr_kind == Operand::AddrKind::Frame) space = Space::Local;
  if (space == Space::Param) space = Space::Global;  // a kernel parameter's address, taken with mov
  return w.translate(space, addr, size, lane, write);
}

// The all-lanes fast path: when every active lane's access is aligned and
// falls in one checked region, lane l's host address is base[l] + off and
// the handler accesses memory directly. Global (and generic addresses
// outside the windows): the first active lane goes through translate, which
// also makes its allocation the warp's cached one, and the others are
// compared with that allocation. Shared (and generic addresses in the shared
// window): this CTA's own shared memory, bounds and alignment checked with
// plain arithmetic per lane. Anything else (a lane outside, misalignment,
// another CTA's shared memory, local, parameters, a listener that sees every
// lane's access through translate) returns false: the per-lane checked path
// then runs and reports the fault.
inline bool fast_region(Warp& w, const Inst& in, const Operand& a, const uint64_t* base, uint32_t mask,
                        uint32_t bytes, bool write, uint64_t& off) {
  if (a.addr_kind != Operand::AddrKind::Plain || w.tracing()) return false;
  const Space sp = in.m.space;
  const uint32_t first = uint32_t(std::countr_zero(mask));
  const uint64_t addr0 = base[first] + uint64_t(a.imm);
  const bool generic = sp == Space::Generic;
  if (sp == Space::Shared || (generic && addr0 - program::kSharedWindow < program::kWindowSize)) {
    const std::vector<std::byte>& mem = w.cta().shared;
    // Offsets at or above kClusterRankShift's bit name another CTA of the cluster.
    const uint64_t size = std::min<uint64_t>(mem.size(), kClusterOffsetMask + 1);
    if (size < bytes) return false;
    const uint64_t limit = size - bytes, amask = std::min<uint32_t>(bytes, 16) - 1;
    const uint64_t start = uint64_t(a.imm) - (generic ? program::kSharedWindow : 0);
    // o <= limit (< 2^63) exactly when neither o nor limit - o has its top
    // bit set: plain adds and ors, which the compiler vectorizes.
    uint64_t over = 0, any = 0;
    for_lanes(mask, [&](uint32_t l) {
      const uint64_t o = base[l] + start;
      over |= limit - o;
      any |= o;
    });
    off = reinterpret_cast<uint64_t>(mem.data()) + start;
    return !((over | any) >> 63) && !(any & amask);
  }
  if (sp != Space::Global && !generic && (sp != Space::Const || write)) return false;
  if (!w.in_cached_global(addr0, bytes, write)) {
    if (generic && w.generic_space(addr0) != Space::Global) return false;
    if (!w.translate(generic ? Space::Global : sp, addr0, bytes, first, write)) return false;  // fault reported
  }
  bool ok = true;
  for_lanes(mask, [&](uint32_t l) { ok &= w.in_cached_global(base[l] + uint64_t(a.imm), bytes, write); });
  off = uint64_t(a.imm);
  return ok;
}

template <uint32_t E> using uint_of = std::conditional_t<E == 1, uint8_t, std::conditional_t<E == 2, uint16_t,
                                      std::conditional_t<E == 4, uint32_t, uint64_t>>>;

// Every lane's N elements of E bytes at base[l] + off, each lane's as one
// host access (copy_whole), extended like extend().
// Each lane reads its address before it writes its own entry of a row, so a
// row may be the address register.
template <uint32_t E, uint32_t N, bool Signed>
void fast_load(const uint64_t* base, uint64_t off, uint32_t mask, uint64_t* const* rows) {
  using U = uint_of<E>;
  using S = std::make_signed_t<U>;
  uint64_t* r[N];  // a local copy: the stores below cannot change it
  for (uint32_t i = 0; i < N; ++i) r[i] = rows[i];
  for_lanes(mask, [&](uint32_t l) {
    alignas(16) U buf[N];
    copy_whole(buf, reinterpret_cast<const void*>(base[l] + off), E * N);
    for (uint32_t i = 0; i < N; ++i) r[i][l] = Signed ? uint64_t(int64_t(S(buf[i]))) : uint64_t(buf[i]);
  });
}

template <uint32_t E, uint32_t N>
void fast_store(const uint64_t* base, uint64_t off, uint32_t mask, const uint64_t* const* vals) {
  using U = uint_of<E>;
  for_lanes(mask, [&](uint32_t l) {
    alignas(16) U buf[N];
    for (uint32_t i = 0; i < N; ++i) buf[i] = U(vals[i][l]);
    copy_whole(reinterpret_cast<void*>(base[l] + off), buf, E * N);
  });
}

// The address register's lane values; an address without one reads as 0
// for every lane (the fast path adds the immediate to them).
inline const uint64_t* address_base(Warp& w, const Operand& a, uint64_t* scratch) {
  if (a.reg != program::kNoReg) return w.reg(a.reg);
  std::memset(scratch, 0, kWarpSize * sizeof(uint64_t));
  return scratch;
}

// The per-lane checked load of n elements into vals; false after a fault.
bool ld_checked(Warp& w, const Inst& in, const Operand& a, const uint64_t* base, uint32_t mask,
                uint64_t (*vals)[kWarpSize]) {
  const uint32_t esize = program::type_size(in.type);
  const uint32_t n = in.m.vec;
  bool ok = true;
  for_lanes(mask, [&](uint32_t l) {
    if (!ok) return;
    std::byte* p = locate(w, in, a, base, l, esize * n, false);
    if (!p) { ok = false; return; }
    alignas(16) std::byte buf[128];
    copy_whole(buf, p, esize * n);
    for (uint32_t i = 0; i < n; ++i) {
      uint64_t raw = 0;
      std::memcpy(&raw, buf + i * esize, esize);
      vals[i][l] = extend(raw, in.type);
    }
  });
  return ok;
}

void ld_writeback(Warp& w, const Inst& in, uint32_t n, const uint64_t (*vals)[kWarpSize], uint32_t mask) {
  const Operand& d = in.o[0];
  if (d.kind == OK::Vec) {
    for (uint32_t i = 0; i < n && i < d.vec_n; ++i)
      if (uint64_t* out = w.dst(w.vec_elem(d, i))) for_lanes(mask, [&](uint32_t l) { out[l] = vals[i][l]; });
  } else if (d.kind == OK::Pred) {
    uint32_t r = 0;
    for_lanes(mask, [&](uint32_t l) { if (vals[0][l]) r |= 1u << l; });
    w.set_pred(d, r, mask);
  } else if (uint64_t* out = w.dst(d)) {
    for_lanes(mask, [&](uint32_t l) { out[l] = vals[0][l]; });
  }
}

// Loads gather every lane first (the destination may be the address register).
void exec_ld(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t scratch[kWarpSize];
  const uint64_t* base = address_base(w, in.o[1], scratch);
  uint64_t vals[8][kWarpSize];
  if (ld_checked(w, in, in.o[1], base, mask, vals)) ld_writeback(w, in, in.m.vec, vals, mask);
}

// A load of N elements of E bytes, bound where the all-lanes path may apply.
template <uint32_t E, uint32_t N, bool Signed>
void exec_ld_fast(Warp& w, const Inst& in, uint32_t mask) {
  const Operand& a = in.o[1];
  uint64_t scratch[kWarpSize];
  const uint64_t* base = address_base(w, a, scratch);
  uint64_t vals[N][kWarpSize];
  uint64_t off;
  if (!fast_region(w, in, a, base, mask, E * N, false, off)) {
    if (ld_checked(w, in, a, base, mask, vals)) ld_writeback(w, in, N, vals, mask);
    return;
  }
  // Straight into the destination registers (vals for sinks and elements
  // past the destination's), as ld_writeback would write them.
  const Operand& d = in.o[0];
  if (d.kind == OK::Pred) {
    uint64_t* rows[N];
    for (uint32_t i = 0; i < N; ++i) rows[i] = vals[i];
    fast_load<E, N, Signed>(base, off, mask, rows);
    ld_writeback(w, in, N, vals, mask);
    return;
  }
  uint64_t* rows[N];
  for (uint32_t i = 0; i < N; ++i) {
    uint64_t* r = d.kind == OK::Vec ? (i < d.vec_n ? w.dst(w.vec_elem(d, i)) : nullptr) : i == 0 ? w.dst(d) : nullptr;
    rows[i] = r ? r : vals[i];
  }
  fast_load<E, N, Signed>(base, off, mask, rows);
}

// The per-lane checked store: lanes in order, stopping at the first fault.
void st_checked(Warp& w, const Inst& in, const Operand& a, const uint64_t* base, uint32_t mask,
                const uint64_t* const* vals) {
  const uint32_t esize = program::type_size(in.type);
  const uint32_t n = in.m.vec;
  bool ok = true;
  for_lanes(mask, [&](uint32_t l) {
    if (!ok) return;
    std::byte* p = locate(w, in, a, base, l, esize * n, true);
    if (!p) { ok = false; return; }
    alignas(16) std::byte buf[128];
    for (uint32_t i = 0; i < n; ++i) std::memcpy(buf + i * esize, &vals[i][l], esize);
    copy_whole(p, buf, esize * n);
  });
}

inline void st_values(Warp& w, const Inst& in, uint32_t n, const uint64_t** vals, uint64_t (*scratch)[kWarpSize]) {
  const Operand& v = in.o[1];
  for (uint32_t i = 0; i < n; ++i) vals[i] = w.src(v.kind == OK::Vec ? w.vec_elem(v, i) : v, scratch[i]);
}

void exec_st(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t scratch[kWarpSize];
  const uint64_t* base = address_base(w, in.o[0], scratch);
  const uint64_t* vals[8];
  uint64_t vscratch[8][kWarpSize];
  st_values(w, in, in.m.vec, vals, vscratch);
  st_checked(w, in, in.o[0], base, mask, vals);
}

template <uint32_t E, uint32_t N>
void exec_st_fast(Warp& w, const Inst& in, uint32_t mask) {
  const Operand& a = in.o[0];
  uint64_t scratch[kWarpSize];
  const uint64_t* base = address_base(w, a, scratch);
  const uint64_t* vals[N];
  uint64_t vscratch[N][kWarpSize];
  st_values(w, in, N, vals, vscratch);
  uint64_t off;
  if (fast_region(w, in, a, base, mask, E * N, true, off)) fast_store<E, N>(base, off, mask, vals);
  else st_checked(w, in, a, base, mask, vals);
}

// ---- atom / red ----
using ops::atomic_apply;

template <class T>
void exec_atom_t(Warp& w, const Inst& in, uint32_t mask) {
  const bool is_red = in.op == Opcode::Red;
  const Operand& a = is_red ? in.o[0] : in.o[1];
  const Operand& bo = is_red ? in.o[1] : in.o[2];
  uint64_t s0[kWarpSize], s1[kWarpSize], s2[kWarpSize];
  const uint64_t* base = a.reg == program::kNoReg ? s0 : w.reg(a.reg);
  const uint64_t* b = w.src(bo, s1);
  const uint64_t* c = in.m.atom == AtomOp::Cas ? w.src(in.o[3], s2) : s2;
  uint64_t old[kWarpSize];
  bool ok = true;
  for_lanes(mask, [&](uint32_t l) {  // lane order: each lane's atomic is separate
    if (!ok) return;
    std::byte* p = locate(w, in, a, base, l, sizeof(T), true);
    if (!p) { ok = false; return; }
    // CUDA C++ Programming Guide, "Floating-Point Standard": f32 atomic adds on
    // global memory always flush subnormals (FADD.F32.FTZ.RN), on shared memory
    // they keep them.
    bool ftz = false;
    if constexpr (std::is_same_v<T, float>) {
      Space sp = in.m.space;
      if (sp == Space::Generic) sp = w.generic_space(w.address(a, l, base));
      ftz = sp != Space::Shared;
    }
    T r = atomic_apply<T>(in.m.atom, reinterpret_cast<T*>(p), from_bits<T>(b[l]), from_bits<T>(c[l]), ftz);
    old[l] = to_bits<T>(r);
  });
  if (!ok || is_red) return;
  if (uint64_t* d = w.dst(in.o[0])) for_lanes(mask, [&](uint32_t l) { d[l] = old[l]; });
}

ExecFn bind_atom(const Inst& in) {
  if (in.m.atom == AtomOp::None) return nullptr;
  const bool bitwise = in.m.atom == AtomOp::And || in.m.atom == AtomOp::Or || in.m.atom == AtomOp::Xor ||
                       in.m.atom == AtomOp::Inc || in.m.atom == AtomOp::Dec;
  switch (in.type) {
    case Type::U32: case Type::B32: return &exec_atom_t<uint32_t>;
    case Type::S32: return &exec_atom_t<int32_t>;
    case Type::U64: case Type::B64: return &exec_atom_t<uint64_t>;
    case Type::S64: return &exec_atom_t<int64_t>;
    case Type::F32: return bitwise ? nullptr : &exec_atom_t<float>;
    case Type::F64: return bitwise ? nullptr : &exec_atom_t<double>;
    case Type::B16: case Type::U16: return in.m.atom == AtomOp::Cas || in.m.atom == AtomOp::Exch ? &exec_atom_t<uint16_t> : nullptr;
    default: return nullptr;  // f16/bf16 atomics: see the ISA issue
  }
}

void exec_nop(Warp&, const Inst&, uint32_t) {}

ExecFn bind_mov(const Inst&) { return &exec_mov; }
ExecFn bind_cvta(const Inst&) { return &exec_cvta; }
ExecFn bind_isspacep(const Inst&) { return &exec_isspacep; }
// The all-lanes path covers scalar 1/2/4/8-byte and v2/v4 4/8-byte accesses
// through a plain address to global, shared or generic memory (and const, for loads).
bool fast_eligible(const Inst& in, const Operand& a, bool write) {
  if (a.kind != OK::Addr || a.addr_kind != Operand::AddrKind::Plain) return false;
  const Space sp = in.m.space;
  return sp == Space::Global || sp == Space::Shared || sp == Space::Generic || (sp == Space::Const && !write);
}
template <bool Signed>
ExecFn ld_fast_for(uint32_t esize, uint32_t n) {
  if (n == 1) {
    switch (esize) {
      case 1: return &exec_ld_fast<1, 1, Signed>;
      case 2: return &exec_ld_fast<2, 1, Signed>;
      case 4: return &exec_ld_fast<4, 1, Signed>;
      case 8: return &exec_ld_fast<8, 1, false>;
      default: return nullptr;
    }
  }
  if (n == 2 && esize == 4) return &exec_ld_fast<4, 2, Signed>;
  if (n == 2 && esize == 8) return &exec_ld_fast<8, 2, false>;
  if (n == 4 && esize == 4) return &exec_ld_fast<4, 4, Signed>;
  if (n == 4 && esize == 8) return &exec_ld_fast<8, 4, false>;
  return nullptr;
}
ExecFn st_fast_for(uint32_t esize, uint32_t n) {
  if (n == 1) {
    switch (esize) {
      case 1: return &exec_st_fast<1, 1>;
      case 2: return &exec_st_fast<2, 1>;
      case 4: return &exec_st_fast<4, 1>;
      case 8: return &exec_st_fast<8, 1>;
      default: return nullptr;
    }
  }
  if (n == 2 && esize == 4) return &exec_st_fast<4, 2>;
  if (n == 2 && esize == 8) return &exec_st_fast<8, 2>;
  if (n == 4 && esize == 4) return &exec_st_fast<4, 4>;
  if (n == 4 && esize == 8) return &exec_st_fast<8, 4>;
  return nullptr;
}
// Elements of up to 8 bytes: a register is a 64-bit lane slot, so a
// 128-bit element (ld/st .b128) has nowhere to go (the checked path copied
// 16 bytes into one slot) and those forms are not implemented.
constexpr uint32_t kMaxElementBytes = 8;

ExecFn bind_ld(const Inst& in) {
  const uint32_t esize = program::type_size(in.type);
  if (esize == 0 || esize > kMaxElementBytes) return nullptr;
  ExecFn f = nullptr;
  if (fast_eligible(in, in.o[1], false)) {
    const bool sign = in.type == Type::S8 || in.type == Type::S16 || in.type == Type::S32;
    f = sign ? ld_fast_for<true>(esize, in.m.vec) : ld_fast_for<false>(esize, in.m.vec);
  }
  return f ? f : &exec_ld;
}
ExecFn bind_st(const Inst& in) {
  const uint32_t esize = program::type_size(in.type);
  if (esize == 0 || esize > kMaxElementBytes) return nullptr;
  ExecFn f = fast_eligible(in, in.o[0], true) ? st_fast_for(esize, in.m.vec) : nullptr;
  return f ? f : &exec_st;
}
ExecFn bind_nop(const Inst&) { return &exec_nop; }

}  // namespace

void register_memory_handlers(HandlerTable& t) {
  t.bind[size_t(Opcode::Mov)] = &bind_mov;
  t.bind[size_t(Opcode::Cvta)] = &bind_cvta;
  t.bind[size_t(Opcode::Isspacep)] = &bind_isspacep;
  t.bind[size_t(Opcode::Ld)] = &bind_ld;
  t.bind[size_t(Opcode::Ldu)] = &bind_ld;
  t.bind[size_t(Opcode::St)] = &bind_st;
  t.bind[size_t(Opcode::Atom)] = &bind_atom;
  t.bind[size_t(Opcode::Red)] = &bind_atom;
  // Ordering and hints: execution is sequentially consistent, so fences,
  // prefetches and sleeps have no functional effect.
  // griddepcontrol (programmatic dependent launch): launches run one after
  // another in stream order, so a dependency is always already satisfied.
  for (Opcode op : {Opcode::Membar, Opcode::Fence, Opcode::Prefetch, Opcode::Prefetchu, Opcode::Nanosleep,
                    Opcode::Pmevent, Opcode::Applypriority, Opcode::Discard, Opcode::Brkpt, Opcode::Griddepcontrol})
    t.bind[size_t(op)] = &bind_nop;
}

}  // namespace softgpu::exec
