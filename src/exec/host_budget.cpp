#include "exec/host_budget.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace softgpu::exec {

namespace {
// Reads a small /proc file into buf; returns the bytes read (0 on failure).
size_t read_proc(const char* path, char* buf, size_t cap) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  size_t n = 0;
  while (n + 1 < cap) {
    ssize_t r = ::read(fd, buf + n, cap - 1 - n);
    if (r <= 0) break;
    n += size_t(r);
  }
  ::close(fd);
  buf[n] = 0;
  return n;
}
}  // namespace

uint64_t HostBudget::resident_bytes() {
  char buf[256];
  if (!read_proc("/proc/self/statm", buf, sizeof buf)) return 0;
  unsigned long long size = 0, resident = 0;
  if (std::sscanf(buf, "%llu %llu", &size, &resident) != 2) return 0;
  return uint64_t(resident) * uint64_t(sysconf(_SC_PAGESIZE));
}

uint64_t HostBudget::meminfo(const char* key) {
  char buf[8192];
  if (!read_proc("/proc/meminfo", buf, sizeof buf)) return 0;
  const size_t klen = std::strlen(key);
  for (const char* line = buf; *line;) {
    if (!std::strncmp(line, key, klen) && line[klen] == ':') return std::strtoull(line + klen + 1, nullptr, 10) * 1024;
    const char* nl = std::strchr(line, '\n');
    if (!nl) break;
    line = nl + 1;
  }
  return 0;
}

HostBudget::HostBudget(uint64_t limit) : start_rss_(resident_bytes()) {
  if (limit) {
    limit_ = limit;
    explicit_ = true;
    return;
  }
  const uint64_t avail = meminfo("MemAvailable"), total = meminfo("MemTotal");
  const uint64_t margin = std::max<uint64_t>(uint64_t(256) << 20, total / 32);
  // Without /proc there is nothing to go by: no limit.
  limit_ = avail == 0 ? UINT64_MAX : avail > margin ? avail - margin : 0;
}

uint64_t HostBudget::growth() const {
  const uint64_t r = resident_bytes();
  return r > start_rss_ ? r - start_rss_ : 0;
}

std::string HostBudget::describe() const {
  if (limit_ == UINT64_MAX) return "unlimited";
  return fmt::format("{} MiB ({})", limit_ >> 20,
                     explicit_ ? "SOFTGPU_HOST_MEMORY_LIMIT" : "the host's MemAvailable at start minus a margin");
}

}  // namespace softgpu::exec
