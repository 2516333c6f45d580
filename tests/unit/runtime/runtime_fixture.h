// A Runtime on a small hand-written GPU description, so the tests do not
// depend on the shipped config files.
#pragma once
#include <gtest/gtest.h>

#include "runtime/runtime.h"

namespace softgpu::runtime::testing {

inline config::GpuConfig test_gpu() {
  config::GpuConfig g;
  g.name = "Test GPU";
  g.key = "test";
  g.cc_major = 8;
  g.cc_minor = 0;
  g.sm_count = 4;
  g.global_memory_bytes = 1ull << 30;
  g.max_threads_per_block = 1024;
  g.max_block_dim_x = 1024;
  g.max_block_dim_y = 1024;
  g.max_block_dim_z = 64;
  g.max_grid_dim_x = 2147483647;
  g.max_grid_dim_y = 65535;
  g.max_grid_dim_z = 65535;
  g.max_threads_per_sm = 2048;
  g.max_blocks_per_sm = 32;
  g.max_warps_per_sm = 64;
  g.shared_memory_per_sm = 167936;
  g.shared_memory_per_block = 49152;
  g.shared_memory_per_block_optin = 101376;
  g.reserved_shared_memory_per_block = 1024;
  return g;
}

// Options set member by member: a braced list that names only some members
// draws -Wmissing-field-initializers.
inline Options test_options(const std::string& gpu = "test", unsigned threads = 2, double watchdog = 30.0) {
  Options o;
  o.gpu = gpu;
  o.threads = threads;
  o.watchdog_seconds = watchdog;
  return o;
}

class RuntimeTest : public ::testing::Test {
 protected:
  RuntimeTest() : rt(test_gpu(), test_options()) {}
  Runtime rt;
};

}  // namespace softgpu::runtime::testing
