// Facade entry points for libraries loaded at run time and the queries the
// driver API (src/cudadrv) needs beyond cudart's: cudaLibrary*, parameter
// layout, cluster occupancy, address ranges, 16/32-bit memsets.
#include <algorithm>
#include <cstring>
#include <string_view>

#include <fmt/core.h>

#include "common/read_file.h"
#include "config/occupancy.h"
#include "fatbin/fatbin.h"
#include "runtime/memory_manager.h"
#include "runtime/graph.h"
#include "runtime/link.h"
#include "runtime/module_registry.h"
#include "runtime/runtime_internal.h"

namespace softgpu::runtime {

namespace {
constexpr Status kInvalidImage = static_cast<Status>(200);  // cudaErrorInvalidKernelImage

// A fatbinary container's bytes (16-byte header: magic, version, header
// size, payload size), bounded by what `limit` says may be read.
Status copy_container(const void* data, size_t limit, std::vector<uint64_t>* out) {
  if (limit < 16) return kInvalidImage;
  uint16_t header_size;
  uint64_t payload;
  std::memcpy(&header_size, static_cast<const std::byte*>(data) + 6, 2);
  std::memcpy(&payload, static_cast<const std::byte*>(data) + 8, 8);
  if (header_size < 16 || payload > fatbin::kMaxContainerSize || header_size + payload > limit) return kInvalidImage;
  size_t n = header_size + payload;
  out->assign((n + 7) / 8, 0);
  std::memcpy(out->data(), data, n);
  return Status::Success;
}

bool looks_like_ptx(std::string_view t) {
  return t.find(".version") != std::string_view::npos || t.find(".target") != std::string_view::npos;
}

// A fatbinary container found at `at`; a -rdc=true program's device-linked
// image (machine code only, as the static CUDA runtime loads it) becomes the
// PTX of the program's relocatable objects.
void* register_container(ModuleRegistry& reg, const void* at, std::vector<uint64_t> bytes, const std::string& name) {
  if (auto texts = reg.relocatable_ptx(at, bytes))
    return reg.register_library_ptx(std::move(*texts), name + " (relocatable PTX of " + reg.last_object() + ")");
  return reg.register_library_fatbin(std::move(bytes), name);
}

// Registers the image with the module registry, or says why it cannot be.
// `limit`: how many bytes of the image may be read.
Status register_image(ModuleRegistry& reg, const void* image, size_t limit, const std::string& name, void** out) {
  if (limit >= 4) {
    uint32_t magic;
    std::memcpy(&magic, image, 4);
    if (std::memcmp(image, "\x7f" "ELF", 4) == 0) {
      ModuleRegistry::report(fmt::format("softgpu: cannot load {}: it is a cubin (machine code only); softgpu runs "
                                         "PTX: load the PTX or a fatbinary that embeds it", name));
      return Status::NoKernelImageForDevice;
    }
    std::vector<uint64_t> bytes;
    if (magic == fatbin::kContainerMagic) {
      if (Status s = copy_container(image, limit, &bytes); s != Status::Success) return s;
      *out = register_container(reg, image, std::move(bytes), name);
      return Status::Success;
    }
    if (magic == fatbin::kWrapperMagic) {
      if (limit < 8 + 2 * sizeof(void*)) return kInvalidImage;
      const void* data;
      std::memcpy(&data, static_cast<const std::byte*>(image) + 8, sizeof(void*));
      size_t dlimit = fatbin::readable_bytes(data);
      if (Status s = copy_container(data, dlimit, &bytes); s != Status::Success) return s;
      *out = register_container(reg, data, std::move(bytes), name);
      return Status::Success;
    }
  }
  const char* text = static_cast<const char*>(image);
  size_t len = strnlen(text, limit);
  if (len < limit && is_linked_image(std::string_view(text, len))) {
    // cuLinkComplete's image (runtime/link.h): its PTX modules, linked by name.
    auto mods = read_linked_image(std::string_view(text, len));
    if (!mods) {
      ModuleRegistry::report(fmt::format("softgpu: cannot load {}: {}", name, mods.error().message));
      return kInvalidImage;
    }
    std::vector<std::string> texts;
    for (auto& m : mods.value()) texts.push_back(std::move(m.text));
    *out = reg.register_library_ptx(std::move(texts), name);
    return Status::Success;
  }
  if (len == limit || !looks_like_ptx(std::string_view(text, len))) return kInvalidImage;
  *out = reg.register_library_ptx({std::string(text, len)}, name);
  return Status::Success;
}
}  // namespace

Status Runtime::library_load(void** out, const void* image) {
  SOFTGPU_API_BEGIN(true);
  if (!out || !image) return finish(Status::InvalidValue);
  size_t limit = fatbin::readable_bytes(image);
  void* h = nullptr;
  std::string name = fmt::format("library image {}", image);
  if (Status s = register_image(*modules_, image, limit, name, &h); s != Status::Success) return finish(s);
  if (Status s = modules_->init_module(h); s != Status::Success) {
    modules_->unregister_module(h);
    return finish(s);
  }
  *out = h;
  return Status::Success;
}

Status Runtime::library_load_file(void** out, const char* path) {
  SOFTGPU_API_BEGIN(true);
  if (!out || !path) return finish(Status::InvalidValue);
  auto read = read_regular_file(path, kMaxSourceFileBytes);
  if (!read) {
    ModuleRegistry::report(fmt::format("softgpu: cannot load {}", read.error().message));
    return finish(read.error().status);
  }
  std::string& bytes = *read;
  bytes.push_back('\0');  // a PTX file need not end in NUL
  void* h = nullptr;
  if (Status s = register_image(*modules_, bytes.data(), bytes.size(), path, &h); s != Status::Success)
    return finish(s);
  if (Status s = modules_->init_module(h); s != Status::Success) {
    modules_->unregister_module(h);
    return finish(s);
  }
  *out = h;
  return Status::Success;
}

Status Runtime::library_unload(void* library) {
  SOFTGPU_API_BEGIN(false);
  if (!modules_->is_library(library)) return finish(Status::InvalidResourceHandle);
  modules_->unregister_module(library);
  return Status::Success;
}

Status Runtime::library_kernel(void** out, void* library, const char* name) {
  SOFTGPU_API_BEGIN(true);
  if (!out || !name) return finish(Status::InvalidValue);
  if (!modules_->is_library(library)) return finish(Status::InvalidResourceHandle);
  Kernel* k = nullptr;
  if (Status s = modules_->kernel_by_name(library, name, &k); s != Status::Success) return finish(s);
  *out = k;
  return Status::Success;
}

Status Runtime::library_global(void** address, size_t* bytes, void* library, const char* name) {
  SOFTGPU_API_BEGIN(true);
  if (!name || (!address && !bytes)) return finish(Status::InvalidValue);
  if (!modules_->is_library(library)) return finish(Status::InvalidResourceHandle);
  exec::VariableInfo v;
  if (Status s = modules_->variable_by_name(library, name, &v); s != Status::Success) return finish(s);
  if (address) *address = exec::DeviceMemory::host_ptr(v.address);
  if (bytes) *bytes = v.size.value;
  return Status::Success;
}

Status Runtime::func_param_info(const void* kernel, size_t index, size_t* offset, size_t* size) {
  SOFTGPU_API_BEGIN(true);
  if (!offset && !size) return finish(Status::InvalidValue);
  Kernel* k = nullptr;
  if (Status s = resolve_kernel(kernel, &k); s != Status::Success) return finish(s);
  if (Status s = use_kernel_module(*k); s != Status::Success) return finish(s);
  const exec::KernelInfo* info = exec::find_kernel(*k->module->program, k->name);
  if (!info) return finish(Status::InvalidDeviceFunction);
  if (index >= info->params.size()) return finish(Status::InvalidValue);
  if (offset) *offset = info->params[index].offset;
  if (size) *size = info->params[index].size;
  return Status::Success;
}

// The rule (docs/status.md): a cluster's CTAs must be resident at once, and
// any SM may hold several of them; softgpu models no GPCs, so the GPU holds
// floor(sm_count x blocks_per_sm / cluster_size) clusters.
Status Runtime::occupancy_max_active_clusters(int* out, const void* kernel, int block_size, size_t dynamic_shared,
                                              Dim3 cluster) {
  SOFTGPU_API_BEGIN(true);
  if (!out || block_size <= 0) return finish(Status::InvalidValue);
  Kernel* k = nullptr;
  if (Status s = resolve_kernel(kernel, &k); s != Status::Success) return finish(s);
  if (Status s = use_kernel_module(*k); s != Status::Success) return finish(s);
  const exec::KernelInfo* info = exec::find_kernel(*k->module->program, k->name);
  if (!info) return finish(Status::InvalidDeviceFunction);
  if (gpu_.max_cluster_size == 0) return finish(Status::NotSupported);
  if (cluster == Dim3{}) cluster = info->required_cluster;
  else if (!(info->required_cluster == Dim3{}) && !(info->required_cluster == cluster))
    return finish(Status::InvalidClusterSize);
  if (cluster == Dim3{} || cluster.count() == 0 || cluster.count() > gpu_.max_cluster_size)
    return finish(Status::InvalidClusterSize);
  int bps = 0;
  if (Status s = occupancy_blocks_per_sm(&bps, kernel, block_size, dynamic_shared); s != Status::Success)
    return finish(s);
  *out = static_cast<int>(uint64_t(bps) * gpu_.sm_count / cluster.count());
  return Status::Success;
}

Status Runtime::func_param_count(const void* kernel, size_t* count) {
  SOFTGPU_API_BEGIN(true);
  if (!count) return finish(Status::InvalidValue);
  Kernel* k = nullptr;
  if (Status s = resolve_kernel(kernel, &k); s != Status::Success) return finish(s);
  if (Status s = use_kernel_module(*k); s != Status::Success) return finish(s);
  const exec::KernelInfo* info = exec::find_kernel(*k->module->program, k->name);
  if (!info) return finish(Status::InvalidDeviceFunction);
  *count = info->params.size();
  return Status::Success;
}

Status Runtime::address_range(const void* p, void** base, size_t* size) {
  SOFTGPU_API_BEGIN(true);
  return finish(mem_->range_of(p, base, size));
}

Status Runtime::memset_elements(void* dst, uint32_t value, size_t elem_size, size_t count, void* stream) {
  SOFTGPU_API_BEGIN(true);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (auto c = graphs_->capture_forbid(stream)) return finish(*c);  // graph.cpp: not capturable yet
  if (fault_pending()) return finish(mem_->set_elements(dst, value, elem_size, count, false));  // behind a fault
  const Status s = mem_->set_elements(dst, value, elem_size, count);
  if (timing_ && s == Status::Success) timing_->memset(count * elem_size, stream_ref(stream), uint64_t(dst));
  return finish(s);
}

}  // namespace softgpu::runtime
