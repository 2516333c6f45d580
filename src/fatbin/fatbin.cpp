// Fatbinary parsing. Layout (see shared/reference/cuda-runtime-abi.md §2):
//   wrapper  {u32 magic 0x466243B1, u32 version, u64 data, u64 filename_or_fatbins}
//   container{u32 magic 0xBA55ED50, u16 version, u16 headerSize, u64 payloadSize}
//   entries back to back: header (headerSize bytes, >= 64) + payload slot.
// Every read goes through Reader, which checks bounds first.
#include <algorithm>
#include <cstring>
#include <fmt/format.h>

#include "fatbin/fatbin.h"

namespace softgpu::fatbin {

namespace {

constexpr size_t kContainerHeaderSize = 16;
constexpr size_t kMinEntryHeaderSize = 64;  // up to and including uncompressedSize
constexpr uint16_t kKindPtx = 1;
constexpr uint16_t kKindElf = 2;
constexpr uint64_t kFlagArchSpecific = 0x100000;
constexpr size_t kMaxPrelinked = 1 << 16;  // a NULL-less array would run forever

Error corrupt(std::string msg) { return Error{Status::InvalidSource, std::move(msg)}; }

// Little-endian reads bounded by a span.
struct Reader {
  std::span<const std::byte> b;
  bool has(size_t off, size_t n) const { return off <= b.size() && n <= b.size() - off; }
  template <class T>
  T get(size_t off) const {  // caller checked has(off, sizeof(T))
    T v;
    std::memcpy(&v, b.data() + off, sizeof(T));
    return v;  // x86/ARM Linux are little-endian, as is the format
  }
};

std::string trim_options(std::string s) {
  auto junk = [](char c) { return c == '\0' || c == ' ' || c == '\t' || c == '\n'; };
  while (!s.empty() && junk(s.back())) s.pop_back();
  size_t i = 0;
  while (i < s.size() && junk(s[i])) ++i;
  return s.substr(i);
}

// Parses the entry whose header starts at `off` in `r`, bounded by `end`.
// Returns the offset of the next entry.
Result<size_t> read_entry(const Reader& r, size_t off, size_t end, size_t index, Container& out) {
  auto where = [&] { return fmt::format("fatbin entry {} (offset {})", index, off); };
  if (end - off < kMinEntryHeaderSize) {
    return corrupt(fmt::format("{}: only {} bytes left, an entry header needs {}", where(), end - off,
                               kMinEntryHeaderSize));
  }
  uint16_t kind = r.get<uint16_t>(off);
  uint32_t hsize = r.get<uint32_t>(off + 4);
  uint64_t slot = r.get<uint64_t>(off + 8);
  uint32_t csize = r.get<uint32_t>(off + 16);
  uint32_t opt_off = r.get<uint32_t>(off + 20);
  uint16_t minor = r.get<uint16_t>(off + 24);
  uint16_t major = r.get<uint16_t>(off + 26);
  uint32_t arch = r.get<uint32_t>(off + 28);
  uint64_t flags = r.get<uint64_t>(off + 40);
  uint64_t usize = r.get<uint64_t>(off + 56);

  if (hsize < kMinEntryHeaderSize || hsize > end - off) {
    return corrupt(fmt::format("{}: header size {} is outside [{}, {}]", where(), hsize,
                               kMinEntryHeaderSize, end - off));
  }
  size_t body = off + hsize;
  if (slot > end - body) {
    return corrupt(fmt::format("{}: payload size {} runs past the container end ({} bytes left)",
                               where(), slot, end - body));
  }
  size_t next = body + size_t(slot);
  if (kind != kKindPtx && kind != kKindElf) return next;  // other kinds (e.g. LTO IR): not ours

  const bool lz4 = flags & kFlagLz4, zstd = flags & kFlagZstd;
  if (lz4 && zstd) return corrupt(fmt::format("{}: flags {:#x} claim both LZ4 and zstd", where(), flags));
  // The entry's payload, decompressed when it is compressed.
  auto payload = [&]() -> Result<std::string> {
    if (lz4 || zstd) {
      if (csize > slot)
        return corrupt(fmt::format("{}: compressed size {} exceeds its {}-byte payload slot", where(), csize, slot));
      if (usize > kMaxDecompressedSize)
        return corrupt(fmt::format("{}: uncompressed size {} exceeds the {} byte limit", where(), usize,
                                   kMaxDecompressedSize));
      auto src = r.b.subspan(body, csize);
      auto text = lz4 ? decompress_lz4_block(src, size_t(usize)) : decompress_zstd(src, size_t(usize));
      if (!text) return corrupt(fmt::format("{} ({} sm_{}): {}", where(), kind == kKindPtx ? "PTX" : "ELF", arch,
                                            text.error().message));
      return std::move(text.value());
    }
    if (slot > kMaxDecompressedSize)
      return corrupt(fmt::format("{}: {} size {} exceeds the {} byte limit", where(), kind == kKindPtx ? "PTX" : "ELF",
                                 slot, kMaxDecompressedSize));
    return std::string(reinterpret_cast<const char*>(r.b.data() + body), size_t(slot));
  };

  if (kind == kKindElf) {
    // We execute PTX only; the machine code tells each kernel's register
    // count. An unreadable ELF loses that, nothing else.
    ElfEntry e{arch, flags, {}, {}};
    auto bytes = payload();
    if (!bytes) {
      e.resources_error = bytes.error().message;
    } else {
      auto res = read_cubin_resources(std::as_bytes(std::span(bytes.value().data(), bytes.value().size())));
      if (res) e.kernels = std::move(res.value());
      else e.resources_error = res.error().message;
    }
    out.elf.push_back(std::move(e));
    return next;
  }

  PtxEntry e;
  e.arch = arch;
  e.isa_major = major;
  e.isa_minor = minor;
  e.flags = flags;
  if (opt_off != 0) {
    // (u32 offset, u32 length) at opt_off, both relative to the entry header.
    if (!(opt_off <= hsize && hsize - opt_off >= 8)) {
      return corrupt(fmt::format("{}: options offset {} is outside the {}-byte header", where(),
                                 opt_off, hsize));
    }
    uint32_t so = r.get<uint32_t>(off + opt_off);
    uint32_t sl = r.get<uint32_t>(off + opt_off + 4);
    if (!(so <= hsize && sl <= hsize - so)) {
      return corrupt(fmt::format("{}: options string ({} bytes at {}) is outside the {}-byte header",
                                 where(), sl, so, hsize));
    }
    e.options = trim_options(
        std::string(reinterpret_cast<const char*>(r.b.data() + off + so), sl));
  }

  auto text = payload();
  if (!text) return text.error();
  e.text = std::move(text.value());
  while (!e.text.empty() && e.text.back() == '\0') e.text.pop_back();
  out.ptx.push_back(std::move(e));
  return next;
}

// Validates a container header; returns its total size (header + payload).
Result<size_t> container_extent(std::span<const std::byte> bytes) {
  Reader r{bytes};
  if (!r.has(0, kContainerHeaderSize)) {
    return corrupt(fmt::format("fatbin container truncated: {} bytes, the header alone needs {}",
                               bytes.size(), kContainerHeaderSize));
  }
  uint32_t magic = r.get<uint32_t>(0);
  if (magic != kContainerMagic) {
    return corrupt(fmt::format("not a fatbin container: magic {:#010x}, expected {:#010x}", magic,
                               kContainerMagic));
  }
  uint16_t version = r.get<uint16_t>(4);
  uint16_t hsize = r.get<uint16_t>(6);
  uint64_t payload = r.get<uint64_t>(8);
  if (version != 1) return corrupt(fmt::format("unsupported fatbin container version {}", version));
  if (hsize < kContainerHeaderSize || hsize > bytes.size()) {
    return corrupt(fmt::format("fatbin container header size {} is outside [{}, {}]", hsize,
                               kContainerHeaderSize, bytes.size()));
  }
  if (payload > bytes.size() - hsize) {
    return corrupt(fmt::format("fatbin container payload size {} runs past the end ({} bytes left)",
                               payload, bytes.size() - hsize));
  }
  return size_t(hsize) + size_t(payload);
}

}  // namespace

const PtxEntry* Container::ptx_for(uint32_t cc) const {
  const PtxEntry* best = nullptr;
  for (const auto& e : ptx)
    if (e.arch <= cc && (!best || e.arch > best->arch)) best = &e;
  return best;
}

const PtxEntry* Container::newer_ptx_beside_sass(uint32_t cc) const {
  bool runs = false;
  for (const auto& e : elf) runs = runs || (e.arch / 10 == cc / 10 && e.arch <= cc);
  if (!runs) return nullptr;
  const PtxEntry* best = nullptr;
  for (const auto& e : ptx)
    if (e.arch > cc && (!best || e.arch < best->arch)) best = &e;
  return best;
}

const PtxEntry* Container::best_ptx() const {
  const PtxEntry* best = nullptr;
  for (const auto& e : ptx) {
    // Highest arch wins; on a tie prefer the portable PTX over an sm_XXa one.
    if (!best || e.arch > best->arch ||
        (e.arch == best->arch && (best->flags & kFlagArchSpecific) && !(e.flags & kFlagArchSpecific))) {
      best = &e;
    }
  }
  return best;
}

std::vector<const PtxEntry*> FatbinImage::modules_to_load() const {
  std::vector<const PtxEntry*> mods;
  if (wrapper_version == 2) {
    for (const auto& c : prelinked) {
      if (const auto* p = c.best_ptx()) mods.push_back(p);
    }
    if (!mods.empty()) return mods;
  }
  if (const auto* p = main.best_ptx()) mods.push_back(p);
  return mods;
}

Result<Container> read_container(std::span<const std::byte> bytes) {
  auto extent = container_extent(bytes);
  if (!extent) return extent.error();
  Reader r{bytes};
  size_t off = r.get<uint16_t>(6);
  size_t end = extent.value();
  Container c;
  for (size_t i = 0; off < end; ++i) {
    auto next = read_entry(r, off, end, i, c);
    if (!next) return next.error();
    off = next.value();
  }
  return c;
}

Result<std::vector<Container>> read_section(std::span<const std::byte> bytes) {
  std::vector<Container> out;
  size_t off = 0;
  while (true) {
    while (off < bytes.size() && bytes[off] == std::byte{0}) ++off;  // alignment padding
    if (off >= bytes.size()) break;
    auto rest = bytes.subspan(off);
    auto extent = container_extent(rest);
    if (!extent) return Error{Status::InvalidSource, fmt::format("container at section offset {}: {}", off, extent.error().message)};
    auto c = read_container(rest.first(extent.value()));
    if (!c) return Error{Status::InvalidSource, fmt::format("container at section offset {}: {}", off, c.error().message)};
    out.push_back(std::move(c.value()));
    off += extent.value();
  }
  if (out.empty()) return corrupt("fatbin section holds no container");
  return out;
}

Result<const PtxEntry*> select_ptx(const Container& c) {
  if (const auto* p = c.best_ptx()) return p;
  std::string archs;
  for (const auto& e : c.elf) archs += fmt::format("{}sm_{}", archs.empty() ? "" : ", ", e.arch);
  return Error{Status::NoKernelImageForDevice,
               fmt::format("the fatbinary contains no PTX (only machine code for: {}); softgpu runs PTX. "
                           "Rebuild with PTX embedded, e.g. default nvcc flags or "
                           "`-gencode arch=compute_80,code=compute_80` next to your code=sm_XX options",
                           archs.empty() ? "nothing" : archs)};
}

namespace {

// Reads a container from an in-process pointer: its size comes from its own
// header, which is validated, and checked against the memory readable from
// `p`, before the rest is touched.
Result<Container> read_container_at(const void* p, const char* what) {
  if (!p) return corrupt(fmt::format("{}: null container pointer", what));
  size_t readable = readable_bytes(p);
  if (readable < kContainerHeaderSize) {
    return corrupt(fmt::format("{}: container pointer {} is not readable memory ({} bytes readable, "
                               "the header needs {})", what, p, readable, kContainerHeaderSize));
  }
  std::span<const std::byte> head(static_cast<const std::byte*>(p), kContainerHeaderSize);
  uint32_t magic;
  std::memcpy(&magic, head.data(), 4);
  if (magic != kContainerMagic) {
    return corrupt(fmt::format("{}: not a fatbin container (magic {:#010x}, expected {:#010x})", what,
                               magic, kContainerMagic));
  }
  uint16_t hsize;
  uint64_t payload;
  std::memcpy(&hsize, head.data() + 6, 2);
  std::memcpy(&payload, head.data() + 8, 8);
  if (hsize < kContainerHeaderSize || payload > kMaxContainerSize) {
    return corrupt(fmt::format("{}: implausible container header (header size {}, payload {})", what,
                               hsize, payload));
  }
  if (size_t(hsize) + size_t(payload) > readable) {
    return corrupt(fmt::format("{}: container header size {} + payload size {} runs past the end of "
                               "readable memory ({} bytes from the container start)",
                               what, hsize, payload, readable));
  }
  auto c = read_container({static_cast<const std::byte*>(p), size_t(hsize) + size_t(payload)});
  if (!c) return corrupt(fmt::format("{}: {}", what, c.error().message));
  return c;
}

}  // namespace

Result<FatbinImage> read_wrapper(const void* wrapper) {
  if (!wrapper) return corrupt("fatbin wrapper pointer is null");
  constexpr size_t kWrapperSize = 8 + 2 * sizeof(void*);
  if (size_t n = readable_bytes(wrapper); n < kWrapperSize) {
    return corrupt(fmt::format("fatbin wrapper {} is not readable memory ({} bytes readable, it needs {})",
                               wrapper, n, kWrapperSize));
  }
  // Layout of __fatBinC_Wrapper_t; read field by field so nothing is trusted
  // before the magic has been checked.
  uint32_t magic, version;
  std::memcpy(&magic, wrapper, 4);
  if (magic != kWrapperMagic) {
    return corrupt(fmt::format("not a fatbin wrapper: magic {:#010x}, expected {:#010x}", magic,
                               kWrapperMagic));
  }
  const auto* w = static_cast<const std::byte*>(wrapper);
  std::memcpy(&version, w + 4, 4);
  if (version != 1 && version != 2) {
    return corrupt(fmt::format("unsupported fatbin wrapper version {} (expected 1 or 2)", version));
  }
  const void* data;
  const void* const* prelinked;
  std::memcpy(&data, w + 8, sizeof(void*));
  std::memcpy(&prelinked, w + 8 + sizeof(void*), sizeof(void*));

  FatbinImage img;
  img.wrapper_version = version;
  auto main = read_container_at(data, "fatbin wrapper data");
  if (!main) return main.error();
  img.main = std::move(main.value());

  if (version == 2 && prelinked) {
    size_t slots = readable_bytes(prelinked) / sizeof(void*);
    if (slots == 0) {
      return corrupt(fmt::format("fatbin wrapper v2: prelinked array {} is not readable memory",
                                 static_cast<const void*>(prelinked)));
    }
    for (size_t i = 0;; ++i) {
      if (i == kMaxPrelinked || i == slots) {
        return corrupt(fmt::format("fatbin wrapper v2: prelinked array has no NULL within {} entries",
                                   i));
      }
      if (!prelinked[i]) break;
      auto what = fmt::format("prelinked fatbin {}", i);
      auto c = read_container_at(prelinked[i], what.c_str());
      if (!c) return c.error();
      img.prelinked.push_back(std::move(c.value()));
    }
  }

  if (img.modules_to_load().empty()) {
    auto none = select_ptx(img.main);
    return none.error();
  }
  return img;
}

}  // namespace softgpu::fatbin
