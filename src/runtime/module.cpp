// Module, kernel and variable registries; kernel launch.
#include <cxxabi.h>

#include <fstream>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <fmt/core.h>

#include "config/occupancy.h"
#include "fatbin/fatbin.h"
#include "ptx/parser.h"
#include "runtime/memory_manager.h"
#include "runtime/runtime_internal.h"

namespace softgpu::runtime {

namespace {
constexpr Status kInvalidKernelImage = static_cast<Status>(200);  // cudaErrorInvalidKernelImage

void report(const std::string& msg) {
  std::fflush(stdout);  // keep the program's own output ahead of our message
  std::cerr << msg;
  if (msg.empty() || msg.back() != '\n') std::cerr << '\n';
  std::cerr.flush();
}

// The PTX entry with the highest arch the device can run (arch <= cc).
const fatbin::PtxEntry* pick_ptx(const fatbin::Container& c, uint32_t cc) {
  const fatbin::PtxEntry* best = nullptr;
  for (const auto& e : c.ptx)
    if (e.arch <= cc && (!best || e.arch > best->arch)) best = &e;
  return best;
}

// "vadd(float const*, int)" for "_Z4vaddPKfi"; the name itself if it is not mangled.
std::string demangle(const std::string& name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

std::string describe_kernel(const std::string& name) {
  std::string pretty = demangle(name);
  return pretty == name ? fmt::format("'{}'", name) : fmt::format("'{}' ({})", pretty, name);
}

// Each kernel's register count from the machine code of the highest arch the
// device could run (arch <= cc), else of the lowest arch present.
void collect_registers(const fatbin::FatbinImage& img, uint32_t cc, std::unordered_map<std::string, uint32_t>& out) {
  std::unordered_map<std::string, uint32_t> arch_of;
  auto better = [&](uint32_t have, uint32_t cand) {
    if (cand <= cc) return have > cc || cand > have;
    return have > cc && cand < have;
  };
  auto take = [&](const fatbin::Container& c) {
    for (const auto& e : c.elf)
      for (const auto& k : e.kernels) {
        auto it = arch_of.find(k.name);
        if (it == arch_of.end() || better(it->second, e.arch)) {
          arch_of[k.name] = e.arch;
          out[k.name] = k.registers;
        }
      }
  };
  take(img.main);
  for (const auto& c : img.prelinked) take(c);
}

std::string arch_list(const fatbin::Container& c) {
  std::string s;
  for (const auto& e : c.ptx) s += fmt::format("{}compute_{}", s.empty() ? "" : ", ", e.arch);
  for (const auto& e : c.elf) s += fmt::format("{}sm_{} (machine code only)", s.empty() ? "" : ", ", e.arch);
  return s.empty() ? "nothing" : s;
}
}  // namespace

// ---------------------------------------------------------------- registration

void* Runtime::register_fatbin(const void* wrapper) {
  std::lock_guard lock(mu_);
  auto m = std::make_unique<Module>();
  m->wrapper = wrapper;
  m->name = fmt::format("fatbin {}", wrapper);
  void* h = m.get();
  modules_.push_back(std::move(m));
  return h;
}

void* Runtime::register_ptx(std::vector<std::string> texts, std::string name) {
  std::lock_guard lock(mu_);
  auto m = std::make_unique<Module>();
  m->ptx_texts = std::move(texts);
  m->name = std::move(name);
  void* h = m.get();
  modules_.push_back(std::move(m));
  return h;
}

Runtime::Module* Runtime::find_module(void* h) {
  for (auto& m : modules_)
    if (m.get() == h) return m.get();
  return nullptr;
}

void Runtime::unregister_module(void* module) {
  std::lock_guard lock(mu_);
  Module* m = find_module(module);
  if (!m) return;
  for (auto it = kernels_.begin(); it != kernels_.end();) {
    if (it->second->module == m) {
      kernel_handles_.erase(it->second.get());
      it = kernels_.erase(it);
    } else {
      ++it;
    }
  }
  std::erase_if(variables_, [&](const auto& kv) { return kv.second->module == m; });
  if (m->program && mem_) exec::unload_program(*m->program, mem_->device());
  std::erase_if(modules_, [&](const auto& p) { return p.get() == m; });
}

void Runtime::register_function(void* module, const void* host_fun, const char* device_name) {
  std::lock_guard lock(mu_);
  Module* m = find_module(module);
  if (!m || !host_fun || !device_name) return;
  if (auto it = kernels_.find(host_fun); it != kernels_.end()) kernel_handles_.erase(it->second.get());
  auto k = std::make_unique<Kernel>();
  k->module = m;
  k->name = device_name;
  k->host_fun = host_fun;
  kernel_handles_.insert(k.get());
  kernels_[host_fun] = std::move(k);
}

void Runtime::register_var(void* module, const void* host_var, const char* device_name, size_t size,
                           bool constant) {
  std::lock_guard lock(mu_);
  Module* m = find_module(module);
  if (!m || !host_var || !device_name) return;
  auto v = std::make_unique<Variable>();
  v->module = m;
  v->name = device_name;
  v->host_size = size;
  v->constant = constant;
  variables_[host_var] = v.get();
  m->variables.push_back(std::move(v));
}

void Runtime::register_managed_var(void* module, void** host_ptr_slot, const char* device_name, size_t size) {
  std::lock_guard lock(mu_);
  Module* m = find_module(module);
  if (!m || !host_ptr_slot || !device_name) return;
  auto v = std::make_unique<Variable>();
  v->module = m;
  v->name = device_name;
  v->host_size = size;
  v->managed_slot = host_ptr_slot;
  variables_[host_ptr_slot] = v.get();
  m->variables.push_back(std::move(v));
}

Status Runtime::init_module(void* module) {
  SOFTGPU_API_BEGIN(false);
  Module* m = find_module(module);
  if (!m) return finish(Status::InvalidResourceHandle);
  return finish(use_module(*m, "cannot load " + m->name, m->load_reported));
}

Status Runtime::use_module(Module& m, const std::string& what, bool& reported) {
  Status s = load_module(m);
  if (s != Status::Success && !reported) {
    report(fmt::format("softgpu: {}: {}", what, m.load_message));
    reported = true;
  }
  return s;
}

// ---------------------------------------------------------------- loading

Status Runtime::load_module(Module& m) {
  if (m.program) return Status::Success;
  if (m.load_attempted) return m.load_status;  // failed before
  m.load_attempted = true;
  // The callers report the message, naming what needed the module (a
  // kernel, a variable): a fatbinary nobody uses may be bad harmlessly.
  auto fail = [&](Status s, const std::string& msg) {
    m.load_message = msg;
    m.load_status = s;
    return s;
  };

  std::vector<std::string> texts;
  std::vector<std::string> names;
  if (m.wrapper) {
    auto img = fatbin::read_wrapper(m.wrapper);
    if (!img) {
      if (img.error().status == Status::NoKernelImageForDevice) return fail(img.error().status, img.error().message);
      return fail(kInvalidKernelImage, "the program's embedded fatbinary is corrupt: " + img.error().message);
    }
    uint32_t cc = gpu_.cc_major * 10 + gpu_.cc_minor;
    collect_registers(*img, cc, m.sass_registers);
    std::vector<const fatbin::Container*> containers;
    for (const auto& c : img->prelinked) containers.push_back(&c);
    if (containers.empty()) containers.push_back(&img->main);
    for (const fatbin::Container* c : containers) {
      const fatbin::PtxEntry* e = pick_ptx(*c, cc);
      if (!e) {
        std::string hint = c->ptx.empty()
            ? "it holds no PTX; rebuild with PTX embedded, e.g. -gencode arch=compute_80,code=[sm_80,compute_80]"
            : fmt::format("all its PTX targets a newer GPU than the simulated {} (compute capability {}.{}); "
                          "choose another with --gpu or rebuild for a lower compute_XX",
                          gpu_.name, gpu_.cc_major, gpu_.cc_minor);
        return fail(Status::NoKernelImageForDevice,
                    fmt::format("no usable kernel image: the fatbinary contains {}; {}", arch_list(*c), hint));
      }
      names.push_back(fmt::format("module{}.compute_{}.ptx", texts.size(), e->arch));
      texts.push_back(e->text);
    }
  } else {
    texts = m.ptx_texts;
    for (size_t i = 0; i < texts.size(); ++i)
      names.push_back(texts.size() == 1 ? m.name : fmt::format("{}#{}", m.name, i));
  }

  std::vector<ptx::Module> modules;
  try {
    for (size_t i = 0; i < texts.size(); ++i) {
      if (const char* d = std::getenv("SOFTGPU_DUMP_PTX"); d && *d) {
        std::ofstream(fmt::format("{}/{}", d, names[i])) << texts[i];
      }
      auto r = ptx::parse(texts[i], names[i]);
      if (!r.module || ptx::has_errors(r.diagnostics))
        return fail(Status::InvalidPtx, "cannot parse the program's PTX:\n" +
                                            ptx::render(r.diagnostics, texts[i]));
      modules.push_back(std::move(*r.module));
    }
    auto lr = exec::load_program(std::move(modules), mem_->device());
    if (!lr.program) {
      std::string msg = "cannot load the program's PTX:\n";
      for (const auto& d : lr.diagnostics) {
        auto it = std::find(names.begin(), names.end(), d.filename);
        std::string_view src = it == names.end() ? std::string_view{} : texts[it - names.begin()];
        msg += ptx::render({d}, src);
      }
      return fail(Status::InvalidPtx, msg);
    }
    m.program = std::move(lr.program);
  } catch (const std::exception& e) {
    return fail(Status::InvalidPtx, std::string("loading PTX failed: ") + e.what());
  }

  // Managed variables: the host reads them through the pointer we store.
  for (auto& v : m.variables) {
    if (!v->managed_slot) continue;
    auto info = exec::find_variable(*m.program, v->name);
    if (!info) {
      report(fmt::format("softgpu: managed variable '{}' is not defined in the PTX", v->name));
      continue;
    }
    *v->managed_slot = exec::DeviceMemory::host_ptr(info->address);
    variables_[*v->managed_slot] = v.get();  // cudaMemcpyToSymbol(x) passes the managed address
  }
  m.load_status = Status::Success;
  return Status::Success;
}

void Runtime::unload_all() {
  for (auto& m : modules_) {
    if (m->program) {
      for (auto& v : m->variables)
        if (v->managed_slot && *v->managed_slot) variables_.erase(*v->managed_slot);
      exec::unload_program(*m->program, mem_->device());
    }
    m->program.reset();
    m->load_attempted = false;  // reload on next use, as a fresh context would
    m->load_status = Status::Success;
  }
}

Status Runtime::resolve_kernel(const void* kernel, Kernel** out) {
  auto* as_handle = static_cast<const Kernel*>(kernel);
  if (kernel_handles_.count(as_handle)) {
    *out = const_cast<Kernel*>(as_handle);
    return Status::Success;
  }
  auto it = kernels_.find(kernel);
  if (it == kernels_.end()) return Status::InvalidDeviceFunction;
  *out = it->second.get();
  return Status::Success;
}

Status Runtime::resolve_symbol(const void* symbol, exec::VariableInfo* out) {
  auto it = symbol ? variables_.find(symbol) : variables_.end();
  if (it == variables_.end()) return Status::InvalidSymbol;
  Variable& v = *it->second;
  if (Status s = use_module(*v.module, fmt::format("cannot use variable '{}'", v.name), v.load_reported);
      s != Status::Success)
    return s;
  auto info = exec::find_variable(*v.module->program, v.name);
  if (!info) {
    report(fmt::format("softgpu: variable '{}' is registered by the program but not defined in its PTX", v.name));
    return Status::InvalidSymbol;
  }
  *out = *info;
  return Status::Success;
}

// ---------------------------------------------------------------- kernels

Status Runtime::use_kernel_module(Kernel& k) {
  return use_module(*k.module, "cannot run kernel " + describe_kernel(k.name), k.load_reported);
}

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
  if (auto c = capture_launch(kernel, grid, block, args, shared_bytes, stream)) return finish(*c);  // graph.cpp
  if (Status s = use_kernel_module(*k); s != Status::Success) return finish(s);
  const exec::KernelInfo* info = exec::find_kernel(*k->module->program, k->name);
  if (!info) {
    report(fmt::format("softgpu: kernel '{}' is registered by the program but not defined in its PTX", k->name));
    return finish(Status::InvalidDeviceFunction);
  }

  const config::GpuConfig& g = gpu_;
  if (grid.count() == 0 || block.count() == 0 || block.x > g.max_block_dim_x || block.y > g.max_block_dim_y ||
      block.z > g.max_block_dim_z || block.count() > g.max_threads_per_block || grid.x > g.max_grid_dim_x ||
      grid.y > g.max_grid_dim_y || grid.z > g.max_grid_dim_z)
    // CUDA 13 returns cudaErrorInvalidValue (not InvalidConfiguration) for
    // every bad launch shape: measured on an H200 (tests/cuda/misuse.cu).
    return finish(Status::InvalidValue);
  // More threads than __launch_bounds__/.maxntid allows: the kernel was
  // compiled for fewer, as on hardware.
  if (info->max_threads_per_block && block.count() > info->max_threads_per_block)
    return finish(Status::LaunchOutOfResources);
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

  if (exec::calls_printf(*k->module->program)) printf_launched_ = true;
  exec::LaunchResult r;
  try {
    r = exec::launch(*k->module->program, k->name, cfg, mem_->device(), eo);
  } catch (const std::exception& e) {
    report(fmt::format("softgpu: kernel '{}' failed inside the simulator: {}", k->name, e.what()));
    sticky_ = Status::LaunchFailure;
    return Status::Success;
  }
  if (r.fault) {
    // Like hardware: the launch itself succeeds; the fault surfaces at the
    // next call and stays until cudaDeviceReset.
    report(r.fault->message);
    Status s = r.fault->status != Status::Success ? r.fault->status : r.status;
    sticky_ = s != Status::Success ? s : Status::LaunchFailure;
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

}  // namespace softgpu::runtime

namespace softgpu::runtime {

uint32_t Runtime::kernel_registers(const Kernel& k) const {
  if (!k.module) return 0;
  auto it = k.module->sass_registers.find(k.name);
  return it == k.module->sass_registers.end() ? 0 : it->second;
}

}  // namespace softgpu::runtime
