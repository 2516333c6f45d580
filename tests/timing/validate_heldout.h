// The held-out validation table (validate_heldout.cpp), for timing_validate.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "config/gpu_config.h"

// GEMMs of more than `max_gemm_flop` (2 m n k) are not simulated (minutes
// each); only entries whose id contains `match` run (empty: all). Writes
// the tables (Markdown) to `out`.
void heldout_table(const std::vector<softgpu::config::GpuConfig>& gpus, uint32_t stream_n, uint64_t max_footprint,
                   double max_gemm_flop, const std::string& match, std::ostream& out);
// gpu-strides' L1 rate (bytes per cycle per SM) for elements of `bytes`
// (4 or 8) read at `stride` elements apart (validate_heldout.cpp).
double strides_bytes_per_cycle(const softgpu::config::GpuConfig& g, uint32_t bytes, uint32_t stride);
// Replaces what stands between "<!-- heldout:begin ... -->" and
// "<!-- heldout:end -->" in the Markdown file `path` with `generated`.
void write_heldout_section(const std::string& path, const std::string& generated);
