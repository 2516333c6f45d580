// Helpers shared by the config tests: temporary directories, the shipped
// files' text with edits, and "this text is rejected with this message".
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "config/gpu_config.h"

namespace softgpu::config {
namespace {

namespace fs = std::filesystem;
const fs::path kShipped = SOFTGPU_SHIPPED_CONFIG_DIR;
constexpr uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh directory per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "softgpu-config-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
    return path_ / name;
  }

 private:
  fs::path path_;
};

// The shipped file `key`.toml with one exact piece of text replaced.
inline std::string edited(const std::string& key, const std::string& from, const std::string& to) {
  std::string text = read_text(kShipped / (key + ".toml"));
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "test setup: '" << from << "' not in " << key << ".toml";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// 1-based line of the first occurrence of `needle` in `text`.
inline int line_of(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  return at == std::string::npos ? -1 : 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
}

// Loads `text` as <key>.toml and expects an InvalidValue error containing `want`.
inline std::string expect_rejected(const std::string& text, const std::string& want, const std::string& key = "h100") {
  TempDir dir;
  auto r = load_gpu_config(dir.write(key + ".toml", text));
  EXPECT_FALSE(r.ok()) << "accepted a file that should fail with: " << want;
  if (r.ok()) return {};
  EXPECT_EQ(r.error().status, Status::InvalidValue);
  EXPECT_NE(r.error().message.find(want), std::string::npos)
      << "message:\n" << r.error().message << "\ndoes not contain:\n" << want;
  return r.error().message;
}

}  // namespace
}  // namespace softgpu::config
