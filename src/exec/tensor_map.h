// TMA tensor maps (CUtensorMap): the 128-byte object cuTensorMapEncodeTiled
// fills and cp.async.bulk.tensor reads. The CUDA driver leaves its layout
// opaque; this is softgpu's (encode/decode below), with every parameter the
// driver documents validated at encode time.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace softgpu::exec {

inline constexpr size_t kTensorMapBytes = 128;
inline constexpr uint32_t kTensorMapMaxRank = 5;

// The driver's enumerations (cuda.h), by value.
enum class TmDataType : uint8_t {
  U8, U16, U32, S32, U64, S64, F16, F32, F64, BF16, F32Ftz, TF32, TF32Ftz,
  U4x16Align8, U4x16Align16, U6x16Align16,  // packed types: not supported (encode says so)
};
enum class TmInterleave : uint8_t { None, B16, B32 };
enum class TmSwizzle : uint8_t { None, B32, B64, B128, B128Atom32, B128Atom32Flip8, B128Atom64 };

// Bytes per element (0 for the packed sub-byte types).
uint32_t tm_element_bytes(TmDataType t);

// The decoded tensor map.
struct TensorMap {
  TmDataType type = TmDataType::U8;
  uint32_t rank = 1;
  TmInterleave interleave = TmInterleave::None;
  TmSwizzle swizzle = TmSwizzle::None;
  uint8_t l2_promotion = 0;
  bool oob_nan = false;  // CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
  uint64_t global_address = 0;
  std::array<uint64_t, kTensorMapMaxRank> dims{};     // elements per dimension (dims[0] innermost)
  std::array<uint64_t, kTensorMapMaxRank> strides{};  // bytes; strides[0] = element size
  std::array<uint32_t, kTensorMapMaxRank> box{};      // box extent in elements per dimension
  std::array<uint32_t, kTensorMapMaxRank> elem_strides{};  // traversal step (elem_strides[0] = 1)
  // im2col maps (cuTensorMapEncodeIm2col): rank 3..5, dimension 0 the
  // channels C, rank - 1 the images N, the ones between the spatial W, H, D.
  // The pixel box's corners per spatial dimension (index 0 = W), relative to
  // the tensor's first and one-past-last pixel; the channels and pixels one
  // load brings.
  bool im2col = false;
  std::array<int32_t, kTensorMapMaxRank - 2> lower{}, upper{};
  uint32_t channels_per_pixel = 0, pixels_per_column = 0;

  uint32_t element_bytes() const { return tm_element_bytes(type); }
  // Elements the box holds along dimension i (ceil(box / elementStride)).
  uint32_t box_elems(uint32_t i) const { return (box[i] + elem_strides[i] - 1) / elem_strides[i]; }
  // Elements one shared-memory row holds: the box's dimension 0, or an
  // im2col pixel's channels.
  uint32_t row_elems() const { return im2col ? channels_per_pixel : box_elems(0); }
  // Bytes one row takes in shared memory: its elements, rounded up to the
  // 16- or 32-byte slice of an interleaved layout (NC/8HWC8, NC/16HWC16),
  // the rest of the slice zero. Without interleave a row is a multiple of 16
  // bytes already (encode checks it).
  uint64_t row_bytes() const;
  // Bytes the box fills in shared memory (what a load's complete_tx counts).
  uint64_t box_bytes() const;
};

// cuTensorMapEncodeTiled's arguments with the driver's types widened.
struct TiledEncodeArgs {
  uint32_t data_type = 0;
  uint32_t rank = 0;
  uint64_t global_address = 0;
  const uint64_t* global_dim = nullptr;      // rank entries
  const uint64_t* global_strides = nullptr;  // rank - 1 entries (bytes)
  const uint32_t* box_dim = nullptr;         // rank entries
  const uint32_t* element_strides = nullptr; // rank entries
  uint32_t interleave = 0, swizzle = 0, l2_promotion = 0, oob_fill = 0;
};

// Validates `a` as the driver documents and writes the map to `out`
// (kTensorMapBytes); on a violation returns what is wrong and leaves `out`
// alone. `unsupported` is set when the arguments are valid but name
// something softgpu does not implement (packed types, the 128B-atom swizzles).
std::optional<std::string> encode_tiled(const TiledEncodeArgs& a, std::byte* out, bool* unsupported = nullptr);

// cuTensorMapEncodeIm2col's arguments beyond the tiled ones (box_dim unused).
struct Im2colEncodeArgs {
  TiledEncodeArgs base;                  // type, rank, address, dims, strides, element strides, modes
  const int32_t* lower_corner = nullptr;  // rank - 2 entries, W first
  const int32_t* upper_corner = nullptr;
  uint32_t channels_per_pixel = 0, pixels_per_column = 0;
};
std::optional<std::string> encode_im2col(const Im2colEncodeArgs& a, std::byte* out, bool* unsupported = nullptr);

// Replaces the global address of an encoded map (cuTensorMapReplaceAddress).
std::optional<std::string> replace_address(std::byte* map, uint64_t global_address);

// The fields tensormap.replace.tile rewrites in a map (PTX ISA 8.3, sm_90a).
enum class TmField : uint8_t {
  GlobalAddress, Rank, BoxDim, GlobalDim, GlobalStride, ElementStride,  // .field1, .field2
  ElemType, Interleave, SwizzleMode, SwizzleAtomicity, FillMode,        // .field3
};
// Replaces one field of the tiled map at `map` as tensormap.replace does:
// `ord` the dimension (0 innermost; global_stride's ordinal i is the stride
// of dimension i + 1), `value` the instruction's new_val in the ISA's
// numbering (rank: the rank minus one; elemtype: the ISA's table, not
// CUtensorMapDataType). Dimensions beyond the rank may be set (CUTLASS sets
// all five). 128 zero bytes are a map of rank 1 to build on (Triton writes
// every field of a zeroed object). A value out of range, an im2col map, or
// bytes that are neither a map nor zero: what is wrong, the map left alone;
// `unsupported` is set when the value is valid but names something softgpu
// does not implement (packed types, the 96B swizzle, swizzle atomicity other
// than 16B). Whether the fields fit together is checked where the map is used.
std::optional<std::string> replace_field(std::byte* map, TmField field, uint32_t ord, uint64_t value,
                                         bool* unsupported = nullptr);

// Reads a map written by encode_tiled or encode_im2col (and possibly changed
// by replace_field); nullopt if `bytes` is not a valid one, with the reason
// in `why` when given.
std::optional<TensorMap> decode_tensor_map(const std::byte* bytes, std::string* why = nullptr);

// The shared-memory byte offset a tensor-map swizzle moves `offset` to: the
// 16-byte chunk index within a span of 32/64/128 bytes XORed with the
// offset's row (span) index modulo the chunks per span, a pattern that
// repeats every 256/512/1024 bytes (computed on the address, so the
// destination must be aligned to the pattern for it to start at row 0).
uint32_t tm_swizzle(TmSwizzle s, uint32_t offset);

}  // namespace softgpu::exec
