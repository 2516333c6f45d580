// Fragment layouts of the warp-level matrix instructions: which lane and
// which fragment element hold matrix element (row, col).
//
// mma.sync layouts follow the PTX ISA figures ("Matrix Fragments for
// mma.m16n8k16" etc.) exactly. The ISA leaves the wmma layouts unspecified;
// the ones here were measured on an NVIDIA H200 (sm_90, the same layouts as
// sm_80 code: wmma is lowered onto mma.m16n8k* tiles) by loading a matrix
// of distinct values with wmma::load_matrix_sync and reading fragment.x[]:
//   * A, B and C/D are concatenations of mma.m16n8k16 (f16, bf16, s8/u8),
//     mma.m16n8k8 (tf32) or mma.m8n8k4 (f64) tiles; m8n32k16 is computed
//     transposed, as m32n8k16 on (B^T, A^T), so its A uses the mma B layout
//     and its B the mma A layout.
//   * f16 A/B fragments hold more elements than the matrix has per lane
//     (8 registers for m16n16k16): the tile sequence repeats (x[i + u] ==
//     x[i] with u = rows*cols/32).
#pragma once
#include <cstdint>

#include "program/mma_form.h"

namespace softgpu::exec::tensor {

enum class Mat : uint8_t { A, B, C };  // C stands for C and D
using Elem = program::TensorElem;      // None, F16, BF16, TF32, F32, F64, S8, U8, S32, E4M3, E5M2, S4, U4, B1

inline uint32_t elem_bits(Elem e) {
  switch (e) {
    case Elem::F16: case Elem::BF16: return 16;
    case Elem::S8: case Elem::U8: case Elem::E4M3: case Elem::E5M2: return 8;
    case Elem::S4: case Elem::U4: return 4;
    case Elem::B1: return 1;
    case Elem::F64: return 64;
    case Elem::None: return 0;
    default: return 32;
  }
}
// Elements packed into one register of a fragment.
inline uint32_t per_reg(Elem e) { return elem_bits(e) >= 32 ? 1 : 32 / elem_bits(e); }

struct RC {
  uint32_t r, c;
  bool operator==(const RC&) const = default;
};

struct Shape {
  uint32_t m = 0, n = 0, k = 0;
  bool is(uint32_t M, uint32_t N, uint32_t K) const { return m == M && n == N && k == K; }
};

// Matrix dimensions of an operand.
inline RC dims(Shape s, Mat m) {
  switch (m) {
    case Mat::A: return {s.m, s.k};
    case Mat::B: return {s.k, s.n};
    default: return {s.m, s.n};
  }
}

// ---- mma.sync (ISA figures). g = groupID, t = threadID_in_group. ----
namespace mma {
inline uint32_t gid(uint32_t lane) { return lane >> 2; }
inline uint32_t tig(uint32_t lane) { return lane & 3; }

// m16n8k16 .f16/.bf16 (also the A/B halves of m16n8k8 with fewer elements).
inline RC a_f16_k16(uint32_t l, uint32_t i) { return {gid(l) + 8 * ((i >> 1) & 1), 2 * tig(l) + (i & 1) + 8 * (i >> 2)}; }
inline RC b_f16_k16(uint32_t l, uint32_t i) { return {2 * tig(l) + (i & 1) + 8 * (i >> 1), gid(l)}; }
inline RC a_f16_k8(uint32_t l, uint32_t i) { return {gid(l) + 8 * (i >> 1), 2 * tig(l) + (i & 1)}; }
inline RC b_f16_k8(uint32_t l, uint32_t i) { return {2 * tig(l) + i, gid(l)}; }
// Accumulators of every m16n8kX shape.
inline RC c_16x8(uint32_t l, uint32_t i) { return {gid(l) + 8 * (i >> 1), 2 * tig(l) + (i & 1)}; }
// tf32: m16n8k8 and m16n8k4.
inline RC a_tf32_k8(uint32_t l, uint32_t i) { return {gid(l) + 8 * (i & 1), tig(l) + 4 * (i >> 1)}; }
inline RC b_tf32_k8(uint32_t l, uint32_t i) { return {tig(l) + 4 * i, gid(l)}; }
inline RC a_tf32_k4(uint32_t l, uint32_t i) { return {gid(l) + 8 * i, tig(l)}; }
inline RC b_tf32_k4(uint32_t l, uint32_t) { return {tig(l), gid(l)}; }
// 8-bit integers and fp8: m16n8k16 and m16n8k32; m8n8k16.
inline RC a_i8_k16(uint32_t l, uint32_t i) { return {gid(l) + 8 * (i >> 2), 4 * tig(l) + (i & 3)}; }
inline RC b_i8_k16(uint32_t l, uint32_t i) { return {4 * tig(l) + i, gid(l)}; }
inline RC a_i8_k32(uint32_t l, uint32_t i) { return {gid(l) + 8 * ((i >> 2) & 1), 4 * tig(l) + (i & 3) + 16 * (i >> 3)}; }
inline RC b_i8_k32(uint32_t l, uint32_t i) { return {4 * tig(l) + (i & 3) + 16 * (i >> 2), gid(l)}; }
inline RC a_i8_m8n8k16(uint32_t l, uint32_t i) { return {gid(l), 4 * tig(l) + i}; }
inline RC b_i8_m8n8k16(uint32_t l, uint32_t i) { return {4 * tig(l) + i, gid(l)}; }
inline RC c_8x8(uint32_t l, uint32_t i) { return {gid(l), 2 * tig(l) + i}; }
// m8n8k4 .f64.
inline RC a_f64_m8n8k4(uint32_t l, uint32_t) { return {gid(l), tig(l)}; }
inline RC b_f64_m8n8k4(uint32_t l, uint32_t) { return {tig(l), gid(l)}; }
// m8n8k4 .f16: four independent 8x8x4 products, one per quad pair (lanes
// 4q..4q+3 and 16+4q..16+4q+3); hi = the lane is in the high group.
inline uint32_t hi4(uint32_t l) { return l >= 16 ? 4 : 0; }
inline RC a_f16_m8n8k4(uint32_t l, uint32_t i, bool row) {
  return row ? RC{(l & 3) + hi4(l), i} : RC{i + hi4(l), l & 3};
}
inline RC b_f16_m8n8k4(uint32_t l, uint32_t i, bool row) {
  return row ? RC{l & 3, i + hi4(l)} : RC{i, (l & 3) + hi4(l)};
}
inline RC c_f16_m8n8k4(uint32_t l, uint32_t i) { return {(l & 3) + hi4(l), i}; }
inline RC c_f32_m8n8k4(uint32_t l, uint32_t i) {
  return {(l & 1) + (i & 2) + hi4(l), (i & 4) + (l & 2) + (i & 1)};
}
// Sub-byte integers (.s4/.u4, .b1): each register holds the bytes of the
// 8-bit layout of the shape with K / per_byte, and each byte per_byte
// elements consecutive in K (m8n8k32 .s4 splits m8n8k16 .s8; m16n8k64 .s4
// and m16n8k256 .b1 split m16n8k32 .s8; ISA "Matrix Fragments for
// mma.m16n8k64" etc.). x is the 8-bit element's (row, col); K is the column
// of A and the row of B.
inline RC split_a(RC x, uint32_t per_byte, uint32_t i) { return {x.r, x.c * per_byte + i % per_byte}; }
inline RC split_b(RC x, uint32_t per_byte, uint32_t i) { return {x.r * per_byte + i % per_byte, x.c}; }

// ---- mma.sp: the sparse A operand (ISA "Sparse matrix storage") ----
// A's fragment holds the K/2 stored (non-zero) columns in the layout of the
// dense A of the shape with K/2. Each row of A is cut into chunks whose
// stored elements a 4-bit metadata field places: two 2-bit indices (low
// bits first) of the units of the chunk that hold them.
//   f16/bf16, 8-bit: chunk of 4 elements, 2 stored, unit = element (2:4);
//   .s4/.u4: chunk of 8, 4 stored, unit = a pair of elements (4:8 by pairs);
//   .tf32: chunk of 2, 1 stored; 0b0100 puts it first, 0b1110 second (1:2).
inline uint32_t sparse_chunk(Elem a) {
  return a == Elem::TF32 ? 2 : a == Elem::S4 || a == Elem::U4 ? 8 : 4;
}
// The dense column of stored column cc of a row whose chunk has metadata nib.
inline uint32_t sparse_col(Elem a, uint32_t cc, uint32_t nib) {
  const uint32_t chunk = sparse_chunk(a), stored = chunk / 2, c = cc / stored, h = cc % stored;
  if (chunk == 2) return 2 * c + ((nib >> 1) & 1);
  if (chunk == 8) return 8 * c + 2 * ((nib >> (2 * (h >> 1))) & 3) + (h & 1);
  return 4 * c + ((nib >> (2 * h)) & 3);
}
// Where the metadata of chunk c of row r (0..15) lives. The threads of
// each group of four that the selector names (one for 4 chunks a row, a
// pair for 8, all four for 16) hold, 4 bits a chunk in order, one
// register's worth of metadata each: the metadata of 128 bits of stored A
// of a row (kElementsPerElementE in CUTLASS's SparseMma, the ELayouts of
// CuTe's SM90/SM120 sparse MMA traits), which is
//   * 16- and 32-bit types: 4 chunks, of rows groupID (bits 0-15) and
//     groupID + 8 (bits 16-31) alike; the next thread the next 4 chunks;
//   * 8- and 4-bit types: 8 chunks of one row (bits 0-31); the next thread
//     the same chunks of row groupID + 8, the two after them the next 8.
struct MetaAt {
  uint32_t lane, shift;
};
inline MetaAt sparse_meta_at(uint32_t k, Elem a, uint32_t selector, uint32_t r, uint32_t c) {
  const uint32_t per_group = k / sparse_chunk(a) / 4;  // contributing threads per group
  const uint32_t first = 4 * (r % 8) + selector * per_group;
  if (elem_bits(a) <= 8) return {(first + 2 * (c / 8) + r / 8) & 31, 4 * (c % 8)};
  return {(first + c / 4) & 31, 16 * (r / 8) + 4 * (c % 4)};
}
}  // namespace mma

// ---- wmma (measured; see the header comment) ----
// Element e of a wmma fragment (after folding the repeated part).
inline RC wmma_elem(Shape s, Mat m, Elem t, uint32_t lane, uint32_t e) {
  const RC d = dims(s, m);
  e %= d.r * d.c / 32;
  using namespace mma;
  if (t == Elem::F64) {  // m8n8k4
    return m == Mat::A ? a_f64_m8n8k4(lane, e) : m == Mat::B ? b_f64_m8n8k4(lane, e) : c_8x8(lane, e);
  }
  if (m == Mat::C) {
    if (s.is(8, 32, 16)) {  // transposed: D^T tiles of 16 (n) x 8 (m)
      RC x = c_16x8(lane, e & 3);
      return {x.c, x.r + 16 * (e >> 2)};
    }
    RC x = c_16x8(lane, e & 3);
    if (s.is(32, 8, 16)) return {x.r + 16 * (e >> 2), x.c};
    return {x.r, x.c + 8 * (e >> 2)};  // m16n16k16, m16n16k8: two n-tiles
  }
  if (t == Elem::TF32) {  // m16n16k8
    if (m == Mat::A) return a_tf32_k8(lane, e);
    RC x = b_tf32_k8(lane, e & 1);
    return {x.r, x.c + 8 * (e >> 1)};
  }
  const bool i8 = t == Elem::S8 || t == Elem::U8;
  constexpr uint32_t atile = 8, btile = 4;  // elements per A (16-row) / B (8-column) tile
  auto a16 = [&](uint32_t i) { return i8 ? a_i8_k16(lane, i) : a_f16_k16(lane, i); };
  auto b16 = [&](uint32_t i) { return i8 ? b_i8_k16(lane, i) : b_f16_k16(lane, i); };
  if (s.is(8, 32, 16)) {  // A^T is the mma B operand, B^T the mma A operand
    if (m == Mat::A) { RC x = b16(e); return {x.c, x.r}; }
    RC x = a16(e % atile);
    return {x.c, x.r + 16 * (e / atile)};
  }
  if (m == Mat::A) {
    RC x = a16(e % atile);
    return {x.r + 16 * (e / atile), x.c};  // m32n8k16: two m-tiles
  }
  RC x = b16(e % btile);
  return {x.r, x.c + 8 * (e / btile)};  // m16n16k16: two n-tiles
}

}  // namespace softgpu::exec::tensor
