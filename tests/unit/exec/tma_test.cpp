// TMA (cp.async.bulk.tensor and friends, exec/ops_tma.cpp) on tensor maps
// from exec::encode_tiled, run from PTX through the whole front end, against
// a CPU model of the box written here from the CUDA driver's and the PTX
// ISA's descriptions: box elements at coordinates c + i * elementStride,
// dimension 0 innermost and dense in shared memory, out-of-bounds elements
// zero (or NaN) on loads and skipped on stores, the swizzle moving 16-byte
// chunks within 128-byte rows of the shared address.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "../../timing/ptx_device.h"
#include "exec/tensor_map.h"

using namespace softgpu;
using exec::TmSwizzle;

namespace {

const char* kPtx = R"(
.version 8.0
.target sm_90
.address_size 64

// Fills the tile with 0xab, thread 0 loads the box and records whether the
// mbarrier's phase completed (the expected bytes arrived), then the tile is
// copied out after a 16-byte header holding the flag.
.visible .entry load3d(.param .u64 p_map, .param .u32 p_c0, .param .u32 p_c1, .param .u32 p_c2,
                       .param .u64 p_out, .param .u32 p_bytes)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 1024 .b8 tile[16384];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [p_map];
  ld.param.u32 %r1, [p_c0];
  ld.param.u32 %r2, [p_c1];
  ld.param.u32 %r3, [p_c2];
  ld.param.u64 %rd2, [p_out];
  ld.param.u32 %r4, [p_bytes];
  mov.u32 %r5, bar;
  mov.u32 %r6, tile;
  mov.u32 %r7, %tid.x;
  shl.b32 %r9, %r7, 2;
FILL:
  setp.ge.u32 %p3, %r9, 16384;
  @%p3 bra FILLED;
  add.u32 %r10, %r6, %r9;
  st.shared.u32 [%r10], 0xabababab;
  add.u32 %r9, %r9, 128;
  bra FILL;
FILLED:
  bar.sync 0;
  setp.ne.u32 %p1, %r7, 0;
  @%p1 bra COPY;
  mbarrier.init.shared::cta.b64 [%r5], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [%r5], %r4;
  cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r6], [%rd1, {%r1, %r2, %r3}], [%r5];
  mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r5], 0;
  selp.u32 %r8, 1, 0, %p2;
  st.global.u32 [%rd2], %r8;
COPY:
  bar.sync 0;
  shl.b32 %r9, %r7, 2;
LOOP:
  setp.ge.u32 %p3, %r9, 16384;
  @%p3 bra DONE;
  add.u32 %r10, %r6, %r9;
  ld.shared.u32 %r11, [%r10];
  cvt.u64.u32 %rd4, %r9;
  add.u64 %rd5, %rd2, %rd4;
  st.global.u32 [%rd5+16], %r11;
  add.u32 %r9, %r9, 128;
  bra LOOP;
DONE:
  ret;
}

// The tile from `in`, then thread 0 stores (or adds) the box.
.visible .entry store3d(.param .u64 p_map, .param .u32 p_c0, .param .u32 p_c1, .param .u32 p_c2,
                        .param .u64 p_in, .param .u32 p_reduce)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 1024 .b8 tile[16384];
  ld.param.u64 %rd1, [p_map];
  ld.param.u32 %r1, [p_c0];
  ld.param.u32 %r2, [p_c1];
  ld.param.u32 %r3, [p_c2];
  ld.param.u64 %rd2, [p_in];
  ld.param.u32 %r4, [p_reduce];
  mov.u32 %r6, tile;
  mov.u32 %r7, %tid.x;
  shl.b32 %r9, %r7, 2;
LOOP:
  setp.ge.u32 %p3, %r9, 16384;
  @%p3 bra LOADED;
  cvt.u64.u32 %rd4, %r9;
  add.u64 %rd5, %rd2, %rd4;
  ld.global.u32 %r11, [%rd5];
  add.u32 %r10, %r6, %r9;
  st.shared.u32 [%r10], %r11;
  add.u32 %r9, %r9, 128;
  bra LOOP;
LOADED:
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.ne.u32 %p1, %r7, 0;
  @%p1 bra DONE;
  setp.ne.u32 %p2, %r4, 0;
  @%p2 bra RED;
  cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%rd1, {%r1, %r2, %r3}], [%r6];
  bra COMMIT;
RED:
  cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group [%rd1, {%r1, %r2, %r3}], [%r6];
COMMIT:
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
DONE:
  ret;
}

// A cluster of two CTAs: each sets up its mbarrier, then CTA rank 0
// multicasts one 2-D box to both; each copies its tile out (16 KiB apart).
.visible .entry multicast2d(.param .u64 p_map, .param .u32 p_c0, .param .u32 p_c1,
                            .param .u64 p_out, .param .u32 p_bytes)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .reg .b16 %h<2>;
  .shared .align 1024 .b8 tile[16384];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [p_map];
  ld.param.u32 %r1, [p_c0];
  ld.param.u32 %r2, [p_c1];
  ld.param.u64 %rd2, [p_out];
  ld.param.u32 %r4, [p_bytes];
  mov.u32 %r5, bar;
  mov.u32 %r6, tile;
  mov.u32 %r7, %tid.x;
  mov.u32 %r12, %cluster_ctarank;
  setp.ne.u32 %p1, %r7, 0;
  @%p1 bra SYNC;
  mbarrier.init.shared::cta.b64 [%r5], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [%r5], %r4;
SYNC:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  or.b32 %r13, %r7, %r12;
  setp.ne.u32 %p1, %r13, 0;
  @%p1 bra WAIT;
  mov.b16 %h1, 3;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r6], [%rd1, {%r1, %r2}], [%r5], %h1;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r5], 0;
  @!%p2 bra WAIT;
  shl.b32 %r9, %r7, 2;
  mul.wide.u32 %rd6, %r12, 16384;
  add.u64 %rd2, %rd2, %rd6;
LOOP:
  setp.ge.u32 %p3, %r9, 16384;
  @%p3 bra DONE;
  add.u32 %r10, %r6, %r9;
  ld.shared.u32 %r11, [%r10];
  cvt.u64.u32 %rd4, %r9;
  add.u64 %rd5, %rd2, %rd4;
  st.global.u32 [%rd5], %r11;
  add.u32 %r9, %r9, 128;
  bra LOOP;
DONE:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";

std::string msg(const exec::LaunchResult& r) { return r.fault ? r.fault->message : r.error; }

// A tensor in device memory with a CPU copy, and the map's parameters.
struct Tensor {
  uint32_t rank = 3, esize = 4, dtype = 7;  // CU_TENSOR_MAP_DATA_TYPE_FLOAT32
  uint64_t dims[3] = {1, 1, 1};
  uint64_t strides[3] = {4, 0, 0};  // bytes; strides[0] = element size
  uint32_t box[3] = {1, 1, 1}, estr[3] = {1, 1, 1};
  TmSwizzle swizzle = TmSwizzle::None;
  uint32_t oob_fill = 0;
  uint32_t interleave = 0;  // CU_TENSOR_MAP_INTERLEAVE_NONE / 16B / 32B
  std::vector<std::byte> host;
  std::byte* dev = nullptr;
  std::byte* map = nullptr;  // 128 bytes of device memory, 64-byte aligned

  uint64_t bytes() const { return strides[rank - 1] * dims[rank - 1]; }
  uint32_t n(uint32_t i) const { return (box[i] + estr[i] - 1) / estr[i]; }
  // A row of the box in shared memory: its elements, padded to the
  // interleave slice (16 or 32 bytes).
  uint64_t row_bytes() const {
    const uint64_t slice = interleave == 2 ? 32 : interleave == 1 ? 16 : 1;
    return (uint64_t(esize) * n(0) + slice - 1) / slice * slice;
  }
  uint64_t box_bytes() const { return row_bytes() * n(1) * n(2); }
  std::optional<std::string> encode() {
    exec::TiledEncodeArgs a;
    a.data_type = dtype;
    a.rank = rank;
    a.global_address = reinterpret_cast<uint64_t>(dev);
    a.global_dim = dims;
    a.global_strides = strides + 1;
    a.box_dim = box;
    a.element_strides = estr;
    a.swizzle = uint32_t(swizzle);
    a.oob_fill = oob_fill;
    a.interleave = interleave;
    return exec::encode_tiled(a, map);
  }
};

// The shared byte a box byte lands on: 16-byte chunk c of 128-byte row r
// becomes chunk c ^ (r mod chunks-per-span), within its span.
uint64_t swizzle_ref(TmSwizzle s, uint64_t off) {
  const uint64_t span = s == TmSwizzle::B32 ? 32 : s == TmSwizzle::B64 ? 64 : s == TmSwizzle::B128 ? 128 : 0;
  if (!span) return off;
  const uint64_t row = off / 128, chunk = off % 128 / 16;
  const uint64_t k = span / 16;
  const uint64_t c2 = (chunk & ~(k - 1)) | ((chunk ^ row) & (k - 1));
  return row * 128 + c2 * 16 + off % 16;
}

// The box's expected shared image (before swizzle): element bytes or fill.
std::vector<std::byte> box_ref(const Tensor& t, const int64_t c[3], std::byte fill_byte, bool nan) {
  std::vector<std::byte> out(t.box_bytes());  // an interleaved row's padding stays zero
  for (uint32_t b2 = 0; b2 < t.n(2); ++b2)
    for (uint32_t b1 = 0; b1 < t.n(1); ++b1)
      for (uint32_t b0 = 0; b0 < t.n(0); ++b0) {
        const size_t o = (b2 * t.n(1) + b1) * t.row_bytes() + b0 * t.esize;
        const int64_t g[3] = {c[0] + int64_t(b0) * t.estr[0], c[1] + int64_t(b1) * t.estr[1],
                              c[2] + int64_t(b2) * t.estr[2]};
        bool in = true;
        for (int d = 0; d < 3; ++d) in = in && g[d] >= 0 && g[d] < int64_t(t.dims[d]);
        if (in) {
          std::memcpy(&out[o], &t.host[g[0] * t.strides[0] + g[1] * t.strides[1] + g[2] * t.strides[2]], t.esize);
        } else if (nan) {
          const uint64_t q = t.esize == 2 ? 0x7fff : 0x7fffffff;
          std::memcpy(&out[o], &q, t.esize);
        } else {
          std::memset(&out[o], int(fill_byte), t.esize);
        }
      }
  return out;
}

struct Tma : ::testing::Test {
  test::PtxDevice d{kPtx, "tma.ptx", 1ull << 28};

  void make(Tensor& t) {
    t.dev = d.alloc<std::byte>(t.bytes());
    t.map = d.alloc<std::byte>(256);
    t.host.resize(t.bytes());
    for (size_t i = 0; i < t.host.size(); ++i) t.host[i] = std::byte(uint8_t(i * 7 + 3));
    std::memcpy(t.dev, t.host.data(), t.host.size());
    auto err = t.encode();
    ASSERT_FALSE(err) << *err;
  }
  // Runs load3d at c; returns the tile (16 KiB) and the flag.
  std::vector<std::byte> load(Tensor& t, const int64_t c[3], uint32_t* flag) {
    auto* out = d.alloc<std::byte>(16 + 16384);
    const auto cfg = d.config("load3d", {1, 1, 1}, {32, 1, 1}, reinterpret_cast<uint64_t>(t.map), uint32_t(c[0]),
                              uint32_t(c[1]), uint32_t(c[2]), reinterpret_cast<uint64_t>(out), uint32_t(t.box_bytes()));
    auto r = d.launch("load3d", cfg, {});
    EXPECT_EQ(r.status, Status::Success) << msg(r);
    std::memcpy(flag, out, 4);
    return {out + 16, out + 16 + 16384};
  }
  void check_load(Tensor& t, const int64_t c[3]) {
    uint32_t flag = 0;
    auto tile = load(t, c, &flag);
    EXPECT_EQ(flag, 1u) << "the mbarrier phase did not complete with the box's bytes";
    auto want = box_ref(t, c, std::byte{0}, t.oob_fill != 0);
    for (uint64_t o = 0; o < want.size(); ++o)
      ASSERT_EQ(tile[swizzle_ref(t.swizzle, o)], want[o]) << "box byte " << o;
    for (uint64_t o = want.size(); o < 16384; ++o) ASSERT_EQ(tile[o], std::byte{0xab}) << "past the box at " << o;
  }
};

TEST_F(Tma, Load2dTileWithOutOfBoundsZeros) {
  Tensor t;  // 37 x 29 floats, rows padded to 160 bytes
  t.dims[0] = 37, t.dims[1] = 29;
  t.strides[1] = 160, t.strides[2] = 160 * 29;
  t.box[0] = 8, t.box[1] = 6;
  make(t);
  for (auto c : {std::array<int64_t, 3>{0, 0, 0}, {33, 26, 0}, {-2, -3, 0}, {12, 5, 0}, {40, 0, 0}}) {
    SCOPED_TRACE(testing::Message() << "coords " << c[0] << "," << c[1]);
    check_load(t, c.data());
  }
}

TEST_F(Tma, Load3dElementStridesAndNanFill) {
  Tensor t;  // 16 x 10 x 7 floats, every other row and every third plane
  t.dims[0] = 16, t.dims[1] = 10, t.dims[2] = 7;
  t.strides[1] = 64, t.strides[2] = 640;
  t.box[0] = 12, t.box[1] = 8, t.box[2] = 6;
  t.estr[1] = 2, t.estr[2] = 3;
  t.oob_fill = 1;
  make(t);
  const int64_t c[3] = {8, 3, 2};
  check_load(t, c);
}

TEST_F(Tma, LoadSwizzledTiles) {
  for (auto sw : {TmSwizzle::B32, TmSwizzle::B64, TmSwizzle::B128}) {
    Tensor t;  // f16 rows of 256 halves; the box's rows are one swizzle span wide
    t.dtype = 6, t.esize = 2;
    const uint32_t span = sw == TmSwizzle::B32 ? 32 : sw == TmSwizzle::B64 ? 64 : 128;
    t.dims[0] = 256, t.dims[1] = 70;
    t.strides[0] = 2, t.strides[1] = 512, t.strides[2] = 512 * 70;
    t.box[0] = span / 2, t.box[1] = 64;
    t.swizzle = sw;
    make(t);
    SCOPED_TRACE(testing::Message() << "swizzle " << span << "B");
    const int64_t c[3] = {64, 20, 0};
    check_load(t, c);
  }
}

TEST_F(Tma, StoreSkipsOutOfBoundsAndReduceAdds) {
  Tensor t;  // 20 x 9 floats; box 8 x 4 at (16, 7): 4 x 2 elements inside
  t.dims[0] = 20, t.dims[1] = 9;
  t.strides[1] = 80, t.strides[2] = 720;
  t.box[0] = 8, t.box[1] = 4;
  make(t);
  std::vector<float> tile(4096);
  for (size_t i = 0; i < tile.size(); ++i) tile[i] = float(i) * 0.5f - 3;
  auto* in = d.alloc<float>(4096);
  std::memcpy(in, tile.data(), tile.size() * 4);
  std::vector<float> before(180);
  std::memcpy(before.data(), t.dev, 720);
  for (uint32_t reduce : {0u, 1u}) {
    const auto cfg = d.config("store3d", {1, 1, 1}, {32, 1, 1}, reinterpret_cast<uint64_t>(t.map), uint32_t(16),
                              uint32_t(7), uint32_t(0), reinterpret_cast<uint64_t>(in), reduce);
    auto r = d.launch("store3d", cfg, {});
    ASSERT_EQ(r.status, Status::Success) << msg(r);
    const float* g = reinterpret_cast<const float*>(t.dev);
    for (int y = 0; y < 9; ++y)
      for (int x = 0; x < 20; ++x) {
        const bool in_box = x >= 16 && y >= 7;
        const float v = in_box ? tile[(y - 7) * 8 + (x - 16)] : 0;
        const float want = in_box ? (reduce ? v + v : v) : before[y * 20 + x];
        ASSERT_EQ(g[y * 20 + x], want) << (reduce ? "reduce" : "store") << " at " << x << "," << y;
      }
  }
}

TEST_F(Tma, MulticastLoadsBothCtasOfTheCluster) {
  Tensor t;
  t.rank = 2;
  t.dims[0] = 64, t.dims[1] = 64;
  t.strides[1] = 256;
  t.box[0] = 32, t.box[1] = 16;
  make(t);
  auto* out = d.alloc<std::byte>(2 * 16384);
  auto cfg = d.config("multicast2d", {2, 1, 1}, {32, 1, 1}, reinterpret_cast<uint64_t>(t.map), uint32_t(8),
                      uint32_t(40), reinterpret_cast<uint64_t>(out), uint32_t(t.box_bytes()));
  cfg.cluster = {2, 1, 1};
  cfg.explicit_cluster = true;
  auto r = d.launch("multicast2d", cfg, {});
  ASSERT_EQ(r.status, Status::Success) << msg(r);
  t.dims[2] = 1;
  const int64_t c[3] = {8, 40, 0};
  auto want = box_ref(t, c, std::byte{0}, false);
  for (int rank = 0; rank < 2; ++rank)
    for (uint64_t o = 0; o < want.size(); ++o) ASSERT_EQ(out[rank * 16384 + o], want[o]) << "CTA " << rank << " byte " << o;
}

// Interleaved layouts: NC/8HWC8 (f16, 16-byte slices) with full and partial
// slices and a traversal stride along the channels, NC/16HWC16-like f32
// 32-byte slices with the 32-byte swizzle they require, and NaN fill of a
// partial slice whose padding stays zero.
TEST_F(Tma, LoadInterleavedLayouts) {
  struct Case {
    const char* what;
    uint32_t interleave, dtype, esize, c8, box0, estr0;
    TmSwizzle sw;
    uint32_t nan;
  };
  for (const Case& k : {Case{"16B, full f16 slices", 1, 6, 2, 8, 8, 1, TmSwizzle::None, 0},
                        Case{"16B, 6 of 8 channels", 1, 6, 2, 6, 6, 1, TmSwizzle::None, 0},
                        Case{"16B, every other channel", 1, 6, 2, 8, 8, 2, TmSwizzle::None, 0},
                        Case{"16B, 128B swizzle", 1, 6, 2, 8, 8, 1, TmSwizzle::B128, 0},
                        Case{"32B, f32 slices, 32B swizzle", 2, 7, 4, 8, 8, 1, TmSwizzle::B32, 0},
                        Case{"32B, 5 channels with NaN fill", 2, 7, 4, 5, 6, 1, TmSwizzle::B32, 1}}) {
    SCOPED_TRACE(k.what);
    Tensor t;  // slice x W x (H * C/slice); each pixel's slice 16 or 32 bytes apart
    t.dtype = k.dtype, t.esize = k.esize, t.interleave = k.interleave, t.swizzle = k.sw, t.oob_fill = k.nan;
    const uint32_t slice = k.interleave == 2 ? 32 : 16;
    t.dims[0] = k.c8, t.dims[1] = 13, t.dims[2] = 6;
    t.strides[0] = k.esize, t.strides[1] = slice, t.strides[2] = slice * 13;
    t.box[0] = k.box0, t.box[1] = 8, t.box[2] = 3;
    t.estr[0] = k.estr0;
    make(t);
    for (auto c : {std::array<int64_t, 3>{0, 0, 0}, {0, 9, 4}, {0, -3, -1}}) {
      SCOPED_TRACE(testing::Message() << "coords " << c[1] << "," << c[2]);
      check_load(t, c.data());
    }
  }
}

TEST_F(Tma, StoreInterleavedSkipsThePadding) {
  Tensor t;  // 6 f32 channels in 32-byte slices x 5 pixels x 2 rows; box 6 x 4 x 2 at (0, 2, 0)
  t.interleave = 2, t.swizzle = TmSwizzle::B32;
  t.dims[0] = 6, t.dims[1] = 5, t.dims[2] = 2;
  t.strides[1] = 32, t.strides[2] = 160;
  t.box[0] = 6, t.box[1] = 4, t.box[2] = 2;
  make(t);
  std::vector<float> tile(4096);  // the shared image, swizzled as the map says
  for (size_t i = 0; i < tile.size(); ++i) tile[i] = float(i) + 0.25f;
  auto* in = d.alloc<float>(4096);
  std::memcpy(in, tile.data(), tile.size() * 4);
  std::vector<std::byte> before(t.host);
  const auto cfg = d.config("store3d", {1, 1, 1}, {32, 1, 1}, reinterpret_cast<uint64_t>(t.map), 0u, 2u, 0u,
                            reinterpret_cast<uint64_t>(in), 0u);
  auto r = d.launch("store3d", cfg, {});
  ASSERT_EQ(r.status, Status::Success) << msg(r);
  for (uint32_t z = 0; z < 2; ++z)
    for (uint32_t x = 0; x < 5; ++x)
      for (uint32_t ch = 0; ch < 8; ++ch) {  // the slice's 8 floats: 6 channels, 2 padding
        const uint64_t g = z * 160 + x * 32 + ch * 4;
        float got, want;
        std::memcpy(&got, t.dev + g, 4);
        if (x >= 2 && ch < 6) {  // in the box: row (z, x - 2), shared byte swizzled
          const uint64_t box_off = ((z * 4) + (x - 2)) * 32 + ch * 4;
          std::memcpy(&want, reinterpret_cast<const std::byte*>(tile.data()) + swizzle_ref(TmSwizzle::B32, box_off), 4);
        } else {
          std::memcpy(&want, before.data() + g, 4);
        }
        ASSERT_EQ(std::memcmp(&got, &want, 4), 0) << "pixel " << x << " row " << z << " channel " << ch;
      }
}

TEST_F(Tma, BadMapsAndCoordinatesFaultTheLaunch) {
  Tensor t;
  t.dims[0] = 16, t.dims[1] = 4;
  t.strides[1] = 64, t.strides[2] = 256;
  t.box[0] = 4, t.box[1] = 2;
  make(t);
  std::memset(t.map, 0x5a, 128);  // not a tensor map
  uint32_t flag = 0;
  auto* out = d.alloc<std::byte>(16 + 16384);
  const auto cfg = d.config("load3d", {1, 1, 1}, {32, 1, 1}, reinterpret_cast<uint64_t>(t.map), 0u, 0u, 0u,
                            reinterpret_cast<uint64_t>(out), uint32_t(t.box_bytes()));
  auto r = d.launch("load3d", cfg, {});
  EXPECT_EQ(r.status, Status::IllegalInstruction);
  EXPECT_NE(msg(r).find("not made by cuTensorMapEncodeTiled"), std::string::npos) << msg(r);
  (void)flag;
  t.rank = 2;  // a rank-2 map used with three coordinates
  ASSERT_FALSE(t.encode());
  r = d.launch("load3d", cfg, {});
  EXPECT_EQ(r.status, Status::IllegalInstruction);
  EXPECT_NE(msg(r).find("3 tensor coordinates for a tensor map of rank 2"), std::string::npos) << msg(r);
}

TEST(TensorMapEncode, RejectsWhatTheDriverDocumentsAsInvalid) {
  alignas(64) std::byte map[128];
  uint64_t dims[2] = {64, 64}, strides[1] = {256};
  uint32_t box[2] = {32, 16}, es[2] = {1, 1};
  auto args = [&] {
    exec::TiledEncodeArgs a;
    a.data_type = 7;
    a.rank = 2;
    a.global_address = 0x10000;
    a.global_dim = dims;
    a.global_strides = strides;
    a.box_dim = box;
    a.element_strides = es;
    return a;
  };
  EXPECT_FALSE(exec::encode_tiled(args(), map));
  auto m = exec::decode_tensor_map(map);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->box_bytes(), 32u * 16 * 4);
  EXPECT_EQ(m->strides[1], 256u);
  auto bad = [&](auto change, const char* what) {
    auto a = args();
    change(a);
    auto e = exec::encode_tiled(a, map);
    ASSERT_TRUE(e) << "accepted: " << what;
    EXPECT_NE(e->find(what), std::string::npos) << *e;
  };
  bad([](auto& a) { a.rank = 6; }, "tensorRank 6");
  bad([](auto& a) { a.global_address = 0x10008; }, "not 16-byte aligned");
  bad([&](auto& a) { static uint64_t s[1] = {250}; a.global_strides = s; }, "globalStrides[0] = 250");
  bad([&](auto& a) { static uint32_t b[2] = {300, 1}; a.box_dim = b; }, "boxDim[0] = 300");
  bad([&](auto& a) { static uint32_t b[2] = {3, 1}; a.box_dim = b; }, "not a multiple of 16");
  bad([&](auto& a) { static uint32_t e2[2] = {1, 9}; a.element_strides = e2; }, "elementStrides[1] = 9");
  bad([](auto& a) { a.swizzle = 1; }, "exceeds the 32-byte swizzle span");  // 32 floats = 128 bytes
  bad([](auto& a) { a.data_type = 3, a.oob_fill = 1; }, "floating-point");
  bad([](auto& a) { a.data_type = 20; }, "not a CUtensorMapDataType");
  bool unsupported = false;
  auto a = args();
  a.rank = 3;
  uint64_t d3[3] = {64, 64, 4}, s3[2] = {256, 256 * 64};
  uint32_t b3[3] = {32, 16, 1}, e3[3] = {1, 1, 1};
  a.global_dim = d3, a.global_strides = s3, a.box_dim = b3, a.element_strides = e3;
  a.interleave = 1;  // interleaved: the box's inner dimension need not be whole 16-byte chunks
  uint32_t b3i[3] = {6, 16, 1};
  a.box_dim = b3i;
  EXPECT_FALSE(exec::encode_tiled(a, map, &unsupported));
  EXPECT_FALSE(unsupported);
  a.interleave = 2;  // 32-byte slices need the 32-byte swizzle and 32-byte strides
  auto e = exec::encode_tiled(a, map);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("interleave 32B needs swizzle 32B"), std::string::npos) << *e;
  a.swizzle = 1;
  uint64_t s3b[2] = {272, 272 * 64};
  a.global_strides = s3b;
  e = exec::encode_tiled(a, map);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("not a multiple of 32"), std::string::npos) << *e;
  a.interleave = 0, a.swizzle = 4;  // the 128B-atom swizzles (sm_100): valid, not implemented
  a.box_dim = b3, a.global_strides = s3;
  EXPECT_TRUE(exec::encode_tiled(a, map, &unsupported));
  EXPECT_TRUE(unsupported);
  a.swizzle = 0, a.interleave = 1, a.rank = 2;
  e = exec::encode_tiled(a, map);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("needs tensorRank >= 3"), std::string::npos) << *e;
  EXPECT_FALSE(exec::decode_tensor_map(reinterpret_cast<const std::byte*>("not a tensor map, not a tensor map, "
                                                                            "not a tensor map, not a tensor map, "
                                                                            "not a tensor map, not a tensor map, "
                                                                            "not a tensor m")));
}

}  // namespace
