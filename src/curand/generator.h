// A cuRAND generator: its type, options and the kStreams states of its
// algorithm (kernels.h), in device memory for a device generator and host
// memory for a host one.
#pragma once

#include <curand.h>

#include <cstdint>
#include <vector>

#include "kernels.h"

struct curandGenerator_st {
  curandRngType_t type = CURAND_RNG_PSEUDO_DEFAULT;
  softgpu::curand::Rng rng = softgpu::curand::Rng::Xorwow;
  bool host = false;
  cudaStream_t stream = nullptr;
  unsigned long long seed = 0, offset = 0;
  curandOrdering_t ordering = CURAND_ORDERING_PSEUDO_DEFAULT;
  bool stale = true;    // seed or offset changed since the states were made
  uint64_t steps = 0;   // steps taken since the offset (the next step is offset + steps)
  std::vector<unsigned char> host_states;  // host generator
  void* dev_states = nullptr;              // device generator
};
