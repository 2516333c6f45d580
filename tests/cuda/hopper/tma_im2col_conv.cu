// A 2-D convolution (NHWC, fp32, 3x3 filter, padding 1, stride 1 and 2)
// through TMA's im2col loads: the tensor map from cuTensorMapEncodeIm2col
// (through cudaGetDriverEntryPointByVersion), pixel box corners -pad and
// pad - (filter - 1) as CUTLASS sets them, the element strides the
// convolution's strides; each CTA takes 32 output pixels, loads the 32
// pixels' channels under each filter tap (the tap as im2col offsets,
// inline-PTX cp.async.bulk.tensor.4d ... .im2col with an mbarrier) and sums
// them against the filter. Checked against a direct CPU convolution.
#include <cuda.h>
#include <cudaTypedefs.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "../check.cuh"

constexpr int kPixels = 32, kC = 16, kK = 8, kR = 3, kS = 3, kPad = 1;

__device__ unsigned smem_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__global__ void conv(const __grid_constant__ CUtensorMap map, const float* weight, float* out, int N, int P, int Q,
                     int stride) {
  __shared__ alignas(128) float tile[kPixels][kC];
  __shared__ alignas(8) unsigned long long bar;
  const int m = blockIdx.x * kPixels + threadIdx.x;  // this thread's output pixel
  const int m0 = blockIdx.x * kPixels;                // the CTA's first
  const int n0 = m0 / (P * Q), p0 = m0 / Q % P, q0 = m0 % Q;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar)));
    asm volatile("fence.proxy.async.shared::cta;");
  }
  __syncthreads();
  float acc[kK] = {};
  for (int tap = 0; tap < kR * kS; ++tap) {
    const short r = short(tap / kS), s = short(tap % kS);
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(&bar)),
                   "r"(unsigned(sizeof(tile))));
      // Coordinates {c, w, h, n} of the first output pixel's window corner; offsets {s, r}.
      asm volatile(
          "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, "
          "%5}], [%6], {%7, %8};" ::"r"(smem_addr(tile)),
          "l"(&map), "r"(0), "r"(q0 * stride - kPad), "r"(p0 * stride - kPad), "r"(n0), "r"(smem_addr(&bar)), "h"(s),
          "h"(r)
          : "memory");
    }
    unsigned done = 0;
    while (!done)
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
          : "=r"(done)
          : "r"(smem_addr(&bar)), "r"(unsigned(tap & 1))
          : "memory");
    for (int k = 0; k < kK; ++k)
      for (int c = 0; c < kC; ++c) acc[k] += tile[threadIdx.x][c] * weight[((k * kR + r) * kS + s) * kC + c];
    __syncthreads();  // the tile is read before the next load overwrites it
  }
  if (m < N * P * Q)
    for (int k = 0; k < kK; ++k) out[size_t(m) * kK + k] = acc[k];
}

int run(PFN_cuTensorMapEncodeIm2col_v12000 encode, int stride) {
  const int N = 2, H = 9, W = 11;
  const int P = (H + 2 * kPad - kR) / stride + 1, Q = (W + 2 * kPad - kS) / stride + 1;
  std::vector<float> x(size_t(N) * H * W * kC), w(size_t(kK) * kR * kS * kC);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i * 29 % 97) - 48) * 0.125f;
  for (size_t i = 0; i < w.size(); ++i) w[i] = float(int(i * 13 % 31) - 15) * 0.0625f;
  float *dx, *dw, *dout;
  const int M = N * P * Q;
  CHECK(cudaMalloc(&dx, x.size() * 4));
  CHECK(cudaMalloc(&dw, w.size() * 4));
  CHECK(cudaMalloc(&dout, size_t(M) * kK * 4));
  CHECK(cudaMemcpy(dx, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dw, w.data(), w.size() * 4, cudaMemcpyHostToDevice));
  CUtensorMap map;
  cuuint64_t dims[4] = {kC, cuuint64_t(W), cuuint64_t(H), cuuint64_t(N)};
  cuuint64_t strides[3] = {kC * 4, cuuint64_t(W) * kC * 4, cuuint64_t(H) * W * kC * 4};
  int lower[2] = {-kPad, -kPad}, upper[2] = {kPad - (kS - 1), kPad - (kR - 1)};
  cuuint32_t es[4] = {1, cuuint32_t(stride), cuuint32_t(stride), 1};
  CUresult e = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, dx, dims, strides, lower, upper, kC, kPixels, es,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  REQUIRE(e == CUDA_SUCCESS, "cuTensorMapEncodeIm2col: %d", int(e));
  conv<<<(M + kPixels - 1) / kPixels, kPixels>>>(map, dw, dout, N, P, Q, stride);
  CHECK(cudaGetLastError());
  std::vector<float> got(size_t(M) * kK);
  CHECK(cudaMemcpy(got.data(), dout, got.size() * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  double worst = 0;
  for (int n = 0; n < N; ++n)
    for (int p = 0; p < P; ++p)
      for (int q = 0; q < Q; ++q)
        for (int k = 0; k < kK; ++k) {
          double ref = 0;
          for (int r = 0; r < kR; ++r)
            for (int s = 0; s < kS; ++s) {
              const int h = p * stride - kPad + r, ww = q * stride - kPad + s;
              if (h < 0 || h >= H || ww < 0 || ww >= W) continue;
              for (int c = 0; c < kC; ++c)
                ref += double(x[((size_t(n) * H + h) * W + ww) * kC + c]) * w[((k * kR + r) * kS + s) * kC + c];
            }
          const float g = got[((size_t(n) * P + p) * Q + q) * kK + k];
          const double err = std::fabs(g - ref);
          worst = std::fmax(worst, err);
          if (err > 1e-3 * (1 + std::fabs(ref)) && bad++ < 5)
            std::printf("out n%d p%d q%d k%d: %f, want %f\n", n, p, q, k, g, ref);
        }
  REQUIRE(bad == 0, "%d outputs wrong", bad);
  std::printf("conv stride %d: %dx%dx%dx%d -> %dx%dx%dx%d, max error %.2e\n", stride, N, H, W, kC, N, P, Q, kK, worst);
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dw));
  CHECK(cudaFree(dout));
  return 0;
}

int main() {
  PFN_cuTensorMapEncodeIm2col_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult q;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeIm2col", reinterpret_cast<void**>(&encode), 12000, cudaEnableDefault, &q));
  REQUIRE(q == cudaDriverEntryPointSuccess && encode, "cuTensorMapEncodeIm2col not found");
  if (run(encode, 1) || run(encode, 2)) return 1;
  std::printf("PASS tma_im2col_conv\n");
  return 0;
}
