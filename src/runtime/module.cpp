// Kernel entry points of the facade: registration (forwarded to the
// ModuleRegistry, module_registry.h), call configurations, launches,
// function attributes and occupancy.
#include <algorithm>
#include <cstring>

#include <fmt/core.h>

#include "config/occupancy.h"
#include "runtime/memory_manager.h"
#include "runtime/module_registry.h"
#include "runtime/graph.h"
#include "runtime/runtime_internal.h"

namespace softgpu::runtime {

namespace {
void report(const std::string& msg) { ModuleRegistry::report(msg); }
}  // namespace

// ---------------------------------------------------------------- registration

void* Runtime::register_fatbin(const void* wrapper) {
  std::lock_guard lock(mu_);
  return modules_->register_fatbin(wrapper);
}

void* Runtime::register_ptx(std::vector<std::string> texts, std::string name) {
  std::lock_guard lock(mu_);
  return modules_->register_ptx(std::move(texts), std::move(name));
}

void Runtime::unregister_module(void* module) {
  std::lock_guard lock(mu_);
  modules_->unregister_module(module);
}

void Runtime::register_function(void* module, const void* host_fun, const char* device_name) {
  std::lock_guard lock(mu_);
  modules_->register_function(module, host_fun, device_name);
}

void Runtime::register_var(void* module, const void* host_var, const char* device_name, size_t size,
                           bool constant) {
  std::lock_guard lock(mu_);
  modules_->register_var(module, host_var, device_name, size, constant);
}

void Runtime::register_managed_var(void* module, void** host_ptr_slot, const char* device_name, size_t size) {
  std::lock_guard lock(mu_);
  modules_->register_managed_var(module, host_ptr_slot, device_name, size);
}

Status Runtime::init_module(void* module) {
  SOFTGPU_API_BEGIN(false);
  return finish(modules_->init_module(module));
}

Status Runtime::resolve_kernel(const void* kernel, Kernel** out) { return modules_->resolve_kernel(kernel, out); }
Status Runtime::resolve_symbol(const void* symbol, exec::VariableInfo* out) {
  return modules_->resolve_symbol(symbol, out);
}
Status Runtime::use_kernel_module(Kernel& k) { return modules_->use_kernel_module(k); }
uint32_t Runtime::kernel_registers(const Kernel& k) const { return modules_->kernel_registers(k); }

// ---------------------------------------------------------------- kernels

void Runtime::push_call_config(const CallConfig& c) {
  std::lock_guard lock(mu_);
  this_thread().call_stack.push_back(c);
}

Status Runtime::pop_call_config(CallConfig* out) {
  std::lock_guard lock(mu_);
  ThreadState& t = this_thread();
  if (t.call_stack.empty() || !out) {
    drop_if_empty();
    return Status::InvalidValue;
  }
  *out = t.call_stack.back();
  t.call_stack.pop_back();
  drop_if_empty();
  return Status::Success;
}

Status Runtime::get_kernel(void** handle, const void* host_fun) {
  SOFTGPU_API_BEGIN(false);
  if (!handle) return finish(Status::InvalidValue);
  Kernel* k = nullptr;
  if (Status s = resolve_kernel(host_fun, &k); s != Status::Success) return finish(s);
  *handle = k;
  return Status::Success;
}

Status Runtime::func_name(const char** name, const void* host_fun) {
  SOFTGPU_API_BEGIN(false);
  if (!name) return finish(Status::InvalidValue);
  Kernel* k = nullptr;
  if (Status s = resolve_kernel(host_fun, &k); s != Status::Success) return finish(s);
  *name = k->name.c_str();  // lives as long as the kernel's module
  return Status::Success;
}

namespace {
// Resident blocks per SM (config/occupancy.h), with the registers ptxas
// allocated when the program carries machine code (0: not limited by them).
int blocks_per_sm(const config::GpuConfig& g, const exec::KernelInfo& info, uint32_t regs, uint64_t block,
                  uint64_t dyn) {
  return static_cast<int>(config::occupancy(g, {block, regs, info.static_shared_bytes + dyn}).blocks_per_sm);
}
}  // namespace

Status Runtime::launch(const void* kernel, Dim3 grid, Dim3 block, void** args, size_t shared_bytes, void* stream,
                       bool cooperative, Dim3 cluster) {
  SOFTGPU_API_BEGIN(true);
  Kernel* k = nullptr;
  if (Status s = resolve_kernel(kernel, &k); s != Status::Success) return finish(s);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (auto c = graphs_->capture_launch(kernel, grid, block, args, shared_bytes, stream)) return finish(*c);  // graph.cpp
  if (Status s = use_kernel_module(*k); s != Status::Success) return finish(s);
  const exec::KernelInfo* info = exec::find_kernel(*k->module->program, k->name);
  if (!info) {
    report(fmt::format("softgpu: kernel '{}' is registered by the program but not defined in its PTX", k->name));
    return finish(Status::InvalidDeviceFunction);
  }
  // It reaches an instruction softgpu does not implement: this kernel cannot
  // run, the module's others can. Not sticky, like a refused launch.
  if (!info->not_implemented.empty()) {
    report("softgpu: " + info->not_implemented);
    return finish(Status::NotSupported);
  }

  const config::GpuConfig& g = gpu_;
  if (grid.count() == 0 || block.count() == 0 || block.x > g.max_block_dim_x || block.y > g.max_block_dim_y ||
      block.z > g.max_block_dim_z || block.count() > g.max_threads_per_block || grid.x > g.max_grid_dim_x ||
      grid.y > g.max_grid_dim_y || grid.z > g.max_grid_dim_z)
    // CUDA 13 returns cudaErrorInvalidValue (not InvalidConfiguration) for
    // every bad launch shape: measured on an H200 (tests/cuda/misuse.cu).
    return finish(Status::InvalidValue);
  // More threads than __launch_bounds__/.maxntid allows: the kernel was
  // compiled for fewer. CUDA_ERROR_INVALID_VALUE, as numba-cuda's own
  // TestLaunchBounds (run by its maintainers on GPUs) expects of the driver.
  if (info->max_threads_per_block && block.count() > info->max_threads_per_block)
    return finish(Status::InvalidValue);
  uint64_t max_dyn = k->max_dynamic_shared
      ? static_cast<uint64_t>(*k->max_dynamic_shared)
      : (g.shared_memory_per_block > info->static_shared_bytes ? g.shared_memory_per_block - info->static_shared_bytes
                                                               : 0);
  if (shared_bytes > max_dyn || info->static_shared_bytes > std::max(g.shared_memory_per_block_optin,
                                                                     g.shared_memory_per_block))
    return finish(Status::InvalidValue);

  exec::LaunchConfig cfg;
  cfg.grid = grid;
  cfg.block = block;
  cfg.dynamic_shared_bytes = static_cast<uint32_t>(shared_bytes);
  cfg.cooperative = cooperative;
  // Clusters: whole clusters only, at most the chip's portable maximum. A
  // kernel compiled with __cluster_dims__ brings its own shape.
  if (cluster == Dim3{} && !(info->required_cluster == Dim3{})) cluster = info->required_cluster;
  if (!(cluster == Dim3{})) {
    if (g.max_cluster_size == 0) return finish(Status::NotSupported);
    if (cluster.count() == 0 || cluster.count() > g.max_cluster_size || grid.x % cluster.x ||
        grid.y % cluster.y || grid.z % cluster.z)
      return finish(Status::InvalidClusterSize);
    cfg.cluster = cluster;
    cfg.explicit_cluster = true;
  }
  cfg.params.resize(info->param_bytes);
  if (!info->params.empty() && !args) return finish(Status::InvalidValue);
  for (size_t i = 0; i < info->params.size(); ++i) {
    const exec::KernelParam& p = info->params[i];
    if (!args[i] || uint64_t(p.offset) + p.size > cfg.params.size()) return finish(Status::InvalidValue);
    std::memcpy(cfg.params.data() + p.offset, args[i], p.size);
  }
  // CTAs the modelled GPU holds at once, by the occupancy limits.
  const uint64_t resident =
      uint64_t(blocks_per_sm(g, *info, kernel_registers(*k), block.count(), shared_bytes)) * g.sm_count;
  if (cooperative && grid.count() > resident) return finish(Status::CooperativeLaunchTooLarge);
  exec::ExecOptions eo = exec_options();
  eo.resident_ctas = std::max<uint64_t>(resident, 1);
  if (auto it = limits_.find(Limit::MallocHeapSize); it != limits_.end()) eo.malloc_heap_bytes = it->second;

  // Queued behind a kernel that faulted: the launch succeeds and the kernel
  // never runs (the fault ended the context; the next synchronizing call says so).
  if (fault_pending()) return Status::Success;
  if (exec::calls_printf(*k->module->program)) printf_launched_ = true;
  if (timing_)
    eo.listener = timing_->begin_launch(
        {k->name, grid, block, kernel_registers(*k), uint64_t(info->static_shared_bytes) + shared_bytes},
        stream_ref(stream));
  if (sanitizer_) eo.listener = sanitizer_.get();
  exec::LaunchResult r;
  try {
    r = exec::launch(*k->module->program, k->name, cfg, mem_->device(), eo);
    if (timing_) timing_->end_launch();
  } catch (const std::exception& e) {
    if (timing_) timing_->end_launch();
    report(fmt::format("softgpu: kernel '{}' failed inside the simulator: {}", k->name, e.what()));
    pending_ = Status::LaunchFailure;
    return Status::Success;
  }
  if (sanitizer_ && sanitizer_->take_launch_failure() && !r.fault) {
    // The sanitizer reported accesses a GPU would have stopped the kernel
    // for (and suppressed them): the launch fails as it would there.
    pending_ = Status::LaunchFailure;
    return Status::Success;
  }
  if (r.fault) {
    // Like hardware: the launch itself succeeds; the fault surfaces at the
    // next synchronizing call and stays until cudaDeviceReset.
    report(r.fault->message);
    Status s = r.fault->status != Status::Success ? r.fault->status : r.status;
    pending_ = s != Status::Success ? s : Status::LaunchFailure;
    return Status::Success;
  }
  if (r.status != Status::Success) {
    report(r.error.empty() ? fmt::format("softgpu: launch of kernel '{}' failed: {}", k->name, status_name(r.status))
                           : "softgpu: " + r.error);
    return finish(r.status);
  }
  return Status::Success;
}

Status Runtime::func_attributes(FuncAttributes* out, const void* kernel) {
  SOFTGPU_API_BEGIN(true);
  if (!out) return finish(Status::InvalidValue);
  Kernel* k = nullptr;
  if (Status s = resolve_kernel(kernel, &k); s != Status::Success) return finish(s);
  if (Status s = use_kernel_module(*k); s != Status::Success) return finish(s);
  const exec::KernelInfo* info = exec::find_kernel(*k->module->program, k->name);
  if (!info) return finish(Status::InvalidDeviceFunction);
  const config::GpuConfig& g = gpu_;
  *out = FuncAttributes{};
  out->shared_bytes = info->static_shared_bytes;
  out->local_bytes = info->local_bytes;
  out->const_bytes = exec::const_bytes(*k->module->program);
  out->max_threads_per_block = static_cast<int>(
      info->max_threads_per_block ? std::min(info->max_threads_per_block, g.max_threads_per_block)
                                  : g.max_threads_per_block);
  // ptxas's count from the machine code; without machine code, the PTX's
  // declared registers (an upper bound) capped at the per-thread limit.
  const uint32_t sass = kernel_registers(*k);
  out->num_regs = static_cast<int>(sass ? sass : std::min(info->num_regs, g.max_registers_per_thread));
  // cudaFuncAttributes::ptxVersion is the virtual architecture the PTX was
  // compiled for (.target sm_80 -> 80), not the PTX ISA version; CUB selects
  // its tuning policy by matching it against __CUDA_ARCH_LIST__.
  out->ptx_version = static_cast<int>(info->sm_target ? info->sm_target : g.cc_major * 10 + g.cc_minor);
  out->binary_version = static_cast<int>(g.cc_major * 10 + g.cc_minor);
  uint64_t def = g.shared_memory_per_block > info->static_shared_bytes
                     ? g.shared_memory_per_block - info->static_shared_bytes : 0;
  out->max_dynamic_shared_bytes = k->max_dynamic_shared ? *k->max_dynamic_shared : static_cast<int>(def);
  out->preferred_carveout = k->preferred_carveout;
  return Status::Success;
}

Status Runtime::func_set_attribute(const void* kernel, FuncAttribute attr, int value) {
  SOFTGPU_API_BEGIN(true);
  Kernel* k = nullptr;
  if (Status s = resolve_kernel(kernel, &k); s != Status::Success) return finish(s);
  switch (static_cast<int>(attr)) {
    case static_cast<int>(FuncAttribute::MaxDynamicSharedMemorySize): {
      if (Status s = use_kernel_module(*k); s != Status::Success) return finish(s);
      const exec::KernelInfo* info = exec::find_kernel(*k->module->program, k->name);
      if (!info) return finish(Status::InvalidDeviceFunction);
      uint64_t limit = std::max(gpu_.shared_memory_per_block_optin, gpu_.shared_memory_per_block);
      if (value < 0 || uint64_t(value) + info->static_shared_bytes > limit) return finish(Status::InvalidValue);
      k->max_dynamic_shared = value;
      return Status::Success;
    }
    case static_cast<int>(FuncAttribute::PreferredSharedMemoryCarveout):
      if (value < -1 || value > 100) return finish(Status::InvalidValue);
      k->preferred_carveout = value;
      return Status::Success;
    case 10: case 11: case 12: case 13: case 14: case 15:
      return Status::Success;  // cluster attributes: accepted, clusters are not constrained here
    default:
      return finish(Status::InvalidValue);
  }
}

Status Runtime::func_check(const void* kernel) {
  SOFTGPU_API_BEGIN(true);
  Kernel* k = nullptr;
  return finish(resolve_kernel(kernel, &k));
}

Status Runtime::occupancy_blocks_per_sm(int* out, const void* kernel, int block_size, size_t dynamic_shared) {
  SOFTGPU_API_BEGIN(true);
  if (!out || block_size <= 0) return finish(Status::InvalidValue);
  Kernel* k = nullptr;
  if (Status s = resolve_kernel(kernel, &k); s != Status::Success) return finish(s);
  if (Status s = use_kernel_module(*k); s != Status::Success) return finish(s);
  const exec::KernelInfo* info = exec::find_kernel(*k->module->program, k->name);
  if (!info) return finish(Status::InvalidDeviceFunction);
  *out = blocks_per_sm(gpu_, *info, kernel_registers(*k), static_cast<uint64_t>(block_size), dynamic_shared);
  return Status::Success;
}

// The most dynamic shared memory a block may ask for with `num_blocks`
// blocks still resident per SM, by the occupancy rules the launch uses
// (0 when that many never fit), at most the opt-in limit less the static
// shared memory.
Status Runtime::occupancy_available_dynamic_smem(size_t* out, const void* kernel, int num_blocks, int block_size) {
  SOFTGPU_API_BEGIN(true);
  if (!out || block_size <= 0 || num_blocks <= 0) return finish(Status::InvalidValue);
  Kernel* k = nullptr;
  if (Status s = resolve_kernel(kernel, &k); s != Status::Success) return finish(s);
  if (Status s = use_kernel_module(*k); s != Status::Success) return finish(s);
  const exec::KernelInfo* info = exec::find_kernel(*k->module->program, k->name);
  if (!info) return finish(Status::InvalidDeviceFunction);
  const uint64_t cap = std::max<uint64_t>(gpu_.shared_memory_per_block_optin, gpu_.shared_memory_per_block);
  const uint64_t limit = cap > info->static_shared_bytes ? cap - info->static_shared_bytes : 0;
  const auto fits = [&](uint64_t dyn) {
    return blocks_per_sm(gpu_, *info, kernel_registers(*k), static_cast<uint64_t>(block_size), dyn) >= num_blocks;
  };
  if (!fits(0)) {
    *out = 0;
    return Status::Success;
  }
  uint64_t lo = 0, hi = limit;  // fits(lo); the answer is in [lo, hi]
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  *out = static_cast<size_t>(lo);
  return Status::Success;
}

}  // namespace softgpu::runtime
