// Helpers shared by the runtime-level fuzz targets.
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/types.h"
#include "config/gpu_config.h"
#include "runtime/runtime.h"

namespace softgpu::fuzz {

// A fuzz target's oracle failure: report and crash so libFuzzer keeps the input.
[[noreturn]] inline void violation(const char* what, int got) {
  std::fprintf(stderr, "fuzz oracle violated: %s (got status %d)\n", what, got);
  std::abort();
}

// The input copied so that it ends exactly at an inaccessible page, the way
// a fatbin section can end at the end of its mapped segment: any read past
// the input faults, under a sanitizer or not.
class GuardedCopy {
 public:
  GuardedCopy(const uint8_t* data, size_t size) : size_(size) {
    size_t page = size_t(sysconf(_SC_PAGESIZE));
    len_ = ((size + 7) / page + 2) * page;
    void* m = mmap(nullptr, len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return;
    base_ = static_cast<uint8_t*>(m);
    mprotect(base_ + len_ - page, page, PROT_NONE);
    // 8-byte aligned like a real section: the end is padded by < 8 bytes.
    size_t start = (len_ - page - size) & ~size_t(7);
    data_ = base_ + start;
    if (size) std::memcpy(data_, data, size);
  }
  ~GuardedCopy() {
    if (base_) munmap(base_, len_);
  }
  GuardedCopy(const GuardedCopy&) = delete;
  GuardedCopy& operator=(const GuardedCopy&) = delete;
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  size_t size_ = 0, len_ = 0;
  uint8_t* base_ = nullptr;
  uint8_t* data_ = nullptr;
};

// Options for the fuzz GPU, set member by member (a partial braced list
// draws -Wmissing-field-initializers).
inline runtime::Options fuzz_options(double watchdog_seconds) {
  runtime::Options o;
  o.gpu = "fuzz";
  o.threads = 1;
  o.watchdog_seconds = watchdog_seconds;
  return o;
}

// A small GPU description, so the targets do not depend on config files.
inline config::GpuConfig fuzz_gpu() {
  config::GpuConfig g;
  g.name = "Fuzz GPU";
  g.key = "fuzz";
  g.cc_major = 8;
  g.cc_minor = 0;
  g.sm_count = 2;
  g.global_memory_bytes = 64ull << 20;
  g.max_threads_per_block = 1024;
  g.max_block_dim_x = 1024;
  g.max_block_dim_y = 1024;
  g.max_block_dim_z = 64;
  g.max_grid_dim_x = 2147483647;
  g.max_grid_dim_y = 65535;
  g.max_grid_dim_z = 65535;
  g.max_threads_per_sm = 2048;
  g.max_blocks_per_sm = 32;
  g.max_warps_per_sm = 64;
  g.shared_memory_per_sm = 167936;
  g.shared_memory_per_block = 49152;
  g.shared_memory_per_block_optin = 101376;
  g.reserved_shared_memory_per_block = 1024;
  return g;
}

inline bool one_of(Status s, std::initializer_list<Status> set) {
  for (Status x : set)
    if (s == x) return true;
  return false;
}

}  // namespace softgpu::fuzz
