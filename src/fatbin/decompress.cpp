// zstd and LZ4-block decompression of fatbin entry payloads. Both functions
// demand that the output be exactly the size the entry header announced, so a
// stream that is short, long or corrupt is reported rather than half-used.
#include <lz4.h>
#include <zstd.h>

#include <climits>
#include <fmt/format.h>

#include "fatbin/fatbin.h"

namespace softgpu::fatbin {

namespace {
Error corrupt(std::string msg) { return Error{Status::InvalidSource, std::move(msg)}; }
}  // namespace

Result<std::string> decompress_lz4_block(std::span<const std::byte> src, size_t uncompressed_size) {
  if (uncompressed_size > kMaxDecompressedSize) {
    return corrupt(fmt::format("LZ4 entry claims {} uncompressed bytes, more than the {} byte limit",
                               uncompressed_size, kMaxDecompressedSize));
  }
  // LZ4's API takes int sizes.
  if (src.size() > size_t(INT_MAX)) return corrupt("LZ4 entry: compressed size does not fit in int");
  std::string out(uncompressed_size, '\0');
  if (uncompressed_size == 0) {
    // A valid empty block is a single zero token; anything else is garbage.
    if (src.size() == 1 && src[0] == std::byte{0}) return out;
    return corrupt("LZ4 entry: empty output announced but the block is not empty");
  }
  int n = LZ4_decompress_safe(reinterpret_cast<const char*>(src.data()), out.data(), int(src.size()),
                              int(uncompressed_size));
  if (n < 0) return corrupt(fmt::format("LZ4 entry: corrupt block ({} compressed bytes)", src.size()));
  if (size_t(n) != uncompressed_size) {
    return corrupt(fmt::format("LZ4 entry: block decodes to {} bytes but the header says {}", n,
                               uncompressed_size));
  }
  return out;
}

Result<std::string> decompress_zstd(std::span<const std::byte> src, size_t uncompressed_size) {
  if (uncompressed_size > kMaxDecompressedSize) {
    return corrupt(fmt::format("zstd entry claims {} uncompressed bytes, more than the {} byte limit",
                               uncompressed_size, kMaxDecompressedSize));
  }
  unsigned long long content = ZSTD_getFrameContentSize(src.data(), src.size());
  if (content == ZSTD_CONTENTSIZE_ERROR) {
    return corrupt("zstd entry: payload is not a zstd frame (bad magic or header)");
  }
  if (content != ZSTD_CONTENTSIZE_UNKNOWN && content != uncompressed_size) {
    return corrupt(fmt::format("zstd entry: frame holds {} bytes but the header says {}", content,
                               uncompressed_size));
  }
  std::string out(uncompressed_size, '\0');
  size_t n = ZSTD_decompress(out.data(), out.size(), src.data(), src.size());
  if (ZSTD_isError(n)) {
    return corrupt(fmt::format("zstd entry: corrupt stream: {}", ZSTD_getErrorName(n)));
  }
  if (n != uncompressed_size) {
    return corrupt(fmt::format("zstd entry: stream decodes to {} bytes but the header says {}", n,
                               uncompressed_size));
  }
  return out;
}

}  // namespace softgpu::fatbin
