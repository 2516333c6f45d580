// The executor's seam for compiled code (the JIT in src/jit implements it).
// Compiled code runs a function's straight-line runs of instructions
// (blocks) for the lanes executing together, and the branches between
// them while they are uniform: no divergence, no barriers, calls,
// warp-collective or warp-aligned instructions (the interpreter keeps
// those, the SIMT stack and independent thread scheduling). Each
// instruction's guard is applied as the interpreter applies it, and an
// instruction the compiler does not lower calls its bound handler, so
// results are the interpreter's. It returns to the interpreter at a
// divergent branch, at the SIMT entry's reconvergence point, at anything
// outside a block, and after a bounded number of backward branches (so
// spin detection and the scheduler's budget still see loops). Compiled code
// runs only without a listener.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace softgpu::exec {

class Warp;
class LoadedProgram;

// What a block reads and writes; built by Warp::step for each block run.
struct BlockCtx {
  uint64_t* regs = nullptr;   // the frame's register rows: slot s, lane l at regs[s * 32 + l]
  uint32_t* preds = nullptr;  // the frame's predicate slots (lane masks)
  uint32_t* pc = nullptr;     // the SIMT top's pc: the next instruction, set before each handler call
  Warp* warp = nullptr;
  std::byte* shared = nullptr;  // this CTA's shared memory
  uint64_t shared_size = 0;
  uint32_t active = 0;        // lanes executing the block
  uint32_t reconv = 0;        // the SIMT entry's reconvergence pc: control returns there
  uint32_t converged = 0;     // 1 when the warp is not diverged: loops may stay in compiled code
  uint32_t back = 0;          // out: backward branches the compiled code took (spin sampling)
  const std::byte* params = nullptr;  // the launch's kernel parameter buffer
  const uint32_t* tid = nullptr;      // %tid.x, .y, .z of the 32 lanes ([3][32])
  const uint32_t* ids = nullptr;      // %ntid.xyz, %ctaid.xyz, %nctaid.xyz
};
static_assert(sizeof(BlockCtx) == 88, "BlockCtx layout is part of the JIT's ABI (src/jit/lower.cpp)");

// Runs from *pc (a block's first pc); returns the instructions it executed,
// with *pc the next one. A handler's fault stops it (Warp::faulted()).
// Returning 0 leaves the instruction at *pc to the interpreter.
using BlockFn = uint32_t (*)(BlockCtx*);

// One function's compiled blocks, kept alive by this object.
class CompiledCode {
 public:
  virtual ~CompiledCode() = default;
  std::vector<BlockFn> entry;  // by pc: the block starting there, or null (interpret)
};

// The default tiering's compile estimate before this process has measured
// a compilation: seconds of LLVM time per PTX instruction (docs/jit.md;
// measured 2.5-5 ms on SHOC's MaxFlops, 1-2 ms on smaller kernels).
inline constexpr double kDefaultCompileSecondsPerInstruction = 3e-3;

// The default tier decision (ExecOptions::jit_hot unset) for a kernel
// whose closure has `instructions` PTX instructions left to compile, at an
// estimated `instructions` x `seconds_per_instruction`. `remaining_s` is
// the projected interpreted host-thread seconds of the rest of the current
// launch, or nullopt where there is no projection (at a launch's start, or
// before enough of its CTAs have finished). With a projection: compile when
// the rest is at least twice the estimate (with the compile on one of two
// host threads, about where it pays for itself in this launch). Without
// one: when the interpreted host-thread seconds already spent on the kernel
// (`spent_s`: its earlier launches, and this one so far) reach the
// estimate. So a launch projected to end too soon is not compiled in the
// middle, where the compile could not be earned back; its seconds count at
// the kernel's next launch, which, if there is one, compiles from its start.
inline bool worth_compiling(double spent_s, std::optional<double> remaining_s, uint64_t instructions,
                            double seconds_per_instruction) {
  const double estimate = double(instructions) * seconds_per_instruction;
  if (remaining_s) return *remaining_s >= 2 * estimate;
  return spent_s >= estimate;
}

class CodeCompiler {
 public:
  virtual ~CodeCompiler() = default;
  // Compiles function `fn` of the program. Never fails the launch: what it
  // cannot compile stays null in `entry` and runs interpreted.
  virtual std::shared_ptr<const CompiledCode> compile(const LoadedProgram& lp, uint32_t fn) = 0;
  // The function's code if it is at hand without compiling (compiled
  // earlier in this process or in the disk cache), else null: a kernel
  // whose code is at hand runs compiled from its first launch.
  virtual std::shared_ptr<const CompiledCode> cached(const LoadedProgram&, uint32_t) { return nullptr; }
  // Mean seconds per PTX instruction of the functions this compiler has
  // compiled in this process (not those from a cache), for worth_compiling;
  // kDefaultCompileSecondsPerInstruction until one has been measured.
  virtual double seconds_per_instruction() const { return kDefaultCompileSecondsPerInstruction; }
};

// What a loaded program keeps of its compiled code (LoadedProgram::jit).
// Warps read `published` without a lock; the rest is guarded by `mu`.
class ProgramCode {
 public:
  ProgramCode() = default;
  ProgramCode(const ProgramCode&) = delete;
  ProgramCode& operator=(const ProgramCode&) = delete;

  std::mutex mu;
  std::vector<std::shared_ptr<const CompiledCode>> compiled;  // by function
  std::unique_ptr<std::atomic<const CompiledCode*>[]> published;  // by function, once sized
  std::vector<uint8_t> tried;       // by function: compiled or given up
  std::vector<uint8_t> requested;   // by kernel: its compilation was asked for
  std::vector<uint8_t> probed;      // by kernel: CodeCompiler::cached was asked for its closure
  std::vector<uint64_t> executed;   // by kernel: warp instructions of its finished launches
  std::vector<double> interpreted;  // by kernel: host-thread seconds of its finished launches
};

}  // namespace softgpu::exec
