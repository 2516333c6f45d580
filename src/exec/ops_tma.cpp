// TMA: the tensor forms of the bulk copies (sm_90), on tensor maps made by
// cuTensorMapEncodeTiled (exec/tensor_map.h).
//   cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes
//       {.multicast::cluster}{.L2::cache_hint} [dst], [tmap, {c0..}], [mbar]{, ctaMask}{, policy}
//   cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group{.L2::cache_hint} [tmap, {c0..}], [src]{, policy}
//   cp.reduce.async.bulk.tensor.Nd.global.shared::cta.OP.tile.bulk_group{.L2::cache_hint} [tmap, {c0..}], [src]{, policy}
//   cp.async.bulk.prefetch.tensor.Nd.L2.global.tile{.L2::cache_hint} [tmap, {c0..}]{, policy}
// The box at the coordinates (signed; elements outside the tensor read as
// zero, or NaN with the map's NaN fill, and are not written), traversed with
// the map's element strides, lies densely in shared memory, dimension 0
// innermost, with the map's swizzle applied to the shared addresses. In an
// interleaved layout (CU_TENSOR_MAP_INTERLEAVE_16B/32B: NC/8HWC8, NC/16HWC16)
// dimension 0 is the channel slice: each of the box's rows takes the next
// multiple of 16 or 32 bytes (the rest zero) and dimension 0 may have a
// traversal stride; softgpu's reading of the driver's description, not
// checked on a GPU. Like
// cp.async.bulk (exec/ops_async.cpp) each copy happens when the
// instruction executes: a load completes its box's bytes on the mbarrier
// (of every CTA in ctaMask when multicast), a store is complete before
// bulk_group's wait.
//   cp.async.bulk.tensor.Nd.shared::cluster.global.im2col.mbarrier::complete_tx::bytes
//       {.multicast::cluster}{.L2::cache_hint} [dst], [tmap, {c, w, (h, (d,)) n}], [mbar], {offsets}{, ctaMask}{, policy}
// loads pixelsPerColumn pixels of channelsPerPixel channels each from a map
// made by cuTensorMapEncodeIm2col (N = 3..5: channels innermost, images
// outermost, the spatial dimensions W, H, D between): the first pixel at the
// coordinates plus the 16-bit im2col offsets (a filter tap), the next ones
// stepping along W by its traversal stride and wrapping into H, D and N at
// the pixel box's edges (per spatial dimension [lower + offset,
// extent + upper + offset), the corners the map's); a pixel or channel
// outside the tensor reads as zero (NaN fill). The rows lie densely in
// shared memory, swizzled like a tile's. Stores have no im2col form on sm_90.
#include <fmt/format.h>

#include <atomic>
#include <bit>
#include <cstring>

#include "exec/float_util.h"
#include "exec/ops_common.h"
#include "exec/tensor_map.h"

namespace softgpu::exec {
namespace {

using OK = Operand::Kind;
using program::AtomOp;
using ptx::Space;
using ops::has_mod;

constexpr uint32_t kChunk = 16;  // swizzle granule; box rows are whole chunks

// The decoded tensor map a lane's [tmap, ...] operand points at; an im2col
// map for the .im2col forms, a tiled one for the others.
std::optional<TensorMap> lane_map(Warp& w, const Operand& a, const uint64_t* base, uint32_t lane, bool im2col = false) {
  uint64_t addr = w.address(a, lane, base);
  if (a.addr_kind == Operand::AddrKind::KParam) {
    addr += w.launch().params_addr;  // [param, {...}]: the parameter itself
  } else if (w.generic_space(addr) != Space::Global) {
    w.fault(Status::IllegalAddress, lane, addr, "tensor map is not in param, const or global memory");
    return std::nullopt;
  }
  const std::byte* p = w.translate(Space::Global, addr, kTensorMapBytes, lane, false);
  if (!p) return std::nullopt;
  std::string why;
  auto m = decode_tensor_map(p, &why);
  if (!m) {
    w.fault(Status::IllegalInstruction, lane, addr, why);
  } else if (m->im2col != im2col) {
    w.fault(Status::IllegalInstruction, lane, addr,
            im2col ? "an .im2col copy on a tiled tensor map (cuTensorMapEncodeTiled)"
                   : "a .tile copy on an im2col tensor map (cuTensorMapEncodeIm2col)");
    return std::nullopt;
  }
  return m;
}

// The lane's box coordinates, false after a fault.
bool lane_coords(Warp& w, const Operand& a, const TensorMap& m, uint32_t lane, int64_t c[kTensorMapMaxRank]) {
  const Operand* ops[kTensorMapMaxRank];
  const uint32_t n = ops::coord_operands(w, a, ops);
  if (n != m.rank) {
    w.fault(Status::IllegalInstruction, lane, 0, fmt::format("{} tensor coordinates for a tensor map of rank {}", n, m.rank));
    return false;
  }
  for (uint32_t i = 0; i < m.rank; ++i) {
    uint64_t scratch[kWarpSize];
    c[i] = int32_t(uint32_t(w.src(*ops[i], scratch)[lane]));
  }
  return true;
}

// A shared address operand as an offset in the shared window (cluster rank
// bits kept), false after a fault.
bool shared_offset(Warp& w, const Operand& a, const uint64_t* base, uint32_t lane, uint64_t& out) {
  uint64_t addr = w.address(a, lane, base);
  if (addr >= program::kSharedWindow) {
    if (w.generic_space(addr) != Space::Shared) {
      w.fault(Status::IllegalAddress, lane, addr, "bulk tensor copy operand is not in shared memory");
      return false;
    }
    addr -= program::kSharedWindow;
  }
  out = addr;
  return true;
}

// Copies `n` bytes between global memory at `g` and `host` (a row's
// in-bounds elements: element-aligned, not always 16-byte aligned): small
// pieces up to the first 16-byte boundary, then the rest at once, each
// through the checked translation. False after a fault.
bool global_bytes(Warp& w, uint32_t lane, uint64_t g, uint64_t n, std::byte* host, bool write) {
  while (n) {
    uint32_t piece = uint32_t(std::min<uint64_t>(n, UINT32_MAX));
    if (g % 16) piece = std::min<uint32_t>(uint32_t(g & (~g + 1)), piece);  // the address's alignment
    if (piece < 16 && piece != n) piece = uint32_t(std::bit_floor(piece));
    std::byte* p = w.translate(Space::Global, g, piece, lane, write);
    if (!p) return false;
    if (write) std::memcpy(p, host, piece);
    else std::memcpy(host, p, piece);
    g += piece, host += piece, n -= piece;
  }
  return true;
}

// The element bits a NaN fill writes.
void nan_fill(TmDataType t, std::byte* e) {
  const uint64_t v = t == TmDataType::F16 || t == TmDataType::BF16 ? 0x7fff
                     : t == TmDataType::F64                      ? 0x7fffffffffffffffull
                                                                 : 0x7fffffff;
  std::memcpy(e, &v, tm_element_bytes(t));
}

// Visits the box's in-bounds elements as runs contiguous in global memory:
// `run(global address, elements, shared byte offset in the box)`. A row
// (all dimensions but 0) is one run of the elements of [c0, c0 + n0)
// inside [0, dims[0]); with a traversal stride along dimension 0 (allowed
// in interleaved layouts) each element is its own run. Rows lie
// row_bytes() apart. Returns false when `run` does (a fault).
template <class F>
bool for_runs(const TensorMap& m, const int64_t c[kTensorMapMaxRank], F&& run) {
  const uint32_t e = m.element_bytes();
  const uint32_t n0 = m.box_elems(0), s0 = m.elem_strides[0];
  uint32_t idx[kTensorMapMaxRank] = {};
  uint64_t soff = 0;
  for (;;) {
    bool in = true;
    uint64_t g = m.global_address;
    for (uint32_t d = 1; d < m.rank && in; ++d) {
      const int64_t x = c[d] + int64_t(idx[d]) * m.elem_strides[d];
      in = x >= 0 && x < int64_t(m.dims[d]);
      g += uint64_t(x) * m.strides[d];
    }
    if (in && s0 == 1) {
      const int64_t lo = std::max<int64_t>(0, -c[0]), hi = std::clamp<int64_t>(int64_t(m.dims[0]) - c[0], 0, n0);
      if (lo < hi && !run(g + uint64_t(c[0] + lo) * e, uint32_t(hi - lo), soff + uint64_t(lo) * e)) return false;
    } else if (in) {
      for (uint32_t i = 0; i < n0; ++i) {
        const int64_t x = c[0] + int64_t(i) * s0;
        if (x >= 0 && x < int64_t(m.dims[0]) && !run(g + uint64_t(x) * e, 1, soff + uint64_t(i) * e)) return false;
      }
    }
    soff += m.row_bytes();
    uint32_t d = 1;
    for (; d < m.rank; ++d) {
      if (++idx[d] < m.box_elems(d)) break;
      idx[d] = 0;
    }
    if (d >= m.rank) return true;
  }
}

// A loaded box before its elements arrive: zero, or with the map's NaN
// fill every element slot NaN (an interleaved row's padding stays zero).
void fill_box(const TensorMap& m, std::vector<std::byte>& box) {
  box.assign(m.box_bytes(), std::byte{0});
  if (!m.oob_nan) return;
  const uint32_t e = m.element_bytes(), n = m.row_elems();
  for (uint64_t row = 0; row < box.size(); row += m.row_bytes())
    for (uint32_t i = 0; i < n; ++i) nan_fill(m.type, box.data() + row + uint64_t(i) * e);
}

// The shared byte at box offset `off` of a copy to/from `base`.
uint64_t swizzled(const TensorMap& m, uint64_t base, uint64_t off) {
  const uint64_t a = base + off;
  return (a & ~uint64_t(kClusterOffsetMask)) | tm_swizzle(m.swizzle, uint32_t(a & kClusterOffsetMask));
}

// The lane's im2col offsets (one signed 16-bit value per spatial dimension,
// W first), false after a fault.
bool lane_offsets(Warp& w, const Operand& v, const TensorMap& m, uint32_t lane, int64_t off[kTensorMapMaxRank - 2]) {
  const uint32_t spatial = m.rank - 2;
  if (v.kind != OK::Vec || v.vec_n != spatial) {
    w.fault(Status::IllegalInstruction, lane, 0,
            fmt::format("{} im2col offsets for a tensor map of rank {} (it needs {})", v.vec_n, m.rank, spatial));
    return false;
  }
  for (uint32_t i = 0; i < spatial; ++i) {
    uint64_t scratch[kWarpSize];
    off[i] = int16_t(uint16_t(w.src(w.vec_elem(v, i), scratch)[lane]));
  }
  return true;
}

// Reads an im2col load's pixels into `box` (pixels_per_column rows of
// channels_per_pixel elements), out-of-bounds elements filled. False after a
// fault.
bool im2col_box(Warp& w, uint32_t lane, const TensorMap& m, const int64_t c[kTensorMapMaxRank],
                const int64_t off[kTensorMapMaxRank - 2], std::vector<std::byte>& box) {
  const uint32_t e = m.element_bytes(), nc = m.channels_per_pixel, spatial = m.rank - 2, last = m.rank - 1;
  const uint64_t row_bytes = m.row_bytes();
  fill_box(m, box);
  int64_t pos[kTensorMapMaxRank - 2], lo_edge[kTensorMapMaxRank - 2], hi_edge[kTensorMapMaxRank - 2];
  for (uint32_t s = 0; s < spatial; ++s) {
    lo_edge[s] = m.lower[s] + off[s];
    hi_edge[s] = int64_t(m.dims[s + 1]) + m.upper[s] + off[s];
    pos[s] = c[s + 1] + off[s];
  }
  int64_t n = c[last];
  // Channels [c0, c0 + nc) clipped to [0, C).
  const int64_t lo = std::max<int64_t>(0, -c[0]), hi = std::clamp<int64_t>(int64_t(m.dims[0]) - c[0], 0, nc);
  for (uint32_t p = 0; p < m.pixels_per_column; ++p) {
    std::byte* row = box.data() + p * row_bytes;
    bool in = lo < hi && n >= 0 && n < int64_t(m.dims[last]);
    uint64_t g = m.global_address + uint64_t(n) * m.strides[last];
    for (uint32_t s = 0; s < spatial && in; ++s) {
      in = pos[s] >= 0 && pos[s] < int64_t(m.dims[s + 1]);
      g += uint64_t(pos[s]) * m.strides[s + 1];
    }
    if (in && !global_bytes(w, lane, g + uint64_t(c[0] + lo) * e, uint64_t(hi - lo) * e, row + uint64_t(lo) * e, false))
      return false;
    // The next pixel: along W, wrapping at the box's edge into H, D, then N.
    uint32_t s = 0;
    for (; s < spatial; ++s) {
      pos[s] += m.elem_strides[s + 1];
      if (pos[s] < hi_edge[s]) break;
      pos[s] = lo_edge[s];
    }
    if (s == spatial) n += m.elem_strides[last];
  }
  return true;
}

bool check_shared_alignment(Warp& w, uint32_t lane, uint64_t addr, const char* what) {
  if (addr % 128 == 0) return true;
  w.fault(Status::MisalignedAddress, lane, addr, fmt::format("{} shared-memory address is not 128-byte aligned", what));
  return false;
}

// Loads: global box -> shared (each CTA in the multicast mask), complete_tx on their mbarriers.
template <bool Multicast, bool Im2col = false>
void exec_tma_load(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s0[kWarpSize], s1[kWarpSize], s2[kWarpSize], s3[kWarpSize];
  auto base = [&](const Operand& o, uint64_t* s) { return o.reg == program::kNoReg ? s : w.reg(o.reg); };
  const uint64_t* db = base(in.o[0], s0);
  const uint64_t* tb = base(in.o[1], s1);
  const uint64_t* mb = base(in.o[2], s2);
  const uint64_t* cta_mask = Multicast ? w.src(in.o[Im2col ? 4 : 3], s3) : nullptr;
  std::vector<std::byte> box;
  for_lanes(mask, [&](uint32_t l) {
    if (w.faulted()) return;
    auto m = lane_map(w, in.o[1], tb, l, Im2col);
    int64_t c[kTensorMapMaxRank], off[kTensorMapMaxRank - 2];
    uint64_t dst = 0, mbar = 0;
    if (!m || !lane_coords(w, in.o[1], *m, l, c) || (Im2col && !lane_offsets(w, in.o[3], *m, l, off)) ||
        !shared_offset(w, in.o[0], db, l, dst) || !shared_offset(w, in.o[2], mb, l, mbar) ||
        !check_shared_alignment(w, l, dst, "cp.async.bulk.tensor destination"))
      return;
    // Read the box once (out-of-bounds elements filled).
    bool ok;
    if constexpr (Im2col) {
      ok = im2col_box(w, l, *m, c, off, box);
    } else {
      const uint32_t e = m->element_bytes();
      fill_box(*m, box);
      ok = for_runs(*m, c, [&](uint64_t g, uint32_t n, uint64_t soff) {
        return global_bytes(w, l, g, uint64_t(n) * e, box.data() + soff, false);
      });
    }
    if (!ok) return;
    // Destinations: this CTA (its address may already name another rank) or each CTA of the mask.
    uint32_t ranks = 0;
    if constexpr (Multicast) {
      ranks = uint32_t(cta_mask[l] & 0xffff);
      const uint32_t n = w.cta().cluster ? uint32_t(w.cta().cluster->ctas.size()) : 1;
      if (n < 16 && (ranks >> n)) {
        w.fault(Status::IllegalInstruction, l, 0, fmt::format("ctaMask 0x{:x} names CTAs beyond the cluster's {}", ranks, n));
        return;
      }
    }
    auto deliver = [&](uint64_t d, uint64_t mbar_addr) {
      for (uint64_t off = 0; off < box.size(); off += kChunk) {
        std::byte* p = w.translate(Space::Shared, swizzled(*m, d, off), kChunk, l, true);
        if (!p) return false;
        std::memcpy(p, box.data() + off, kChunk);
      }
      std::byte* mp = w.translate(Space::Shared, mbar_addr, 8, l, true);
      return mp && mbarrier_complete_tx(w, mp, l, uint32_t(box.size()), "cp.async.bulk.tensor complete_tx");
    };
    if (!Multicast) {
      deliver(dst, mbar);
      return;
    }
    for (uint32_t r = 0; r < 16; ++r) {
      if (!(ranks >> r & 1)) continue;
      const uint64_t tag = uint64_t(r + 1) << kClusterRankShift;
      if (!deliver(tag | (dst & kClusterOffsetMask), tag | (mbar & kClusterOffsetMask))) return;
    }
  });
}

// The reductions, as atom/red performs them (exec/ops_common.h,
// exec/ops_async.cpp), each element atomically: other CTAs may reduce into
// the same element from other host threads.
bool reduce_valid(AtomOp op, TmDataType t) {
  const bool integer = t == TmDataType::U32 || t == TmDataType::S32 || t == TmDataType::U64 || t == TmDataType::S64;
  switch (op) {
    case AtomOp::Add: return integer || t == TmDataType::F32 || t == TmDataType::F16 || t == TmDataType::BF16;
    case AtomOp::Min: case AtomOp::Max: return integer || t == TmDataType::F16 || t == TmDataType::BF16;
    case AtomOp::Inc: case AtomOp::Dec: return t == TmDataType::U32;
    default: return integer;
  }
}

void reduce_element(AtomOp op, TmDataType t, std::byte* g, const std::byte* s) {
  auto ints = [&]<class T>(T) {
    T v;
    std::memcpy(&v, s, sizeof v);
    ops::atomic_apply<T>(op, reinterpret_cast<T*>(g), v, T{}, false);
  };
  uint32_t bits = 0;
  std::memcpy(&bits, s, tm_element_bytes(t));
  switch (t) {
    case TmDataType::U32: ints(uint32_t{}); return;
    case TmDataType::S32: ints(int32_t{}); return;
    case TmDataType::U64: ints(uint64_t{}); return;
    case TmDataType::S64: ints(int64_t{}); return;
    case TmDataType::F32: atomic_float_element(op, g, bits, program::Type::F32); return;
    case TmDataType::F16: atomic_float_element(op, g, bits, program::Type::F16); return;
    case TmDataType::BF16: atomic_float_element(op, g, bits, program::Type::BF16); return;
    default: return;
  }
}

// Stores and reductions: shared box -> global, out-of-bounds elements skipped.
template <bool Reduce, AtomOp Op = AtomOp::Add>
void exec_tma_store(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s0[kWarpSize], s1[kWarpSize];
  const uint64_t* tb = in.o[0].reg == program::kNoReg ? s0 : w.reg(in.o[0].reg);
  const uint64_t* sb = in.o[1].reg == program::kNoReg ? s1 : w.reg(in.o[1].reg);
  std::vector<std::byte> box;
  for_lanes(mask, [&](uint32_t l) {
    if (w.faulted()) return;
    auto m = lane_map(w, in.o[0], tb, l);
    int64_t c[kTensorMapMaxRank];
    uint64_t src = 0;
    if (!m || !lane_coords(w, in.o[0], *m, l, c) || !shared_offset(w, in.o[1], sb, l, src) ||
        !check_shared_alignment(w, l, src, "cp.async.bulk.tensor source"))
      return;
    if (Reduce && !reduce_valid(Op, m->type)) {
      w.fault(Status::IllegalInstruction, l, 0, "cp.reduce.async.bulk.tensor: the operation does not apply to the tensor map's type");
      return;
    }
    box.resize(m->box_bytes());
    for (uint64_t off = 0; off < box.size(); off += kChunk) {
      const std::byte* p = w.translate(Space::Shared, swizzled(*m, src, off), kChunk, l, false);
      if (!p) return;
      std::memcpy(box.data() + off, p, kChunk);
    }
    const uint32_t e = m->element_bytes();
    for_runs(*m, c, [&](uint64_t g, uint32_t n, uint64_t soff) {
      std::byte* from = box.data() + soff;
      if constexpr (Reduce) {
        for (uint32_t i = 0; i < n; ++i) {  // element by element, each atomic
          std::byte* dst = w.translate(Space::Global, g + uint64_t(i) * e, e, l, true);
          if (!dst) return false;
          reduce_element(Op, m->type, dst, from + uint64_t(i) * e);
        }
        return true;
      } else {
        return global_bytes(w, l, g, uint64_t(n) * e, from, true);
      }
    });
  });
}

// Prefetch: no cache to fill functionally; the map, coordinates (and im2col
// offsets) are checked.
template <bool Im2col = false>
void exec_tma_prefetch(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t s0[kWarpSize];
  const uint64_t* tb = in.o[0].reg == program::kNoReg ? s0 : w.reg(in.o[0].reg);
  for_lanes(mask, [&](uint32_t l) {
    if (w.faulted()) return;
    int64_t c[kTensorMapMaxRank], off[kTensorMapMaxRank - 2];
    if (auto m = lane_map(w, in.o[0], tb, l, Im2col); m && lane_coords(w, in.o[0], *m, l, c) && Im2col)
      lane_offsets(w, in.o[1], *m, l, off);
  });
}

// The dimension modifier (.1d ... .5d), 0 if absent.
uint32_t dims_of(const Inst& in) {
  for (const auto& s : in.raw_mods)
    if (s.size() == 3 && s[0] == '.' && s[1] >= '1' && s[1] <= '5' && s[2] == 'd') return uint32_t(s[1] - '0');
  return 0;
}

bool tmap_operand(const Inst& in, int i, uint32_t dims) {
  // The coordinate count is checked against the map's rank at execution
  // (the binder does not see the function's vector operands).
  return i < in.nops && in.o[i].kind == OK::Addr && in.o[i].vec_n >= 1 && dims >= 1;
}

template <AtomOp Op>
ExecFn reduce_fn() { return &exec_tma_store<true, Op>; }

}  // namespace

ExecFn bind_cp_tensor(const Inst& in) {
  const uint32_t dims = dims_of(in);
  if (!dims || has_mod(in, ".im2col::w") || has_mod(in, ".im2col::w::128") || has_mod(in, ".im2col_no_offs") ||
      has_mod(in, ".cta_group::1") || has_mod(in, ".cta_group::2") || has_mod(in, ".tile::gather4") ||
      has_mod(in, ".tile::scatter4"))
    return nullptr;  // the sm_100 forms: not implemented
  const int hint = has_mod(in, ".L2::cache_hint") ? 1 : 0;
  if (has_mod(in, ".im2col")) {
    // Loads and prefetches only; the offsets vector right after the tensor (or mbarrier) operand.
    if (dims < 3 || in.raw_mods.empty() || in.raw_mods[0] != ".async") return nullptr;
    auto offsets_at = [&](int i) { return i < in.nops && in.o[i].kind == OK::Vec && in.o[i].vec_n == dims - 2; };
    if (has_mod(in, ".prefetch"))
      return tmap_operand(in, 0, dims) && offsets_at(1) && in.nops == 2 + hint ? &exec_tma_prefetch<true> : nullptr;
    if (!has_mod(in, ".mbarrier::complete_tx::bytes")) return nullptr;
    const bool mc = has_mod(in, ".multicast::cluster");
    if (!tmap_operand(in, 1, dims) || !offsets_at(3) || in.nops != 4 + (mc ? 1 : 0) + hint) return nullptr;
    return mc ? &exec_tma_load<true, true> : &exec_tma_load<false, true>;
  }
  const std::string& first = in.raw_mods.empty() ? std::string() : in.raw_mods[0];
  if (first == ".reduce") {
    if (!has_mod(in, ".global") || !has_mod(in, ".bulk_group") || !tmap_operand(in, 0, dims) || in.nops != 2 + hint)
      return nullptr;
    if (has_mod(in, ".add")) return reduce_fn<AtomOp::Add>();
    if (has_mod(in, ".min")) return reduce_fn<AtomOp::Min>();
    if (has_mod(in, ".max")) return reduce_fn<AtomOp::Max>();
    if (has_mod(in, ".inc")) return reduce_fn<AtomOp::Inc>();
    if (has_mod(in, ".dec")) return reduce_fn<AtomOp::Dec>();
    if (has_mod(in, ".and")) return reduce_fn<AtomOp::And>();
    if (has_mod(in, ".or")) return reduce_fn<AtomOp::Or>();
    if (has_mod(in, ".xor")) return reduce_fn<AtomOp::Xor>();
    return nullptr;
  }
  if (first != ".async") return nullptr;
  if (has_mod(in, ".prefetch")) return tmap_operand(in, 0, dims) && in.nops == 1 + hint ? &exec_tma_prefetch<false> : nullptr;
  if (has_mod(in, ".mbarrier::complete_tx::bytes")) {
    const bool mc = has_mod(in, ".multicast::cluster");
    if (!tmap_operand(in, 1, dims) || in.nops != 3 + (mc ? 1 : 0) + hint) return nullptr;
    return mc ? &exec_tma_load<true, false> : &exec_tma_load<false, false>;
  }
  if (has_mod(in, ".bulk_group") && has_mod(in, ".global") && tmap_operand(in, 0, dims) && in.nops == 2 + hint)
    return &exec_tma_store<false>;
  return nullptr;
}

}  // namespace softgpu::exec
