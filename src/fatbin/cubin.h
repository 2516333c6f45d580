// What the machine code nvcc embeds beside the PTX says about each kernel's
// resources: the register count ptxas allocated (the top byte of the
// `.text.<kernel>` section's sh_info, as cuobjdump reads it) and its static
// shared memory (the size of `.nv.shared.<kernel>`). softgpu executes PTX
// only; these numbers feed occupancy and cudaFuncGetAttributes.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/types.h"

namespace softgpu::fatbin {

struct KernelResources {
  std::string name;           // mangled kernel (function) name
  uint32_t registers = 0;     // per thread
  uint64_t shared_bytes = 0;  // static .shared, 0 when the section is absent
};

// Reads a 64-bit little-endian ELF (a cubin). Every offset and size is
// bounds-checked; a malformed file gives Status::InvalidSource naming the
// field.
Result<std::vector<KernelResources>> read_cubin_resources(std::span<const std::byte> elf);

// The contents of every section called `name` (e.g. ".nv_fatbin" in a host
// object nvcc wrote), bounds-checked like read_cubin_resources.
Result<std::vector<std::span<const std::byte>>> elf_sections(std::span<const std::byte> elf, std::string_view name);

}  // namespace softgpu::fatbin
