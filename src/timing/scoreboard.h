// Register scoreboard of one warp: the cycle at which each register slot's
// pending write lands, and whether a memory access produces it (a "long
// scoreboard" wait in Nsight Compute's terms). An instruction may issue once
// every register it reads (read-after-write) and writes (write-after-write)
// is ready.
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "program/program.h"

namespace softgpu::timing {

class Scoreboard {
 public:
  Scoreboard(uint32_t regs, uint32_t preds) : regs_(regs, 0), preds_(preds, 0) {}

  // Earliest cycle at which an instruction with these sets can issue.
  uint64_t ready(std::span<const uint32_t> reads, std::span<const uint32_t> writes) const {
    bool mem;
    return ready(reads, writes, mem);
  }
  // The same; `memory` tells whether the latest of them comes from memory.
  uint64_t ready(std::span<const uint32_t> reads, std::span<const uint32_t> writes, bool& memory) const {
    uint64_t t = 0;
    memory = false;
    auto see = [&](uint32_t s) {
      const uint64_t v = at(s);
      if (v > t || (v == t && v > 0 && is_mem(s))) { t = v; memory = is_mem(s); }
    };
    for (uint32_t s : reads) see(s);
    for (uint32_t s : writes) see(s);
    return t;
  }
  // The instruction's results land at `cycle`.
  void write(std::span<const uint32_t> writes, uint64_t cycle, bool from_memory = false) {
    for (uint32_t s : writes) slot(s) = (cycle << 1) | (from_memory ? 1 : 0);
  }

 private:
  uint64_t raw(uint32_t s) const {
    const bool p = (s & program::kPredSlot) != 0;
    const uint32_t i = s & ~program::kPredSlot;
    const auto& v = p ? preds_ : regs_;
    return i < v.size() ? v[i] : 0;
  }
  uint64_t at(uint32_t s) const { return raw(s) >> 1; }
  bool is_mem(uint32_t s) const { return raw(s) & 1; }
  uint64_t& slot(uint32_t s) {
    const bool p = (s & program::kPredSlot) != 0;
    const uint32_t i = s & ~program::kPredSlot;
    auto& v = p ? preds_ : regs_;
    if (i >= v.size()) v.resize(i + 1, 0);
    return v[i];
  }
  std::vector<uint64_t> regs_, preds_;  // ready cycle << 1 | produced by memory
};

}  // namespace softgpu::timing
