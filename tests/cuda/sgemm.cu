// Tiled SGEMM C = A*B (row-major, M x K times K x N) through 16x16 shared tiles,
// with sizes that are not multiples of the tile.
#include "check.cuh"
#include <cmath>
#include <vector>

constexpr int T = 16;

__global__ void sgemm(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  int row = blockIdx.y * T + threadIdx.y;
  int col = blockIdx.x * T + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += T) {
    int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < T; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

int main() {
  const int M = 129, N = 95, K = 200;
  std::vector<float> A((size_t)M * K), B((size_t)K * N), C((size_t)M * N);
  Lcg rng(7);
  for (auto& x : A) x = rng.uniform(-1.f, 1.f);
  for (auto& x : B) x = rng.uniform(-1.f, 1.f);

  float *dA, *dB, *dC;
  CHECK(cudaMalloc(&dA, A.size() * sizeof(float)));
  CHECK(cudaMalloc(&dB, B.size() * sizeof(float)));
  CHECK(cudaMalloc(&dC, C.size() * sizeof(float)));
  CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dC, 0xFF, C.size() * sizeof(float)));  // NaN garbage
  dim3 block(T, T), grid((N + T - 1) / T, (M + T - 1) / T);
  sgemm<<<grid, block>>>(dA, dB, dC, M, N, K);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));

  // Tolerance: the reference is computed in double (error negligible at float
  // scale). A float dot product of K terms, in any order and with or without
  // FMA contraction, satisfies |fl(c) - c| <= gamma_K * sum|a_k*b_k| with
  // gamma_K = K*u/(1-K*u), u = 2^-24 (Higham, Accuracy and Stability of
  // Numerical Algorithms, eq. 3.5). We allow that bound plus a relative term
  // for the final rounding; a wrong index or a missed tile is far larger.
  const double u = std::ldexp(1.0, -24);
  const double gamma = K * u / (1.0 - K * u);
  long bad = 0;
  double worst = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0, mag = 0;
      for (int k = 0; k < K; ++k) {
        double p = (double)A[(size_t)i * K + k] * (double)B[(size_t)k * N + j];
        ref += p;
        mag += std::fabs(p);
      }
      double tol = gamma * mag + u * std::fabs(ref);
      double got = C[(size_t)i * N + j];
      double err = std::fabs(got - ref);
      if (!(err <= tol)) {  // also catches NaN
        if (bad < 8)
          std::fprintf(stderr, "MISMATCH C[%d][%d]: got %.9g expected %.9g (err %.3g > tol %.3g)\n",
                       i, j, got, ref, err, tol);
        ++bad;
      }
      if (tol > 0 && err / tol > worst) worst = err / tol;
    }
  if (bad) {
    std::fprintf(stderr, "MISMATCH C: %ld of %d elements outside tolerance\n", bad, M * N);
    return 1;
  }
  CHECK(cudaFree(dA));
  CHECK(cudaFree(dB));
  CHECK(cudaFree(dC));
  std::printf("PASS sgemm (worst error %.3f of tolerance)\n", worst);
  return 0;
}
