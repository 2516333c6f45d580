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
#include "fatbin/cubin.h"

namespace softgpu::fatbin {

inline constexpr uint32_t kWrapperMagic = 0x466243B1;
inline constexpr uint32_t kContainerMagic = 0xBA55ED50;
inline constexpr uint64_t kFlagLz4 = 0x2000;
inline constexpr uint64_t kFlagZstd = 0x8000;
// No PTX module is anywhere near this big; a larger claim is a corrupt header,
// and refusing it keeps a lying size from exhausting memory.
inline constexpr size_t kMaxDecompressedSize = size_t(512) << 20;
// Largest container read_wrapper accepts from an in-process pointer.
inline constexpr uint64_t kMaxContainerSize = uint64_t(1) << 30;

struct PtxEntry {
  uint32_t arch = 0;                    // virtual arch, e.g. 75, 80, 90
  uint32_t isa_major = 0, isa_minor = 0;  // PTX ISA version from the entry header
  std::string options;                  // ptxas options string, e.g. "--compile-only"
  std::string text;                     // decompressed PTX, trailing NULs removed
  uint64_t flags = 0;                   // entry flags (0x100000 = arch-specific "a" variant)
};

struct ElfEntry {
  uint32_t arch = 0;
  uint64_t flags = 0;
  std::vector<KernelResources> kernels;  // register counts etc. (fatbin/cubin.h)
  std::string resources_error;           // why `kernels` is empty when the ELF was unreadable
};

// One container (one object's fatbin).
struct Container {
  std::vector<PtxEntry> ptx;
  std::vector<ElfEntry> elf;
  // The PTX entry with the highest arch, or nullptr if the container holds none.
  const PtxEntry* best_ptx() const;
  // The PTX entry with the highest arch a device of compute capability cc
  // (e.g. 90) can run (arch <= cc), or nullptr.
  const PtxEntry* ptx_for(uint32_t cc) const;
  // Where ptx_for finds none but the container holds machine code a device
  // of compute capability cc runs (the same major version, not newer): the
  // lowest PTX above cc, which a build for several GPUs embeds for the
  // newest only; else nullptr.
  const PtxEntry* newer_ptx_beside_sass(uint32_t cc) const;
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

// Parses one container at the start of `bytes`; nothing past bytes.size() is
// read. Bytes after the container's 16 + payloadSize are ignored. A container
// with no PTX is valid here (select_ptx / read_wrapper report that case).
// Errors: Status::InvalidSource with a message naming the bad field.
Result<Container> read_container(std::span<const std::byte> bytes);

// Parses every container of a whole .nv_fatbin / __nv_relfatbin section
// (containers back to back, zero padding between them allowed).
Result<std::vector<Container>> read_section(std::span<const std::byte> bytes);

// The container's best PTX, or Status::NoKernelImageForDevice telling the
// user how to rebuild with PTX embedded.
Result<const PtxEntry*> select_ptx(const Container& c);

// Parses a wrapper given the in-process pointer nvcc passes to
// __cudaRegisterFatBinary. The container size is taken from its header and
// must fit in the memory readable from the pointer (readable_bytes).
// Fails with NoKernelImageForDevice when modules_to_load() would be empty.
Result<FatbinImage> read_wrapper(const void* wrapper);

// How many bytes from p on the process can read without faulting: up to the
// end of the loaded ELF segment holding p, else of the run of readable
// mappings holding it (/proc/self/maps); 0 if p is null or unmapped.
// read_wrapper bounds every in-process pointer it follows by this.
size_t readable_bytes(const void* p);

// Decompressors (exposed for tests and fuzzing).
Result<std::string> decompress_lz4_block(std::span<const std::byte> src, size_t uncompressed_size);
Result<std::string> decompress_zstd(std::span<const std::byte> src, size_t uncompressed_size);

}  // namespace softgpu::fatbin
