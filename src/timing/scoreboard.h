// Register scoreboard of one warp: the cycle at which each register slot's
// pending write lands. An instruction may issue once every register it reads
// (read-after-write) and writes (write-after-write) is ready.
#pragma once
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
    uint64_t t = 0;
    for (uint32_t s : reads) t = std::max(t, at(s));
    for (uint32_t s : writes) t = std::max(t, at(s));
    return t;
  }
  // The instruction's results land at `cycle`.
  void write(std::span<const uint32_t> writes, uint64_t cycle) {
    for (uint32_t s : writes) slot(s) = cycle;
  }

 private:
  uint64_t at(uint32_t s) const {
    const bool p = (s & program::kPredSlot) != 0;
    const uint32_t i = s & ~program::kPredSlot;
    const auto& v = p ? preds_ : regs_;
    return i < v.size() ? v[i] : 0;
  }
  uint64_t& slot(uint32_t s) {
    const bool p = (s & program::kPredSlot) != 0;
    const uint32_t i = s & ~program::kPredSlot;
    auto& v = p ? preds_ : regs_;
    if (i >= v.size()) v.resize(i + 1, 0);
    return v[i];
  }
  std::vector<uint64_t> regs_, preds_;
};

}  // namespace softgpu::timing
