// Kernel names as people wrote them: "vadd(float const*, int)" for
// "_Z4vaddPKfi"; the name itself when it is not a mangled C++ name.
#pragma once
#include <cxxabi.h>

#include <cstdlib>
#include <string>
#include <string_view>

namespace softgpu {

inline std::string demangle(std::string_view name) {
  if (name.substr(0, 2) != "_Z") return std::string(name);
  int status = 0;
  char* d = abi::__cxa_demangle(std::string(name).c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && d ? std::string(d) : std::string(name);
  std::free(d);
  return out;
}

}  // namespace softgpu
