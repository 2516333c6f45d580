#include "sanitize/result_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace softgpu::sanitize {
namespace {

constexpr uint64_t kMagic = 0x31534552'4e415347ull;  // "GSANRES1"
constexpr size_t kWords = 6;                         // magic + the five counts
constexpr size_t kBytes = 64;

void to_words(const Counts& c, uint64_t* w) {
  w[0] = kMagic;
  w[1] = c.errors;
  w[2] = c.warnings;
  w[3] = c.printed;
  w[4] = c.hazard_errors_shown;
  w[5] = c.hazard_warnings_shown;
}

std::string plural(uint64_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

}  // namespace

ResultFile::ResultFile(const std::string& path) {
  if (path.empty()) return;
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0 || ftruncate(fd_, kBytes) != 0) {
    std::fprintf(stderr, "softgpu sanitize: cannot write the result file '%s'; the summary may be wrong\n",
                 path.c_str());
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    return;
  }
  void* m = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (m != MAP_FAILED) map_ = static_cast<uint64_t*>(m);  // else pwrite at every store
  store(Counts{});
}

ResultFile::~ResultFile() {
  if (map_) munmap(map_, kBytes);
  if (fd_ >= 0) close(fd_);
}

void ResultFile::store(const Counts& c) {
  uint64_t w[kWords];
  to_words(c, w);
  if (map_) {
    // Relaxed atomic stores: each lands in the shared page as it is made.
    for (size_t i = kWords; i-- > 0;) __atomic_store_n(&map_[i], w[i], __ATOMIC_RELAXED);
  } else if (fd_ >= 0) {
    [[maybe_unused]] ssize_t n = pwrite(fd_, w, sizeof w, 0);
  }
}

std::optional<Counts> read_result_file(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  uint64_t w[kWords] = {};
  const ssize_t n = pread(fd, w, sizeof w, 0);
  close(fd);
  if (n != ssize_t(sizeof w) || w[0] != kMagic) return std::nullopt;
  return Counts{w[1], w[2], w[3], w[4], w[5]};
}

std::vector<std::string> summary_lines(ToolKind tool, const Counts& c) {
  std::vector<std::string> v;
  if (tool == ToolKind::Racecheck) {
    const uint64_t shown = c.hazard_errors_shown + c.hazard_warnings_shown;
    v.push_back(fmt::format("RACECHECK SUMMARY: {} displayed ({}, {})", plural(shown, "hazard"),
                            plural(c.hazard_errors_shown, "error"), plural(c.hazard_warnings_shown, "warning")));
  } else {
    v.push_back(fmt::format("ERROR SUMMARY: {}", plural(c.errors, "error")));
  }
  const uint64_t total = c.errors + c.warnings;
  if (total > c.printed) {
    const uint64_t k = total - c.printed;
    v.push_back(fmt::format("ERROR SUMMARY: {} {} not printed. Use --print-limit option to adjust the number of "
                            "printed errors",
                            plural(k, "error"), k == 1 ? "was" : "were"));
  }
  return v;
}

}  // namespace softgpu::sanitize
