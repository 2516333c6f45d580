// What the executor reports while it runs, for the timing model, the
// profiler and the sanitizers: one interface, consumed outside exec/, that
// adds nothing to the fast path when no listener is set and never changes
// results.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>

#include "common/types.h"
#include "program/program.h"

namespace softgpu::exec {

struct WarpRef {
  uint32_t cta_linear = 0;   // linear CTA index in the grid
  uint32_t warp_in_cta = 0;
};

enum class AccessKind : uint8_t { Load, Store, Atomic, Reduce, AsyncCopy, TexFetch, Prefetch };

// One memory access of a warp instruction, resolved: the space is never
// Generic (a generic address is reported in the space it fell in).
struct MemoryAccess {
  ptx::Space space = ptx::Space::Global;
  AccessKind kind = AccessKind::Load;
  uint32_t bytes_per_lane = 0;
  uint32_t lanes = 0;                  // lanes that accessed (bit l = lane l)
  const uint64_t* lane_addr = nullptr; // 32 entries, valid for `lanes` during the call
};

// Exited: the warp has no live thread left after this instruction.
enum class StepOutcome : uint8_t { Retired, AtBarrier, AtClusterBarrier, Exited, Faulted };

// One warp instruction, in program order per warp.
struct WarpStep {
  WarpRef warp;
  void* cta_context = nullptr;  // what cta_begin returned for this warp's CTA
  uint32_t function = 0, pc = 0;
  const program::Function* fn = nullptr;  // register sets: program::reads/writes(*fn, pc)
  const program::Inst* inst = nullptr;
  uint32_t active = 0;    // lanes at the instruction
  uint32_t executed = 0;  // lanes whose guard held
  uint32_t taken = 0;     // bra/brx: lanes that took the branch
  std::span<const MemoryAccess> mem;  // 0..2 (cp.async: a global read and a shared write)
  StepOutcome outcome = StepOutcome::Retired;
  uint32_t barrier_id = 0;            // AtBarrier: the named barrier
};

struct LaunchInfo {
  std::string_view kernel;
  Dim3 grid, block, cluster;
  uint32_t regs_per_thread = 0;
  uint32_t shared_per_cta = 0;    // static + dynamic bytes
  uint32_t local_per_thread = 0;
  bool cooperative = false;
};

class ExecutionListener {
 public:
  virtual ~ExecutionListener() = default;
  virtual void launch_begin(const LaunchInfo&) {}
  // Returns a context the executor hands back in every WarpStep of this CTA
  // (so a listener needs no lookup per step), and to cta_end. nullptr
  // means the listener wants no steps of this CTA (a timing sample skips
  // it), which then runs at full speed.
  virtual void* cta_begin(uint32_t /*cta_linear*/, Dim3 /*ctaid*/, uint32_t /*warps*/) = 0;
  // Called on the host thread running the warp's CTA; calls for one CTA
  // come from one thread. Must be thread-safe across CTAs when threads > 1.
  virtual void step(const WarpStep&) = 0;
  virtual void barrier_released(uint32_t /*cta_linear*/, uint32_t /*bar_id*/) {}
  // Every cta_begin gets its cta_end, also when a fault stops the launch.
  virtual void cta_end(uint32_t /*cta_linear*/, void* /*cta_context*/) {}
  virtual void launch_end(Status) {}
};

}  // namespace softgpu::exec
