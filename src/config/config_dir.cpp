// Where the GPU configs are: the environment, then the install prefix
// (relative to the executable or shared library this code was linked into,
// so an installed tree works wherever it is moved), then the build's
// source tree.
#include <link.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <system_error>

#include "config/gpu_config.h"

#ifndef SOFTGPU_DEFAULT_CONFIG_DIR
#error "SOFTGPU_DEFAULT_CONFIG_DIR must be defined by the build (src/config/CMakeLists.txt)"
#endif

namespace softgpu::config {

namespace {

struct ObjectQuery {
  uintptr_t addr = 0;
  std::filesystem::path file;
  bool found = false;
};

int find_object(dl_phdr_info* info, size_t, void* data) {
  auto* q = static_cast<ObjectQuery*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && q->addr >= start && q->addr < start + ph.p_memsz) {
      q->found = true;
      if (info->dlpi_name && *info->dlpi_name) q->file = info->dlpi_name;  // empty: the main program
      return 1;
    }
  }
  return 0;
}

// The executable or shared library holding this function, as an absolute path.
std::optional<std::filesystem::path> this_binary() {
  ObjectQuery q;
  q.addr = reinterpret_cast<uintptr_t>(&find_object);
  dl_iterate_phdr(find_object, &q);
  if (!q.found) return std::nullopt;
  std::error_code ec;
  if (q.file.empty()) q.file = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec || q.file.empty()) return std::nullopt;
  auto canon = std::filesystem::weakly_canonical(q.file, ec);
  return ec ? q.file : canon;
}

}  // namespace

std::filesystem::path default_config_dir() {
  if (const char* env = std::getenv("SOFTGPU_CONFIG_DIR"); env && *env) return env;
  if (auto self = this_binary()) {
    // <prefix>/bin/softgpu and <prefix>/lib/softgpu/libcudart.so.13
    for (const char* rel : {"../share/softgpu/gpus", "../../share/softgpu/gpus"}) {
      std::error_code ec;
      auto dir = (self->parent_path() / rel).lexically_normal();
      if (std::filesystem::is_directory(dir, ec)) return dir;
    }
  }
  return SOFTGPU_DEFAULT_CONFIG_DIR;
}

}  // namespace softgpu::config
