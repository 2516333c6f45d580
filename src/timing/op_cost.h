// What issuing one trace op costs, shared by the SM model (timing/sm_model.h)
// and the warp clock (timing/warp_clock.h): how long it holds its pipe, and
// when its results land (the pipe's latency, a tensor product's extra issue
// time, or the memory system's answer).
#pragma once
#include <cstdint>

#include "timing/memory_system.h"
#include "timing/params.h"
#include "timing/trace.h"

namespace softgpu::timing {

struct IssueCost {
  uint64_t busy = 1;   // cycles the pipe is busy with the op
  uint32_t slots = 1;  // issue slots it takes (a sequence: its machine instructions)
  uint32_t steps = 1;  // pipe latencies until its result (a sequence: its dependent chain)
};
IssueCost issue_cost(const TimingParams& p, const TraceOp& op);

struct Completion {
  double done = 0;          // its register results land
  bool from_memory = false; // they come from memory (a long-scoreboard wait)
  double async_done = 0;    // cp.async: its copies complete (0: none)
};
// Issues `op` at cycle t (its memory lines at `lines`) to `mem`.
Completion complete(const TimingParams& p, MemorySystem& mem, const TraceOp& op, const LineAccess* lines, uint64_t t,
                    const IssueCost& c);

// Whole cycles, rounding up (a result at 10.2 is there at cycle 11).
uint64_t ceil_cycle(double d);

}  // namespace softgpu::timing
