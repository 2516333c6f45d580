// What the timing model consumes: per CTA, each warp's instructions in
// program order, reduced to what timing needs (pipe, register sets, memory
// lines or bank wavefronts, barriers). Built from the executor's records by
// timing/recorder.h, or by hand in tests.
#pragma once
#include <cstdint>
#include <vector>

#include "program/pipe.h"
#include "program/sequence.h"
#include "timing/coalescer.h"

namespace softgpu::timing {

enum class OpKind : uint8_t {
  Compute,    // pipe work only
  Global,     // global or local memory through L1/L2/DRAM (lines in the CTA's pool)
  Shared,     // shared memory: `wavefronts`
  Constant,   // constant/param space: `wavefronts` = distinct addresses
  Atomic,     // global atomic or reduction at the L2 (lines; `wavefronts` = worst same-address count)
  AsyncCopy,  // cp.async: global lines read, completes into the warp's async group
  AsyncWait,  // cp.async.wait_group/wait_all: waits for the warp's copies
  Barrier,    // bar.sync/barrier.sync on `barrier_id`
  Exit,       // the warp's last instruction
  MbarWait,   // mbarrier try_wait/test_wait that found `phase` complete: waits for it in simulated time
  TensorCommit,  // wgmma.commit_group: the warp's uncommitted wgmma form a group
  TensorWait,    // wgmma.wait_group `group_n`: waits for all but the newest group_n groups
};

// How an op takes part in an mbarrier phase (CtaTrace::phases).
enum class PhaseRole : uint8_t {
  None,
  Arrive,       // an arrival, when the op's result lands (mbarrier.arrive)
  Tx,           // its copy's bytes, when they have landed (cp.async.bulk, TMA)
  AsyncArrive,  // an arrival once the warp's earlier cp.async copies have landed (cp.async.mbarrier.arrive)
};

struct TraceOp {
  program::Pipe pipe = program::Pipe::Alu;
  OpKind kind = OpKind::Compute;
  bool store = false;        // Global: a store (write-through L1, write-back L2)
  program::Sequence sequence = program::Sequence::None;  // costed by TimingParams::sequence_cost
  uint8_t barrier_id = 0;
  uint8_t group_n = 0;       // TensorWait: groups that may stay in flight
  bool async_tensor = false; // wgmma.mma_async: accumulates in the tensor pipe, results at a TensorWait
  PhaseRole role = PhaseRole::None;
  uint32_t phase = 0;        // 1 + index in CtaTrace::phases of the phase it contributes to (role) or waits for (MbarWait)
  uint8_t tensor = 0;        // program::TensorKind of an mma
  bool skips_l1 = false;     // a load or copy that reads the L2 without the L1 (program::kFactSkipsL1)
  uint32_t tensor_flops = 0;
  uint16_t wavefronts = 0;    // Shared/Constant/Atomic, a global load's L1 banks; a tensor op's shared-memory operand reads
  uint8_t n_writes = 0, n_reads = 0;
  uint32_t slots = 0;        // first register slot in CtaTrace::slots (writes, then reads)
  uint32_t lines = 0;        // first line in CtaTrace::lines
  uint32_t n_lines = 0;
};

struct WarpTrace {
  std::vector<TraceOp> ops;
};

struct CtaTrace {
  uint32_t cta_linear = 0;
  std::vector<WarpTrace> warps;
  std::vector<uint32_t> slots;      // register slots (program::kPredSlot marks predicates)
  std::vector<LineAccess> lines;    // memory lines of Global/Atomic/AsyncCopy ops
  // Per mbarrier phase this CTA waited on or contributed to: how many of
  // its ops contribute (the phase completes in simulated time when the last
  // of them has, as it did in the executor).
  std::vector<uint32_t> phases;
};

}  // namespace softgpu::timing
