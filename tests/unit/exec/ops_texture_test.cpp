// Texture sampling functions (exec/texture.h) on hand-computed values.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <vector>

#include "exec/texture.h"

namespace softgpu::exec {
namespace {

// Texels in a host vector, addressed from a fake base.
struct VecReader final : TexelReader {
  std::vector<uint8_t> mem;
  uint64_t base = 0x1000;
  bool read(uint64_t addr, uint32_t size, void* out) override {
    if (addr < base || addr + size > base + mem.size()) return false;
    std::memcpy(out, mem.data() + (addr - base), size);
    return true;
  }
};

TextureObject float_tex(VecReader& r, const std::vector<float>& v, uint32_t w, uint32_t h) {
  r.mem.resize(v.size() * 4);
  std::memcpy(r.mem.data(), v.data(), r.mem.size());
  TextureObject t;
  t.res.base = r.base;
  t.res.width = w;
  t.res.height = h;
  t.res.dims = h > 1 ? 2 : 1;
  t.res.pitch = w * 4;
  t.res.slice_pitch = w * 4 * h;
  t.res.fmt = {TexelFormat::Kind::Float, 1, 32};
  return t;
}

float f0(const std::optional<Texel>& t) { return std::bit_cast<float>(t->bits[0]); }

TEST(Texture, WeightsAreNineBitFixedPointRoundedToNearest) {
  EXPECT_EQ(quantize_weight(0.0f), 0.0f);
  EXPECT_EQ(quantize_weight(0.5f / 256), 1.0f / 256);    // measured on an H200: ties round up
  EXPECT_EQ(quantize_weight(0.49f / 256), 0.0f);
  EXPECT_EQ(quantize_weight(0.999f), 1.0f);              // 1.0 is representable
  EXPECT_EQ(quantize_weight(0.3f), 77.0f / 256);         // 76.8 -> 77
}

TEST(Texture, PointClampAndBorder) {
  VecReader r;
  TextureObject t = float_tex(r, {10, 20, 30, 40}, 4, 1);
  t.sampler.address[0] = AddressMode::Clamp;
  float c = 2.99f;
  EXPECT_EQ(f0(sample(t, &c, 1, 0, r)), 30.0f);
  c = -7.0f;
  EXPECT_EQ(f0(sample(t, &c, 1, 0, r)), 10.0f);
  c = 9.0f;
  EXPECT_EQ(f0(sample(t, &c, 1, 0, r)), 40.0f);
  t.sampler.address[0] = AddressMode::Border;
  t.sampler.border[0] = 0.25f;
  t.sampler.border[1] = 0.5f;
  auto b = sample(t, &c, 1, 0, r);
  EXPECT_EQ(f0(b), 0.25f);
  EXPECT_EQ(b->bits[1], 0u);  // a 1-channel format has no second channel, border or not
}

TEST(Texture, LinearOneDimension) {
  VecReader r;
  TextureObject t = float_tex(r, {0, 256, 512, 768}, 4, 1);
  t.sampler.address[0] = AddressMode::Clamp;
  t.sampler.linear = true;
  float c = 1.75f;  // xB = 1.25: i = 1, a = 0.25 -> 0.75*256 + 0.25*512
  EXPECT_EQ(f0(sample(t, &c, 1, 0, r)), 320.0f);
  c = 0.2f;  // xB = -0.3: i = -1 (clamped to 0), a = 0.7 -> 179/256 in 9-bit -> both texels are T[0]
  EXPECT_EQ(f0(sample(t, &c, 1, 0, r)), 0.0f);
  c = 1.0f + 0.3f;  // xB = 0.8: a = round(204.8)/256 = 205/256
  EXPECT_EQ(f0(sample(t, &c, 1, 0, r)), 205.0f);
}

TEST(Texture, NormalizedWrapAndMirror) {
  VecReader r;
  TextureObject t = float_tex(r, {1, 2, 3, 4}, 4, 1);
  t.sampler.normalized_coords = true;
  t.sampler.address[0] = AddressMode::Wrap;
  float c = 1.125f;  // x = 4.5 -> texel 4 wraps to 0
  EXPECT_EQ(f0(sample(t, &c, 1, 0, r)), 1.0f);
  c = -0.125f;  // x = -0.5 -> texel -1 wraps to 3
  EXPECT_EQ(f0(sample(t, &c, 1, 0, r)), 4.0f);
  t.sampler.address[0] = AddressMode::Mirror;
  c = 1.125f;  // texel 4 mirrors to 3
  EXPECT_EQ(f0(sample(t, &c, 1, 0, r)), 4.0f);
  c = -0.125f;  // texel -1 mirrors to 0
  EXPECT_EQ(f0(sample(t, &c, 1, 0, r)), 1.0f);
}

TEST(Texture, NormalizedFloatReadMode) {
  uint8_t u[4] = {0, 255, 128, 1};
  TexelFormat fu{TexelFormat::Kind::Unsigned, 4, 8};
  Texel t = decode_texel(fu, true, u);
  EXPECT_EQ(std::bit_cast<float>(t.bits[1]), 1.0f);
  EXPECT_EQ(std::bit_cast<float>(t.bits[2]), 128.0f / 255.0f);
  int8_t s[2] = {-128, -127};
  TexelFormat fs{TexelFormat::Kind::Signed, 2, 8};
  Texel ts = decode_texel(fs, true, s);
  EXPECT_EQ(std::bit_cast<float>(ts.bits[0]), -1.0f);  // clamps to -1
  EXPECT_EQ(std::bit_cast<float>(ts.bits[1]), -1.0f);
  EXPECT_EQ(ts.bits[3], 0u);
  Texel te = decode_texel(fs, false, s);  // element type: sign-extended integers
  EXPECT_EQ(int32_t(te.bits[0]), -128);
}

TEST(Texture, FetchOutOfRangeIsZero) {
  VecReader r;
  TextureObject t = float_tex(r, {5, 6}, 2, 1);
  t.res.kind = TexResource::Kind::Linear;
  int32_t i = 1;
  EXPECT_EQ(f0(fetch(t, &i, 1, 0, r)), 6.0f);
  i = 2;
  EXPECT_EQ(fetch(t, &i, 1, 0, r)->bits[0], 0u);
  i = -1;
  EXPECT_EQ(fetch(t, &i, 1, 0, r)->bits[0], 0u);
}

TEST(Texture, GatherOrder) {
  VecReader r;
  // 2x2: T[0,0]=1 T[1,0]=2 T[0,1]=3 T[1,1]=4; order (i,j+1) (i+1,j+1) (i+1,j) (i,j)
  TextureObject t = float_tex(r, {1, 2, 3, 4}, 2, 2);
  t.sampler.address[0] = t.sampler.address[1] = AddressMode::Clamp;
  float c[2] = {1.0f, 1.0f};
  auto g = gather(t, c, 0, 0, r);
  ASSERT_TRUE(g);
  EXPECT_EQ(std::bit_cast<float>(g->bits[0]), 3.0f);
  EXPECT_EQ(std::bit_cast<float>(g->bits[1]), 4.0f);
  EXPECT_EQ(std::bit_cast<float>(g->bits[2]), 2.0f);
  EXPECT_EQ(std::bit_cast<float>(g->bits[3]), 1.0f);
}

TEST(Texture, RegistryHandles) {
  TextureRegistry reg;
  uint64_t a = reg.add_texture({});
  uint64_t b = reg.add_surface({});
  EXPECT_NE(a, 0u);
  EXPECT_NE(a, b);
  EXPECT_TRUE(reg.texture(a));
  EXPECT_FALSE(reg.texture(b));
  EXPECT_TRUE(reg.remove_texture(a));
  EXPECT_FALSE(reg.remove_texture(a));
  EXPECT_FALSE(reg.texture(a));
  EXPECT_TRUE(reg.surface(b));
}

}  // namespace
}  // namespace softgpu::exec
