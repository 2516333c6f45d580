// LTO-IR (NVVM's link-time-optimization input) turned into PTX by NVIDIA's
// own libnvJitLink.so.13 with -lto -ptx, which needs no GPU; the PTX then
// links like any other input. softgpu does not compile NVVM IR itself.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/types.h"
#include "nvjitlink/options.h"

namespace softgpu::nvjitlink {

struct LtoInput {
  std::string name;
  std::vector<std::byte> bytes;
};

// The PTX of all inputs optimized together, with NVIDIA's info log appended
// to `info`. Status::NotSupported when NVIDIA's library is not found
// (looked for at $SOFTGPU_NVJITLINK, then in $CUDA_HOME, $CUDA_PATH, the
// toolkit softgpu was built with and /usr/local/cuda), Status::InvalidSource
// with NVIDIA's error log when its link fails.
Result<std::string> lto_to_ptx(const std::vector<LtoInput>& inputs, const LinkOptions& options, std::string& info);

}  // namespace softgpu::nvjitlink
