// Moves, address conversion, loads, stores and atomics.
#include <fmt/format.h>

#include <atomic>
#include <emmintrin.h>
#include <bit>
#include <cmath>
#include <cstring>

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

// Fast path for the common case: a register-based global (or generic) access
// whose every lane falls in the allocation the warp used last.
inline bool fast_global(Warp& w, const Inst& in, const Operand& a, const uint64_t* base, uint32_t mask,
                        uint32_t bytes, bool write) {
  if (a.addr_kind != Operand::AddrKind::Plain || a.reg == program::kNoReg) return false;
  if (in.m.space != Space::Global && in.m.space != Space::Generic) return false;
  if (w.tracing()) return false;  // a listener sees every lane's access through translate
  // The first lane's access goes through the checked path, which also makes
  // its allocation the warp's cached one; the others are compared with it.
  const uint32_t first = uint32_t(std::countr_zero(mask));
  const uint64_t addr0 = base[first] + uint64_t(a.imm);
  if (!w.in_cached_global(addr0, bytes, write)) {
    if (in.m.space == Space::Generic && w.generic_space(addr0) != Space::Global) return false;
    if (!w.translate(Space::Global, addr0, bytes, first, write)) return false;  // fault reported
  }
  bool ok = true;
  for_lanes(mask, [&](uint32_t l) { ok &= w.in_cached_global(base[l] + uint64_t(a.imm), bytes, write); });
  return ok;
}

// One lane's scalar load of T through the fast path, extended like extend().
template <class T>
void fast_load(const uint64_t* base, int64_t off, uint32_t mask, uint64_t* out) {
  for_lanes(mask, [&](uint32_t l) {
    T v;
    std::memcpy(&v, reinterpret_cast<const void*>(base[l] + uint64_t(off)), sizeof(T));
    out[l] = to_bits<T>(v);
  });
}

void exec_ld(Warp& w, const Inst& in, uint32_t mask) {
  const Operand& a = in.o[1];
  uint64_t scratch[kWarpSize];
  const uint64_t* base = a.reg == program::kNoReg ? scratch : w.reg(a.reg);
  const uint32_t esize = program::type_size(in.type);
  const uint32_t n = in.m.vec;
  // Gather first (the destination may be the address register).
  uint64_t vals[8][kWarpSize];
  if (n == 1 && (esize == 4 || esize == 8) && fast_global(w, in, a, base, mask, esize, false)) {
    if (esize == 8) fast_load<uint64_t>(base, a.imm, mask, vals[0]);
    else if (in.type == Type::S32) fast_load<int32_t>(base, a.imm, mask, vals[0]);
    else fast_load<uint32_t>(base, a.imm, mask, vals[0]);
  } else {
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
    if (!ok) return;
  }
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

void exec_st(Warp& w, const Inst& in, uint32_t mask) {
  const Operand& a = in.o[0];
  const Operand& v = in.o[1];
  uint64_t scratch[kWarpSize];
  const uint64_t* base = a.reg == program::kNoReg ? scratch : w.reg(a.reg);
  const uint32_t esize = program::type_size(in.type);
  const uint32_t n = in.m.vec;
  const uint64_t* vals[8];
  uint64_t vscratch[8][kWarpSize];
  for (uint32_t i = 0; i < n; ++i)
    vals[i] = w.src(v.kind == OK::Vec ? w.vec_elem(v, i) : v, vscratch[i]);
  if (n == 1 && (esize == 4 || esize == 8) && fast_global(w, in, a, base, mask, esize, true)) {
    const uint64_t* v0 = vals[0];
    if (esize == 8) {
      for_lanes(mask, [&](uint32_t l) { std::memcpy(reinterpret_cast<void*>(base[l] + uint64_t(a.imm)), &v0[l], 8); });
    } else {
      for_lanes(mask, [&](uint32_t l) {
        const uint32_t x = uint32_t(v0[l]);
        std::memcpy(reinterpret_cast<void*>(base[l] + uint64_t(a.imm)), &x, 4);
      });
    }
    return;
  }
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
ExecFn bind_ld(const Inst& in) {
  if (program::type_size(in.type) == 0 || program::type_size(in.type) > 16) return nullptr;
  return &exec_ld;
}
ExecFn bind_st(const Inst& in) { return bind_ld(in) ? &exec_st : nullptr; }
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
