#include "timing/coalescer.h"

#include <algorithm>
#include <bit>

namespace softgpu::timing {

uint32_t Coalesced::sectors() const {
  uint32_t n = 0;
  for (uint32_t i = 0; i < n_lines; ++i) n += uint32_t(std::popcount(unsigned(lines[i].sectors)));
  return n;
}

Coalesced coalesce(const uint64_t* lane_addr, uint32_t mask, uint32_t bytes) {
  Coalesced c;
  if (bytes == 0) return c;
  auto touch = [&](uint64_t line, uint8_t sectors) {
    for (uint32_t i = 0; i < c.n_lines; ++i)
      if (c.lines[i].line == line) { c.lines[i].sectors |= sectors; return; }
    if (c.n_lines < c.lines.size()) c.lines[c.n_lines++] = {line, sectors};
  };
  for (uint32_t m = mask; m; m &= m - 1) {
    const uint64_t a = lane_addr[std::countr_zero(m)];
    const uint64_t last = a + bytes - 1;
    for (uint64_t line = a / kLineBytes * kLineBytes; line <= last; line += kLineBytes) {
      const uint64_t lo = std::max(a, line), hi = std::min(last, line + kLineBytes - 1);
      uint8_t s = 0;
      for (uint64_t k = (lo - line) / kSectorBytes; k <= (hi - line) / kSectorBytes; ++k) s |= uint8_t(1u << k);
      touch(line, s);
    }
  }
  std::sort(c.lines.begin(), c.lines.begin() + c.n_lines,
            [](const LineAccess& x, const LineAccess& y) { return x.line < y.line; });
  return c;
}

}  // namespace softgpu::timing
