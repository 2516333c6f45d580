// Private definitions shared by the runtime's translation units.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/runtime.h"

namespace softgpu::runtime {

// One registered fatbinary (or set of PTX texts), loaded on first use so that
// programs pay only for what they run and load errors surface at a call
// that can return them.
struct Runtime::Module {
  const void* wrapper = nullptr;          // __fatBinC_Wrapper_t*, or null for PTX texts
  std::vector<std::string> ptx_texts;     // when registered from text
  std::string name;                       // for messages
  bool load_attempted = false;
  Status load_status = Status::Success;
  std::string load_message;               // why loading failed
  bool load_reported = false;             // init_module reported the failure
  std::shared_ptr<exec::LoadedProgram> program;
  std::vector<std::unique_ptr<Variable>> variables;
  // Registers per thread ptxas allocated, by kernel name, from the machine
  // code for the architecture nearest the simulated GPU (fatbin/cubin.h).
  // Empty for PTX registered as text or fatbinaries without machine code.
  std::unordered_map<std::string, uint32_t> sass_registers;
};

struct Runtime::Kernel {
  Module* module = nullptr;
  std::string name;                 // mangled .entry name
  const void* host_fun = nullptr;
  std::optional<int> max_dynamic_shared;  // cudaFuncAttributeMaxDynamicSharedMemorySize
  int preferred_carveout = -1;
  bool load_reported = false;       // its module's load failure was reported for it
};

struct Runtime::Variable {
  Module* module = nullptr;
  std::string name;
  size_t host_size = 0;            // size the host registered (sizeof the shadow)
  bool constant = false;
  void** managed_slot = nullptr;   // __managed__: where the host reads the pointer
  bool load_reported = false;
};

// Every public call takes the lock, checks init/sticky state and records a
// failing status as the thread's last error.
#define SOFTGPU_API_BEGIN(sticky)                                 \
  std::lock_guard lock_(mu_);                                     \
  if (Status s_ = begin(sticky); s_ != Status::Success) return finish(s_)

}  // namespace softgpu::runtime
