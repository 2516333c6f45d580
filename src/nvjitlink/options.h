// nvJitLinkCreate's options (nvJitLink.h lists them), read into what
// softgpu's linker uses: the target's compute capability, whether LTO and
// PTX output were asked for, and the options NVIDIA's library gets when
// LTO-IR goes through it (lto.cpp). Code-generation options (-O, -maxrregcount,
// -ftz, ...) change nothing here: softgpu runs the PTX as it is.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/types.h"

namespace softgpu::nvjitlink {

struct LinkOptions {
  std::string arch;      // as given: sm_90, sm_90a, compute_80, lto_89 ...
  uint32_t cc = 0;       // 90 for sm_90a: picks a fatbinary's PTX
  bool lto = false;      // -lto
  bool ptx = false;      // -ptx: linked PTX instead of a cubin (NVIDIA's: LTO only)
  std::vector<std::string> passed;  // every option, for NVIDIA's library
};

// Status::InvalidValue with a message naming the option when one is unknown
// or malformed, Status::InvalidDevice when -arch names no architecture,
// Status::NotFound when no -arch was given.
Result<LinkOptions> parse_options(const std::vector<std::string_view>& options);

}  // namespace softgpu::nvjitlink
