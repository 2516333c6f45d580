// One streaming multiprocessor, cycle by cycle: sub-partitions with a warp
// scheduler each (GTO or loose round-robin), a scoreboard per warp, pipes
// with latency and issue interval, barriers, and CTAs dispatched into a
// fixed number of resident slots as earlier ones finish. Idle stretches are
// skipped in one step, so a long memory wait costs no host time.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "timing/memory_system.h"
#include "timing/params.h"
#include "timing/trace.h"
#include "timing/warp_rules.h"

namespace softgpu::timing {


struct SmStats {
  uint64_t cycles = 0;             // from the first issue to the last result
  uint64_t warp_instructions = 0;
  uint64_t ctas = 0;
  std::array<uint64_t, size_t(WarpStall::Count_)> stalls{};  // warp-cycles per state
  uint64_t resident_warp_cycles = 0;  // sum over cycles of resident warps (achieved occupancy)
  std::array<uint64_t, size_t(program::Pipe::Count_)> pipe_busy{};  // issue-slot cycles per pipe
  std::vector<uint64_t> warp_done;    // per warp in dispatch order: cycle of its last result
  bool deadlock = false;              // warps left waiting at barriers that cannot complete
  double ipc() const { return cycles ? double(warp_instructions) / double(cycles) : 0; }
};

class SmModel {
 public:
  SmModel(const TimingParams& p, MemorySystem& mem) : p_(p), mem_(mem) {}
  // Runs the CTAs in order, at most `resident_ctas` at a time.
  SmStats run(const std::vector<const CtaTrace*>& ctas, uint32_t resident_ctas);

 private:
  const TimingParams& p_;
  MemorySystem& mem_;
};

}  // namespace softgpu::timing
