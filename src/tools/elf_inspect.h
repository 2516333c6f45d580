// Reads what `softgpu run` needs from a program's ELF file before running
// it: the DT_NEEDED libraries and whether its embedded fatbinaries carry
// PTX. Reads the file itself (no libelf); every offset is bounds-checked.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "common/types.h"

namespace softgpu::tools {

struct ElfInfo {
  std::vector<std::string> needed;  // DT_NEEDED entries
  bool has_device_code = false;     // a .nv_fatbin or __nv_relfatbin section exists
  int fatbin_containers = 0;        // containers found in those sections
  int ptx_entries = 0;              // PTX entries across them
  std::vector<uint32_t> ptx_archs;  // virtual archs of the PTX entries
  std::vector<uint32_t> elf_archs;  // SASS archs (informational)
  std::string fatbin_error;         // set when a fatbin section could not be read
};

// Errors: InvalidSource when the file is an ELF file that cannot run
// (truncated: a loaded segment or the headers lie past its end);
// InvalidValue when it is not an ELF file softgpu can inspect; FileNotFound.
Result<ElfInfo> inspect_elf(const std::filesystem::path& file);

}  // namespace softgpu::tools
