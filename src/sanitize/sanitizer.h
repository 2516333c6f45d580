// A sanitizer (docs/sanitizers.md): listens to the executor (every traced
// warp instruction, every access before it takes effect, barriers, device
// malloc/free) and to the device memory (allocations, host-side writes),
// and is told of failed API calls and of the program's end by the runtime.
// One tool per run, as with compute-sanitizer. The runtime runs launches
// on one host thread while a sanitizer is attached, so reports come in a
// deterministic order.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/types.h"
#include "exec/device_memory.h"
#include "exec/listener.h"
#include "sanitize/nvtx_memory.h"
#include "sanitize/options.h"
#include "sanitize/report.h"

namespace softgpu::sanitize {

class Sanitizer : public exec::ExecutionListener, public exec::MemoryObserver {
 public:
  // The tool `o.tool` names, reporting into o.log_file (or stdout).
  static Result<std::unique_ptr<Sanitizer>> create(const Options& o, exec::DeviceMemory* memory);
  ~Sanitizer() override;

  // ---- from the runtime ----
  // A runtime API call returned an error (not cudaGetLastError and the like).
  virtual void api_error(std::string_view call, int code, std::string_view name, std::string_view text);
  // True once after a launch in which the tool found errors that stop a
  // kernel on the GPU (memcheck): the runtime then makes the launch fail
  // with cudaErrorLaunchFailure, sticky, as a GPU does; never with
  // --destroy-on-device-error kernel.
  bool take_launch_failure();
  // At the program's end (or cudaDeviceReset with `reset`): leak checks,
  // summaries; at the end also the result file.
  virtual void device_reset() {}
  void finish();

  const Options& options() const { return opts_; }
  Reporter& reporter() { return reporter_; }
  // NVTX memory annotations (--nvtx yes; cudart/cudart_nvtx.cpp fills it).
  NvtxMemory& nvtx() { return nvtx_; }
  // The size of the live allocation starting at base, else 0.
  uint64_t allocation_size(uint64_t base) const {
    auto a = memory_ ? memory_->find(DeviceAddr{base}) : std::nullopt;
    return a && a->base == base ? a->size : 0;
  }
  // nvtxMemCudaMarkInitialized: initcheck counts [addr, addr+n) as written.
  virtual void mark_initialized(uint64_t /*addr*/, uint64_t /*n*/) {}

  // ---- exec::ExecutionListener (tools override what they need) ----
  void launch_begin(const exec::LaunchInfo& info) override;
  void* cta_begin(uint32_t cta_linear, Dim3 ctaid, uint32_t warps) override;
  void step(const exec::WarpStep&) override {}
  // --destroy-on-device-error kernel: a kernel memcheck found an error in
  // ends after that instruction (the program goes on without an error).
  bool stop_launch() override { return opts_.destroy_kernel && launch_failed_; }

  // ---- exec::MemoryObserver: a tool that overrides it calls this too ----
  void released(const exec::Allocation& a) override { nvtx_.released(a.base, a.size); }

 protected:
  Sanitizer(const Options& o, exec::DeviceMemory* memory);
  virtual void finish_tool() {}  // before the ERROR SUMMARY

  // Where a lane of a warp runs, in the current launch.
  Dim3 thread_of(exec::WarpRef w, uint32_t lane) const;
  Dim3 block_of(uint32_t cta_linear) const;
  // "at ..." (inlined code at its own line: add_frames gives the rest),
  // "PTX line ...", "by thread (x,y,z) in block (x,y,z)".
  std::vector<std::string> where(const program::Function* fn, uint32_t pc, exec::WarpRef w, uint32_t lane) const;
  // Appends the "Device Frame:..." lines (device_frames), the last details.
  void add_frames(std::vector<std::string>& d, const program::Function* fn, uint32_t pc) const;
  // A finding's identity at instruction pc of fn in the current launch
  // (suppression.h): the kernel, the CUDA source line (else the PTX line).
  Identity site_identity(const char* kind, const program::Function* fn, uint32_t pc) const;
  // A finding's identity by its kind and size in bytes (leaks, unused memory, copies).
  static Identity sized_identity(const char* kind, uint64_t bytes) {
    Identity id;
    id.kind = kind;
    id.size = std::to_string(bytes);
    return id;
  }
  void fail_launch() { launch_failed_ = true; }
  // " called NAME" for an allocation the program named with NVTX, else "".
  std::string called(uint64_t base) const;

  Options opts_;
  exec::DeviceMemory* memory_;
  Reporter reporter_;
  std::string kernel_;  // the current launch's kernel, demangled
  const program::Program* program_ = nullptr;  // the launch's, for source lines
  Dim3 grid_, block_;
  uint64_t shared_per_cta_ = 0;
  NvtxMemory nvtx_;
  NvtxMemory::View nvtx_view_;  // the current launch's (launch_begin)

 private:
  bool launch_failed_ = false;
  bool finished_ = false;
};

// The tools (one file each).
std::unique_ptr<Sanitizer> make_memcheck(const Options& o, exec::DeviceMemory* memory);
std::unique_ptr<Sanitizer> make_initcheck(const Options& o, exec::DeviceMemory* memory);
std::unique_ptr<Sanitizer> make_synccheck(const Options& o, exec::DeviceMemory* memory);
std::unique_ptr<Sanitizer> make_racecheck(const Options& o, exec::DeviceMemory* memory);

}  // namespace softgpu::sanitize
