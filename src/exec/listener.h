// What the executor reports while it runs, for the timing model, the
// profiler and the sanitizers: one interface, consumed outside exec/, that
// adds nothing to the fast path when no listener is set and never changes
// results.
#pragma once
#include <cstddef>
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

// What an instruction did to an mbarrier object (mbarrier.arrive and
// cp.async.mbarrier.arrive, the complete_tx of cp.async.bulk and TMA copies,
// test_wait/try_wait), one record per lane, for timing models that wait on
// the phase in simulated time rather than replay the executor's spin loop.
struct SyncEvent {
  enum class Kind : uint8_t { Arrive, Tx, WaitDone, WaitPending };
  Kind kind = Kind::Arrive;
  bool completed = false;  // Arrive/Tx: this update completed the object's current phase
  uint64_t object = 0;     // the object's identity (its host address; stable while its CTA lives)
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
  std::span<const SyncEvent> sync;    // mbarrier updates and waits, per lane (usually empty)
  StepOutcome outcome = StepOutcome::Retired;
  uint32_t barrier_id = 0;            // AtBarrier: the named barrier
  uint32_t barrier_count = 0;         // AtBarrier: the thread count operand (0 = all of the CTA)
  // Warp-synchronous instructions (shfl/vote/match/redux/elect .sync,
  // bar.warp.sync): the union of the executing lanes' membermasks, read
  // before the instruction ran; 0 otherwise.
  uint32_t sync_mask = 0;
  // The same instructions: each executing lane's own membermask (32
  // entries, valid for the lanes in `executed` during the call); null for
  // other instructions.
  const uint32_t* member_masks = nullptr;
};

// What the executor itself found wrong with an access it is about to make.
enum class AccessProblem : uint8_t {
  None,         // it would go ahead (global: the address is in mapped device memory)
  Misaligned,   // the address is not a multiple of the access size (up to 16)
  OutOfBounds,  // outside the CTA's shared memory, the thread's local memory, or any mapped memory
};

// A memory access about to happen, for listeners that check accesses before
// they take effect (ExecutionListener::check_access).
struct AccessCheck {
  WarpRef warp;
  void* cta_context = nullptr;
  const program::Function* fn = nullptr;
  uint32_t pc = 0;                  // the instruction (fn->code[pc])
  uint32_t lane = 0;
  ptx::Space space = ptx::Space::Global;  // resolved, never Generic
  bool generic = false;             // the instruction addressed it generically
  uint64_t addr = 0;                // global: device address; shared, local: offset in the space
  uint32_t size = 0;
  bool write = false;
  AccessProblem problem = AccessProblem::None;
  uint64_t region_bytes = 0;        // shared: the CTA's bytes; local: the thread's bytes in use
  // Shared memory of this CTA, problem None: the bytes at addr, valid until
  // the CTA ends (what they hold now; a write lands after the call).
  const std::byte* data = nullptr;
};

// Device-side malloc/free (exec's device heap), as the lane called them.
struct HeapEvent {
  enum class Kind : uint8_t { Malloc, Free, InvalidFree };
  Kind kind = Kind::Malloc;
  WarpRef warp;
  void* cta_context = nullptr;
  const program::Function* fn = nullptr;
  uint32_t pc = 0, lane = 0;
  uint64_t addr = 0;   // Malloc: the block (0 when the heap was full); Free/InvalidFree: the argument
  uint64_t size = 0;   // Malloc: bytes requested
};

// What %clock/%clock64 (cycles of the warp's SM) and %globaltimer
// (nanoseconds) read, from a timing model.
struct ClockReading {
  uint64_t cycles = 0;
  uint64_t ns = 0;
};

struct LaunchInfo {
  std::string_view kernel;
  const program::Program* program = nullptr;  // the kernel's program (source files, functions)
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
  // A CTA barrier (bar.sync/barrier.sync/bar.red) completed: `warps` (bit w =
  // warp w of the CTA) were waiting at barrier `bar_id` and go on. Called
  // on the CTA's host thread, after their AtBarrier steps.
  virtual void barrier_released(void* /*cta_context*/, uint32_t /*bar_id*/, uint32_t /*warps*/) {}
  // Sanitizers: called for every access of a traced instruction before it
  // takes effect, also for accesses the executor would fault on. Returning
  // true suppresses the access (the listener reported it): the lane reads
  // zeros, its write goes nowhere, and the launch goes on instead of
  // faulting. Only called when checks_accesses() is true.
  virtual bool checks_accesses() const { return false; }
  virtual bool check_access(const AccessCheck&) { return false; }
  // Asked after an instruction whose access the listener suppressed: true
  // ends the launch after that instruction, with no fault (the launch
  // succeeds), as compute-sanitizer's --destroy-on-device-error kernel
  // ends a kernel at its first error.
  virtual bool stop_launch() { return false; }
  // Device malloc/free. For InvalidFree, returning true means the listener
  // reported it and the launch goes on instead of faulting.
  virtual bool heap_event(const HeapEvent&) { return false; }
  // %clock, %clock64, %globaltimer read by a warp of a CTA with a context:
  // a timing model fills in the warp's simulated time at this instruction
  // and returns true; false keeps the executor's own count (host
  // nanoseconds since the launch).
  virtual bool read_clock(const WarpRef&, void* /*cta_context*/, ClockReading&) { return false; }
  // Every cta_begin gets its cta_end, also when a fault stops the launch.
  virtual void cta_end(uint32_t /*cta_linear*/, void* /*cta_context*/) {}
  virtual void launch_end(Status) {}
};

}  // namespace softgpu::exec
