// Module, kernel and variable registries and program loading (runtime/module_registry.h).
#include "runtime/module_registry.h"

#include "common/demangle.h"

#include <fstream>
#include <mutex>
#include <set>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <fmt/core.h>

#include "fatbin/fatbin.h"
#include "ptx/parser.h"

namespace softgpu::runtime {

namespace {
constexpr Status kInvalidKernelImage = static_cast<Status>(200);  // cudaErrorInvalidKernelImage

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

void ModuleRegistry::report(const std::string& msg) {
  std::fflush(stdout);  // keep the program's own output ahead of our message
  std::cerr << msg;
  if (msg.empty() || msg.back() != '\n') std::cerr << '\n';
  std::cerr.flush();
}

std::string ModuleRegistry::describe_kernel(const std::string& name) {
  std::string pretty = demangle(name);
  return pretty == name ? fmt::format("'{}'", name) : fmt::format("'{}' ({})", pretty, name);
}

// ---------------------------------------------------------------- registration

void* ModuleRegistry::register_fatbin(const void* wrapper) {
  auto m = std::make_unique<Module>();
  m->wrapper = wrapper;
  m->name = fmt::format("fatbin {}", wrapper);
  void* h = m.get();
  modules_.push_back(std::move(m));
  return h;
}

void* ModuleRegistry::register_ptx(std::vector<std::string> texts, std::string name) {
  auto m = std::make_unique<Module>();
  m->ptx_texts = std::move(texts);
  m->name = std::move(name);
  void* h = m.get();
  modules_.push_back(std::move(m));
  return h;
}

ModuleRegistry::Module* ModuleRegistry::find_module(void* h) {
  for (auto& m : modules_)
    if (m.get() == h) return m.get();
  return nullptr;
}

void ModuleRegistry::unregister_module(void* module) {
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
  if (m->program && memory_) exec::unload_program(*m->program, *memory_);
  std::erase_if(modules_, [&](const auto& p) { return p.get() == m; });
}

void ModuleRegistry::register_function(void* module, const void* host_fun, const char* device_name) {
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

void ModuleRegistry::register_var(void* module, const void* host_var, const char* device_name, size_t size,
                           bool constant) {
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

void ModuleRegistry::register_managed_var(void* module, void** host_ptr_slot, const char* device_name, size_t size) {
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

Status ModuleRegistry::init_module(void* module) {
  Module* m = find_module(module);
  if (!m) return Status::InvalidResourceHandle;
  return use_module(*m, "cannot load " + m->name, m->load_reported);
}

Status ModuleRegistry::use_module(Module& m, const std::string& what, bool& reported) {
  Status s = load_module(m);
  if (s != Status::Success && !reported) {
    report(fmt::format("softgpu: {}: {}", what, m.load_message));
    reported = true;
  }
  return s;
}

// ---------------------------------------------------------------- loading

Status ModuleRegistry::load_module(Module& m) {
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
  ptx::ParseOptions parse_options;
  if (m.wrapper) {
    auto img = fatbin::read_wrapper(m.wrapper);
    if (!img) {
      if (img.error().status == Status::NoKernelImageForDevice) return fail(img.error().status, img.error().message);
      return fail(kInvalidKernelImage, std::string(m.library ? "the fatbinary image is corrupt: "
                                                               : "the program's embedded fatbinary is corrupt: ") +
                                            img.error().message);
    }
    uint32_t cc = gpu_.cc_major * 10 + gpu_.cc_minor;
    collect_registers(*img, cc, m.sass_registers);
    std::vector<const fatbin::Container*> containers;
    for (const auto& c : img->prelinked) containers.push_back(&c);
    if (containers.empty()) containers.push_back(&img->main);
    for (const fatbin::Container* c : containers) {
      const fatbin::PtxEntry* e = c->ptx_for(cc);
      if (!e && (e = c->newer_ptx_beside_sass(cc))) {
        // The device runs the machine code; softgpu runs the PTX beside it,
        // the same source compiled for a newer GPU (code under
        // __CUDA_ARCH__ takes that GPU's branches). Said once per pair.
        static std::mutex mu;
        static std::set<std::pair<uint32_t, uint32_t>> said;
        std::lock_guard lock(mu);
        if (said.insert({e->arch, cc}).second)
          report(fmt::format("softgpu: note: a fatbinary ({}) has machine code for the simulated {} but PTX only "
                             "for compute_{}; running that PTX in its place",
                             m.name, gpu_.name, e->arch));
        // From a newer toolkit too, perhaps: its .version is read as long as
        // its instructions are ones softgpu knows.
        parse_options.accept_newer_version = true;
      }
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
      auto r = ptx::parse(texts[i], names[i], parse_options);
      // As the driver's JIT: a .version newer than it reads is its own error.
      if (!r.module || ptx::has_errors(r.diagnostics))
        return fail(r.unsupported_version ? Status::UnsupportedPtxVersion : Status::InvalidPtx,
                    "cannot parse the program's PTX:\n" + ptx::render(r.diagnostics, texts[i]));
      modules.push_back(std::move(*r.module));
    }
    auto lr = exec::load_program(std::move(modules), *memory_);
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

void ModuleRegistry::unload_all() {
  for (auto& m : modules_) {
    if (m->program) {
      for (auto& v : m->variables)
        if (v->managed_slot && *v->managed_slot) variables_.erase(*v->managed_slot);
      exec::unload_program(*m->program, *memory_);
    }
    m->program.reset();
    m->load_attempted = false;  // reload on next use, as a fresh context would
    m->load_status = Status::Success;
  }
}

Status ModuleRegistry::resolve_kernel(const void* kernel, Kernel** out) {
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

Status ModuleRegistry::resolve_symbol(const void* symbol, exec::VariableInfo* out) {
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

Status ModuleRegistry::use_kernel_module(Kernel& k) {
  return use_module(*k.module, "cannot run kernel " + describe_kernel(k.name), k.load_reported);
}

uint32_t ModuleRegistry::kernel_registers(const Kernel& k) const {
  if (!k.module) return 0;
  auto it = k.module->sass_registers.find(k.name);
  return it == k.module->sass_registers.end() ? 0 : it->second;
}

}  // namespace softgpu::runtime
