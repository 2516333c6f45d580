// Reads the fatbinaries nvcc embeds in host programs: the 24-byte wrapper
// (__fatBinC_Wrapper_t, version 1 or 2), the 0xBA55ED50 container, and its
// entries (PTX or ELF, plain, zstd or LZ4). Never trusts a size it has not
// bounds-checked; corrupt input gives an Error, never a crash.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/types.h"

namespace softgpu::fatbin {

struct PtxEntry {
  uint32_t arch = 0;                    // virtual arch, e.g. 75, 80, 90
  uint32_t isa_major = 0, isa_minor = 0;  // PTX ISA version from the entry header
  std::string options;                  // ptxas options string, e.g. "--compile-only"
  std::string text;                     // decompressed PTX, trailing NULs removed
};

struct ElfEntry {
  uint32_t arch = 0;
};

// One container (one object's fatbin).
struct Container {
  std::vector<PtxEntry> ptx;
  std::vector<ElfEntry> elf;
  // The PTX entry with the highest arch, or nullptr if the container holds none.
  const PtxEntry* best_ptx() const;
};

// What one __cudaRegisterFatBinary hands us.
struct FatbinImage {
  uint32_t wrapper_version = 0;       // 1 = whole program, 2 = -rdc=true (linked)
  Container main;                     // the container the wrapper's data points to
  std::vector<Container> prelinked;   // v2: the per-object relocatable fatbins (each with PTX)
  // The PTX modules to load: v1 -> main's best PTX; v2 -> each prelinked
  // object's best PTX (falling back to main's when there are none).
  std::vector<const PtxEntry*> modules_to_load() const;
};

// Parses one container starting at data; `limit` bounds how many bytes may be
// read (use SIZE_MAX-like large values only for in-process pointers).
Result<Container> read_container(std::span<const std::byte> bytes);

// Parses a wrapper given the in-process pointer nvcc passes to
// __cudaRegisterFatBinary. The container size is taken from its header.
Result<FatbinImage> read_wrapper(const void* wrapper);

// Decompressors (exposed for tests and fuzzing).
Result<std::string> decompress_lz4_block(std::span<const std::byte> src, size_t uncompressed_size);
Result<std::string> decompress_zstd(std::span<const std::byte> src, size_t uncompressed_size);

}  // namespace softgpu::fatbin
