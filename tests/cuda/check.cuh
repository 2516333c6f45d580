// Shared helpers for the CUDA acceptance programs. Plain CUDA runtime API only,
// so every program also builds and runs on a real NVIDIA GPU.
#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <cstdint>

// Checks a runtime call; on failure prints the call, the error name and code,
// and makes the enclosing int-returning function return 1.
#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t e_ = (call);                                                     \
    if (e_ != cudaSuccess) {                                                     \
      std::fprintf(stderr, "FAIL %s:%d: %s returned %s (%d): %s\n", __FILE__,   \
                   __LINE__, #call, cudaGetErrorName(e_), (int)e_,               \
                   cudaGetErrorString(e_));                                      \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

// Asserts that a call returns exactly `want` (used by the fault and misuse tests).
#define EXPECT_ERR(call, want)                                                   \
  do {                                                                           \
    cudaError_t e_ = (call);                                                     \
    if (e_ != (want)) {                                                          \
      std::fprintf(stderr, "FAIL %s:%d: %s returned %s (%d), expected %s (%d)\n",\
                   __FILE__, __LINE__, #call, cudaGetErrorName(e_), (int)e_,     \
                   cudaGetErrorName(want), (int)(want));                         \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

// Checks both the launch (configuration) and the execution of the last kernel.
#define CHECK_LAUNCH()                                                           \
  do {                                                                           \
    CHECK(cudaGetLastError());                                                   \
    CHECK(cudaDeviceSynchronize());                                              \
  } while (0)

// Reports a failed boolean condition with a printf-style message.
#define REQUIRE(cond, ...)                                                       \
  do {                                                                           \
    if (!(cond)) {                                                               \
      std::fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);       \
      std::fprintf(stderr, __VA_ARGS__);                                         \
      std::fprintf(stderr, "\n");                                                \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

// Counts mismatches between got[] and want[] (exact comparison) and prints the
// first few with their index; returns the number of mismatches.
template <typename T>
inline long count_mismatches(const char* what, const T* got, const T* want, long n,
                             int max_print = 8) {
  long bad = 0;
  for (long i = 0; i < n; ++i) {
    if (!(got[i] == want[i])) {
      if (bad < max_print) {
        std::fprintf(stderr, "MISMATCH %s[%ld]: got %.17g expected %.17g\n", what, i,
                     (double)got[i], (double)want[i]);
      }
      ++bad;
    }
  }
  if (bad) std::fprintf(stderr, "MISMATCH %s: %ld of %ld elements differ\n", what, bad, n);
  return bad;
}

// Small deterministic generator so host and expected data never depend on libc rand().
struct Lcg {
  uint64_t s;
  explicit Lcg(uint64_t seed) : s(seed * 6364136223846793005ULL + 1442695040888963407ULL) {}
  uint32_t next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(s >> 33);
  }
  // Uniform float in [lo, hi).
  float uniform(float lo, float hi) { return lo + (hi - lo) * (float)(next() & 0xFFFFFF) / 16777216.0f; }
};
