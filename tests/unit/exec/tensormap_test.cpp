// tensormap.replace and tensormap.cp_fenceproxy (exec/ops_tensormap.cpp,
// exec::replace_field): a map encoded on the host for one tensor is copied
// to shared memory, pointed at another tensor there (address, dimensions,
// stride, box), fenced into global memory and loaded through by TMA; the
// tile is checked against a CPU box of the second tensor. Every field of a
// map in global memory replaced in both addressings and read back; values
// out of range fault naming the field; a map built from zero bytes.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <iterator>
#include <tuple>
#include <vector>

#include "../../timing/ptx_device.h"
#include "exec/tensor_map.h"

using namespace softgpu;
using exec::TmField;

namespace {

const char* kPtx = R"(
.version 8.3
.target sm_90a
.address_size 64

// One warp: lanes 0-15 copy the map at p_map to shared memory, lane 0
// replaces its address, global dims, dimension 1's stride and box_dim[1],
// the warp fences it into p_ws; lane 0 loads the box at (c0, c1) through
// p_ws and the warp copies its p_bytes bytes to p_out.
.visible .entry replaced(.param .u64 p_map, .param .u64 p_ws, .param .u64 p_addr, .param .u32 p_w,
                         .param .u32 p_h, .param .u64 p_pitch, .param .u32 p_boxh, .param .u32 p_c0,
                         .param .u32 p_c1, .param .u64 p_out, .param .u32 p_bytes)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<12>;
  .shared .align 128 .b8 smap[128];
  .shared .align 1024 .b8 tile[8192];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [p_map];
  ld.param.u64 %rd2, [p_ws];
  ld.param.u64 %rd3, [p_addr];
  ld.param.u32 %r1, [p_w];
  ld.param.u32 %r2, [p_h];
  ld.param.u64 %rd9, [p_pitch];
  ld.param.u32 %r3, [p_boxh];
  ld.param.u32 %r4, [p_c0];
  ld.param.u32 %r5, [p_c1];
  ld.param.u64 %rd4, [p_out];
  ld.param.u32 %r6, [p_bytes];
  mov.u32 %r7, %tid.x;
  mov.u32 %r8, smap;
  setp.ge.u32 %p1, %r7, 16;
  @%p1 bra COPIED;
  shl.b32 %r9, %r7, 3;
  cvt.u64.u32 %rd5, %r9;
  add.u64 %rd6, %rd1, %rd5;
  ld.global.u64 %rd7, [%rd6];
  add.u32 %r10, %r8, %r9;
  st.shared.u64 [%r10], %rd7;
COPIED:
  bar.warp.sync -1;
  setp.ne.u32 %p2, %r7, 0;
  @%p2 bra REPLACED;
  tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r8], %rd3;
  tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r8], 0, %r1;
  tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r8], 1, %r2;
  tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%r8], 0, %rd9;
  tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r8], 1, %r3;
REPLACED:
  bar.warp.sync -1;
  tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd2], [%r8], 128;
  fence.proxy.tensormap::generic.acquire.gpu [%rd2], 128;
  fence.proxy.tensormap::generic.release.gpu;
  prefetch.tensormap [%rd2];
  @%p2 bra COPY;
  mov.u32 %r11, bar;
  mov.u32 %r12, tile;
  mbarrier.init.shared::cta.b64 [%r11], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd8, [%r11], %r6;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r12], [%rd2, {%r4, %r5}], [%r11];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r11], 0;
  @!%p3 bra WAIT;
COPY:
  bar.warp.sync -1;
  mov.u32 %r12, tile;
  shl.b32 %r9, %r7, 2;
LOOP:
  setp.ge.u32 %p3, %r9, %r6;
  @%p3 bra DONE;
  add.u32 %r10, %r12, %r9;
  ld.shared.u32 %r13, [%r10];
  cvt.u64.u32 %rd5, %r9;
  add.u64 %rd6, %rd4, %rd5;
  st.global.u32 [%rd6], %r13;
  add.u32 %r9, %r9, 128;
  bra LOOP;
DONE:
  ret;
}

// Every field of the map at p_map, in global memory, generic and .global.
.visible .entry fields(.param .u64 p_map)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p_map];
  mov.u32 %r1, 7;
  tensormap.replace.tile.rank.global.b1024.b32 [%rd1], 2;
  tensormap.replace.tile.elemtype.b1024.b32 [%rd1], 10;
  tensormap.replace.tile.fill_mode.global.b1024.b32 [%rd1], 1;
  tensormap.replace.tile.interleave_layout.global.b1024.b32 [%rd1], 0;
  tensormap.replace.tile.swizzle_mode.global.b1024.b32 [%rd1], 2;
  tensormap.replace.tile.swizzle_atomicity.global.b1024.b32 [%rd1], 0;
  tensormap.replace.tile.element_stride.global.b1024.b32 [%rd1], 2, 3;
  tensormap.replace.tile.box_dim.b1024.b32 [%rd1], 2, 5;
  tensormap.replace.tile.global_dim.global.b1024.b32 [%rd1], 2, %r1;
  tensormap.replace.tile.global_stride.global.b1024.b64 [%rd1], 1, 4096;
  ret;
}

.visible .entry bad_box(.param .u64 p_map, .param .u32 p_v)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p_map];
  ld.param.u32 %r1, [p_v];
  tensormap.replace.tile.box_dim.global.b1024.b32 [%rd1], 1, %r1;
  ret;
}

.visible .entry packed_type(.param .u64 p_map)
{
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p_map];
  tensormap.replace.tile.elemtype.global.b1024.b32 [%rd1], 13;
  ret;
}
)";

std::string msg(const exec::LaunchResult& r) { return r.fault ? r.fault->message : r.error; }

// A 2-D f32 map of `base` (w x h floats, rows `pitch` bytes apart).
std::optional<std::string> encode(std::byte* map, uint64_t base, uint64_t w, uint64_t h, uint64_t pitch,
                                  uint32_t box0, uint32_t box1) {
  uint64_t dims[2] = {w, h}, strides[1] = {pitch};
  uint32_t box[2] = {box0, box1}, es[2] = {1, 1};
  exec::TiledEncodeArgs a;
  a.data_type = 7;  // CU_TENSOR_MAP_DATA_TYPE_FLOAT32
  a.rank = 2;
  a.global_address = base;
  a.global_dim = dims;
  a.global_strides = strides;
  a.box_dim = box;
  a.element_strides = es;
  return exec::encode_tiled(a, map);
}

struct TensormapReplace : ::testing::Test {
  test::PtxDevice d{kPtx, "tensormap.ptx", 1ull << 26};
};

TEST_F(TensormapReplace, ReplacedInSharedFencedAndLoadedThrough) {
  // The map is encoded for a 16x16 tensor of -1s with 8x2 boxes; the kernel
  // points it at a 37x29 tensor (rows of 160 bytes) with 8x4 boxes.
  auto* old_t = d.alloc<float>(16 * 16);
  for (int i = 0; i < 256; ++i) old_t[i] = -1.0f;
  const uint32_t W = 37, H = 29, pitch = 160, boxw = 8, boxh = 4;
  auto* t = d.alloc<float>(pitch / 4 * H);
  for (uint32_t i = 0; i < pitch / 4 * H; ++i) t[i] = float(i) * 0.5f + 1.0f;
  auto* map = d.alloc<std::byte>(128);
  auto* ws = d.alloc<std::byte>(128);
  ASSERT_FALSE(encode(map, reinterpret_cast<uint64_t>(old_t), 16, 16, 64, boxw, 2));
  std::vector<std::byte> before(map, map + 128);
  const uint32_t bytes = boxw * boxh * 4;
  auto* out = d.alloc<float>(boxw * boxh);
  for (auto c : {std::array<int32_t, 2>{0, 0}, {8, 12}, {32, 27}, {-3, -2}, {36, 0}}) {
    SCOPED_TRACE(testing::Message() << "box at " << c[0] << "," << c[1]);
    std::memset(out, 0x7f, bytes);
    const auto cfg = d.config("replaced", {1, 1, 1}, {32, 1, 1}, reinterpret_cast<uint64_t>(map),
                              reinterpret_cast<uint64_t>(ws), reinterpret_cast<uint64_t>(t), W, H, uint64_t(pitch),
                              boxh, uint32_t(c[0]), uint32_t(c[1]), reinterpret_cast<uint64_t>(out), bytes);
    auto r = d.launch("replaced", cfg, {});
    ASSERT_EQ(r.status, Status::Success) << msg(r);
    for (uint32_t y = 0; y < boxh; ++y)
      for (uint32_t x = 0; x < boxw; ++x) {
        const int64_t gx = c[0] + int64_t(x), gy = c[1] + int64_t(y);
        const bool in = gx >= 0 && gx < W && gy >= 0 && gy < H;
        const float want = in ? t[gy * (pitch / 4) + gx] : 0.0f;
        ASSERT_EQ(out[y * boxw + x], want) << "element (" << x << "," << y << ")";
      }
  }
  EXPECT_EQ(std::memcmp(map, before.data(), 128), 0) << "the source map changed";
  auto m = exec::decode_tensor_map(ws);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->global_address, reinterpret_cast<uint64_t>(t));
  EXPECT_EQ(m->dims[0], W);
  EXPECT_EQ(m->dims[1], H);
  EXPECT_EQ(m->strides[1], pitch);
  EXPECT_EQ(m->box[0], boxw);
  EXPECT_EQ(m->box[1], boxh);

  // A box row the host made invalid (3 floats = 12 bytes): the load says why.
  ASSERT_FALSE(exec::replace_field(map, TmField::BoxDim, 0, 3));
  const auto cfg = d.config("replaced", {1, 1, 1}, {32, 1, 1}, reinterpret_cast<uint64_t>(map),
                            reinterpret_cast<uint64_t>(ws), reinterpret_cast<uint64_t>(t), W, H, uint64_t(pitch),
                            boxh, 0u, 0u, reinterpret_cast<uint64_t>(out), bytes);
  auto r = d.launch("replaced", cfg, {});
  EXPECT_EQ(r.status, Status::IllegalInstruction);
  EXPECT_NE(msg(r).find("box row of 12 bytes is not a multiple of 16"), std::string::npos) << msg(r);
}

TEST_F(TensormapReplace, EveryFieldInGlobalMemory) {
  auto* t = d.alloc<std::byte>(1 << 16);
  auto* map = d.alloc<std::byte>(128);
  ASSERT_FALSE(encode(map, reinterpret_cast<uint64_t>(t), 64, 16, 256, 8, 2));
  auto r = d.launch("fields", d.config("fields", {1, 1, 1}, {32, 1, 1}, reinterpret_cast<uint64_t>(map)), {});
  ASSERT_EQ(r.status, Status::Success) << msg(r);
  std::string why;
  auto m = exec::decode_tensor_map(map, &why);
  ASSERT_TRUE(m) << why;
  EXPECT_EQ(m->rank, 3u);
  EXPECT_EQ(m->type, exec::TmDataType::BF16);  // the ISA's 10, not CU_TENSOR_MAP_DATA_TYPE 10 (f32 ftz)
  EXPECT_TRUE(m->oob_nan);
  EXPECT_EQ(m->interleave, exec::TmInterleave::None);
  EXPECT_EQ(m->swizzle, exec::TmSwizzle::B64);
  EXPECT_EQ(m->elem_strides[2], 3u);
  EXPECT_EQ(m->box[2], 5u);
  EXPECT_EQ(m->dims[2], 7u);
  EXPECT_EQ(m->strides[2], 4096u);
  EXPECT_EQ(m->dims[0], 64u);  // untouched
  EXPECT_EQ(m->strides[1], 256u);
  EXPECT_EQ(m->box_bytes(), 8u * 2 * 2 * 2);  // 8 x 2 x ceil(5 / 3) bf16
}

TEST_F(TensormapReplace, OutOfRangeValuesFaultNamingTheField) {
  auto* t = d.alloc<std::byte>(1 << 16);
  auto* map = d.alloc<std::byte>(128);
  ASSERT_FALSE(encode(map, reinterpret_cast<uint64_t>(t), 64, 16, 256, 8, 2));
  std::vector<std::byte> before(map, map + 128);
  for (uint32_t v : {0u, 257u}) {
    auto r = d.launch("bad_box", d.config("bad_box", {1, 1, 1}, {32, 1, 1}, reinterpret_cast<uint64_t>(map), v), {});
    EXPECT_EQ(r.status, Status::IllegalInstruction);
    EXPECT_NE(msg(r).find("tensormap.replace.tile.box_dim: box_dim[1] = " + std::to_string(v) + " is not 1..256"),
              std::string::npos)
        << msg(r);
  }
  auto r = d.launch("packed_type", d.config("packed_type", {1, 1, 1}, {32, 1, 1}, reinterpret_cast<uint64_t>(map)), {});
  EXPECT_EQ(r.status, Status::IllegalInstruction);
  EXPECT_NE(msg(r).find("elemtype 13 (packed sub-byte values, sm_100a) (not implemented by softgpu)"), std::string::npos)
      << msg(r);
  EXPECT_EQ(std::memcmp(map, before.data(), 128), 0) << "a rejected value changed the map";
}

TEST(TensormapReplaceField, RangesAsTheIsaGivesThem) {
  alignas(64) std::byte map[128];
  ASSERT_FALSE(encode(map, 0x10000, 64, 16, 256, 8, 2));
  struct Bad {
    TmField f;
    uint32_t ord;
    uint64_t v;
    const char* why;
  };
  const Bad bad[] = {
      {TmField::GlobalAddress, 0, 0x10008, "global_address 0x10008 is not 16-byte aligned"},
      {TmField::Rank, 0, 5, "rank 5 is not 0..4"},
      {TmField::BoxDim, 5, 8, "ordinal 5 is not 0..4"},
      {TmField::GlobalDim, 0, 0, "global_dim[0] = 0 is not 1..2^32"},
      {TmField::GlobalStride, 4, 256, "ordinal 4 is not 0..3"},
      {TmField::GlobalStride, 0, 264, "global_stride[0] = 264 is not a multiple of 16"},
      {TmField::GlobalStride, 0, 1ull << 40, "below 2^40"},
      {TmField::ElementStride, 1, 9, "element_stride[1] = 9 is not 1..8"},
      {TmField::ElemType, 0, 16, "elemtype 16 is not 0..15"},
      {TmField::Interleave, 0, 3, "interleave_layout 3 is not 0..2"},
      {TmField::SwizzleMode, 0, 5, "swizzle_mode 5 is not 0..4"},
      {TmField::FillMode, 0, 2, "fill_mode 2 is not 0..1"},
  };
  for (const Bad& b : bad) {
    bool unsupported = true;
    auto e = exec::replace_field(map, b.f, b.ord, b.v, &unsupported);
    ASSERT_TRUE(e) << "accepted: " << b.why;
    EXPECT_NE(e->find(b.why), std::string::npos) << *e;
    EXPECT_FALSE(unsupported) << *e;
  }
  for (auto [f, v] : {std::pair{TmField::SwizzleMode, 4u}, {TmField::SwizzleAtomicity, 1u}, {TmField::ElemType, 15u}}) {
    bool unsupported = false;
    EXPECT_TRUE(exec::replace_field(map, f, 0, v, &unsupported));
    EXPECT_TRUE(unsupported);
  }
  // Valid edges: dimensions beyond the rank (CUTLASS writes all five), 2^32.
  EXPECT_FALSE(exec::replace_field(map, TmField::GlobalDim, 4, 1));
  EXPECT_FALSE(exec::replace_field(map, TmField::GlobalStride, 3, 0));
  EXPECT_FALSE(exec::replace_field(map, TmField::GlobalDim, 1, 1ull << 32));
  auto m = exec::decode_tensor_map(map);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->dims[1], 1ull << 32);
  EXPECT_EQ(m->rank, 2u);

  // Not a map: neither encoded nor zero.
  std::memset(map, 0x5a, sizeof map);
  auto e = exec::replace_field(map, TmField::Rank, 0, 1);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("not a tensor map"), std::string::npos) << *e;
}

TEST(TensormapReplaceField, AMapBuiltFromZeroBytesEqualsTheEncodedOne) {
  alignas(64) std::byte built[128] = {}, encoded[128];
  ASSERT_FALSE(encode(encoded, 0x20000, 100, 70, 448, 32, 16));
  std::string why;
  EXPECT_FALSE(exec::decode_tensor_map(built, &why));
  EXPECT_NE(why.find("not made by cuTensorMapEncodeTiled"), std::string::npos) << why;
  const std::tuple<TmField, uint32_t, uint64_t> steps[] = {
      {TmField::GlobalAddress, 0, 0x20000}, {TmField::Rank, 0, 1},       {TmField::BoxDim, 0, 32},
      {TmField::BoxDim, 1, 16},             {TmField::GlobalDim, 0, 100}, {TmField::GlobalDim, 1, 70},
      {TmField::ElementStride, 0, 1},       {TmField::ElementStride, 1, 1}, {TmField::GlobalStride, 0, 448},
      {TmField::ElemType, 0, 7},            {TmField::Interleave, 0, 0},  {TmField::SwizzleMode, 0, 0},
      {TmField::FillMode, 0, 0}};
  for (size_t i = 0; i < std::size(steps); ++i) {
    auto [f, ord, v] = steps[i];
    ASSERT_FALSE(exec::replace_field(built, f, ord, v)) << "step " << i;
    if (i == 2) {  // rank 2 with dimension 1's box still 0
      EXPECT_FALSE(exec::decode_tensor_map(built, &why));
      EXPECT_NE(why.find("box_dim[1] = 0 is not 1..256"), std::string::npos) << why;
    }
  }
  auto a = exec::decode_tensor_map(built, &why), b = exec::decode_tensor_map(encoded);
  ASSERT_TRUE(a) << why;
  ASSERT_TRUE(b);
  EXPECT_EQ(a->type, b->type);
  EXPECT_EQ(a->rank, b->rank);
  EXPECT_EQ(a->global_address, b->global_address);
  EXPECT_EQ(a->dims, b->dims);
  EXPECT_EQ(a->strides, b->strides);
  EXPECT_EQ(a->box, b->box);
  EXPECT_EQ(a->elem_strides, b->elem_strides);
  EXPECT_EQ(a->swizzle, b->swizzle);
  EXPECT_EQ(a->oob_nan, b->oob_nan);
}

}  // namespace
