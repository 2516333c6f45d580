// What the cuBLAS routine tests with parts (cublas_more.cu,
// cublas_level3_more.cu) share: tolerance checks counting checks and
// failures (the first ten printed), random inputs in [-1, 1), freeing, and
// main(): one part for float then double, in both pointer modes, then the
// statuses.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "common.cuh"

static long checks = 0, bad = 0;

static void expect_near(double got, double ref, double tol, const char* what, long i) {
  ++checks;
  if (!(std::fabs(got - ref) <= tol)) {
    if (++bad <= 10) std::printf("FAIL %s [%ld]: got %.17g, expected %.17g (tol %.3g)\n", what, i, got, ref, tol);
  }
}

// Bit for bit (NaN stays NaN): for what a routine must not write.
template <typename T>
static void expect_same(const T& got, const T& want, const char* what, long i) {
  const bool same = std::memcmp(&got, &want, sizeof(T)) == 0;
  expect_near(same ? 0 : 1, 0, 0, what, i);
}

template <typename T>
static std::vector<T> random_vec(size_t n) {
  std::vector<T> v(n);
  for (auto& x : v) x = (T)urand();
  return v;
}

// A reference sum and the sum of its terms' magnitudes, both times alpha,
// plus beta c (not with beta = 0, where C is not read).
static void scale_terms(double& ref, double& mag, double alpha, double beta, double c) {
  ref *= alpha;
  mag *= std::fabs(alpha);
  if (beta != 0) {
    ref += beta * c;
    mag += std::fabs(beta * c);
  }
}

static int free_all(std::initializer_list<const void*> ps) {
  for (const void* p : ps) CHECK(cudaFree(const_cast<void*>(p)));
  return 0;
}

// main() of `prog` PART: run(h, part, device, T()) for T = float, double and
// device = false, true (0 passed, 1 failed, 2 unknown part), then
// statuses(h, T()) in host pointer mode; PASS if no check failed.
template <typename Run, typename Statuses>
static int parts_main(int argc, char** argv, const char* prog, const char* parts, Run run, Statuses statuses) {
  if (argc != 2) { std::printf("usage: %s %s\n", prog, parts); return 2; }
  const std::string part = argv[1];
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  auto each_mode = [&](auto type) {
    for (bool device : {false, true}) {
      CHECK_BLAS(cublasSetPointerMode(h, device ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST));
      if (int rc = run(h, part, device, type)) {
        if (rc == 2) std::printf("unknown part %s\n", part.c_str());
        return rc;
      }
    }
    CHECK_BLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    return statuses(h, type);
  };
  if (int rc = each_mode(float())) return rc;
  if (int rc = each_mode(double())) return rc;
  CHECK_BLAS(cublasDestroy(h));
  std::printf("%ld checks, %ld failures\n", checks, bad);
  if (bad) { std::printf("FAIL %s %s\n", prog, part.c_str()); return 1; }
  std::printf("PASS %s %s\n", prog, part.c_str());
  return 0;
}
