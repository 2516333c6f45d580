// Reading a whole input file (PTX, a GPU config, a program, a fatbinary, a
// cache entry) with a size cap. The file is opened without blocking and
// fstat'ed before any read: a directory, a device such as /dev/zero or
// /dev/urandom, a FIFO or a socket is an error naming the file, never a
// read that blocks or grows without end; so is a file over the cap.
#pragma once
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>

#include <fmt/core.h>

#include "common/types.h"

namespace softgpu {

// Caps for the kinds of file softgpu reads.
inline constexpr uint64_t kMaxConfigFileBytes = 1ull << 20;   // a GPU config (TOML)
inline constexpr uint64_t kMaxSourceFileBytes = 1ull << 30;   // PTX, fatbinaries, cubins, cache entries
inline constexpr uint64_t kMaxProgramFileBytes = 4ull << 30;  // an executable inspected before it runs

// What kind of non-regular file `mode` is, for the error message.
inline const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// The whole of `path` when it is a regular file of at most `cap` bytes.
// Errors (message "'PATH': why"): FileNotFound when it cannot be opened,
// InvalidValue when it is not a regular file or is larger than `cap`.
inline Result<std::string> read_regular_file(const std::filesystem::path& path, uint64_t cap) {
  const std::string name = path.string();
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever.
  int fd = ::open(name.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Error{Status::FileNotFound, fmt::format("'{}': cannot open: {}", name, std::strerror(errno))};
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st{};
  if (::fstat(fd, &st) != 0)
    return Error{Status::FileNotFound, fmt::format("'{}': cannot stat: {}", name, std::strerror(errno))};
  if (!S_ISREG(st.st_mode))
    return Error{Status::InvalidValue, fmt::format("'{}' is {}, not a regular file", name, file_kind(st.st_mode))};
  const auto too_large = [&](uint64_t size) {
    return Error{Status::InvalidValue, fmt::format("'{}' is too large: {} bytes (the limit is {})", name, size, cap)};
  };
  if (uint64_t(st.st_size) > cap) return too_large(uint64_t(st.st_size));
  std::string text(size_t(st.st_size), '\0');
  size_t got = 0;
  while (true) {
    if (got == text.size()) {
      if (text.size() >= cap + 1) return too_large(text.size());  // grew past the cap while read
      text.resize(std::min<uint64_t>(cap + 1, uint64_t(text.size()) + 65536));
    }
    ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{Status::FileNotFound, fmt::format("'{}': read failed: {}", name, std::strerror(errno))};
    if (n == 0) break;
    got += size_t(n);
  }
  if (got > cap) return too_large(got);
  text.resize(got);
  return text;
}

}  // namespace softgpu
