// TMA's im2col loads (cp.async.bulk.tensor ... .im2col, exec/ops_tma.cpp) on
// maps from exec::encode_im2col, from PTX through the whole front end.
// References: the worked examples of Triton's TMA im2col tutorial (a 4x4
// image, values 1..16: the padded window and the batch wrap, checked on
// Hopper there), and for the rest a CPU model written here from the PTX
// ISA's description: the pixel box of every image, per spatial dimension
// [lower + offset, extent + upper + offset) walked with the traversal
// strides, W fastest, then H, D, N; the load takes pixelsPerColumn pixels
// from the instruction's start pixel (coordinates + offsets) on, each
// channelsPerPixel channels from the start channel, zero (or NaN) outside
// the tensor.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "../../timing/ptx_device.h"
#include "exec/tensor_map.h"

using namespace softgpu;

namespace {

// One kernel per rank: thread 0 loads at args[0..rank) with offsets
// args[5..5+rank-2) into a tile filled with 0xab, records the mbarrier's
// completion, then the tile is copied out after a 16-byte header. `tile` =
// also a .tile load on the same map (a mismatch that must fault).
std::string kernels() {
  std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n";
  for (int rank = 3; rank <= 5; ++rank) {
    std::string coords, offs, loads;
    for (int i = 0; i < rank; ++i) {
      loads += fmt::format("  ld.global.u32 %c{}, [%rd3+{}];\n", i, 4 * i);
      coords += fmt::format("{}%c{}", i ? ", " : "", i);
    }
    for (int i = 0; i < rank - 2; ++i) {
      loads += fmt::format("  ld.global.u16 %o{}, [%rd3+{}];\n", i, 20 + 4 * i);
      offs += fmt::format("{}%o{}", i ? ", " : "", i);
    }
    ptx += fmt::format(R"(
.visible .entry im2col{0}d(.param .u64 p_map, .param .u64 p_args, .param .u64 p_out, .param .u32 p_bytes, .param .u32 p_tile)
{{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b32 %c<5>;
  .reg .b16 %o<3>;
  .reg .b64 %rd<8>;
  .shared .align 1024 .b8 tile[16384];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [p_map];
  ld.param.u64 %rd3, [p_args];
  ld.param.u64 %rd2, [p_out];
  ld.param.u32 %r4, [p_bytes];
  ld.param.u32 %r12, [p_tile];
{1}  mov.u32 %r5, bar;
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
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [%r5], %r4;
  setp.ne.u32 %p2, %r12, 0;
  @%p2 bra TILE;
  cp.async.bulk.tensor.{0}d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r6], [%rd1, {{{2}}}], [%r5], {{{3}}};
  bra LOADED;
TILE:
  cp.async.bulk.tensor.{0}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r6], [%rd1, {{{2}}}], [%r5];
LOADED:
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
  cvt.u64.u32 %rd5, %r9;
  add.u64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6+16], %r11;
  add.u32 %r9, %r9, 128;
  bra LOOP;
DONE:
  ret;
}}
)", rank, loads, coords, offs);
  }
  return ptx;
}

std::string msg(const exec::LaunchResult& r) { return r.fault ? r.fault->message : r.error; }

// A float tensor (channels innermost), its map's parameters and a CPU copy.
struct Tensor {
  uint32_t rank = 4;
  uint64_t dims[5] = {1, 1, 1, 1, 1};  // C, W, (H, (D,)) N
  int32_t lower[3] = {0, 0, 0}, upper[3] = {0, 0, 0};
  uint32_t estr[5] = {1, 1, 1, 1, 1};
  uint32_t channels = 4, pixels = 4;
  uint32_t swizzle = 0, oob_fill = 0;
  std::vector<float> host;
  float* dev = nullptr;
  std::byte* map = nullptr;

  uint64_t stride(uint32_t d) const {  // bytes, dense
    uint64_t s = 4;
    for (uint32_t i = 0; i < d; ++i) s *= dims[i];
    return s;
  }
  uint64_t count() const { return stride(rank) / 4; }
  uint64_t box_bytes() const { return uint64_t(channels) * pixels * 4; }
  std::optional<std::string> encode(bool* unsupported = nullptr) const {
    uint64_t strides[4];
    for (uint32_t i = 1; i < rank; ++i) strides[i - 1] = stride(i);
    exec::Im2colEncodeArgs a;
    a.base.data_type = 7;  // FLOAT32
    a.base.rank = rank;
    a.base.global_address = reinterpret_cast<uint64_t>(dev);
    a.base.global_dim = dims;
    a.base.global_strides = strides;
    a.base.element_strides = estr;
    a.base.swizzle = swizzle;
    a.base.oob_fill = oob_fill;
    a.lower_corner = lower;
    a.upper_corner = upper;
    a.channels_per_pixel = channels;
    a.pixels_per_column = pixels;
    return exec::encode_im2col(a, map, unsupported);
  }
};

// The reference: every pixel of the box in walk order (n, then D, H, W,
// innermost last), the start pixel looked up among them, the next `pixels`
// taken (past the last image: outside the tensor).
std::vector<float> reference(const Tensor& t, const int32_t c[5], const int32_t off[3], bool* found) {
  const uint32_t sp = t.rank - 2;
  std::vector<std::array<int64_t, 4>> walk;  // {w, h, d, n}
  int64_t lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  for (uint32_t s = 0; s < sp; ++s) lo[s] = t.lower[s] + off[s], hi[s] = int64_t(t.dims[s + 1]) + t.upper[s] + off[s];
  const int64_t nimg = int64_t(t.dims[t.rank - 1]) + 2;  // two past the last image
  for (int64_t n = 0; n < nimg; ++n)
    for (int64_t d = lo[2]; d < hi[2]; d += sp > 2 ? t.estr[3] : 1)
      for (int64_t h = lo[1]; h < hi[1]; h += sp > 1 ? t.estr[2] : 1)
        for (int64_t w = lo[0]; w < hi[0]; w += t.estr[1]) walk.push_back({w, h, d, n});
  std::array<int64_t, 4> start = {c[1] + off[0], sp > 1 ? c[2] + off[1] : lo[1], sp > 2 ? c[3] + off[2] : lo[2],
                                  c[t.rank - 1]};
  size_t at = 0;
  *found = false;
  for (; at < walk.size(); ++at)
    if (walk[at] == start) {
      *found = true;
      break;
    }
  std::vector<float> out;
  const float fill = t.oob_fill ? std::numeric_limits<float>::quiet_NaN() : 0.0f;
  for (uint32_t p = 0; p < t.pixels; ++p) {
    const auto& q = walk.at(at + p);
    for (uint32_t i = 0; i < t.channels; ++i) {
      const int64_t ch = c[0] + int64_t(i);
      const int64_t x[5] = {ch, q[0], q[1], q[2], q[3]};
      int64_t pos[5] = {x[0], x[1], 0, 0, 0};
      pos[t.rank - 1] = q[3];
      for (uint32_t s = 1; s < sp; ++s) pos[s + 1] = x[s + 1];
      bool in = true;
      uint64_t idx = 0;
      for (uint32_t dd = 0; dd < t.rank; ++dd) {
        in = in && pos[dd] >= 0 && pos[dd] < int64_t(t.dims[dd]);
        idx += uint64_t(pos[dd]) * (t.stride(dd) / 4);
      }
      out.push_back(in ? t.host[idx] : fill);
    }
  }
  return out;
}

struct TmaIm2col : ::testing::Test {
  test::PtxDevice d{kernels(), "tma_im2col.ptx", 1ull << 28};

  void make(Tensor& t, bool sequential_pixels = false) {
    t.dev = d.alloc<float>(t.count());
    t.map = d.alloc<std::byte>(256);
    t.host.resize(t.count());
    for (size_t i = 0; i < t.host.size(); ++i)
      t.host[i] = sequential_pixels ? float(i / t.dims[0] + 1) : float(int(i * 37 % 1001) - 500) * 0.25f;
    std::memcpy(t.dev, t.host.data(), t.host.size() * 4);
    auto err = t.encode();
    ASSERT_FALSE(err) << *err;
  }
  // Runs the load; the tile as floats (unswizzled by the caller) and the flag.
  exec::LaunchResult run(const Tensor& t, const int32_t c[5], const int32_t off[3], std::vector<std::byte>* tile,
                         uint32_t* flag, bool tile_mode = false) {
    auto* args = d.alloc<int32_t>(8);
    for (int i = 0; i < 5; ++i) args[i] = c[i];
    for (int i = 0; i < 3; ++i) args[5 + i] = off[i];
    auto* out = d.alloc<std::byte>(16 + 16384);
    const std::string k = fmt::format("im2col{}d", t.rank);
    const auto cfg = d.config(k, {1, 1, 1}, {32, 1, 1}, reinterpret_cast<uint64_t>(t.map),
                              reinterpret_cast<uint64_t>(args), reinterpret_cast<uint64_t>(out),
                              uint32_t(t.box_bytes()), uint32_t(tile_mode));
    auto r = d.launch(k, cfg, {});
    std::memcpy(flag, out, 4);
    tile->assign(out + 16, out + 16 + 16384);
    return r;
  }
  // The load's floats in box order (the swizzle undone as tma_test.cpp models it).
  std::vector<float> load(const Tensor& t, const int32_t c[5], const int32_t off[3]) {
    std::vector<std::byte> tile;
    uint32_t flag = 0;
    auto r = run(t, c, off, &tile, &flag);
    EXPECT_EQ(r.status, Status::Success) << msg(r);
    EXPECT_EQ(flag, 1u) << "the mbarrier phase did not complete with the box's bytes";
    std::vector<float> got(t.box_bytes() / 4);
    const uint64_t span = t.swizzle == 1 ? 32 : t.swizzle == 2 ? 64 : t.swizzle == 3 ? 128 : 0;
    for (uint64_t o = 0; o < t.box_bytes(); o += 4) {
      uint64_t s = o;
      if (span) {
        const uint64_t row = o / 128, chunk = o % 128 / 16, k = span / 16;
        s = row * 128 + ((chunk & ~(k - 1)) | ((chunk ^ row) & (k - 1))) * 16 + o % 16;
      }
      std::memcpy(&got[o / 4], &tile[s], 4);
    }
    for (uint64_t o = t.box_bytes(); o < 16384; ++o) EXPECT_EQ(tile[o], std::byte{0xab}) << "past the box at " << o;
    return got;
  }
  void check(const Tensor& t, const int32_t c[5], const int32_t off[3]) {
    bool found = false;
    auto want = reference(t, c, off, &found);
    ASSERT_TRUE(found) << "test error: the start pixel is not on the box's walk";
    auto got = load(t, c, off);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      if (std::isnan(want[i])) {
        ASSERT_TRUE(std::isnan(got[i])) << "pixel " << i / t.channels << " channel " << i % t.channels;
      } else {
        ASSERT_EQ(got[i], want[i]) << "pixel " << i / t.channels << " channel " << i % t.channels;
      }
    }
  }
};

// Triton's tutorial: a 1x4x4x32 image whose pixel p holds p + 1 in every
// channel, 16 pixels of 32 channels.
TEST_F(TmaIm2col, PublishedExamplesPaddedWindowOffsetsAndBatchWrap) {
  Tensor t;
  t.dims[0] = 32, t.dims[1] = 4, t.dims[2] = 4, t.dims[3] = 1;
  t.channels = 32, t.pixels = 16, t.swizzle = 3;  // 128-byte rows, swizzled as there
  t.lower[0] = t.lower[1] = -1, t.upper[0] = t.upper[1] = -1;
  make(t, true);
  const int32_t c[5] = {0, -1, -1, 0, 0}, none[3] = {0, 0, 0}, one[3] = {1, 1, 0};
  auto got = load(t, c, none);
  const float padded[16] = {0, 0, 0, 0, 0, 1, 2, 3, 0, 5, 6, 7, 0, 9, 10, 11};
  for (int p = 0; p < 16; ++p)
    for (int ch = 0; ch < 32; ++ch) ASSERT_EQ(got[p * 32 + ch], padded[p]) << "pixel " << p << " channel " << ch;
  got = load(t, c, one);  // offsets (1, 1): the window is the image itself
  for (int p = 0; p < 16; ++p) ASSERT_EQ(got[p * 32], float(p + 1)) << "pixel " << p;

  Tensor b;  // two images, no padding, start at (H 1, W 3) of the first
  b.dims[0] = 32, b.dims[1] = 4, b.dims[2] = 4, b.dims[3] = 2;
  b.channels = 32, b.pixels = 16, b.swizzle = 3;
  make(b, true);
  const int32_t cb[5] = {0, 3, 1, 0, 0};
  got = load(b, cb, none);
  for (int p = 0; p < 16; ++p) ASSERT_EQ(got[p * 32 + 5], float(8 + p)) << "pixel " << p;
}

TEST_F(TmaIm2col, Conv2dTapsWithStridesAgainstTheModel) {
  Tensor t;  // 2 images of 7 x 9 pixels, 24 channels
  t.dims[0] = 24, t.dims[1] = 9, t.dims[2] = 7, t.dims[3] = 2;
  // A 3x3 filter, padding 1, stride 2: lower -1, upper 1 - 2 = -1.
  t.lower[0] = t.lower[1] = -1, t.upper[0] = t.upper[1] = -1;
  t.estr[1] = t.estr[2] = 2;
  t.channels = 8, t.pixels = 20;
  make(t);
  for (int32_t ch : {0, 8, 16, 20})  // 20: channels 24..27 are outside, zero
    for (int32_t r = 0; r < 3; ++r)
      for (int32_t s = 0; s < 3; ++s) {
        SCOPED_TRACE(testing::Message() << "channel " << ch << " tap " << r << "," << s);
        const int32_t c[5] = {ch, -1, -1, 0, 0}, off[3] = {s, r, 0};
        check(t, c, off);
        const int32_t c2[5] = {ch, 3, 1, 1, 0};  // a later start, into the second image and past it
        check(t, c2, off);
      }
}

TEST_F(TmaIm2col, Rank3And5WithNanFill) {
  Tensor a;  // N W C: 3 sequences of 10, 8 channels
  a.rank = 3;
  a.dims[0] = 8, a.dims[1] = 10, a.dims[2] = 3;
  a.lower[0] = -2, a.upper[0] = 0;
  a.channels = 8, a.pixels = 30;
  a.oob_fill = 1;
  make(a);
  for (int32_t tap = 0; tap < 3; ++tap) {
    const int32_t c[5] = {0, -2, 0, 0, 0}, off[3] = {tap, 0, 0};
    check(a, c, off);
  }
  Tensor v;  // N D H W C: 2 volumes of 3 x 4 x 5, 4 channels
  v.rank = 5;
  v.dims[0] = 4, v.dims[1] = 5, v.dims[2] = 4, v.dims[3] = 3, v.dims[4] = 2;
  v.lower[0] = v.lower[1] = v.lower[2] = -1, v.upper[0] = v.upper[1] = v.upper[2] = -1;
  v.channels = 4, v.pixels = 64;
  make(v);
  const int32_t c[5] = {0, -1, -1, -1, 0}, off[3] = {1, 2, 0};
  check(v, c, off);
  const int32_t c2[5] = {0, 2, 1, 0, 0};
  check(v, c2, off);
}

TEST_F(TmaIm2col, MismatchedMapsAndOperandsFault) {
  Tensor t;
  t.dims[0] = 8, t.dims[1] = 4, t.dims[2] = 4, t.dims[3] = 1;
  t.channels = 8, t.pixels = 4;
  make(t);
  std::vector<std::byte> tile;
  uint32_t flag = 0;
  const int32_t c[5] = {0, 0, 0, 0, 0}, off[3] = {0, 0, 0};
  auto r = run(t, c, off, &tile, &flag, /*tile_mode=*/true);
  EXPECT_EQ(r.status, Status::IllegalInstruction);
  EXPECT_NE(msg(r).find(".tile copy on an im2col tensor map"), std::string::npos) << msg(r);
}

TEST(TmaIm2colEncode, InvalidArgumentsAreRefusedWithTheReason) {
  alignas(64) std::byte map[128];
  std::vector<float> mem(4096);
  auto base = [&] {
    Tensor t;
    t.dims[0] = 16, t.dims[1] = 8, t.dims[2] = 8, t.dims[3] = 2;
    t.channels = 16, t.pixels = 64;
    t.dev = mem.data();
    t.map = map;
    return t;
  };
  auto refused = [&](Tensor t, const char* what) {
    auto err = t.encode();
    ASSERT_TRUE(err) << what;
    EXPECT_NE(err->find(what), std::string::npos) << *err;
  };
  Tensor ok = base();
  EXPECT_FALSE(ok.encode());
  auto m = exec::decode_tensor_map(map);
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->im2col);
  EXPECT_EQ(m->box_bytes(), 16u * 64 * 4);
  Tensor t = base();
  t.rank = 2;
  refused(t, "tensorRank 2 is not 3, 4 or 5");
  t = base();
  t.lower[0] = -129;
  refused(t, "outside [-128, 127]");
  t = base();
  t.lower[1] = 4, t.upper[1] = -4;
  refused(t, "the pixel box is empty");
  t = base();
  t.channels = 257;
  refused(t, "channelsPerPixel 257");
  t = base();
  t.pixels = 1025;
  refused(t, "pixelsPerColumn 1025");
  t = base();
  t.channels = 3;
  refused(t, "channelsPerPixel * element size = 12 bytes");
  t = base();
  t.channels = 64, t.swizzle = 2;  // 256 bytes in a 64-byte span
  refused(t, "swizzle span");
  t = base();
  t.rank = 3, t.dims[2] = 2, t.lower[0] = -32768, t.upper[0] = 32767;  // rank 3 takes 16-bit corners
  EXPECT_FALSE(t.encode());
}

}  // namespace
