// wgmma through CUTLASS's CuTe (the nvidia-cutlass headers): CuTe lays the
// shared-memory tiles out itself (GMMA::Layout_*_Atom, with its own
// swizzle functors), builds the matrix descriptors (make_gmma_desc inside
// make_fragment_A/B) and issues SM90 GMMA atoms; softgpu's reading of the
// descriptor, layout and swizzle must agree with CuTe's. A 64 x N x 64 GEMM
// per configuration (K-major and MN-major, 128/64/32-byte swizzles and the
// interleaved layout, f32 and f16 accumulators), checked against a CPU GEMM.
// Values are small multiples of 1/2, so the results are exact.
#include <cute/tensor.hpp>

#include <cstdio>
#include <vector>

using namespace cute;

template <class T, class SmemA, class SmemB, class Atom, int N>
__global__ void cute_gemm(const half_t* A, const half_t* B, T* D) {
  constexpr int M = 64, K = 64;
  __shared__ alignas(1024) half_t smem_a[cosize_v<SmemA>];
  __shared__ alignas(1024) half_t smem_b[cosize_v<SmemB>];
  Tensor sA = make_tensor(make_smem_ptr(smem_a), SmemA{});  // (M, K)
  Tensor sB = make_tensor(make_smem_ptr(smem_b), SmemB{});  // (N, K)
  for (int i = threadIdx.x; i < M * K; i += blockDim.x) sA(i / K, i % K) = A[i];
  for (int i = threadIdx.x; i < N * K; i += blockDim.x) sB(i / K, i % K) = B[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();

  TiledMMA mma = make_tiled_mma(Atom{});
  ThrMMA thr = mma.get_slice(threadIdx.x);
  Tensor tCsA = thr.partition_A(sA);  // (MMA, MMA_M, MMA_K)
  Tensor tCsB = thr.partition_B(sB);
  Tensor tCrA = thr.make_fragment_A(tCsA);  // descriptors
  Tensor tCrB = thr.make_fragment_B(tCsB);
  Tensor gD = make_tensor(make_gmem_ptr(D), make_layout(make_shape(Int<M>{}, Int<N>{}), LayoutRight{}));
  Tensor tCgD = thr.partition_C(gD);
  Tensor tCrD = thr.make_fragment_C(tCgD);
  clear(tCrD);
  warpgroup_fence_operand(tCrD);
  warpgroup_arrive();
  cute::gemm(mma, tCrA, tCrB, tCrD);  // the four k-blocks, accumulating
  warpgroup_commit_batch();
  warpgroup_wait<0>();
  warpgroup_fence_operand(tCrD);
  copy(tCrD, tCgD);
}

#define CK(call)                                                                        \
  do {                                                                                  \
    cudaError_t e_ = (call);                                                            \
    if (e_ != cudaSuccess) {                                                            \
      std::printf("FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      return 1;                                                                         \
    }                                                                                   \
  } while (0)

template <class T, class AtomA, class AtomB, class Atom, int N>
int run(const char* name) {
  constexpr int M = 64, K = 64;
  using SmemA = decltype(tile_to_shape(AtomA{}, Shape<Int<M>, Int<K>>{}));
  using SmemB = decltype(tile_to_shape(AtomB{}, Shape<Int<N>, Int<K>>{}));
  std::vector<half_t> a(M * K), b(N * K);
  std::vector<float> fa(M * K), fb(N * K);
  for (int i = 0; i < M * K; ++i) fa[i] = float((i * 7 + i / 64) % 9 - 4) * 0.5f, a[i] = half_t(fa[i]);
  for (int i = 0; i < N * K; ++i) fb[i] = float((i * 5 + i / 64 * 3) % 9 - 4) * 0.5f, b[i] = half_t(fb[i]);
  half_t *da, *db;
  T* dd;
  CK(cudaMalloc(&da, a.size() * sizeof(half_t)));
  CK(cudaMalloc(&db, b.size() * sizeof(half_t)));
  CK(cudaMalloc(&dd, M * N * sizeof(T)));
  CK(cudaMemcpy(da, a.data(), a.size() * sizeof(half_t), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db, b.data(), b.size() * sizeof(half_t), cudaMemcpyHostToDevice));
  CK(cudaMemset(dd, 0xff, M * N * sizeof(T)));
  cute_gemm<T, SmemA, SmemB, Atom, N><<<1, 128>>>(da, db, dd);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<T> d(M * N);
  CK(cudaMemcpy(d.data(), dd, M * N * sizeof(T), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double ref = 0;
      for (int k = 0; k < K; ++k) ref += double(fa[m * K + k]) * fb[n * K + k];
      const double got = double(float(d[m * N + n]));
      if (got != ref && bad++ < 5) std::printf("  %s: D[%d][%d] = %g, expected %g\n", name, m, n, got, ref);
    }
  std::printf("%s: %d mismatches\n", name, bad);
  CK(cudaFree(da));
  CK(cudaFree(db));
  CK(cudaFree(dd));
  return bad != 0;
}

int main() {
  using GMMA::Major;
  int bad = 0;
  bad += run<float, GMMA::Layout_K_SW128_Atom<half_t>, GMMA::Layout_K_SW128_Atom<half_t>,
             SM90_64x64x16_F32F16F16_SS<Major::K, Major::K>, 64>("K-major sw128, f32");
  bad += run<float, GMMA::Layout_K_SW64_Atom<half_t>, GMMA::Layout_K_SW32_Atom<half_t>,
             SM90_64x128x16_F32F16F16_SS<Major::K, Major::K>, 128>("K-major sw64 x sw32, f32, n128");
  bad += run<float, GMMA::Layout_K_INTER_Atom<half_t>, GMMA::Layout_K_INTER_Atom<half_t>,
             SM90_64x64x16_F32F16F16_SS<Major::K, Major::K>, 64>("K-major interleaved, f32");
  bad += run<half_t, GMMA::Layout_MN_SW128_Atom<half_t>, GMMA::Layout_MN_SW128_Atom<half_t>,
             SM90_64x64x16_F16F16F16_SS<Major::MN, Major::MN>, 64>("MN-major sw128, f16");
  bad += run<float, GMMA::Layout_MN_SW64_Atom<half_t>, GMMA::Layout_K_SW128_Atom<half_t>,
             SM90_64x256x16_F32F16F16_SS<Major::MN, Major::K>, 256>("MN-major sw64 x K-major sw128, f32, n256");
  bad += run<float, GMMA::Layout_K_SW128_Atom<half_t>, GMMA::Layout_MN_INTER_Atom<half_t>,
             SM90_64x64x16_F32F16F16_SS<Major::K, Major::MN>, 64>("K-major sw128 x MN-major interleaved, f32");
  if (bad) {
    std::printf("FAIL cute_gmma: %d configurations\n", bad);
    return 1;
  }
  std::printf("PASS cute_gmma\n");
  return 0;
}
