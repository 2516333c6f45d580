#include "program/mma_form.h"

#include <bit>
#include <charconv>

namespace softgpu::program {

TensorElem tensor_elem_of(std::string_view s) {
  static constexpr std::pair<std::string_view, TensorElem> kNames[] = {
      {".f16", TensorElem::F16}, {".bf16", TensorElem::BF16}, {".tf32", TensorElem::TF32},
      {".f32", TensorElem::F32}, {".f64", TensorElem::F64},   {".s8", TensorElem::S8},
      {".u8", TensorElem::U8},   {".s32", TensorElem::S32},   {".e4m3", TensorElem::E4M3},
      {".e5m2", TensorElem::E5M2}, {".s4", TensorElem::S4},   {".u4", TensorElem::U4},
      {".b1", TensorElem::B1}};
  for (auto [n, e] : kNames)
    if (s == n) return e;
  return TensorElem::None;
}

namespace {
// A decimal number at the front of s (no sign, no leading zero), consumed.
bool number(std::string_view& s, uint32_t& v) {
  if (s.empty() || s[0] < '1' || s[0] > '9') return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc()) return false;
  s.remove_prefix(size_t(p - s.data()));
  return true;
}
// log2(v) - 2 in 3 bits for a power of two 4..512, else -1.
int log_code(uint32_t v) {
  if (v < 4 || v > 512 || !std::has_single_bit(v)) return -1;
  return std::countr_zero(v) - 2;
}
}  // namespace

bool parse_tensor_shape(std::string_view s, uint32_t& m, uint32_t& n, uint32_t& k) {
  if (s.substr(0, 2) != ".m") return false;
  s.remove_prefix(2);
  if (!number(s, m) || s.empty() || s[0] != 'n') return false;
  s.remove_prefix(1);
  if (!number(s, n) || s.empty() || s[0] != 'k') return false;
  s.remove_prefix(1);
  return number(s, k) && s.empty();
}

MmaForm parse_mma_form(const std::vector<std::string>& mods) {
  MmaForm f;
  TensorElem types[4] = {};
  int ntypes = 0, nlayouts = 0, nshapes = 0;
  bool layouts[2] = {true, false}, popc = false, ok = true;
  for (const std::string& s : mods) {
    if (TensorElem e = tensor_elem_of(s); e != TensorElem::None) {
      if (ntypes == 4) ok = false;
      else types[ntypes++] = e;
    } else if (s == ".sync" || s == ".aligned" || s == ".rn" || s == ".rz" || s == ".rm" || s == ".rp") {
      // rounding: Inst::m.rnd
    } else if (s == ".row" || s == ".col") {
      if (nlayouts == 2) ok = false;
      else layouts[nlayouts++] = s == ".row";
    } else if (s == ".sp" || s == ".sp::ordered_metadata") {
      f.sparse = true;
      f.ordered = s != ".sp";
    } else if (s == ".satfinite") {
      f.satfinite = true;
    } else if (s == ".xor" || s == ".and") {
      if (f.bop != MmaBitOp::None) ok = false;
      f.bop = s == ".xor" ? MmaBitOp::Xor : MmaBitOp::And;
    } else if (s == ".popc") {
      popc = true;
    } else if (parse_tensor_shape(s, f.m, f.n, f.k)) {
      ++nshapes;
    } else {
      ok = false;  // .kind::*, block scaling, anything else
    }
  }
  f.d = types[0], f.a = types[1], f.b = types[2], f.c = types[3];
  f.a_row = layouts[0];
  f.b_row = layouts[1];
  f.ok = ok && ntypes == 4 && nlayouts == 2 && nshapes == 1 && popc == (f.bop != MmaBitOp::None) &&
         log_code(f.m) >= 0 && log_code(f.n) >= 0 && log_code(f.k) >= 0;
  return f;
}

// Bits: 0 ok; 1-3, 4-6, 7-9 m, n, k (log2 - 2); 10-25 d, a, b, c (4 each);
// 28 satfinite, 29 sparse, 30 ordered; 31 a .b1 bit op. Bits 26-27 hold
// the layouts (.row = 1), or, for a bit op (only ever .row.col), bit 26 says
// .and rather than .xor.
uint32_t pack_mma_form(const MmaForm& f) {
  if (!f.ok) return 0;
  uint32_t v = 1;
  v |= uint32_t(log_code(f.m)) << 1 | uint32_t(log_code(f.n)) << 4 | uint32_t(log_code(f.k)) << 7;
  v |= uint32_t(f.d) << 10 | uint32_t(f.a) << 14 | uint32_t(f.b) << 18 | uint32_t(f.c) << 22;
  v |= uint32_t(f.satfinite) << 28 | uint32_t(f.sparse) << 29 | uint32_t(f.ordered) << 30;
  if (f.bop == MmaBitOp::None) {
    v |= uint32_t(f.a_row) << 26 | uint32_t(f.b_row) << 27;
  } else {
    if (!f.a_row || f.b_row) return 0;  // bit ops exist only as .row.col
    v |= 1u << 31 | uint32_t(f.bop == MmaBitOp::And) << 26;
  }
  return v;
}

MmaForm unpack_mma_form(uint32_t v) {
  MmaForm f;
  if (!(v & 1)) return f;
  f.ok = true;
  f.m = 4u << ((v >> 1) & 7), f.n = 4u << ((v >> 4) & 7), f.k = 4u << ((v >> 7) & 7);
  f.d = TensorElem((v >> 10) & 15), f.a = TensorElem((v >> 14) & 15);
  f.b = TensorElem((v >> 18) & 15), f.c = TensorElem((v >> 22) & 15);
  f.satfinite = (v >> 28) & 1, f.sparse = (v >> 29) & 1, f.ordered = (v >> 30) & 1;
  if (v >> 31) {
    f.a_row = true, f.b_row = false;
    f.bop = (v >> 26) & 1 ? MmaBitOp::And : MmaBitOp::Xor;
  } else {
    f.a_row = (v >> 26) & 1, f.b_row = (v >> 27) & 1;
  }
  return f;
}

}  // namespace softgpu::program
