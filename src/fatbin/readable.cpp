// How far the process may read from a pointer it was handed: nvcc's
// registration code passes bare pointers (wrapper, containers, prelinked
// array), so every size read from them is checked against this before use.
#include <link.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>

#include "fatbin/fatbin.h"

namespace softgpu::fatbin {

namespace {

struct SegmentQuery {
  uintptr_t addr = 0;
  size_t extent = 0;
  bool found = false;
};

// The loaded ELF segment (PT_LOAD) of any object that holds the address:
// that is where real wrappers and containers live (.nvFatBinSegment, .nv_fatbin).
int find_segment(dl_phdr_info* info, size_t, void* data) {
  auto* q = static_cast<SegmentQuery*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_R)) continue;
    uintptr_t start = info->dlpi_addr + ph.p_vaddr, end = start + ph.p_memsz;
    if (q->addr >= start && q->addr < end) {
      q->extent = end - q->addr;
      q->found = true;
      return 1;
    }
  }
  return 0;
}

// The run of adjacent readable mappings (/proc/self/maps) that holds the
// address: heap or mmap'd memory (tests, programs that build wrappers).
// nullopt when the maps file cannot be read.
std::optional<size_t> mapped_extent(uintptr_t addr) {
  std::FILE* f = std::fopen("/proc/self/maps", "re");
  if (!f) return std::nullopt;
  size_t extent = 0;
  uintptr_t run_end = 0;
  bool in_run = false;
  char line[512];
  while (std::fgets(line, sizeof line, f)) {
    unsigned long lo = 0, hi = 0;
    char perms[5] = {};
    if (std::sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) != 3) continue;
    bool readable = perms[0] == 'r';
    if (!in_run) {
      if (addr >= lo && addr < hi && readable) {
        in_run = true;
        run_end = hi;
      }
    } else if (lo == run_end && readable) {
      run_end = hi;
    } else {
      break;
    }
    // Lines longer than the buffer: skip the rest of the line.
    while (!std::strchr(line, '\n') && std::fgets(line, sizeof line, f)) {
    }
  }
  std::fclose(f);
  if (in_run) extent = run_end - addr;
  return extent;
}

}  // namespace

size_t readable_bytes(const void* p) {
  if (!p) return 0;
  SegmentQuery q{reinterpret_cast<uintptr_t>(p)};
  dl_iterate_phdr(find_segment, &q);
  if (q.found) return q.extent;
  if (auto m = mapped_extent(q.addr)) return *m;
  // No /proc: nothing to check against; the caller's own limits still apply.
  return std::numeric_limits<size_t>::max();
}

}  // namespace softgpu::fatbin
