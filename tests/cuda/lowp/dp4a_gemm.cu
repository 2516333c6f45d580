// int8 GEMM with __dp4a: C[i][j] = sum_k A[i][k] * B[k][j] over signed bytes,
// four per 32-bit word (K-major packing). Integer arithmetic: exact compare.
// Also the unsigned-by-signed form through inline PTX dp4a.u32.s32.
#include <vector>

#include "../check.cuh"

constexpr int M = 48, N = 40, K = 64;  // K is a multiple of 4

__global__ void gemm(const int* a4, const int* bt4, int* c, int* cu) {
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M || j >= N) return;
  int acc = 0;
  unsigned accu = 0;
  for (int k = 0; k < K / 4; ++k) {
    acc = __dp4a(a4[i * (K / 4) + k], bt4[j * (K / 4) + k], acc);
    unsigned r;
    asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a4[i * (K / 4) + k]), "r"(bt4[j * (K / 4) + k]), "r"(accu));
    accu = r;
  }
  c[i * N + j] = acc;
  cu[i * N + j] = int(accu);
}

int main() {
  std::vector<signed char> a(M * K), bt(N * K);  // bt = B transposed: bt[j][k] = B[k][j]
  Lcg g(9);
  for (auto& v : a) v = (signed char)(int(g.next() % 256) - 128);
  for (auto& v : bt) v = (signed char)(int(g.next() % 256) - 128);
  std::vector<int> want(M * N), wantu(M * N), got(M * N), gotu(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      long s = 0, su = 0;
      for (int k = 0; k < K; ++k) {
        s += long(a[i * K + k]) * bt[j * K + k];
        su += long((unsigned char)a[i * K + k]) * bt[j * K + k];  // a read as unsigned bytes
      }
      want[i * N + j] = int(s);
      wantu[i * N + j] = int(uint32_t(su));  // dp4a accumulates modulo 2^32
    }
  int *da, *db, *dc, *dcu;
  CHECK(cudaMalloc(&da, a.size()));
  CHECK(cudaMalloc(&db, bt.size()));
  CHECK(cudaMalloc(&dc, M * N * sizeof(int)));
  CHECK(cudaMalloc(&dcu, M * N * sizeof(int)));
  CHECK(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, bt.data(), bt.size(), cudaMemcpyHostToDevice));
  dim3 block(16, 8), grid((N + 15) / 16, (M + 7) / 8);
  gemm<<<grid, block>>>(da, db, dc, dcu);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(got.data(), dc, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(gotu.data(), dcu, gotu.size() * sizeof(int), cudaMemcpyDeviceToHost));
  if (count_mismatches("C", got.data(), want.data(), M * N)) return 1;
  if (count_mismatches("C_us", gotu.data(), wantu.data(), M * N)) return 1;
  std::printf("PASS dp4a_gemm\n");
  return 0;
}
