// Helpers for the PTX front-end tests: reading test data, comparing ASTs.
#pragma once
#include <fstream>
#include <sstream>
#include <string>

#include "ptx/ast.h"

namespace softgpu::ptx::test {

inline std::string data_path(const std::string& name) { return std::string(PTX_TEST_DATA_DIR) + "/" + name; }

inline std::string read_data(const std::string& name) {
  std::ifstream f(data_path(name), std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Structural comparison ignoring source locations. Returns "" when equal,
// else a description of the first difference.
std::string diff(const Module& a, const Module& b);

}  // namespace softgpu::ptx::test
