// The functional executor's public face: load PTX modules into a program,
// launch kernels, report faults. It knows nothing of timing; a timing model
// observes it through ExecutionListener (exec/listener.h).
#pragma once
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/types.h"
#include "exec/device_memory.h"
#include "ptx/ast.h"
#include "ptx/diagnostics.h"

namespace softgpu::exec {

struct KernelParam {
  uint32_t offset = 0;  // byte offset in the parameter buffer
  uint32_t size = 0;
  uint32_t align = 1;
};

struct KernelInfo {
  std::string name;
  std::vector<KernelParam> params;
  uint32_t param_bytes = 0;          // total size of the parameter buffer
  uint32_t static_shared_bytes = 0;  // .shared declared by the kernel and its callees
  uint32_t local_bytes = 0;          // per-thread .local of the kernel frame
  uint32_t num_regs = 0;             // registers per thread (declared, an upper bound)
  uint32_t max_threads_per_block = 0;  // from .maxntid/.reqntid, 0 = unspecified
  uint32_t ptx_version = 0;          // major*10+minor
  uint32_t sm_target = 0;            // from .target, e.g. 80
  Dim3 required_cluster;             // .reqnctapercluster (__cluster_dims__); 1x1x1 = none
  bool explicit_cluster = false;     // .explicitcluster
  // Non-empty when the kernel reaches an instruction softgpu does not
  // implement (in its code or a function it calls): why it cannot run.
  // launch() then fails with Status::NotSupported and this message; the
  // program's other kernels are unaffected.
  std::string not_implemented;
};

struct VariableInfo {
  std::string name;
  DeviceAddr address;
  Bytes size;
  bool is_const = false;
};

class LoadedProgram;  // decoded and linked modules (defined in exec/)

struct LoadResult {
  std::shared_ptr<LoadedProgram> program;   // null on error
  std::vector<ptx::Diagnostic> diagnostics; // decode/link errors, with PTX lines
};

// Decodes and links the modules (several for -rdc=true programs), allocates
// and initializes their global and constant variables in memory.
LoadResult load_program(std::vector<ptx::Module> modules, DeviceMemory& memory);

// Kernels and variables of a loaded program.
const std::vector<KernelInfo>& kernels(const LoadedProgram& p);
const KernelInfo* find_kernel(const LoadedProgram& p, const std::string& name);
bool calls_printf(const LoadedProgram& p);  // some function calls vprintf
std::optional<VariableInfo> find_variable(const LoadedProgram& p, const std::string& name);
// Bytes of the program's .const variables: the user constant bank each of
// its kernels reports (cudaFuncAttributes::constSizeBytes).
uint64_t const_bytes(const LoadedProgram& p);
// Releases the program's variables from memory (module unload).
void unload_program(LoadedProgram& p, DeviceMemory& memory);

struct LaunchConfig {
  Dim3 grid, block;
  uint32_t dynamic_shared_bytes = 0;
  std::vector<std::byte> params;  // laid out per KernelInfo::params
  bool cooperative = false;
  // Thread-block cluster shape (sm_90); 1x1x1 = no clusters. The grid must be
  // a multiple of it. The CTAs of a cluster run co-scheduled and share their
  // shared memory (distributed shared memory).
  Dim3 cluster;
  bool explicit_cluster = false;  // %is_explicit_cluster: launched with a cluster shape
};

class ExecutionListener;  // exec/listener.h
class CodeCompiler;       // exec/compiled.h (implemented by src/jit)
class HostThreads;        // exec/host_threads.h

struct ExecOptions {
  unsigned threads = 1;                 // host threads running CTAs in parallel
  // Where those threads come from: kept between launches by the owner; null =
  // each launch starts and joins its own (about 0.1 ms a thread).
  HostThreads* host_threads = nullptr;
  // Watchdog, per launch across all its CTAs: the launch ends with
  // LaunchTimeout past either limit. 0 = unlimited (the default for both).
  uint64_t watchdog_warp_instructions = 0;
  double watchdog_seconds = 0;
  // CTAs the modelled GPU holds at once (sm_count x resident blocks per SM by
  // the occupancy limits). A host thread interleaves up to its share of them
  // when the CTA it runs spins, so co-resident CTAs progress together.
  // 0 = unknown: one CTA at a time per host thread.
  uint64_t resident_ctas = 0;
  // Progress line (CTAs done, warp instructions per second) for launches that
  // run longer than progress_after_seconds: on stderr when it is a terminal,
  // or always on progress_out / when progress_force is set. < 0 = never.
  double progress_after_seconds = 3.0;
  double progress_period_seconds = 0.5;
  bool progress_force = false;
  std::ostream* progress_out = nullptr;  // null = stderr
  std::ostream* printf_out = nullptr;   // device printf destination (default stdout)
  // cudaLimitPrintfFifoSize: device printf records one launch may hold; the
  // rest are dropped (exec/printf.cpp has the record size model).
  uint64_t printf_fifo_bytes = 1ull << 20;
  // Call stack per thread beyond the kernel's own .local frame (the larger of
  // 64 KB and cudaLimitStackSize); the total is capped at the hardware's
  // 512 KB per thread (ptx::kMaxLocalBytesPerThread).
  uint64_t local_bytes_per_thread = 64 * 1024;
  uint32_t sm_count = 132;              // for %nsmid / %smid
  // Timing, profiler, sanitizers (exec/listener.h); null = the fast path.
  ExecutionListener* listener = nullptr;
  // Compiles kernels to host code (src/jit); null = interpret. Ignored while
  // a listener is set (compiled blocks emit no records).
  CodeCompiler* compiler = nullptr;
  // Tiered compilation: a kernel runs interpreted until it is compiled by
  // the host thread that noticed (the launch's other threads go on
  // interpreting; warps switch at their next quantum). With jit_hot set,
  // once it has executed jit_hot warp instructions per PTX instruction of
  // it and its direct callees (over all its launches); 0 = compile at the
  // first launch. Unset: when worth_compiling (exec/compiled.h) says the
  // interpreted time spent or projected outweighs the compile's estimate.
  std::optional<uint64_t> jit_hot = 0;
  uint32_t registers_per_thread = 0;  // from the machine code, for the listener (0 = unknown)
  const class TextureRegistry* textures = nullptr;  // texture/surface objects (exec/texture.h)
  // Device malloc heap (cudaLimitMallocHeapSize): created at the first launch
  // of a program that calls malloc/free, then fixed, as on hardware.
  uint64_t malloc_heap_bytes = 8ull << 20;
};

struct Fault {
  Status status = Status::Success;
  std::string kernel;
  Dim3 block, thread;  // coordinates of the faulting thread
  uint32_t ptx_line = 0;
  uint64_t address = 0;
  std::string message;  // full, human-readable report
};

struct LaunchResult {
  Status status = Status::Success;
  std::string error;  // why a launch was refused (status set, no fault)
  std::optional<Fault> fault;
  uint64_t warp_instructions = 0;
  uint64_t thread_instructions = 0;
  uint64_t compiled_instructions = 0;  // of warp_instructions, run as compiled code (ExecOptions::compiler)
};

LaunchResult launch(const LoadedProgram& program, const std::string& kernel, const LaunchConfig& cfg,
                    DeviceMemory& memory, const ExecOptions& opts);

}  // namespace softgpu::exec
