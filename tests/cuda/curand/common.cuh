// What the cuRAND test programs share: a status check, and the CPU reference
// of softgpu's documented output order (src/curand/kernels.h): step g after
// the offset is taken by stream g % 4096, stream s starting from
// curand_init(seed, s, 0) and advancing through its own steps in order.
// The reference runs the toolkit's curand_kernel.h functions on the CPU
// (QUALIFIERS made __host__ __device__; the header has host paths for
// XORWOW, Philox and MRG32k3a) and skips an offset by drawing, not by
// curand_init's offset argument.
#pragma once

#define QUALIFIERS static __forceinline__ __host__ __device__
#include <curand.h>
#include <curand_kernel.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "../check.cuh"

#define CHECK_R(call)                                                                                   \
  do {                                                                                                  \
    curandStatus_t s_ = (call);                                                                         \
    if (s_ != CURAND_STATUS_SUCCESS) {                                                                  \
      std::fprintf(stderr, "FAIL %s:%d: %s returned %d\n", __FILE__, __LINE__, #call, (int)s_);         \
      return 1;                                                                                         \
    }                                                                                                   \
  } while (0)

#define EXPECT_R(call, want)                                                                            \
  do {                                                                                                  \
    curandStatus_t s_ = (call);                                                                         \
    if (s_ != (want)) {                                                                                 \
      std::fprintf(stderr, "FAIL %s:%d: %s returned %d, expected %d\n", __FILE__, __LINE__, #call,      \
                   (int)s_, (int)(want));                                                               \
      return 1;                                                                                         \
    }                                                                                                   \
  } while (0)

constexpr unsigned kRefStreams = 4096;

// Reference states at `offset` steps, each step of the skipped part drawing
// `draws` 32-bit values (1: curandGenerate and curandGenerateUniform).
template <typename S>
std::vector<S> ref_states(unsigned long long seed, unsigned long long offset) {
  std::vector<S> st(kRefStreams);
  for (unsigned s = 0; s < kRefStreams; ++s) curand_init(seed, s, 0, &st[s]);
  for (unsigned long long g = 0; g < offset; ++g) curand(&st[g % kRefStreams]);
  return st;
}

// The reference of `steps` steps from step `first` on, each step f(state, j).
template <typename S, typename F>
void ref_run(std::vector<S>& st, unsigned long long first, size_t steps, F f) {
  for (size_t j = 0; j < steps; ++j) f(&st[(first + j) % kRefStreams], j);
}
