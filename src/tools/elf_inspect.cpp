// ELF64 little-endian reader for DT_NEEDED and the fatbinary sections.
#include "tools/elf_inspect.h"

#include <cstring>

#include <fmt/core.h>

#include "common/read_file.h"
#include "fatbin/fatbin.h"

namespace softgpu::tools {

namespace {

template <class T>
bool read_at(const std::vector<std::byte>& buf, uint64_t off, T* out) {
  if (off > buf.size() || sizeof(T) > buf.size() - off) return false;
  std::memcpy(out, buf.data() + off, sizeof(T));
  return true;
}

// Field offsets follow the ELF64 specification (Elf64_Ehdr, Elf64_Shdr, Elf64_Dyn).
struct Section {
  uint32_t name = 0, type = 0;
  uint64_t offset = 0, size = 0;
  uint32_t link = 0;
};

// Reads the containers of one fatbin section; an unreadable section is
// noted (the runtime will report it precisely when the program loads it).
void scan_fatbins(const std::vector<std::byte>& buf, const Section& s, ElfInfo& info) {
  if (s.offset > buf.size() || s.size > buf.size() - s.offset) {
    info.fatbin_error = "section extends past the end of the file";
    return;
  }
  auto cs = fatbin::read_section(std::span<const std::byte>(buf.data() + s.offset, s.size));
  if (!cs) {
    info.fatbin_error = cs.error().message;
    return;
  }
  for (const auto& c : cs.value()) {
    ++info.fatbin_containers;
    for (const auto& p : c.ptx) {
      ++info.ptx_entries;
      info.ptx_archs.push_back(p.arch);
    }
    for (const auto& e : c.elf) info.elf_archs.push_back(e.arch);
  }
}

}  // namespace

Result<ElfInfo> inspect_elf(const std::filesystem::path& file) {
  auto raw = read_regular_file(file, kMaxProgramFileBytes);
  if (!raw) return raw.error();
  std::vector<std::byte> buf(raw->size());
  std::memcpy(buf.data(), raw->data(), raw->size());

  if (buf.size() >= 4 && buf.size() < 64 && std::memcmp(buf.data(), "\x7f" "ELF", 4) == 0)
    return Error{Status::InvalidSource, fmt::format("'{}' is truncated: {} bytes, an ELF header needs 64",
                                                    file.string(), buf.size())};
  if (buf.size() < 64 || std::memcmp(buf.data(), "\x7f" "ELF", 4) != 0)
    return Error{Status::InvalidValue, fmt::format("'{}' is not an ELF executable", file.string())};
  if (buf[4] != std::byte{2} || buf[5] != std::byte{1})
    return Error{Status::InvalidValue, fmt::format("'{}' is not a 64-bit little-endian ELF file", file.string())};

  // Every loaded segment must be in the file: the kernel maps a truncated
  // one anyway and the program dies of SIGBUS/SIGSEGV before main.
  uint64_t phoff = 0;
  uint16_t phentsize = 0, phnum = 0;
  read_at(buf, 0x20, &phoff);
  read_at(buf, 0x36, &phentsize);
  read_at(buf, 0x38, &phnum);
  for (uint16_t i = 0; i < phnum; ++i) {
    uint64_t h = phoff + uint64_t(i) * phentsize;
    uint32_t type = 0;
    uint64_t off = 0, filesz = 0;
    if (phentsize < 56 || !read_at(buf, h, &type) || !read_at(buf, h + 8, &off) || !read_at(buf, h + 0x20, &filesz))
      return Error{Status::InvalidSource, fmt::format("'{}' is truncated: its program header table runs past "
                                                     "the end of the file ({} bytes)", file.string(), buf.size())};
    if (type == 1 /* PT_LOAD */ && (off > buf.size() || filesz > buf.size() - off))
      return Error{Status::InvalidSource, fmt::format("'{}' is truncated: loadable segment {} ends at byte {} but "
                                                     "the file has {} bytes", file.string(), i, off + filesz,
                                                     buf.size())};
  }

  uint64_t shoff = 0;
  uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  read_at(buf, 0x28, &shoff);
  read_at(buf, 0x3A, &shentsize);
  read_at(buf, 0x3C, &shnum);
  read_at(buf, 0x3E, &shstrndx);
  if (shentsize < 64 || shnum == 0)
    return Error{Status::InvalidValue, fmt::format("'{}' has no section headers", file.string())};

  std::vector<Section> sections;
  for (uint16_t i = 0; i < shnum; ++i) {
    uint64_t h = shoff + uint64_t(i) * shentsize;
    Section s;
    if (!read_at(buf, h, &s.name) || !read_at(buf, h + 4, &s.type) || !read_at(buf, h + 0x18, &s.offset) ||
        !read_at(buf, h + 0x20, &s.size) || !read_at(buf, h + 0x28, &s.link))
      return Error{Status::InvalidValue, fmt::format("'{}' has a truncated section table", file.string())};
    sections.push_back(s);
  }
  auto cstr = [&](const Section& strtab, uint64_t idx) -> std::string {
    if (strtab.offset + idx >= buf.size() || idx >= strtab.size) return {};
    const char* p = reinterpret_cast<const char*>(buf.data() + strtab.offset + idx);
    size_t max = std::min<uint64_t>(strtab.size - idx, buf.size() - strtab.offset - idx);
    return std::string(p, strnlen(p, max));
  };

  ElfInfo info;
  const Section* shstr = shstrndx < sections.size() ? &sections[shstrndx] : nullptr;
  for (const Section& s : sections) {
    std::string name = shstr ? cstr(*shstr, s.name) : std::string{};
    if (name == ".nv_fatbin" || name == "__nv_relfatbin") {
      info.has_device_code = true;
      if (s.type != 8 /* SHT_NOBITS */) scan_fatbins(buf, s, info);
    }
    if (s.type == 6 /* SHT_DYNAMIC */ && s.link < sections.size()) {
      const Section& dynstr = sections[s.link];
      for (uint64_t off = s.offset; off + 16 <= s.offset + s.size; off += 16) {
        int64_t tag = 0;
        uint64_t val = 0;
        if (!read_at(buf, off, &tag) || !read_at(buf, off + 8, &val)) break;
        if (tag == 0) break;                      // DT_NULL
        if (tag == 1) info.needed.push_back(cstr(dynstr, val));  // DT_NEEDED
      }
    }
  }
  return info;
}

}  // namespace softgpu::tools
