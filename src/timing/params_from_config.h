// TimingParams from a GPU config: the one place where the config's
// published units (GB/s, microseconds, kHz) become the model's SM cycles.
#pragma once
#include <cstdint>

#include "common/types.h"
#include "config/gpu_config.h"
#include "timing/params.h"

namespace softgpu::timing {

// `shared_carveout_bytes`: the shared memory the kernel's carveout takes from
// the unified L1/shared array (the driver's rounding to supported sizes is
// the caller's); the L1 gets the rest. InvalidValue if it exceeds
// sm.shared_memory_per_sm.
Result<TimingParams> params_from(const config::GpuConfig& gpu, uint64_t shared_carveout_bytes);

}  // namespace softgpu::timing
