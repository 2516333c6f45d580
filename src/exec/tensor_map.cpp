#include "exec/tensor_map.h"

#include <fmt/format.h>

#include <cstring>

namespace softgpu::exec {
namespace {

constexpr uint32_t kMagic = 0x4d544753;  // "SGTM"

// The bytes of an encoded map (the rest of the 128 are zero).
struct Packed {
  uint32_t magic;
  uint8_t type, rank, interleave, swizzle;
  uint8_t l2_promotion, oob_nan, pad0[2];
  uint32_t pad1;
  uint64_t address;
  uint32_t dims_minus1[kTensorMapMaxRank];  // globalDim <= 2^32
  uint32_t pad2;
  uint64_t strides[kTensorMapMaxRank - 1];  // bytes, dimensions 1..rank-1
  uint16_t box[kTensorMapMaxRank];          // <= 256 (0 in an im2col map)
  uint8_t elem_strides[kTensorMapMaxRank];  // 1..8
  uint8_t im2col;                           // 1: made by encode_im2col
  int16_t lower[kTensorMapMaxRank - 2];     // pixel box corners, W first
  int16_t upper[kTensorMapMaxRank - 2];
  uint16_t channels, pixels;                // per pixel, per column
};
static_assert(sizeof(Packed) <= kTensorMapBytes);

bool is_float(TmDataType t) {
  switch (t) {
    case TmDataType::F16: case TmDataType::F32: case TmDataType::F64: case TmDataType::BF16:
    case TmDataType::F32Ftz: case TmDataType::TF32: case TmDataType::TF32Ftz: return true;
    default: return false;
  }
}

uint32_t swizzle_span(TmSwizzle s) {
  switch (s) {
    case TmSwizzle::None: return 0;
    case TmSwizzle::B32: return 32;
    case TmSwizzle::B64: return 64;
    default: return 128;
  }
}

}  // namespace

uint32_t tm_element_bytes(TmDataType t) {
  switch (t) {
    case TmDataType::U8: return 1;
    case TmDataType::U16: case TmDataType::F16: case TmDataType::BF16: return 2;
    case TmDataType::U32: case TmDataType::S32: case TmDataType::F32: case TmDataType::F32Ftz:
    case TmDataType::TF32: case TmDataType::TF32Ftz: return 4;
    case TmDataType::U64: case TmDataType::S64: case TmDataType::F64: return 8;
    default: return 0;
  }
}

uint64_t TensorMap::row_bytes() const {
  const uint64_t slice = interleave == TmInterleave::B32 ? 32 : interleave == TmInterleave::B16 ? 16 : 1;
  return (uint64_t(row_elems()) * element_bytes() + slice - 1) / slice * slice;
}

uint64_t TensorMap::box_bytes() const {
  if (im2col) return row_bytes() * pixels_per_column;
  uint64_t n = row_bytes();
  for (uint32_t i = 1; i < rank; ++i) n *= box_elems(i);
  return n;
}

namespace {

// Both encodings: the tiled one (im2col null) and the im2col one, whose box
// is channels x pixels instead of boxDim.
std::optional<std::string> encode_map(const TiledEncodeArgs& a, const Im2colEncodeArgs* im2col, std::byte* out,
                                      bool* unsupported) {
  if (unsupported) *unsupported = false;
  auto no = [&](std::string why) -> std::optional<std::string> {
    if (unsupported) *unsupported = true;
    return why;
  };
  if (!out) return "tensorMap is NULL";
  if (reinterpret_cast<uintptr_t>(out) % 64) return "tensorMap is not aligned to 64 bytes";
  if (a.data_type > uint32_t(TmDataType::U6x16Align16)) return fmt::format("tensorDataType {} is not a CUtensorMapDataType", a.data_type);
  const auto type = TmDataType(a.data_type);
  if (a.rank == 0 || a.rank > kTensorMapMaxRank) return fmt::format("tensorRank {} is not 1..5", a.rank);
  if (a.interleave > 2) return fmt::format("interleave {} is not a CUtensorMapInterleave", a.interleave);
  if (a.swizzle > 6) return fmt::format("swizzle {} is not a CUtensorMapSwizzle", a.swizzle);
  if (a.l2_promotion > 3) return fmt::format("l2Promotion {} is not a CUtensorMapL2promotion", a.l2_promotion);
  if (a.oob_fill > 1) return fmt::format("oobFill {} is not a CUtensorMapFloatOOBfill", a.oob_fill);
  const auto il = TmInterleave(a.interleave);
  const auto sw = TmSwizzle(a.swizzle);
  if (il != TmInterleave::None && a.rank < 3) return "an interleaved layout needs tensorRank >= 3";
  if (im2col && (a.rank < 3 || a.rank > 5)) return fmt::format("tensorRank {} is not 3, 4 or 5 (im2col)", a.rank);
  if (!a.global_dim || (!im2col && !a.box_dim) || !a.element_strides || (a.rank > 1 && !a.global_strides))
    return im2col ? "globalDim, globalStrides or elementStrides is NULL"
                  : "globalDim, globalStrides, boxDim or elementStrides is NULL";
  const uint32_t esize = tm_element_bytes(type);
  if (a.global_address % (il == TmInterleave::B32 ? 32 : 16))
    return fmt::format("globalAddress 0x{:x} is not {}-byte aligned", a.global_address, il == TmInterleave::B32 ? 32 : 16);
  for (uint32_t i = 0; i < a.rank; ++i)
    if (a.global_dim[i] == 0 || a.global_dim[i] > (1ull << 32))
      return fmt::format("globalDim[{}] = {} is not 1..2^32", i, a.global_dim[i]);
  for (uint32_t i = 0; i + 1 < a.rank; ++i) {
    const uint64_t s = a.global_strides[i];
    if (s % (il == TmInterleave::B32 ? 32 : 16) || s >= (1ull << 40))
      return fmt::format("globalStrides[{}] = {} is not a multiple of {} below 2^40", i, s, il == TmInterleave::B32 ? 32 : 16);
  }
  for (uint32_t i = 0; i < a.rank; ++i) {
    if (!im2col && (a.box_dim[i] == 0 || a.box_dim[i] > 256))
      return fmt::format("boxDim[{}] = {} is not 1..256", i, a.box_dim[i]);
    if (a.element_strides[i] == 0 || a.element_strides[i] > 8)
      return fmt::format("elementStrides[{}] = {} is not 1..8", i, a.element_strides[i]);
  }
  const uint32_t spatial = a.rank >= 2 ? a.rank - 2 : 0;
  if (im2col) {
    if (!im2col->lower_corner || !im2col->upper_corner) return "pixelBoxLowerCorner or pixelBoxUpperCorner is NULL";
    // The corners' range narrows with the rank (the driver packs them in the map).
    const int32_t lim = a.rank == 3 ? 32768 : a.rank == 4 ? 128 : 16;
    for (uint32_t i = 0; i < spatial; ++i) {
      const int32_t lo = im2col->lower_corner[i], hi = im2col->upper_corner[i];
      if (lo < -lim || lo >= lim || hi < -lim || hi >= lim)
        return fmt::format("pixelBox corner {} ({}, {}) is outside [{}, {}] for tensorRank {}", i, lo, hi, -lim, lim - 1,
                           a.rank);
      if (int64_t(a.global_dim[i + 1]) + hi - lo <= 0)
        return fmt::format("the pixel box is empty along spatial dimension {} (globalDim {} + upper {} - lower {})", i,
                           a.global_dim[i + 1], hi, lo);
    }
    if (im2col->channels_per_pixel == 0 || im2col->channels_per_pixel > 256)
      return fmt::format("channelsPerPixel {} is not 1..256", im2col->channels_per_pixel);
    if (im2col->pixels_per_column == 0 || im2col->pixels_per_column > 1024)
      return fmt::format("pixelsPerColumn {} is not 1..1024", im2col->pixels_per_column);
  }
  if (a.oob_fill == 1 && !is_float(type)) return "oobFill NAN_REQUEST_ZERO_FMA needs a floating-point tensorDataType";
  if (il == TmInterleave::B32 && sw != TmSwizzle::B32) return "interleave 32B needs swizzle 32B";
  if (esize == 0) return no(fmt::format("tensorDataType {} (packed sub-byte values)", a.data_type));
  if (il == TmInterleave::None) {
    const uint64_t inner = uint64_t(im2col ? im2col->channels_per_pixel : a.box_dim[0]) * esize;
    if (inner % 16)
      return fmt::format("{} * element size = {} bytes is not a multiple of 16", im2col ? "channelsPerPixel" : "boxDim[0]",
                         inner);
    if (sw != TmSwizzle::None && inner > swizzle_span(sw))
      return fmt::format("the box's inner dimension ({} bytes) exceeds the {}-byte swizzle span", inner, swizzle_span(sw));
  }
  if (sw > TmSwizzle::B128) return no(fmt::format("swizzle mode {} (the 128B atom variants)", a.swizzle));
  if (a.global_address == 0) return "globalAddress is NULL";

  Packed p{};
  p.magic = kMagic;
  p.type = uint8_t(type);
  p.rank = uint8_t(a.rank);
  p.interleave = uint8_t(il);
  p.swizzle = uint8_t(sw);
  p.l2_promotion = uint8_t(a.l2_promotion);
  p.oob_nan = uint8_t(a.oob_fill);
  p.address = a.global_address;
  for (uint32_t i = 0; i < a.rank; ++i) {
    p.dims_minus1[i] = uint32_t(a.global_dim[i] - 1);
    p.box[i] = im2col ? 0 : uint16_t(a.box_dim[i]);
    // The first element stride is ignored without interleave (TMA has none in dimension 0).
    p.elem_strides[i] = uint8_t(i == 0 && il == TmInterleave::None ? 1 : a.element_strides[i]);
  }
  for (uint32_t i = 0; i + 1 < a.rank; ++i) p.strides[i] = a.global_strides[i];
  if (im2col) {
    p.im2col = 1;
    for (uint32_t i = 0; i < spatial; ++i) {
      p.lower[i] = int16_t(im2col->lower_corner[i]);
      p.upper[i] = int16_t(im2col->upper_corner[i]);
    }
    p.channels = uint16_t(im2col->channels_per_pixel);
    p.pixels = uint16_t(im2col->pixels_per_column);
  }
  std::memset(out, 0, kTensorMapBytes);
  std::memcpy(out, &p, sizeof p);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> encode_tiled(const TiledEncodeArgs& a, std::byte* out, bool* unsupported) {
  return encode_map(a, nullptr, out, unsupported);
}

std::optional<std::string> encode_im2col(const Im2colEncodeArgs& a, std::byte* out, bool* unsupported) {
  return encode_map(a.base, &a, out, unsupported);
}

std::optional<std::string> replace_address(std::byte* map, uint64_t global_address) {
  if (!map) return "tensorMap is NULL";
  if (!decode_tensor_map(map)) return "tensorMap was not made by cuTensorMapEncodeTiled or cuTensorMapEncodeIm2col";
  if (global_address % 16 || global_address == 0)
    return fmt::format("globalAddress 0x{:x} is not 16-byte aligned", global_address);
  std::memcpy(map + offsetof(Packed, address), &global_address, 8);
  return std::nullopt;
}

std::optional<TensorMap> decode_tensor_map(const std::byte* bytes, std::string* why) {
  auto no = [&](std::string reason) -> std::optional<TensorMap> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  Packed p;
  std::memcpy(&p, bytes, sizeof p);
  if (p.magic != kMagic || p.im2col > 1)
    return no("tensor map was not made by cuTensorMapEncodeTiled or cuTensorMapEncodeIm2col");
  if (p.rank == 0 || p.rank > kTensorMapMaxRank) return no(fmt::format("tensor map rank {} is not 1..5", p.rank));
  if (p.type > uint8_t(TmDataType::TF32Ftz)) return no(fmt::format("tensor map element type {} is not supported", p.type));
  if (p.swizzle > uint8_t(TmSwizzle::B128)) return no(fmt::format("tensor map swizzle mode {} is not supported", p.swizzle));
  if (p.interleave > uint8_t(TmInterleave::B32)) return no(fmt::format("tensor map interleave {} is invalid", p.interleave));
  TensorMap m;
  m.type = TmDataType(p.type);
  m.rank = p.rank;
  m.interleave = TmInterleave(p.interleave);
  m.swizzle = TmSwizzle(p.swizzle);
  m.l2_promotion = p.l2_promotion;
  m.oob_nan = p.oob_nan;
  m.global_address = p.address;
  m.im2col = p.im2col == 1;
  if (m.im2col && (m.rank < 3 || p.channels == 0 || p.channels > 256 || p.pixels == 0 || p.pixels > 1024))
    return no("tensor map has an invalid im2col pixel box");
  for (uint32_t i = 0; i < m.rank; ++i) {
    m.dims[i] = uint64_t(p.dims_minus1[i]) + 1;
    m.box[i] = p.box[i];
    // Dimension 0 has no traversal stride without interleave (encode stores 1).
    m.elem_strides[i] = i == 0 && m.interleave == TmInterleave::None ? 1 : p.elem_strides[i];
    if (!m.im2col && (m.box[i] == 0 || m.box[i] > 256))
      return no(fmt::format("tensor map box_dim[{}] = {} is not 1..256", i, m.box[i]));
    if (m.elem_strides[i] == 0 || m.elem_strides[i] > 8)
      return no(fmt::format("tensor map element_stride[{}] = {} is not 1..8", i, m.elem_strides[i]));
  }
  if (m.im2col) {
    for (uint32_t i = 0; i + 2 < m.rank; ++i) m.lower[i] = p.lower[i], m.upper[i] = p.upper[i];
    m.channels_per_pixel = p.channels;
    m.pixels_per_column = p.pixels;
  }
  m.strides[0] = m.element_bytes();
  for (uint32_t i = 1; i < m.rank; ++i) m.strides[i] = p.strides[i - 1];
  // What encode checks across fields (a map changed by tensormap.replace may break it).
  const uint32_t align = m.interleave == TmInterleave::B32 ? 32 : 16;
  if (m.global_address % align)
    return no(fmt::format("tensor map global address 0x{:x} is not {}-byte aligned", m.global_address, align));
  for (uint32_t i = 1; i < m.rank; ++i)
    if (m.strides[i] % align || m.strides[i] >= (1ull << 40))
      return no(fmt::format("tensor map global_stride of dimension {} = {} is not a multiple of {} below 2^40", i,
                            m.strides[i], align));
  if (m.interleave != TmInterleave::None && m.rank < 3) return no("an interleaved tensor map needs rank >= 3");
  if (m.interleave == TmInterleave::B32 && m.swizzle != TmSwizzle::B32)
    return no("tensor map interleave 32B needs swizzle 32B");
  if (m.oob_nan && !is_float(m.type)) return no("tensor map NaN fill needs a floating-point element type");
  if (m.interleave == TmInterleave::None) {
    const uint64_t inner = uint64_t(m.row_elems()) * m.element_bytes();
    if (inner % 16) return no(fmt::format("tensor map box row of {} bytes is not a multiple of 16", inner));
    if (m.swizzle != TmSwizzle::None && inner > swizzle_span(m.swizzle))
      return no(fmt::format("tensor map box row of {} bytes exceeds the {}-byte swizzle span", inner,
                            swizzle_span(m.swizzle)));
  }
  return m;
}

std::optional<std::string> replace_field(std::byte* map, TmField field, uint32_t ord, uint64_t value,
                                         bool* unsupported) {
  if (unsupported) *unsupported = false;
  auto no = [&](std::string why) -> std::optional<std::string> {
    if (unsupported) *unsupported = true;
    return why;
  };
  Packed p;
  std::memcpy(&p, map, sizeof p);
  if (p.magic != kMagic) {
    for (size_t i = 0; i < kTensorMapBytes; ++i)
      if (map[i] != std::byte{0})
        return "the 128 bytes are not a tensor map (neither made by cuTensorMapEncodeTiled nor zero)";
    p = Packed{};
    p.magic = kMagic;
    p.rank = 1;
  }
  if (p.im2col) return "tensormap.replace.tile on an im2col tensor map";
  auto dim = [&](uint32_t n) -> std::optional<std::string> {
    if (ord < n) return std::nullopt;
    return fmt::format("ordinal {} is not 0..{}", ord, n - 1);
  };
  switch (field) {
    case TmField::GlobalAddress:
      if (value % 16) return fmt::format("global_address 0x{:x} is not 16-byte aligned", value);
      p.address = value;
      break;
    case TmField::Rank:
      if (value >= kTensorMapMaxRank) return fmt::format("rank {} is not 0..4 (the rank minus one)", value);
      p.rank = uint8_t(value + 1);
      break;
    case TmField::BoxDim:
      if (auto e = dim(kTensorMapMaxRank)) return e;
      if (value == 0 || value > 256) return fmt::format("box_dim[{}] = {} is not 1..256", ord, value);
      p.box[ord] = uint16_t(value);
      break;
    case TmField::GlobalDim:
      if (auto e = dim(kTensorMapMaxRank)) return e;
      if (value == 0 || value > (1ull << 32)) return fmt::format("global_dim[{}] = {} is not 1..2^32", ord, value);
      p.dims_minus1[ord] = uint32_t(value - 1);
      break;
    case TmField::GlobalStride:
      if (auto e = dim(kTensorMapMaxRank - 1)) return e;
      if (value % 16 || value >= (1ull << 40))
        return fmt::format("global_stride[{}] = {} is not a multiple of 16 below 2^40", ord, value);
      p.strides[ord] = value;
      break;
    case TmField::ElementStride:
      if (auto e = dim(kTensorMapMaxRank)) return e;
      if (value == 0 || value > 8) return fmt::format("element_stride[{}] = {} is not 1..8", ord, value);
      p.elem_strides[ord] = uint8_t(value);
      break;
    case TmField::ElemType: {
      // The ISA's numbering: u8 u16 u32 s32 u64 s64 f16 f32 f32.ftz f64 bf16 tf32 tf32.ftz.
      static constexpr TmDataType kIsa[] = {
          TmDataType::U8,  TmDataType::U16, TmDataType::U32,    TmDataType::S32,  TmDataType::U64,
          TmDataType::S64, TmDataType::F16, TmDataType::F32,    TmDataType::F32Ftz, TmDataType::F64,
          TmDataType::BF16, TmDataType::TF32, TmDataType::TF32Ftz};
      if (value >= 13 && value <= 15) return no(fmt::format("elemtype {} (packed sub-byte values, sm_100a)", value));
      if (value > 15) return fmt::format("elemtype {} is not 0..15", value);
      p.type = uint8_t(kIsa[value]);
      break;
    }
    case TmField::Interleave:
      if (value > 2) return fmt::format("interleave_layout {} is not 0..2", value);
      p.interleave = uint8_t(value);
      break;
    case TmField::SwizzleMode:
      if (value == 4) return no("swizzle_mode 4 (96B swizzling, sm_103a)");
      if (value > 4) return fmt::format("swizzle_mode {} is not 0..4", value);
      p.swizzle = uint8_t(value);
      break;
    case TmField::SwizzleAtomicity:
      if (value >= 1 && value <= 3) return no(fmt::format("swizzle_atomicity {} (sm_100a)", value));
      if (value > 3) return fmt::format("swizzle_atomicity {} is not 0..3", value);
      break;  // 16B: the only atomicity of sm_90's swizzles
    case TmField::FillMode:
      if (value > 1) return fmt::format("fill_mode {} is not 0..1", value);
      p.oob_nan = uint8_t(value);
      break;
  }
  std::memcpy(map, &p, sizeof p);
  return std::nullopt;
}

uint32_t tm_swizzle(TmSwizzle s, uint32_t offset) {
  // bits [4, 4+b) ^= bits [7, 7+b), b = log2(span / 16)
  uint32_t b = 0;
  switch (s) {
    case TmSwizzle::B32: b = 1; break;
    case TmSwizzle::B64: b = 2; break;
    case TmSwizzle::B128: b = 3; break;
    default: return offset;
  }
  const uint32_t mask = (1u << b) - 1;
  return offset ^ (((offset >> 7) & mask) << 4);
}

}  // namespace softgpu::exec
