// What the cuBLASLt test programs share: status checks (cuBLASLt returns
// cublasStatus_t), the type combinations, attribute setters.
#pragma once

#include <cublasLt.h>

#include "../cublas/common.cuh"
#include "../cublas/typed.cuh"

#define CHECK_LT(call)                                                                          \
  do {                                                                                          \
    cublasStatus_t s_ = (call);                                                                 \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                          \
      std::fprintf(stderr, "FAIL %s:%d: %s returned %s (%d)\n", __FILE__, __LINE__, #call,      \
                   cublasLtGetStatusName(s_), (int)s_);                                         \
      return 1;                                                                                 \
    }                                                                                           \
  } while (0)

#define EXPECT_LT(call, want)                                                                   \
  do {                                                                                          \
    cublasStatus_t s_ = (call);                                                                 \
    if (s_ != (want)) {                                                                         \
      std::fprintf(stderr, "FAIL %s:%d: %s returned %s (%d), expected %s\n", __FILE__, __LINE__, \
                   #call, cublasLtGetStatusName(s_), (int)s_, #want);                           \
      return 1;                                                                                 \
    }                                                                                           \
  } while (0)

// A/B type, C = D type, scale type, compute type, what f32 inputs are
// rounded to first.
struct Combo {
  const char* name;
  cudaDataType ab, cd, scale;
  cublasComputeType_t comp;
  Round round;
};

template <typename T>
static cublasStatus_t set_desc(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t a, T v) {
  return cublasLtMatmulDescSetAttribute(d, a, &v, sizeof v);
}
template <typename T>
static cublasStatus_t set_layout(cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t a, T v) {
  return cublasLtMatrixLayoutSetAttribute(l, a, &v, sizeof v);
}

// GELU as cuBLAS computes it (the tanh approximation) and its derivative.
static double gelu_ref(double x) {
  const double k0 = 0.7978845608028654, k1 = 0.044715;
  return 0.5 * x * (1 + std::tanh(k0 * (x + k1 * x * x * x)));
}
static double gelu_grad_ref(double x) {
  const double k0 = 0.7978845608028654, k1 = 0.044715;
  const double t = std::tanh(k0 * (x + k1 * x * x * x));
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k0 * (1 + 3 * k1 * x * x);
}
