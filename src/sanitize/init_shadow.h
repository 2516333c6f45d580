// initcheck's shadow of a memory region: one bit per byte, set once the
// byte was written. Bitmaps are made per 64 KiB chunk on the first write to
// it, so a large allocation costs only what is written of it (1/8).
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace softgpu::sanitize {

class ByteShadow {
 public:
  static constexpr uint64_t kChunkShift = 16, kChunk = uint64_t(1) << kChunkShift, kWords = kChunk / 64;

  ByteShadow() = default;
  explicit ByteShadow(uint64_t size) : size_(size), chunks_((size + kChunk - 1) >> kChunkShift) {}
  uint64_t size() const { return size_; }

  // Marks [off, off+n) written (clipped to the region).
  void set(uint64_t off, uint64_t n) {
    if (off >= size_) return;
    if (n > size_ - off) n = size_ - off;
    while (n) {
      uint64_t* w = chunk(off >> kChunkShift);
      const uint64_t in = off & (kChunk - 1), len = std::min(n, kChunk - in);
      for_words(in, len, [&](uint64_t i, uint64_t mask) { w[i] |= mask; return true; });
      off += len;
      n -= len;
    }
  }
  // The first byte of [off, off+n) not written, relative to off; n if all were.
  uint64_t first_unset(uint64_t off, uint64_t n) const {
    for (uint64_t done = 0; done < n;) {
      const uint64_t at = off + done;
      if (at >= size_) return n;  // past the region: not ours to judge
      const uint64_t in = at & (kChunk - 1), len = std::min({n - done, kChunk - in, size_ - at});
      const uint64_t* w = chunks_[at >> kChunkShift].get();
      if (!w) return done;
      uint64_t found = len;
      for_words(in, len, [&](uint64_t i, uint64_t mask) {
        if ((w[i] & mask) == mask) return true;
        const uint64_t lo = uint64_t(__builtin_ctzll(~w[i] & mask));
        found = i * 64 + lo - in;
        return false;
      });
      if (found < len) return done + found;
      done += len;
      if (off + done >= size_) return n;
    }
    return n;
  }
  // The first byte of [off, off+n) written, relative to off; n if none was.
  uint64_t first_set(uint64_t off, uint64_t n) const {
    for (uint64_t done = 0; done < n;) {
      const uint64_t at = off + done;
      if (at >= size_) return n;
      const uint64_t in = at & (kChunk - 1), len = std::min({n - done, kChunk - in, size_ - at});
      if (const uint64_t* w = chunks_[at >> kChunkShift].get()) {
        uint64_t found = len;
        for_words(in, len, [&](uint64_t i, uint64_t mask) {
          if (!(w[i] & mask)) return true;
          found = i * 64 + uint64_t(__builtin_ctzll(w[i] & mask)) - in;
          return false;
        });
        if (found < len) return done + found;
      }
      done += len;
    }
    return n;
  }
  bool all_set(uint64_t off, uint64_t n) const {
    // The common case: an aligned access inside one word of one chunk.
    const uint64_t bit = off & 63;
    if (off < size_ && n <= 64 - bit && n <= size_ - off) {
      const uint64_t* w = chunks_[off >> kChunkShift].get();
      if (!w) return false;
      const uint64_t mask = (n == 64 ? ~uint64_t(0) : ((uint64_t(1) << n) - 1)) << bit;
      return (w[(off & (kChunk - 1)) >> 6] & mask) == mask;
    }
    return first_unset(off, n) == n;
  }

 private:
  uint64_t* chunk(uint64_t c) {
    if (!chunks_[c]) chunks_[c] = std::make_unique<uint64_t[]>(kWords);  // zeroed
    return chunks_[c].get();
  }
  // f(word index, mask of the bits of [in, in+len) in it) per word, in order,
  // until f returns false; [in, in+len) lies inside one chunk.
  template <class F>
  static void for_words(uint64_t in, uint64_t len, F&& f) {
    uint64_t b = in;
    const uint64_t e = in + len;
    while (b < e) {
      const uint64_t i = b >> 6, lo = b & 63, hi = std::min<uint64_t>(64, e - i * 64);
      const uint64_t mask = (hi - lo == 64 ? ~uint64_t(0) : ((uint64_t(1) << (hi - lo)) - 1) << lo);
      if (!f(i, mask)) return;
      b = i * 64 + hi;
    }
  }

  uint64_t size_ = 0;
  std::vector<std::unique_ptr<uint64_t[]>> chunks_;
};

}  // namespace softgpu::sanitize
