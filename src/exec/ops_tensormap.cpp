// Tensor maps changed on the device (PTX ISA 8.3, sm_90a):
//   tensormap.replace.tile.FIELD{.global, .shared::cta}.b1024.{b32, b64} [addr], {ord,} new_val
// rewrites one field of the 128-byte map at addr (generic without a state
// space) in softgpu's encoding (exec/tensor_map.h), so that a TMA copy
// through the map sees it; a value out of range faults, naming the field.
//   tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.SCOPE.sync.aligned [dst], [src], 128
// copies a map from shared to global memory. The proxy fences it carries
// (and fence.proxy.tensormap::generic) order nothing here: every access is
// performed when its instruction executes, so a map written in the generic
// proxy is what the next copy through it reads.
#include <fmt/format.h>

#include <cstring>
#include <utility>

#include "exec/ops_common.h"
#include "exec/tensor_map.h"

namespace softgpu::exec {
namespace {

using OK = Operand::Kind;
using program::Type;
using ptx::Space;
using ops::has_mod;

struct FieldForm {
  const char* mod;
  TmField field;
  bool ordinal;  // .field2: [addr], ord, new_val
  bool wide;     // new_val is .b64
  bool imm;      // .field3: new_val is an immediate
};
constexpr FieldForm kFields[] = {
    {".global_address", TmField::GlobalAddress, false, true, false},
    {".rank", TmField::Rank, false, false, false},
    {".box_dim", TmField::BoxDim, true, false, false},
    {".global_dim", TmField::GlobalDim, true, false, false},
    {".global_stride", TmField::GlobalStride, true, true, false},
    {".element_stride", TmField::ElementStride, true, false, false},
    {".elemtype", TmField::ElemType, false, false, true},
    {".interleave_layout", TmField::Interleave, false, false, true},
    {".swizzle_mode", TmField::SwizzleMode, false, false, true},
    {".swizzle_atomicity", TmField::SwizzleAtomicity, false, false, true},
    {".fill_mode", TmField::FillMode, false, false, true},
};

const char* field_name(TmField f) {
  for (const FieldForm& x : kFields)
    if (x.field == f) return x.mod + 1;
  return "?";
}

template <TmField F>
void exec_replace(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s0[kWarpSize], sv[kWarpSize];
  const uint64_t* base = in.o[0].reg == program::kNoReg ? s0 : w.reg(in.o[0].reg);
  const uint64_t* val = w.src(in.o[in.nops - 1], sv);
  const uint32_t ord = in.nops == 3 ? uint32_t(in.o[1].imm) : 0;
  const bool wide = in.type == Type::B64;
  for_lanes(mask, [&](uint32_t l) {
    if (w.faulted()) return;
    const uint64_t addr = w.address(in.o[0], l, base);
    const std::byte* r = w.translate(in.m.space, addr, kTensorMapBytes, l, false);
    if (!r) return;
    alignas(64) std::byte map[kTensorMapBytes];
    std::memcpy(map, r, kTensorMapBytes);
    bool unsupported = false;
    const uint64_t v = wide ? val[l] : uint32_t(val[l]);
    if (auto err = replace_field(map, F, ord, v, &unsupported)) {
      w.fault(Status::IllegalInstruction, l, addr,
              fmt::format("tensormap.replace.tile.{}: {}{}", field_name(F), *err,
                          unsupported ? " (not implemented by softgpu)" : ""));
      return;
    }
    std::byte* p = w.translate(in.m.space, addr, kTensorMapBytes, l, true);
    if (p) std::memcpy(p, map, kTensorMapBytes);
  });
}

// The shared source and the global destination, each lane its own (a warp
// names one map: every lane copies the same bytes).
void exec_cp_fenceproxy(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s0[kWarpSize], s1[kWarpSize];
  const uint64_t* db = in.o[0].reg == program::kNoReg ? s0 : w.reg(in.o[0].reg);
  const uint64_t* sb = in.o[1].reg == program::kNoReg ? s1 : w.reg(in.o[1].reg);
  for_lanes(mask, [&](uint32_t l) {
    if (w.faulted()) return;
    const std::byte* s = w.translate(Space::Shared, w.address(in.o[1], l, sb), kTensorMapBytes, l, false);
    if (!s) return;
    std::byte map[kTensorMapBytes];
    std::memcpy(map, s, kTensorMapBytes);
    std::byte* d = w.translate(Space::Global, w.address(in.o[0], l, db), kTensorMapBytes, l, true);
    if (d) std::memcpy(d, map, kTensorMapBytes);
  });
}

template <size_t... I>
ExecFn replace_fn(TmField f, std::index_sequence<I...>) {
  ExecFn fn = nullptr;
  ((f == TmField(I) ? (fn = &exec_replace<TmField(I)>) : fn), ...);
  return fn;
}

ExecFn bind_replace(const Inst& in) {
  const auto& m = in.raw_mods;
  if (m.size() < 3 || m[1] != ".tile" || !has_mod(in, ".b1024") || in.nops < 2 || in.o[0].kind != OK::Addr)
    return nullptr;
  const FieldForm* f = nullptr;
  for (const FieldForm& x : kFields)
    if (m[2] == x.mod) f = &x;
  if (!f || in.type != (f->wide ? Type::B64 : Type::B32)) return nullptr;
  if (in.m.space != Space::Generic && in.m.space != Space::Global && in.m.space != Space::Shared) return nullptr;
  if (in.nops != (f->ordinal ? 3 : 2) || (f->ordinal && in.o[1].kind != OK::Imm)) return nullptr;
  if (f->imm && in.o[1].kind != OK::Imm) return nullptr;
  return replace_fn(f->field, std::make_index_sequence<size_t(TmField::FillMode) + 1>{});
}

ExecFn bind_cp_fenceproxy(const Inst& in) {
  const bool scope = has_mod(in, ".cta") || has_mod(in, ".cluster") || has_mod(in, ".gpu") || has_mod(in, ".sys");
  if (!has_mod(in, ".global") || !has_mod(in, ".shared::cta") || !has_mod(in, ".tensormap::generic") ||
      !has_mod(in, ".release") || !scope || !in.m.sync || !in.m.aligned)
    return nullptr;
  if (in.nops != 3 || in.o[0].kind != OK::Addr || in.o[1].kind != OK::Addr || in.o[2].kind != OK::Imm ||
      in.o[2].imm != int64_t(kTensorMapBytes))
    return nullptr;
  return &exec_cp_fenceproxy;
}

ExecFn bind_tensormap(const Inst& in) {
  if (in.raw_mods.empty()) return nullptr;
  if (in.raw_mods[0] == ".replace") return bind_replace(in);
  if (in.raw_mods[0] == ".cp_fenceproxy") return bind_cp_fenceproxy(in);
  return nullptr;
}

}  // namespace

void register_tensormap_handlers(HandlerTable& t) { t.bind[size_t(isa::Opcode::Tensormap)] = &bind_tensormap; }

}  // namespace softgpu::exec
