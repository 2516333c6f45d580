// Corrupt input must give InvalidSource with a useful message, never a crash
// or a huge allocation. Mutations are applied to real nvcc fatbins at the
// offsets data/regen.sh's outputs have (checked below before mutating).
#include <gtest/gtest.h>
#include <lz4.h>
#include <zstd.h>

#include <limits>

#include "fatbin/fatbin.h"
#include "test_util.h"

using namespace softgpu;
using namespace softgpu::fatbin;
using fatbin_test::Blob;
using fatbin_test::load;

namespace {

// vadd_default.fatbin: container header, ELF entry at 16 (64-byte header,
// 3240-byte slot), zstd PTX entry at 3320 (80-byte header, 400-byte slot).
constexpr size_t kElf = 16, kPtx = 3320, kPtxBody = kPtx + 80;

template <class T>
void put(Blob& b, size_t off, T v) { std::memcpy(b.data() + off, &v, sizeof v); }
template <class T>
T get(const Blob& b, size_t off) { T v; std::memcpy(&v, b.bytes().data() + off, sizeof v); return v; }

void expect_invalid(const Blob& b, const std::string& needle) {
  auto r = read_container(b.bytes());
  ASSERT_FALSE(r.ok()) << "corruption not detected, expected: " << needle;
  EXPECT_EQ(r.error().status, Status::InvalidSource);
  EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
}

class Corrupt : public ::testing::Test {
 protected:
  void SetUp() override {
    b = load("vadd_default.fatbin");
    ASSERT_EQ(b.size, 3800u);
    ASSERT_EQ(get<uint16_t>(b, kElf), 2);
    ASSERT_EQ(get<uint16_t>(b, kPtx), 1);
    ASSERT_EQ(get<uint32_t>(b, kPtx + 4), 80u);
    ASSERT_TRUE(read_container(b.bytes()).ok());
  }
  Blob b;
};

TEST_F(Corrupt, EveryTruncationFails) {
  for (const char* f : {"vadd_compress_all.fatbin", "vadd_speed.fatbin", "vadd_none.fatbin"}) {
    Blob full = load(f);
    ASSERT_TRUE(read_container(full.bytes()).ok()) << f;
    for (size_t n = 0; n < full.size; ++n) {
      auto r = read_container(full.bytes().first(n));
      ASSERT_FALSE(r.ok()) << f << " truncated to " << n << " bytes was accepted";
      ASSERT_EQ(r.error().status, Status::InvalidSource);
      ASSERT_FALSE(r.error().message.empty());
    }
  }
}

TEST_F(Corrupt, FlippedMagicByte) {
  for (size_t i = 0; i < 4; ++i) {
    Blob c = b;
    c.data()[i] ^= std::byte{0x40};
    expect_invalid(c, "magic");
  }
}

TEST_F(Corrupt, HeaderFields) {
  { Blob c = b; put<uint16_t>(c, 4, 2); expect_invalid(c, "version 2"); }
  { Blob c = b; put<uint16_t>(c, 6, 8); expect_invalid(c, "header size 8"); }
  { Blob c = b; put<uint16_t>(c, 6, 0xffff); expect_invalid(c, "header size"); }
  { Blob c = b; put<uint64_t>(c, 8, std::numeric_limits<uint64_t>::max()); expect_invalid(c, "payload size"); }
  { Blob c = b; put<uint64_t>(c, 8, 3785); expect_invalid(c, "payload size 3785"); }
  // A payload that ends inside an entry header.
  { Blob c = b; put<uint64_t>(c, 8, kPtx + 10 - 16); expect_invalid(c, "entry header needs"); }
}

TEST_F(Corrupt, EntryHeaderSize) {
  for (uint32_t hs : {0u, 8u, 63u, 0x7fffffffu, 0xffffffffu}) {
    Blob c = b;
    put<uint32_t>(c, kPtx + 4, hs);
    expect_invalid(c, "header size");
  }
}

TEST_F(Corrupt, AbsurdSlotSizes) {
  for (uint64_t s : {uint64_t(401), uint64_t(1) << 40, std::numeric_limits<uint64_t>::max()}) {
    Blob c = b;
    put<uint64_t>(c, kPtx + 8, s);
    expect_invalid(c, "runs past the container end");
  }
  Blob c = b;
  put<uint64_t>(c, kElf + 8, std::numeric_limits<uint64_t>::max() - 8);
  expect_invalid(c, "runs past the container end");
}

TEST_F(Corrupt, CompressedSizePastSlot) {
  Blob c = b;
  put<uint32_t>(c, kPtx + 16, 401);
  expect_invalid(c, "compressed size 401");
  put<uint32_t>(c, kPtx + 16, 0xffffffffu);
  expect_invalid(c, "compressed size");
}

TEST_F(Corrupt, UncompressedSizeLies) {
  { Blob c = b; put<uint64_t>(c, kPtx + 56, uint64_t(1) << 40); expect_invalid(c, "limit"); }
  { Blob c = b; put<uint64_t>(c, kPtx + 56, 974); expect_invalid(c, "975"); }
  { Blob c = b; put<uint64_t>(c, kPtx + 56, 976); expect_invalid(c, "975"); }
}

TEST_F(Corrupt, BadZstdStream) {
  { Blob c = b; c.data()[kPtxBody] ^= std::byte{0xff}; expect_invalid(c, "zstd"); }
  // Stream cut short: the frame header is fine, the blocks are not.
  { Blob c = b; put<uint32_t>(c, kPtx + 16, 100); expect_invalid(c, "zstd entry: corrupt stream"); }
  // Garbage after the frame header.
  { Blob c = b; std::memset(c.data() + kPtxBody + 12, 0xee, 300); expect_invalid(c, "zstd"); }
  // Both compression flags.
  { Blob c = b; put<uint64_t>(c, kPtx + 40, get<uint64_t>(b, kPtx + 40) | kFlagLz4); expect_invalid(c, "both"); }
}

TEST(CorruptLz4, BadBlocks) {
  Blob b = load("vadd_speed.fatbin");
  constexpr size_t kLz = 3320, kLzBody = kLz + 80;
  ASSERT_EQ(get<uint64_t>(b, kLz + 40) & kFlagLz4, kFlagLz4);
  ASSERT_TRUE(read_container(b.bytes()).ok());
  // Cut short.
  { Blob c = b; put<uint32_t>(c, kLz + 16, 200); expect_invalid(c, "LZ4"); }
  // A match offset pointing before the start of the output.
  { Blob c = b; std::memset(c.data() + kLzBody, 0, 521); c.data()[kLzBody] = std::byte{0x0f};
    put<uint16_t>(c, kLzBody + 1, 0xffff); expect_invalid(c, "LZ4"); }
  // Output longer than announced.
  { Blob c = b; put<uint64_t>(c, kLz + 56, 900); expect_invalid(c, "LZ4"); }
}

// No single-byte change anywhere may crash or hang the reader.
TEST(CorruptSweep, EveryByteFlipped) {
  for (const char* f : {"vadd_compress_all.fatbin", "vadd_speed.fatbin"}) {
    Blob base = load(f);
    size_t rejected = 0;
    for (size_t i = 0; i < base.size; ++i) {
      for (uint8_t x : {0x01, 0x80, 0xff}) {
        Blob c = base;
        c.data()[i] ^= std::byte{x};
        auto r = read_container(c.bytes());
        if (!r.ok()) { ++rejected; EXPECT_EQ(r.error().status, Status::InvalidSource); }
      }
    }
    EXPECT_GT(rejected, 0u) << f;
  }
}

TEST(Decompress, RoundTripsAgainstLibraryCompressors) {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "mad.lo.s32 %r" + std::to_string(i % 37) + ", %r1, %r2;\n";
  std::vector<char> lz(LZ4_compressBound(int(text.size())));
  int n = LZ4_compress_default(text.data(), lz.data(), int(text.size()), int(lz.size()));
  ASSERT_GT(n, 0);
  auto lzspan = std::as_bytes(std::span(lz.data(), size_t(n)));
  auto d = decompress_lz4_block(lzspan, text.size());
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d.value(), text);
  EXPECT_FALSE(decompress_lz4_block(lzspan, text.size() - 1).ok());
  EXPECT_FALSE(decompress_lz4_block(lzspan, text.size() + 1).ok());
  EXPECT_FALSE(decompress_lz4_block(lzspan.first(size_t(n) / 2), text.size()).ok());
  EXPECT_FALSE(decompress_lz4_block(lzspan, kMaxDecompressedSize + 1).ok());

  std::vector<char> zs(ZSTD_compressBound(text.size()));
  size_t m = ZSTD_compress(zs.data(), zs.size(), text.data(), text.size(), 3);
  ASSERT_FALSE(ZSTD_isError(m));
  auto zspan = std::as_bytes(std::span(zs.data(), m));
  auto z = decompress_zstd(zspan, text.size());
  ASSERT_TRUE(z.ok()) << z.error().message;
  EXPECT_EQ(z.value(), text);
  EXPECT_FALSE(decompress_zstd(zspan, text.size() - 1).ok());
  EXPECT_FALSE(decompress_zstd(zspan, text.size() + 1).ok());
  EXPECT_FALSE(decompress_zstd(zspan.first(m - 3), text.size()).ok());
  EXPECT_FALSE(decompress_zstd({}, 0).ok());
  EXPECT_FALSE(decompress_zstd(zspan, kMaxDecompressedSize + 1).ok());
}

}  // namespace
