#include "fatbin/cubin.h"

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <string_view>

namespace softgpu::fatbin {
namespace {

Error bad(std::string msg) { return Error{Status::InvalidSource, "cubin: " + std::move(msg)}; }

struct Section {
  uint32_t name = 0, type = 0, info = 0;
  uint64_t offset = 0, size = 0;
};

template <class T>
bool get(std::span<const std::byte> b, uint64_t off, T& v) {
  if (off > b.size() || sizeof(T) > b.size() - off) return false;
  std::memcpy(&v, b.data() + off, sizeof(T));
  return true;
}

constexpr uint32_t kNoBits = 8;  // SHT_NOBITS: .nv.shared sections occupy no file bytes

// The section headers of a 64-bit little-endian ELF, bounds-checked, and
// each section's name.
struct Sections {
  std::vector<Section> list;
  Section strtab;
  std::span<const std::byte> elf;
  std::string_view name_of(const Section& s) const {
    if (s.name >= strtab.size) return {};
    const char* p = reinterpret_cast<const char*>(elf.data() + strtab.offset + s.name);
    const size_t max = size_t(strtab.size - s.name);
    return {p, strnlen(p, max)};
  }
};

Result<Sections> read_sections(std::span<const std::byte> elf) {
  if (elf.size() < 64 || std::memcmp(elf.data(), "\x7f" "ELF", 4) != 0) return bad("not an ELF file");
  if (uint8_t(elf[4]) != 2 || uint8_t(elf[5]) != 1) return bad("not a 64-bit little-endian ELF");
  uint64_t shoff = 0;
  uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  get(elf, 0x28, shoff);
  get(elf, 0x3a, shentsize);
  get(elf, 0x3c, shnum);
  get(elf, 0x3e, shstrndx);
  if (shentsize < 64) return bad(fmt::format("section header size {} is below 64", shentsize));
  if (shoff > elf.size() || uint64_t(shnum) * shentsize > elf.size() - shoff)
    return bad(fmt::format("{} section headers at offset {} run past the {}-byte file", shnum, shoff, elf.size()));
  if (shstrndx >= shnum) return bad(fmt::format("section name table index {} of {}", shstrndx, shnum));
  Sections out;
  out.elf = elf;
  out.list.resize(shnum);
  for (uint32_t i = 0; i < shnum; ++i) {
    const uint64_t h = shoff + uint64_t(i) * shentsize;
    Section& s = out.list[i];
    get(elf, h, s.name);
    get(elf, h + 4, s.type);
    get(elf, h + 0x18, s.offset);
    get(elf, h + 0x20, s.size);
    get(elf, h + 0x2c, s.info);
    if (s.type != kNoBits && (s.offset > elf.size() || s.size > elf.size() - s.offset))
      return bad(fmt::format("section {} ({} bytes at {}) runs past the {}-byte file", i, s.size, s.offset, elf.size()));
  }
  out.strtab = out.list[shstrndx];
  if (out.strtab.type == kNoBits) return bad("the section name table occupies no bytes");
  return out;
}

}  // namespace

Result<std::vector<std::span<const std::byte>>> elf_sections(std::span<const std::byte> elf, std::string_view name) {
  auto secs = read_sections(elf);
  if (!secs) return secs.error();
  std::vector<std::span<const std::byte>> out;
  for (const Section& s : secs.value().list)
    if (s.type != kNoBits && secs.value().name_of(s) == name) out.push_back(elf.subspan(s.offset, s.size));
  return out;
}

Result<std::vector<KernelResources>> read_cubin_resources(std::span<const std::byte> elf) {
  auto read = read_sections(elf);
  if (!read) return read.error();
  const Sections& sections = read.value();
  const auto& secs = sections.list;
  auto name_of = [&](const Section& s) { return sections.name_of(s); };
  std::map<std::string, KernelResources> by_name;
  for (const Section& s : secs) {
    std::string_view n = name_of(s);
    if (n.starts_with(".text.") && n.size() > 6) {
      auto& k = by_name[std::string(n.substr(6))];
      k.registers = s.info >> 24;
    } else if (n.starts_with(".nv.shared.") && n.size() > 11) {
      by_name[std::string(n.substr(11))].shared_bytes = s.size;
    }
  }
  std::vector<KernelResources> out;
  for (auto& [name, k] : by_name) {
    k.name = name;
    if (k.registers) out.push_back(std::move(k));  // .nv.shared alone: not a function we know
  }
  return out;
}

}  // namespace softgpu::fatbin
