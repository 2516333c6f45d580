#include "nvjitlink/options.h"

#include <array>
#include <charconv>

#include <fmt/format.h>

namespace softgpu::nvjitlink {

namespace {

// Options taking no value, and those written -name=value (nvJitLink.h).
constexpr std::array kFlags{"-lto", "-ptx", "-time", "-verbose", "-g", "-lineinfo", "-optimize-unused-variables",
                            "-no-cache", "-device-stack-protector"};
constexpr std::array kValued{"-maxrregcount=", "-ftz=", "-prec-div=", "-prec-sqrt=", "-fma=", "-kernels-used=",
                             "-variables-used=", "-Xptxas=", "-split-compile=", "-split-compile-extended=",
                             "-jump-table-density=", "-device-stack-protector="};

// sm_90a, compute_80, lto_89, sm_100f -> 90, 80, 89, 100; 0 when malformed.
uint32_t arch_cc(std::string_view arch) {
  for (std::string_view prefix : {"sm_", "compute_", "lto_"}) {
    if (!arch.starts_with(prefix)) continue;
    std::string_view digits = arch.substr(prefix.size());
    if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) digits.remove_suffix(1);
    uint32_t cc = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), cc);
    if (ec != std::errc{} || end != digits.data() + digits.size() || cc < 10) return 0;
    return cc;
  }
  return 0;
}

}  // namespace

Result<LinkOptions> parse_options(const std::vector<std::string_view>& options) {
  LinkOptions out;
  for (std::string_view o : options) {
    out.passed.emplace_back(o);
    if (o.starts_with("-arch=")) {
      out.arch = std::string(o.substr(6));
      out.cc = arch_cc(out.arch);
      if (!out.cc) return Error{Status::InvalidDevice, fmt::format("error   : unrecognized -arch value '{}'", out.arch)};
      continue;
    }
    if (o == "-lto") out.lto = true;
    if (o == "-ptx") out.ptx = true;
    bool known = false;
    for (std::string_view f : kFlags) known |= o == f;
    for (std::string_view v : kValued) known |= o.starts_with(v) && o.size() > v.size();
    // -O0 .. -O3 (NVIDIA's accepts 0 and 3)
    known |= o.size() == 3 && o.starts_with("-O") && o[2] >= '0' && o[2] <= '3';
    if (!known) return Error{Status::InvalidValue, fmt::format("error   : unrecognized option '{}'", o)};
  }
  if (out.arch.empty()) return Error{Status::NotFound, "error   : option -arch=sm_NN was not given"};
  return out;
}

}  // namespace softgpu::nvjitlink
