// Helpers the cuBLAS test programs share: status checks, a deterministic
// random source, BLAS vector indexing, host/device copies and scalars for
// either pointer mode.
#pragma once

#include <cublas_v2.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "../check.cuh"

#define CHECK_BLAS(call)                                                                       \
  do {                                                                                         \
    cublasStatus_t s_ = (call);                                                                \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                         \
      std::fprintf(stderr, "FAIL %s:%d: %s returned %s (%d)\n", __FILE__, __LINE__, #call,     \
                   cublasGetStatusName(s_), (int)s_);                                          \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)

#define EXPECT_STATUS(call, want)                                                              \
  do {                                                                                         \
    cublasStatus_t s_ = (call);                                                                \
    if (s_ != (want)) {                                                                        \
      std::fprintf(stderr, "FAIL %s:%d: %s returned %s (%d), expected %s\n", __FILE__,         \
                   __LINE__, #call, cublasGetStatusName(s_), (int)s_, #want);                  \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double urand() {  // in [-1, 1)
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng_state >> 11) / (double)(1ull << 52) - 1.0;
}

// Element i of a BLAS vector of n elements with increment inc.
static long at(int i, int n, int inc) { return inc >= 0 ? (long)i * inc : (long)(i - n + 1) * inc; }
static long span(int n, int inc) { return 1 + (long)(n - 1) * std::labs(inc); }

template <typename T>
static int upload(const std::vector<T>& h, T** d) {
  CHECK(cudaMalloc(d, h.size() * sizeof(T) + sizeof(T)));
  CHECK(cudaMemcpy(*d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return 0;
}
template <typename T>
static int download(std::vector<T>& h, const T* d) {
  CHECK(cudaMemcpy(h.data(), d, h.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return 0;
}

// A scalar for the current pointer mode: the host value itself, or a copy in device memory.
template <typename T>
struct Arg {
  T host;
  T* dev = nullptr;
  const T* get(bool device) const { return device ? dev : &host; }
};
template <typename T>
static int make_arg(Arg<T>& a, T v) {
  a.host = v;
  CHECK(cudaMalloc(&a.dev, sizeof(T)));
  CHECK(cudaMemcpy(a.dev, &v, sizeof(T), cudaMemcpyHostToDevice));
  return 0;
}

static const char* op_name(cublasOperation_t op) { return op == CUBLAS_OP_N ? "N" : op == CUBLAS_OP_T ? "T" : "C"; }
