// fatbin_check SECTION_FILE NVCC_PTX_FILE ARCH ENTRY: reads a .nv_fatbin
// section dumped by objcopy and checks that its best PTX has the given arch,
// contains `.entry ENTRY` and equals the `nvcc -ptx` output (normalized).
// Used by the nvcc-labelled ctest on a freshly compiled program.
#include <cstdio>
#include <string>

#include "fatbin/fatbin.h"
#include "test_util.h"

using namespace softgpu::fatbin;

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: fatbin_check SECTION_FILE NVCC_PTX_FILE ARCH ENTRY\n");
    return 2;
  }
  auto read = [](const char* path) {
    std::FILE* f = std::fopen(path, "rb");
    std::string s;
    if (!f) return s;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) s.append(buf, n);
    std::fclose(f);
    return s;
  };
  std::string sec = read(argv[1]), ptx = read(argv[2]);
  fatbin_test::Blob blob;
  blob.size = sec.size();
  blob.store.resize(sec.size() / 8 + 1);
  std::memcpy(blob.data(), sec.data(), sec.size());
  auto cs = read_section(blob.bytes());
  if (!cs) { std::fprintf(stderr, "read_section: %s\n", cs.error().message.c_str()); return 1; }
  if (cs->size() != 1) { std::fprintf(stderr, "expected 1 container, got %zu\n", cs->size()); return 1; }
  auto best = select_ptx(cs.value()[0]);
  if (!best) { std::fprintf(stderr, "select_ptx: %s\n", best.error().message.c_str()); return 1; }
  const PtxEntry& p = *best.value();
  if (std::to_string(p.arch) != argv[3]) { std::fprintf(stderr, "best arch %u, expected %s\n", p.arch, argv[3]); return 1; }
  if (!fatbin_test::ptx_has(p.text, std::string(".entry ") + argv[4])) {
    std::fprintf(stderr, "PTX lacks .entry %s\n", argv[4]);
    return 1;
  }
  if (fatbin_test::normalize_ptx(p.text) != fatbin_test::normalize_ptx(ptx)) {
    std::fprintf(stderr, "embedded PTX differs from nvcc -ptx output\n");
    return 1;
  }
  std::printf("ok: sm_%u PTX, %zu bytes, ISA %u.%u, flags %#llx\n", p.arch, p.text.size(), p.isa_major,
              p.isa_minor, (unsigned long long)p.flags);
  return 0;
}
