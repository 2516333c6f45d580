// The runtime's module component: the registries that map host-side handles
// (fatbin handles, kernel stubs, variable shadows) to the PTX programs they
// load, and the loading itself (src/runtime/module_registry.cpp). One per
// Runtime, which calls it with its lock held; launches, function attributes
// and symbol copies stay in the facade (module.cpp, memory.cpp) and look
// kernels and variables up here.
#pragma once
#include <deque>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "config/gpu_config.h"
#include "exec/device_memory.h"
#include "exec/engine.h"
#include "runtime/runtime.h"

namespace softgpu::runtime {

struct RegisteredVariable;

// One registered fatbinary (or set of PTX texts), loaded on first use so that
// programs pay only for what they run and load errors surface at a call
// that can return them.
struct RegisteredModule {
  const void* wrapper = nullptr;          // __fatBinC_Wrapper_t*, or null for PTX texts
  std::vector<std::string> ptx_texts;     // when registered from text
  std::string name;                       // for messages
  bool load_attempted = false;
  Status load_status = Status::Success;
  std::string load_message;               // why loading failed
  bool load_reported = false;             // init_module reported the failure
  std::shared_ptr<exec::LoadedProgram> program;
  std::vector<std::unique_ptr<RegisteredVariable>> variables;
  // Registers per thread ptxas allocated, by kernel name, from the machine
  // code for the architecture nearest the simulated GPU (fatbin/cubin.h).
  // Empty for PTX registered as text or fatbinaries without machine code.
  std::unordered_map<std::string, uint32_t> sass_registers;
  // A library loaded at run time (cudaLibraryLoadData, the driver's
  // cuModuleLoadData): its own copy of the image and the wrapper that points
  // at it, so the caller's buffer may go away.
  std::vector<uint64_t> image;
  struct { uint32_t magic = 0, version = 0; const void* data = nullptr; const void* prelinked = nullptr; } own_wrapper;
  bool library = false;
  std::unordered_map<std::string, RegisteredKernel*> by_name;  // cudaLibraryGetKernel's handles
};

struct RegisteredKernel {
  RegisteredModule* module = nullptr;
  std::string name;                 // mangled .entry name
  const void* host_fun = nullptr;
  std::optional<int> max_dynamic_shared;  // cudaFuncAttributeMaxDynamicSharedMemorySize
  int preferred_carveout = -1;
  bool load_reported = false;       // its module's load failure was reported for it
};

struct RegisteredVariable {
  RegisteredModule* module = nullptr;
  std::string name;
  size_t host_size = 0;            // size the host registered (sizeof the shadow)
  bool constant = false;
  void** managed_slot = nullptr;   // __managed__: where the host reads the pointer
  bool load_reported = false;
};

class ModuleRegistry {
 public:
  using Module = RegisteredModule;
  using Kernel = RegisteredKernel;
  using Variable = RegisteredVariable;

  // gpu: the simulated device (picks the PTX to load); memory: where
  // programs load (null when the runtime failed to initialize: nothing loads).
  ModuleRegistry(const config::GpuConfig& gpu, exec::DeviceMemory* memory) : gpu_(gpu), memory_(memory) {}
  ModuleRegistry(const ModuleRegistry&) = delete;
  ModuleRegistry& operator=(const ModuleRegistry&) = delete;

  // ---- registration (never fails: a bad fatbin is reported when first used)
  void* register_fatbin(const void* wrapper);
  void* register_ptx(std::vector<std::string> texts, std::string name);
  void unregister_module(void* module);
  void register_function(void* module, const void* host_fun, const char* device_name);
  void register_var(void* module, const void* host_var, const char* device_name, size_t size, bool constant);
  void register_managed_var(void* module, void** host_ptr_slot, const char* device_name, size_t size);
  Status init_module(void* module);  // loads it now (InvalidResourceHandle if unknown)
  // A library from a fatbinary container copied into the module (image:
  // the container's bytes, 8-byte aligned); loaded on first use like the others.
  void* register_library_fatbin(std::vector<uint64_t> image, std::string name);
  // A library from PTX text: one module, or several linked by name.
  void* register_library_ptx(std::vector<std::string> texts, std::string name);
  bool is_library(void* module);
  // For a fatbinary image with no PTX the simulated GPU can run, lying in a
  // loaded ELF object (the program, a shared library) that has a
  // __nv_relfatbin section: the PTX of that object's relocatable device code
  // (a -rdc=true program's device link is machine code only; its objects'
  // PTX is what softgpu links and runs). Else nothing. last_object() names
  // the object of the last such answer.
  std::optional<std::vector<std::string>> relocatable_ptx(const void* image, const std::vector<uint64_t>& bytes);
  const std::string& last_object() const { return last_object_; }  // registered by one of the two above, not yet unloaded

  // ---- lookups by name (libraries): load the module first.
  // SymbolNotFound (NotFound) when the module defines no such kernel / variable.
  Status kernel_by_name(void* module, const std::string& name, Kernel** out);
  Status variable_by_name(void* module, const std::string& name, exec::VariableInfo* out);

  // ---- lookups
  // `kernel` is either a handle (a Kernel*) or a host stub address.
  Status resolve_kernel(const void* kernel, Kernel** out);
  // Loads the symbol's module; its address and size.
  Status resolve_symbol(const void* symbol, exec::VariableInfo* out);
  // Loads the kernel's module, reporting a failure once per kernel.
  Status use_kernel_module(Kernel& k);
  // Registers per thread from the program's machine code; 0 when unknown.
  uint32_t kernel_registers(const Kernel& k) const;

  // Unloads every program (cudaDeviceReset, destruction); modules reload on next use.
  void unload_all();

  // "softgpu: ..." on stderr, after the program's own output.
  static void report(const std::string& msg);
  // "'vadd(float const*, int)' (_Z4vaddPKfi)" for a mangled name.
  static std::string describe_kernel(const std::string& name);

 private:
  Module* find_module(void* handle);
  Status load_module(Module& m);
  // load_module, reporting a failure once per user ("cannot run kernel 'k'").
  Status use_module(Module& m, const std::string& what, bool& reported);

  const config::GpuConfig& gpu_;
  std::string last_object_;
  exec::DeviceMemory* memory_;
  std::deque<std::unique_ptr<Module>> modules_;
  std::unordered_map<const void*, std::unique_ptr<Kernel>> kernels_;  // by host stub
  std::set<const Kernel*> kernel_handles_;
  std::unordered_map<const void*, Variable*> variables_;  // by host shadow
};

}  // namespace softgpu::runtime
