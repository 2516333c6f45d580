// mma.sync / mma.sp: the modifiers of a warp-level matrix multiply decoded
// once, by the decoder, into Inst::aux (program/decoder.cpp), so that the
// executor's handlers read typed fields instead of comparing strings. The
// form is only parsed here; which forms exist is the executor's business
// (exec/ops_tensor.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace softgpu::program {

// Matrix element types (shared with exec::tensor::Elem). At most 16 values: 4 bits.
enum class TensorElem : uint8_t { None, F16, BF16, TF32, F32, F64, S8, U8, S32, E4M3, E5M2, S4, U4, B1 };
TensorElem tensor_elem_of(std::string_view modifier);  // ".f16" -> F16; None for anything else
// ".m16n8k16" -> (16, 8, 16); false if the modifier is not a shape.
bool parse_tensor_shape(std::string_view modifier, uint32_t& m, uint32_t& n, uint32_t& k);

enum class MmaBitOp : uint8_t { None, Xor, And };  // .b1: .xor.popc / .and.popc

struct MmaForm {
  bool ok = false;  // every modifier known and the shape representable
  uint32_t m = 0, n = 0, k = 0;
  TensorElem d = TensorElem::None, a = TensorElem::None, b = TensorElem::None, c = TensorElem::None;
  bool a_row = true, b_row = false;
  bool satfinite = false;
  bool sparse = false, ordered = false;  // .sp, .sp::ordered_metadata
  MmaBitOp bop = MmaBitOp::None;
};

MmaForm parse_mma_form(const std::vector<std::string>& mods);
uint32_t pack_mma_form(const MmaForm& f);  // 0 when !f.ok
MmaForm unpack_mma_form(uint32_t aux);

}  // namespace softgpu::program
