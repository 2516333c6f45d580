// Tensor-core GEMM through nvcuda::wmma for every multiplicand type nvcc
// supports on sm_80 (f16, bf16, tf32, u8/s8, f64) and the three f16 shapes,
// each checked exactly against a CPU GEMM: inputs are small integers (times
// powers of two), so every product and sum is exact in the accumulator.
#include <mma.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <vector>
#include "../check.cuh"

using namespace nvcuda;

// One warp per (TM x TN) output tile; A row-major MxK, B col-major KxN, C/D row-major.
template <int TM, int TN, int TK, class In, class Frag, class Acc>
__global__ void gemm(const In* a, const In* b, const Acc* c, Acc* d, int M, int N, int K) {
  const int tile = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int tiles_n = N / TN;
  if (tile >= (M / TM) * tiles_n) return;
  const int tm = tile / tiles_n, tn = tile % tiles_n;
  wmma::fragment<wmma::matrix_a, TM, TN, TK, Frag, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, TM, TN, TK, Frag, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, TM, TN, TK, Acc> acc;
  wmma::load_matrix_sync(acc, c + tm * TM * N + tn * TN, N, wmma::mem_row_major);
  for (int k = 0; k < K; k += TK) {
    wmma::load_matrix_sync(fa, a + tm * TM * K + k, K);
    wmma::load_matrix_sync(fb, b + tn * TN * K + k, K);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(d + tm * TM * N + tn * TN, acc, N, wmma::mem_row_major);
}

template <class T> T from_int(int v);
template <> __half from_int<__half>(int v) { return __float2half(v * 0.5f); }
template <> __nv_bfloat16 from_int<__nv_bfloat16>(int v) { return __float2bfloat16(v * 0.5f); }
template <> float from_int<float>(int v) { return v * 0.25f; }
template <> double from_int<double>(int v) { return v * 0.125; }
template <> unsigned char from_int<unsigned char>(int v) { return (unsigned char)(v + 4) * 31; }
template <> signed char from_int<signed char>(int v) { return (signed char)(v * 29); }
double to_d(__half h) { return __half2float(h); }
double to_d(__nv_bfloat16 h) { return __bfloat162float(h); }
double to_d(float f) { return f; }
double to_d(double f) { return f; }
double to_d(unsigned char f) { return f; }
double to_d(signed char f) { return f; }
double to_d(int f) { return f; }

template <int TM, int TN, int TK, class In, class Frag, class Acc>
int run(const char* name, int M, int N, int K) {
  std::vector<In> a(M * K), b(K * N);
  std::vector<Acc> c(M * N), d(M * N);
  unsigned s = 12345;
  auto rnd = [&] { s = s * 1103515245u + 12345u; return int((s >> 16) % 9) - 4; };
  for (auto& v : a) v = from_int<In>(rnd());
  for (auto& v : b) v = from_int<In>(rnd());
  for (auto& v : c) v = (Acc)(rnd() * 4);
  In *da, *db;
  Acc *dc, *dd;
  CHECK(cudaMalloc(&da, a.size() * sizeof(In)));
  CHECK(cudaMalloc(&db, b.size() * sizeof(In)));
  CHECK(cudaMalloc(&dc, c.size() * sizeof(Acc)));
  CHECK(cudaMalloc(&dd, d.size() * sizeof(Acc)));
  CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(In), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(In), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, c.data(), c.size() * sizeof(Acc), cudaMemcpyHostToDevice));
  const int tiles = (M / TM) * (N / TN), warps = 4;
  gemm<TM, TN, TK, In, Frag, Acc><<<(tiles + warps - 1) / warps, 32 * warps>>>(da, db, dc, dd, M, N, K);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(d.data(), dd, d.size() * sizeof(Acc), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = to_d(c[i * N + j]);
      for (int k = 0; k < K; ++k) want += to_d(a[i * K + k]) * to_d(b[j * K + k]);  // b is col-major
      double got = to_d(d[i * N + j]);
      if (got != want && bad++ < 5) std::fprintf(stderr, "%s: D(%d,%d) = %g, want %g\n", name, i, j, got, want);
    }
  cudaFree(da); cudaFree(db); cudaFree(dc); cudaFree(dd);
  if (bad) { std::fprintf(stderr, "FAIL %s: %ld mismatches\n", name, bad); return 1; }
  std::printf("ok %s\n", name);
  return 0;
}

int main() {
  int fails = 0;
  fails += run<16, 16, 16, __half, __half, float>("f16 m16n16k16 f32acc", 64, 48, 64);
  fails += run<32, 8, 16, __half, __half, float>("f16 m32n8k16 f32acc", 64, 32, 48);
  fails += run<8, 32, 16, __half, __half, float>("f16 m8n32k16 f32acc", 32, 64, 32);
  fails += run<16, 16, 16, __half, __half, __half>("f16 m16n16k16 f16acc", 32, 32, 32);
  fails += run<16, 16, 16, __nv_bfloat16, __nv_bfloat16, float>("bf16 m16n16k16", 64, 32, 64);
  fails += run<32, 8, 16, __nv_bfloat16, __nv_bfloat16, float>("bf16 m32n8k16", 32, 16, 32);
  fails += run<16, 16, 8, float, wmma::precision::tf32, float>("tf32 m16n16k8", 32, 32, 64);
  fails += run<16, 16, 16, unsigned char, unsigned char, int>("u8 m16n16k16", 32, 32, 64);
  fails += run<8, 32, 16, signed char, signed char, int>("s8 m8n32k16", 16, 64, 32);
  fails += run<8, 8, 4, double, double, double>("f64 m8n8k4", 32, 24, 40);
  if (fails) return 1;
  std::printf("PASS wmma_gemm\n");
  return 0;
}
