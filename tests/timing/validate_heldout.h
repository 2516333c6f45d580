// The held-out validation table (validate_heldout.cpp), for timing_validate.
#pragma once
#include <cstdint>
#include <vector>

#include "config/gpu_config.h"

void heldout_table(const std::vector<softgpu::config::GpuConfig>& gpus, uint32_t stream_n, uint64_t max_footprint);
