// Statuses of softgpu's libcurand for misuse, per curand.h's documentation,
// versions and properties, a stream, and an unimplemented routine (its
// ARCH_MISMATCH and its line on stderr, which ctest checks).
#include "common.cuh"

int main() {
  curandGenerator_t g = nullptr, none = nullptr;
  unsigned* d = nullptr;
  CHECK(cudaMalloc(&d, 64 * sizeof(unsigned)));
  EXPECT_R(curandCreateGenerator(&g, curandRngType_t(0x7777)), CURAND_STATUS_TYPE_ERROR);
  EXPECT_R(curandCreateGeneratorHost(&g, curandRngType_t(99)), CURAND_STATUS_TYPE_ERROR);
  EXPECT_R(curandCreateGenerator(nullptr, CURAND_RNG_PSEUDO_DEFAULT), CURAND_STATUS_OUT_OF_RANGE);
  EXPECT_R(curandCreateGenerator(&g, CURAND_RNG_QUASI_SOBOL32), CURAND_STATUS_ARCH_MISMATCH);
  if (g != nullptr) {
    std::printf("FAIL: a failed create left a generator\n");
    return 1;
  }
  // A null generator.
  float* f = reinterpret_cast<float*>(d);
  EXPECT_R(curandDestroyGenerator(none), CURAND_STATUS_NOT_INITIALIZED);
  EXPECT_R(curandSetStream(none, nullptr), CURAND_STATUS_NOT_INITIALIZED);
  EXPECT_R(curandSetPseudoRandomGeneratorSeed(none, 1), CURAND_STATUS_NOT_INITIALIZED);
  EXPECT_R(curandSetGeneratorOffset(none, 1), CURAND_STATUS_NOT_INITIALIZED);
  EXPECT_R(curandSetGeneratorOrdering(none, CURAND_ORDERING_PSEUDO_DEFAULT), CURAND_STATUS_NOT_INITIALIZED);
  EXPECT_R(curandGenerate(none, d, 64), CURAND_STATUS_NOT_INITIALIZED);
  EXPECT_R(curandGenerateUniform(none, f, 64), CURAND_STATUS_NOT_INITIALIZED);
  EXPECT_R(curandGenerateNormal(none, f, 64, 0, 1), CURAND_STATUS_NOT_INITIALIZED);
  EXPECT_R(curandGeneratePoisson(none, d, 64, 1.0), CURAND_STATUS_NOT_INITIALIZED);
  // Versions.
  int v = 0;
  CHECK_R(curandGetVersion(&v));
  if (v != CURAND_VERSION) return std::printf("FAIL version %d\n", v), 1;
  CHECK_R(curandGetProperty(MAJOR_VERSION, &v));
  if (v != CURAND_VER_MAJOR) return std::printf("FAIL major %d\n", v), 1;
  CHECK_R(curandGetProperty(PATCH_LEVEL, &v));
  if (v != CURAND_VER_PATCH) return std::printf("FAIL patch %d\n", v), 1;
  EXPECT_R(curandGetProperty(libraryPropertyType(7), &v), CURAND_STATUS_OUT_OF_RANGE);
  EXPECT_R(curandGetVersion(nullptr), CURAND_STATUS_OUT_OF_RANGE);
  // A real generator, misused.
  CHECK_R(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  for (curandOrdering_t o : {CURAND_ORDERING_PSEUDO_BEST, CURAND_ORDERING_PSEUDO_DEFAULT, CURAND_ORDERING_PSEUDO_SEEDED,
                             CURAND_ORDERING_PSEUDO_LEGACY, CURAND_ORDERING_PSEUDO_DYNAMIC})
    CHECK_R(curandSetGeneratorOrdering(g, o));
  EXPECT_R(curandSetGeneratorOrdering(g, CURAND_ORDERING_QUASI_DEFAULT), CURAND_STATUS_OUT_OF_RANGE);
  EXPECT_R(curandSetGeneratorOrdering(g, curandOrdering_t(5)), CURAND_STATUS_OUT_OF_RANGE);
  EXPECT_R(curandSetQuasiRandomGeneratorDimensions(g, 2), CURAND_STATUS_TYPE_ERROR);
  EXPECT_R(curandGenerateNormal(g, f, 63, 0, 1), CURAND_STATUS_LENGTH_NOT_MULTIPLE);
  EXPECT_R(curandGenerateNormalDouble(g, reinterpret_cast<double*>(d), 31, 0, 1), CURAND_STATUS_LENGTH_NOT_MULTIPLE);
  EXPECT_R(curandGenerateLogNormal(g, f, 1, 0, 1), CURAND_STATUS_LENGTH_NOT_MULTIPLE);
  EXPECT_R(curandGenerateLogNormalDouble(g, reinterpret_cast<double*>(d), 3, 0, 1), CURAND_STATUS_LENGTH_NOT_MULTIPLE);
  EXPECT_R(curandGenerateLongLong(g, reinterpret_cast<unsigned long long*>(d), 32), CURAND_STATUS_TYPE_ERROR);
  EXPECT_R(curandGeneratePoisson(g, d, 64, 0.0), CURAND_STATUS_OUT_OF_RANGE);
  EXPECT_R(curandGeneratePoisson(g, d, 64, -1.0), CURAND_STATUS_OUT_OF_RANGE);
  EXPECT_R(curandGeneratePoisson(g, d, 64, 400001.0), CURAND_STATUS_OUT_OF_RANGE);
  EXPECT_R(curandGenerate(g, nullptr, 64), CURAND_STATUS_OUT_OF_RANGE);
  CHECK_R(curandGenerate(g, nullptr, 0));  // nothing to do
  // On a stream: the values land after a stream synchronize.
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaMemset(d, 0, 64 * sizeof(unsigned)));
  CHECK_R(curandSetStream(g, s));
  CHECK_R(curandGenerate(g, d, 64));
  CHECK(cudaStreamSynchronize(s));
  unsigned h[64];
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  int zeros = 0;
  for (unsigned x : h) zeros += x == 0;
  if (zeros > 1) return std::printf("FAIL %d zero words after a stream's generate\n", zeros), 1;
  CHECK_R(curandDestroyGenerator(g));
  CHECK(cudaStreamDestroy(s));
  // An entry point softgpu does not implement.
  curandDiscreteDistribution_t dist;
  EXPECT_R(curandCreatePoissonDistribution(2.0, &dist), CURAND_STATUS_ARCH_MISMATCH);
  CHECK(cudaFree(d));
  std::printf("PASS curand_errors\n");
  return 0;
}
