// Libraries loaded at run time (runtime/module_registry.h): images the
// program hands over (cudaLibraryLoadData, the driver API's cuModuleLoadData),
// and lookups of their kernels and variables by name.
#include <dlfcn.h>

#include <fmt/core.h>

#include "common/read_file.h"
#include "fatbin/cubin.h"
#include "fatbin/fatbin.h"
#include "runtime/module_registry.h"

namespace softgpu::runtime {

void* ModuleRegistry::register_library_fatbin(std::vector<uint64_t> image, std::string name) {
  auto m = std::make_unique<Module>();
  m->image = std::move(image);
  m->own_wrapper.magic = fatbin::kWrapperMagic;
  m->own_wrapper.version = 1;
  m->own_wrapper.data = m->image.data();
  m->wrapper = &m->own_wrapper;
  m->name = std::move(name);
  m->library = true;
  void* h = m.get();
  modules_.push_back(std::move(m));
  return h;
}

void* ModuleRegistry::register_library_ptx(std::vector<std::string> texts, std::string name) {
  void* h = register_ptx(std::move(texts), std::move(name));
  find_module(h)->library = true;
  return h;
}

std::optional<std::vector<std::string>> ModuleRegistry::relocatable_ptx(const void* image,
                                                                        const std::vector<uint64_t>& bytes) {
  const uint32_t cc = gpu_.cc_major * 10 + gpu_.cc_minor;
  auto c = fatbin::read_container(std::as_bytes(std::span(bytes)));
  if (!c || c.value().ptx_for(cc) || c.value().newer_ptx_beside_sass(cc)) return std::nullopt;
  Dl_info info{};
  if (!dladdr(image, &info) || !info.dli_fname) return std::nullopt;
  // The program itself is named "" by the dynamic linker.
  std::string path = *info.dli_fname ? info.dli_fname : "/proc/self/exe";
  auto file = read_regular_file(path, fatbin::kMaxContainerSize);
  if (!file) return std::nullopt;
  auto sections = fatbin::elf_sections(std::as_bytes(std::span(file.value())), "__nv_relfatbin");
  if (!sections || sections.value().empty()) return std::nullopt;
  std::vector<std::string> texts;
  for (auto section : sections.value()) {
    auto containers = fatbin::read_section(section);
    if (!containers) return std::nullopt;
    for (const auto& rc : containers.value()) {
      const fatbin::PtxEntry* e = rc.ptx_for(cc);
      if (!e) return std::nullopt;
      texts.push_back(e->text);
    }
  }
  if (texts.empty()) return std::nullopt;
  last_object_ = path;
  return texts;
}

bool ModuleRegistry::is_library(void* module) {
  Module* m = find_module(module);
  return m && m->library;
}

Status ModuleRegistry::kernel_by_name(void* module, const std::string& name, Kernel** out) {
  Module* m = find_module(module);
  if (!m) return Status::InvalidResourceHandle;
  if (Status s = use_module(*m, "cannot load " + m->name, m->load_reported); s != Status::Success) return s;
  if (auto it = m->by_name.find(name); it != m->by_name.end()) {
    *out = it->second;
    return Status::Success;
  }
  if (!exec::find_kernel(*m->program, name)) return Status::NotFound;
  // The handle doubles as its own "host stub" key: no host function exists.
  auto k = std::make_unique<Kernel>();
  k->module = m;
  k->name = name;
  k->host_fun = k.get();
  Kernel* raw = k.get();
  kernel_handles_.insert(raw);
  kernels_[raw] = std::move(k);
  m->by_name[name] = raw;
  *out = raw;
  return Status::Success;
}

Status ModuleRegistry::variable_by_name(void* module, const std::string& name, exec::VariableInfo* out) {
  Module* m = find_module(module);
  if (!m) return Status::InvalidResourceHandle;
  if (Status s = use_module(*m, "cannot load " + m->name, m->load_reported); s != Status::Success) return s;
  auto info = exec::find_variable(*m->program, name);
  if (!info) return Status::NotFound;
  *out = *info;
  return Status::Success;
}

}  // namespace softgpu::runtime
