// The JIT's on-disk cache (docs/jit.md): one object file per compiled
// function, named by a key that hashes the function's LLVM IR (which holds
// no host addresses) with everything code generation depends on (LLVM
// version, host CPU and features, optimization levels, cache format). A
// second run of a program loads its kernels' code instead of compiling it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace softgpu::jit {

class DiskCache {
 public:
  static constexpr uint64_t kDefaultLimit = 512ull << 20;
  // `dir` is created when first written; past `limit_bytes` the least
  // recently written entries are removed.
  explicit DiskCache(std::string dir, uint64_t limit_bytes = kDefaultLimit);
  // The object stored under `key`, or nothing: absent, unreadable, or not a
  // complete entry with that key (a damaged entry is removed).
  std::optional<std::string> get(const std::string& key) const;
  // Stores it (atomically: a reader sees the whole entry or none); best
  // effort: a cache that cannot be written is only slower. False if not stored.
  bool put(const std::string& key, std::string_view object) const;
  // Hints (hex names): a mark that some function was compiled and stored
  // here, so that a later run looks for its entry before the function is
  // hot (the entry's key, from its IR, still decides). Best effort.
  bool has_hint(const std::string& hint) const;
  void put_hint(const std::string& hint) const;
  const std::string& dir() const { return dir_; }

 private:
  std::string path(const std::string& key) const;
  void prune() const;
  std::string dir_;
  uint64_t limit_;
};

}  // namespace softgpu::jit
