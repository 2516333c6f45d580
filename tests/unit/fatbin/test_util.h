// Helpers shared by the fatbin tests: load committed test data, 8-byte
// aligned like the .nv_fatbin section it came from.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace fatbin_test {

inline std::string data_path(const std::string& name) { return std::string(FATBIN_TEST_DATA_DIR) + "/" + name; }

inline std::string read_text(const std::string& name) {
  std::ifstream f(data_path(name), std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// Bytes in 8-byte aligned storage (uint64_t vector), exposed as a span.
struct Blob {
  std::vector<uint64_t> store;
  size_t size = 0;
  std::byte* data() { return reinterpret_cast<std::byte*>(store.data()); }
  std::span<const std::byte> bytes() const { return {reinterpret_cast<const std::byte*>(store.data()), size}; }
  std::span<std::byte> mut() { return {data(), size}; }
};

inline Blob load(const std::string& name) {
  std::string s = read_text(name);
  Blob b;
  b.size = s.size();
  b.store.resize((s.size() + 7) / 8 + 1);
  if (!s.empty()) std::memcpy(b.data(), s.data(), s.size());
  return b;
}

// PTX without comments, blank lines and with each whitespace run turned into
// one space: the fatbin copy drops comments and every tab (not only leading
// ones, as seen with nvcc 13.0), so that is the form in which it agrees with
// `nvcc -ptx` output.
inline std::vector<std::string> normalize_ptx(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (auto c = line.find("//"); c != std::string::npos) line.erase(c);
    std::string norm;
    for (char ch : line) {
      bool ws = ch == ' ' || ch == '\t' || ch == '\r';
      if (!ws) norm += ch;
      else if (!norm.empty() && norm.back() != ' ') norm += ' ';
    }
    while (!norm.empty() && norm.back() == ' ') norm.pop_back();
    if (!norm.empty()) out.push_back(norm);
  }
  return out;
}

// True when `needle` (already normalized: single spaces) is in normalized PTX.
inline bool ptx_has(const std::string& text, const std::string& needle) {
  std::string joined;
  for (auto& l : normalize_ptx(text)) joined += l + "\n";
  return joined.find(needle) != std::string::npos;
}

}  // namespace fatbin_test
