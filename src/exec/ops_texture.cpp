// Instruction semantics: texture fetches (tex, tex.level, tld4) and surface
// loads/stores (suld.b, sust.b) on texture/surface OBJECTS, the only form
// nvcc 13 emits. Handles are 64-bit registers looked up in the launch's
// TextureRegistry; the sampling itself lives in exec/texture.cpp.
#include <fmt/format.h>

#include <cstring>
#include <string_view>

#include "exec/ops_common.h"
#include "exec/texture.h"
#include "exec/warp.h"

namespace softgpu::exec {
namespace {

using OK = Operand::Kind;
using program::Type;

enum class Geom : uint8_t { D1, D2, D3, A1, A2 };

// Geometry modifier, or nullopt for one we do not support (cube, multisample).
std::optional<Geom> find_geom(const Inst& in) {
  for (const auto& m : in.raw_mods) {
    if (m == ".1d") return Geom::D1;
    if (m == ".2d") return Geom::D2;
    if (m == ".3d") return Geom::D3;
    if (m == ".a1d") return Geom::A1;
    if (m == ".a2d") return Geom::A2;
  }
  return std::nullopt;
}

using ops::has_mod;

constexpr uint32_t geom_dims(Geom g) { return g == Geom::D1 || g == Geom::A1 ? 1 : g == Geom::D3 ? 3 : 2; }
constexpr bool geom_layered(Geom g) { return g == Geom::A1 || g == Geom::A2; }

// Reads texels for one lane through the warp's checked memory translation.
struct LaneReader final : TexelReader {
  Warp& w;
  uint32_t lane;
  LaneReader(Warp& w_, uint32_t l) : w(w_), lane(l) {}
  bool read(uint64_t addr, uint32_t size, void* out) override {
    std::byte* p = w.translate(ptx::Space::Global, addr, size, lane, false);
    if (!p) return false;
    std::memcpy(out, p, size);
    return true;
  }
};

const TextureRegistry* registry(Warp& w) { return w.launch().opts ? w.launch().opts->textures : nullptr; }

// Looks up a lane's texture; reports a fault for an unknown handle.
template <class Obj>
const Obj* lookup(Warp& w, uint32_t lane, uint64_t h, std::optional<Obj>& cache, uint64_t& cached_h,
                  const char* what) {
  if (cache && cached_h == h) return &*cache;
  const TextureRegistry* reg = registry(w);
  if constexpr (std::is_same_v<Obj, TextureObject>) cache = reg ? reg->texture(h) : std::nullopt;
  else cache = reg ? reg->surface(h) : std::nullopt;
  cached_h = h;
  if (!cache) {
    w.fault(Status::IllegalInstruction, lane, h, fmt::format("{} 0x{:x} is not a live {}", what, h, what));
    return nullptr;
  }
  return &*cache;
}

// Writes four 32-bit results into the destination vector (sinks skipped).
void write_result(Warp& w, const Operand& d, uint32_t lane, const Texel& t, Type dtype) {
  const uint32_t n = d.kind == OK::Vec ? d.vec_n : 1;
  for (uint32_t i = 0; i < n && i < 4; ++i) {
    const Operand& e = d.kind == OK::Vec ? w.vec_elem(d, i) : d;
    if (uint64_t* out = w.dst(e))
      out[lane] = dtype == Type::S32 ? uint64_t(int64_t(int32_t(t.bits[i]))) : uint64_t(t.bits[i]);
  }
}

// ---- tex / tex.level / tld4 ----
// Comp >= 0: tld4 of that component; -1: tex.
template <Geom G, bool IntCoords, int Comp>
void exec_tex(Warp& w, const Inst& in, uint32_t mask) {
  const Operand& a = in.o[1];
  const uint64_t* handles = w.reg(a.reg);
  const Operand* cops[4] = {};
  const uint32_t nc = std::min<uint32_t>(ops::coord_operands(w, a, cops), 4);
  constexpr uint32_t dims = geom_dims(G);
  constexpr bool layered = geom_layered(G);
  uint64_t scratch[4][kWarpSize];
  const uint64_t* cv[4] = {};
  for (uint32_t i = 0; i < nc; ++i) cv[i] = w.src(*cops[i], scratch[i]);
  // Results are gathered first: the destination may overlap the coordinates.
  Texel res[kWarpSize];
  std::optional<TextureObject> cache;
  uint64_t cached_h = 0;
  bool ok = true;
  for_lanes(mask, [&](uint32_t l) {
    if (!ok) return;
    const TextureObject* t = lookup(w, l, handles[l], cache, cached_h, "texture object");
    if (!t) { ok = false; return; }
    const uint32_t first = layered ? 1 : 0;
    const int32_t layer = layered ? int32_t(cv[0][l]) : 0;
    LaneReader r(w, l);
    std::optional<Texel> v;
    if constexpr (IntCoords) {
      int32_t c[3];
      for (uint32_t d = 0; d < dims; ++d) c[d] = int32_t(cv[first + d][l]);
      v = fetch(*t, c, dims, layer, r);
    } else {
      float c[3];
      for (uint32_t d = 0; d < dims; ++d) c[d] = from_bits<float>(cv[first + d][l]);
      if constexpr (Comp >= 0) v = gather(*t, c, layer, uint32_t(Comp), r);
      else v = sample(*t, c, dims, layer, r);
    }
    if (!v) { ok = false; return; }
    res[l] = *v;
  });
  if (!ok) return;
  for_lanes(mask, [&](uint32_t l) { write_result(w, in.o[0], l, res[l], in.type); });
  if (in.pair().kind == OK::Pred) w.set_pred(in.pair(), mask, mask);  // "d|p": texel resident
}

template <int Comp>
ExecFn bind_tex_common(const Inst& in) {
  constexpr bool Gather = Comp >= 0;
  auto g = find_geom(in);
  if (!g || in.o[1].kind != OK::Addr || in.o[1].reg == program::kNoReg) return nullptr;
  if (has_mod(in, ".grad") || has_mod(in, ".base") || (in.m.vec != 4)) return nullptr;
  if (in.type != Type::F32 && in.type != Type::S32 && in.type != Type::U32) return nullptr;
  const bool int_coords = in.type2 == Type::S32;
  if (!int_coords && in.type2 != Type::F32) return nullptr;
  if (Gather && (int_coords || (*g != Geom::D2 && *g != Geom::A2))) return nullptr;
#define SOFTGPU_TEX(GE)                                                  \
  case Geom::GE:                                                         \
    return int_coords ? (Gather ? nullptr : &exec_tex<Geom::GE, true, -1>) \
                      : &exec_tex<Geom::GE, false, Comp>;
  switch (*g) {
    SOFTGPU_TEX(D1)
    SOFTGPU_TEX(D2)
    SOFTGPU_TEX(D3)
    SOFTGPU_TEX(A1)
    SOFTGPU_TEX(A2)
  }
#undef SOFTGPU_TEX
  return nullptr;
}

// tex.level on a texture without mipmaps samples its only level: the LOD
// operand is ignored (softgpu has no mipmapped arrays).
ExecFn bind_tex(const Inst& in) { return bind_tex_common<-1>(in); }

ExecFn bind_tld4(const Inst& in) {
  // The component comes from .r/.g/.b/.a.
  if (has_mod(in, ".r")) return bind_tex_common<0>(in);
  if (has_mod(in, ".g")) return bind_tex_common<1>(in);
  if (has_mod(in, ".b")) return bind_tex_common<2>(in);
  if (has_mod(in, ".a")) return bind_tex_common<3>(in);
  return nullptr;
}

// ---- suld.b / sust.b ----
enum class Oob : uint8_t { Trap, Clamp, Zero };

// Byte address of a surface access for one lane, or nullopt when out of
// range (after faulting for .trap); `zero` set when .zero suppresses it.
template <Geom G>
std::optional<uint64_t> surface_address(Warp& w, const SurfaceObject& s, const uint64_t* const* cv, uint32_t lane,
                                        uint32_t size, Oob oob, bool write, bool& zero) {
  constexpr uint32_t dims = geom_dims(G);
  constexpr bool layered = geom_layered(G);
  const TexResource& R = s.res;
  const uint32_t first = layered ? 1 : 0;
  int64_t c[3] = {0, 0, 0};
  for (uint32_t d = 0; d < dims; ++d) c[d] = int32_t(cv[first + d][lane]);
  int64_t layer = layered ? int32_t(cv[0][lane]) : 0;
  const int64_t row_bytes = int64_t(R.width) * R.fmt.bytes();
  const int64_t lim[3] = {row_bytes - int64_t(size), int64_t(R.height) - 1, int64_t(R.depth) - 1};
  const int64_t nlayers = layered ? int64_t(dims == 1 ? R.height : R.depth) : 1;
  bool out = layer < 0 || layer >= nlayers;
  for (uint32_t d = 0; d < dims; ++d) out |= c[d] < 0 || c[d] > lim[d];
  zero = false;
  if (out) {
    if (oob == Oob::Trap) {
      w.fault(Status::IllegalAddress, lane, R.base,
              fmt::format("out-of-range surface {} at ({}, {}, {}) layer {} (x in bytes; surface is {}x{}x{} of "
                          "{}-byte elements)",
                          write ? "store" : "load", c[0], c[1], c[2], layer, R.width, R.height, R.depth,
                          R.fmt.bytes()));
      return std::nullopt;
    }
    if (oob == Oob::Zero) { zero = true; return uint64_t(0); }
    for (uint32_t d = 0; d < dims; ++d) c[d] = c[d] < 0 ? 0 : (c[d] > lim[d] ? lim[d] : c[d]);
    layer = layer < 0 ? 0 : (layer >= nlayers ? nlayers - 1 : layer);
  }
  uint64_t addr = R.base + uint64_t(c[0]);
  if (dims > 1) addr += uint64_t(c[1]) * R.pitch;
  if (dims > 2) addr += uint64_t(c[2]) * R.slice_pitch;
  if (layered) addr += uint64_t(layer) * (dims == 1 ? R.pitch : R.slice_pitch);
  return addr;
}

Oob find_oob(const Inst& in) {
  if (has_mod(in, ".clamp")) return Oob::Clamp;
  if (has_mod(in, ".zero")) return Oob::Zero;
  return Oob::Trap;
}

template <Geom G, bool Store>
void exec_surface(Warp& w, const Inst& in, uint32_t mask) {
  const Operand& a = Store ? in.o[0] : in.o[1];
  const Operand& v = Store ? in.o[1] : in.o[0];
  const uint64_t* handles = w.reg(a.reg);
  const Operand* cops[4] = {};
  const uint32_t nc = std::min<uint32_t>(ops::coord_operands(w, a, cops), 4);
  uint64_t scratch[4][kWarpSize];
  const uint64_t* cv[4] = {};
  for (uint32_t i = 0; i < nc; ++i) cv[i] = w.src(*cops[i], scratch[i]);
  const uint32_t esize = program::type_size(in.type);
  const uint32_t n = in.m.vec;
  const Oob oob = find_oob(in);
  std::optional<SurfaceObject> cache;
  uint64_t cached_h = 0;
  const uint64_t emask = esize >= 8 ? ~0ull : (1ull << (esize * 8)) - 1;
  if constexpr (Store) {
    uint64_t vs[4][kWarpSize];
    const uint64_t* vals[4] = {};
    for (uint32_t i = 0; i < n; ++i) {
      const Operand& e = v.kind == OK::Vec ? w.vec_elem(v, i) : v;
      vals[i] = w.src(e, vs[i]);
    }
    for_lanes(mask, [&](uint32_t l) {
      if (w.faulted()) return;
      const SurfaceObject* s = lookup(w, l, handles[l], cache, cached_h, "surface object");
      if (!s) return;
      bool zero = false;
      auto addr = surface_address<G>(w, *s, cv, l, esize * n, oob, true, zero);
      if (!addr || zero) return;
      std::byte* p = w.translate(ptx::Space::Global, *addr, esize * n, l, true);
      if (!p) return;
      for (uint32_t i = 0; i < n; ++i) {
        uint64_t x = vals[i][l] & emask;
        std::memcpy(p + i * esize, &x, esize);  // little-endian: the low bytes
      }
    });
  } else {
    uint64_t res[4][kWarpSize];
    bool ok = true;
    for_lanes(mask, [&](uint32_t l) {
      if (!ok) return;
      const SurfaceObject* s = lookup(w, l, handles[l], cache, cached_h, "surface object");
      if (!s) { ok = false; return; }
      bool zero = false;
      auto addr = surface_address<G>(w, *s, cv, l, esize * n, oob, false, zero);
      if (!addr) { ok = false; return; }
      if (zero) {
        for (uint32_t i = 0; i < n; ++i) res[i][l] = 0;
        return;
      }
      std::byte* p = w.translate(ptx::Space::Global, *addr, esize * n, l, false);
      if (!p) { ok = false; return; }
      for (uint32_t i = 0; i < n; ++i) {
        uint64_t x = 0;
        std::memcpy(&x, p + i * esize, esize);
        res[i][l] = x;
      }
    });
    if (!ok) return;
    for (uint32_t i = 0; i < n; ++i) {
      const Operand& e = v.kind == OK::Vec ? w.vec_elem(v, i) : v;
      if (uint64_t* out = w.dst(e)) for_lanes(mask, [&](uint32_t l) { out[l] = res[i][l]; });
    }
  }
}

template <bool Store>
ExecFn bind_surface(const Inst& in) {
  if (!has_mod(in, ".b")) return nullptr;  // formatted (.p) access is not supported
  auto g = find_geom(in);
  const Operand& a = Store ? in.o[0] : in.o[1];
  if (!g || a.kind != OK::Addr || a.reg == program::kNoReg) return nullptr;
  switch (in.type) {
    case Type::B8: case Type::B16: case Type::B32: case Type::B64: break;
    default: return nullptr;
  }
  if (in.m.vec != 1 && in.m.vec != 2 && in.m.vec != 4) return nullptr;
  switch (*g) {
    case Geom::D1: return &exec_surface<Geom::D1, Store>;
    case Geom::D2: return &exec_surface<Geom::D2, Store>;
    case Geom::D3: return &exec_surface<Geom::D3, Store>;
    case Geom::A1: return &exec_surface<Geom::A1, Store>;
    case Geom::A2: return &exec_surface<Geom::A2, Store>;
  }
  return nullptr;
}

}  // namespace

void register_texture_handlers(HandlerTable& t) {
  t.bind[size_t(isa::Opcode::Tex)] = &bind_tex;
  t.bind[size_t(isa::Opcode::Suld)] = &bind_surface<false>;
  t.bind[size_t(isa::Opcode::Sust)] = &bind_surface<true>;
  t.bind[size_t(isa::Opcode::Tld4)] = &bind_tld4;
}

}  // namespace softgpu::exec
