// Writes a copy of an nvcc-built program with one fatbinary field corrupted,
// for the corrupt-fatbinary regression tests (tests.cmake):
//   corrupt_fatbin IN OUT FIELD VALUE
// FIELD: container-magic | container-header-size | container-payload-size |
//        entry-header-size | wrapper-magic. Container fields are set in every
// container of .nv_fatbin (entry-header-size: each container's first entry),
// wrapper-magic in every wrapper of .nvFatBinSegment.
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

struct Section {
  size_t off = 0, size = 0;
};

template <class T>
bool get(const std::vector<char>& f, size_t off, T& v) {
  if (off > f.size() || sizeof(T) > f.size() - off) return false;
  std::memcpy(&v, f.data() + off, sizeof(T));
  return true;
}

template <class T>
void put(std::vector<char>& f, size_t off, T v) {
  std::memcpy(f.data() + off, &v, sizeof(T));
}

// ELF64 little-endian section lookup by name; size 0 if absent.
Section find_section(const std::vector<char>& f, const std::string& name) {
  uint64_t shoff = 0;
  uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  if (!get(f, 0x28, shoff) || !get(f, 0x3a, shentsize) || !get(f, 0x3c, shnum) || !get(f, 0x3e, shstrndx) ||
      shentsize < 64 || shstrndx >= shnum)
    return {};
  auto header = [&](size_t i, uint32_t& nm, uint64_t& off, uint64_t& size) {
    size_t h = shoff + i * shentsize;
    return get(f, h, nm) && get(f, h + 0x18, off) && get(f, h + 0x20, size);
  };
  uint32_t nm;
  uint64_t stroff, strsize;
  if (!header(shstrndx, nm, stroff, strsize)) return {};
  for (size_t i = 0; i < shnum; ++i) {
    uint64_t off, size;
    if (!header(i, nm, off, size) || nm >= strsize || stroff + nm >= f.size()) continue;
    if (name == std::string(f.data() + stroff + nm, strnlen(f.data() + stroff + nm, f.size() - stroff - nm)) &&
        off <= f.size() && size <= f.size() - off)
      return {size_t(off), size_t(size)};
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: corrupt_fatbin IN OUT FIELD VALUE\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::vector<char> f{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::string field = argv[3];
  uint64_t value = std::stoull(argv[4], nullptr, 0);
  int patched = 0;
  if (field == "wrapper-magic") {
    Section s = find_section(f, ".nvFatBinSegment");
    for (size_t o = s.off; o + 24 <= s.off + s.size; o += 24, ++patched) put<uint32_t>(f, o, uint32_t(value));
  } else {
    Section s = find_section(f, ".nv_fatbin");
    std::vector<size_t> containers;  // found with the original sizes, then patched
    for (size_t o = s.off; o + 16 <= s.off + s.size;) {
      uint32_t magic = 0;
      uint16_t hsize = 0;
      uint64_t payload = 0;
      get(f, o, magic);
      if (magic != 0xBA55ED50) {
        o += 8;  // alignment padding between containers
        continue;
      }
      get(f, o + 6, hsize);
      get(f, o + 8, payload);
      containers.push_back(o);
      o += hsize + payload;
    }
    for (size_t o : containers) {
      uint16_t hsize = 0;
      get(f, o + 6, hsize);
      if (field == "container-magic") put<uint32_t>(f, o, uint32_t(value));
      else if (field == "container-header-size") put<uint16_t>(f, o + 6, uint16_t(value));
      else if (field == "container-payload-size") put<uint64_t>(f, o + 8, value);
      else if (field == "entry-header-size") put<uint32_t>(f, o + hsize + 4, uint32_t(value));
      else {
        std::fprintf(stderr, "corrupt_fatbin: unknown field '%s'\n", field.c_str());
        return 2;
      }
      ++patched;
    }
  }
  if (patched == 0) {
    std::fprintf(stderr, "corrupt_fatbin: no fatbinary found in '%s'\n", argv[1]);
    return 1;
  }
  std::ofstream(argv[2], std::ios::binary).write(f.data(), std::streamsize(f.size()));
  chmod(argv[2], 0755);
  return 0;
}
