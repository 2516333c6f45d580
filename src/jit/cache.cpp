// Entries: a header (magic, object size, xxHash64 of the object, the key)
// and the object. Written to a temporary name and renamed into place, so
// concurrent runs never see half an entry.
#include "jit/cache.h"

#include <llvm/Support/xxhash.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "common/read_file.h"

namespace softgpu::jit {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'S', 'G', 'J', 'I', 'T', 'O', '0', '1'};
constexpr size_t kKeyBytes = 64;

struct Header {
  char magic[8];
  uint64_t size;
  uint64_t checksum;
  char key[kKeyBytes];
};

uint64_t checksum(std::string_view s) {
  return llvm::xxHash64(llvm::StringRef(s.data(), s.size()));
}

}  // namespace

DiskCache::DiskCache(std::string dir, uint64_t limit_bytes) : dir_(std::move(dir)), limit_(limit_bytes) {}

std::string DiskCache::path(const std::string& key) const { return dir_ + "/" + key + ".o"; }

std::optional<std::string> DiskCache::get(const std::string& key) const {
  if (key.size() != kKeyBytes) return std::nullopt;
  const std::string p = path(key);
  // A regular file of at most a header and 1 GiB (read_regular_file: never
  // a read that blocks or grows without end, whatever is at that name).
  auto read = read_regular_file(p, sizeof(Header) + kMaxSourceFileBytes);
  // Missing (not cached yet), not a regular file or too large: compiled
  // afresh, and whatever is at that name left alone.
  if (!read) return std::nullopt;
  const std::string& file = read.value();
  Header h{};
  bool ok = file.size() >= sizeof h;
  if (ok) std::memcpy(&h, file.data(), sizeof h);
  ok = ok && std::memcmp(h.magic, kMagic, 8) == 0 && std::memcmp(h.key, key.data(), kKeyBytes) == 0 && h.size > 0 &&
       h.size == file.size() - sizeof h;
  std::string obj = ok ? file.substr(sizeof h) : std::string();
  if (!ok || checksum(obj) != h.checksum) {
    std::error_code ec;
    fs::remove(p, ec);  // damaged or foreign: compiled afresh and rewritten
    return std::nullopt;
  }
  return obj;
}

bool DiskCache::put(const std::string& key, std::string_view object) const {
  if (key.size() != kKeyBytes) return false;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return false;
  static std::atomic<uint64_t> serial{0};
  const std::string tmp = path(key) + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial++);
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return false;
    Header h{};
    std::memcpy(h.magic, kMagic, 8);
    h.size = object.size();
    h.checksum = checksum(object);
    std::memcpy(h.key, key.data(), kKeyBytes);
    f.write(reinterpret_cast<const char*>(&h), sizeof h);
    f.write(object.data(), std::streamsize(object.size()));
    if (!f.flush()) {
      f.close();
      fs::remove(tmp, ec);
      return false;
    }
  }
  fs::rename(tmp, path(key), ec);
  if (ec) {
    fs::remove(tmp, ec);
    return false;
  }
  prune();
  return true;
}

namespace {
bool hex_name(const std::string& s) {
  return !s.empty() && s.size() <= 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}
}  // namespace

bool DiskCache::has_hint(const std::string& hint) const {
  std::error_code ec;
  return hex_name(hint) && fs::is_regular_file(dir_ + "/hints/" + hint, ec);
}

void DiskCache::put_hint(const std::string& hint) const {
  if (!hex_name(hint)) return;
  std::error_code ec;
  fs::create_directories(dir_ + "/hints", ec);
  if (!ec) std::ofstream(dir_ + "/hints/" + hint, std::ios::binary | std::ios::trunc);
}

// Past the limit, the oldest entries go until the cache is at 3/4 of it.
void DiskCache::prune() const {
  struct Entry {
    fs::file_time_type t;
    uint64_t size;
    fs::path p;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir_, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (it->path().extension() != ".o") continue;
    std::error_code e2;
    const uint64_t size = it->file_size(e2);
    const auto t = it->last_write_time(e2);
    if (e2) continue;
    total += size;
    entries.push_back({t, size, it->path()});
  }
  if (total <= limit_) return;
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.t < b.t; });
  for (const Entry& e : entries) {
    if (total <= limit_ / 4 * 3) break;
    if (fs::remove(e.p, ec)) total -= e.size;
  }
}

}  // namespace softgpu::jit
