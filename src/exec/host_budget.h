// How much host memory device memory may make resident before softgpu stops
// the program with an error (instead of the host's OOM killer doing so).
// The limit is given, or MemAvailable (/proc/meminfo) at start minus a
// margin; usage is the growth of this process's resident set
// (/proc/self/statm) since start, which covers the arena and the program's
// own host memory alike.
#pragma once
#include <cstdint>
#include <string>

namespace softgpu::exec {

class HostBudget {
 public:
  // limit 0: MemAvailable at construction minus max(256 MiB, MemTotal/32).
  explicit HostBudget(uint64_t limit = 0);
  uint64_t limit() const { return limit_; }
  bool explicit_limit() const { return explicit_; }
  // Resident-set growth since construction (0 if /proc cannot be read).
  uint64_t growth() const;
  // "N MiB (SOFTGPU_HOST_MEMORY_LIMIT)" or "N MiB (MemAvailable at start minus a margin)".
  std::string describe() const;

  static uint64_t resident_bytes();            // /proc/self/statm, 0 if unreadable
  static uint64_t meminfo(const char* key);    // /proc/meminfo field in bytes, 0 if absent

 private:
  uint64_t limit_ = 0;
  uint64_t start_rss_ = 0;
  bool explicit_ = false;
};

}  // namespace softgpu::exec
