// TMA from a CUDA program, as the CUDA programming guide writes it: tensor
// maps from cuTensorMapEncodeTiled (reached through cudaGetDriverEntryPointByVersion,
// so the program links only the runtime), libcu++'s
// cp_async_bulk_tensor_2d_global_to_shared / _shared_to_global with a
// cuda::barrier, checked against CPU loops:
//  1. tiles: every 32x32 tile of a 100x70 float matrix (edge tiles partly
//     outside: loaded as zeros, stored clipped) gets +1 and goes back;
//  2. swizzle: a 64x32 f16 box under CU_TENSOR_MAP_SWIZZLE_128B, read back
//     through the documented pattern (16-byte chunk c of 128-byte row r at
//     chunk c ^ (r mod 8));
//  3. invalid arguments are CUDA_ERROR_INVALID_VALUE.
#include <cuda.h>
#include <cuda/barrier>
#include <cuda_fp16.h>
#include <cudaTypedefs.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "../check.cuh"

using barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

constexpr int kTile = 32;

__global__ void add_one(const __grid_constant__ CUtensorMap map) {
  __shared__ alignas(128) float tile[kTile][kTile];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier bar;
  const int x = blockIdx.x * kTile, y = blockIdx.y * kTile;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  barrier::arrival_token token;
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_global_to_shared(&tile, &map, x, y, bar);
    token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  for (int i = threadIdx.x; i < kTile * kTile; i += blockDim.x) tile[i / kTile][i % kTile] += 1.0f;
  cde::fence_proxy_async_shared_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_shared_to_global(&map, x, y, &tile);
    cde::cp_async_bulk_commit_group();
    cde::cp_async_bulk_wait_group_read<0>();
  }
}

// Loads one 64x32 f16 box and copies the raw shared bytes out.
__global__ void raw_box(const __grid_constant__ CUtensorMap map, int x, int y, uint4* out) {
  __shared__ alignas(1024) __half tile[32][64];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier bar;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  barrier::arrival_token token;
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_global_to_shared(&tile, &map, x, y, bar);
    token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  const uint4* t = reinterpret_cast<const uint4*>(tile);
  for (int i = threadIdx.x; i < int(sizeof(tile) / 16); i += blockDim.x) out[i] = t[i];
}

int main() {
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult q;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&encode), 12000, cudaEnableDefault, &q));
  REQUIRE(q == cudaDriverEntryPointSuccess && encode, "cuTensorMapEncodeTiled not found");

  // 1. tiles
  const int W = 100, H = 70, pitch = 112;  // floats per row: rows padded to a multiple of 16 bytes
  std::vector<float> h(size_t(pitch) * H);
  for (size_t i = 0; i < h.size(); ++i) h[i] = float(i % 977) * 0.25f;
  float* d = nullptr;
  CHECK(cudaMalloc(&d, h.size() * sizeof(float)));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUtensorMap map;
  cuuint64_t dims[2] = {cuuint64_t(W), cuuint64_t(H)}, strides[1] = {pitch * sizeof(float)};
  cuuint32_t box[2] = {kTile, kTile}, es[2] = {1, 1};
  CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, d, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                      CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  REQUIRE(r == CUDA_SUCCESS, "encode: %d", int(r));
  add_one<<<dim3((W + kTile - 1) / kTile, (H + kTile - 1) / kTile), 128>>>(map);
  CHECK(cudaGetLastError());
  std::vector<float> got(h.size());
  CHECK(cudaMemcpy(got.data(), d, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < pitch; ++x) {
      const float want = h[size_t(y) * pitch + x] + (x < W ? 1.0f : 0.0f);  // the padding is not the tensor's
      if (got[size_t(y) * pitch + x] != want && bad++ < 5)
        std::printf("tile (%d,%d): %f, want %f\n", x, y, got[size_t(y) * pitch + x], want);
    }
  REQUIRE(bad == 0, "%d elements wrong", bad);
  std::printf("tiles: %dx%d floats in %d tiles, 0 mismatches\n", W, H, ((W + 31) / 32) * ((H + 31) / 32));

  // 2. swizzle 128B
  const int SW = 256, SH = 80;
  std::vector<__half> hh(size_t(SW) * SH);
  for (size_t i = 0; i < hh.size(); ++i) hh[i] = __float2half(float(int(i % 2039) - 1000));
  __half* dh = nullptr;
  CHECK(cudaMalloc(&dh, hh.size() * sizeof(__half)));
  CHECK(cudaMemcpy(dh, hh.data(), hh.size() * sizeof(__half), cudaMemcpyHostToDevice));
  cuuint64_t sdims[2] = {cuuint64_t(SW), cuuint64_t(SH)}, sstr[1] = {SW * sizeof(__half)};
  cuuint32_t sbox[2] = {64, 32};
  r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, dh, sdims, sstr, sbox, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  REQUIRE(r == CUDA_SUCCESS, "encode swizzled: %d", int(r));
  uint4* dout = nullptr;
  CHECK(cudaMalloc(&dout, 32 * 64 * sizeof(__half)));
  const int bx = 128, by = 60;  // rows 60..91: the last 12 outside (zeros)
  raw_box<<<1, 128>>>(map, bx, by, dout);
  CHECK(cudaGetLastError());
  std::vector<unsigned char> raw(32 * 64 * sizeof(__half));
  CHECK(cudaMemcpy(raw.data(), dout, raw.size(), cudaMemcpyDeviceToHost));
  bad = 0;
  for (int row = 0; row < 32; ++row)
    for (int col = 0; col < 64; ++col) {
      const int off = row * 128 + col * 2;  // unswizzled byte offset of (row, col)
      const int phys = row * 128 + (((off % 128) / 16) ^ (row % 8)) * 16 + off % 16;
      __half v;
      std::memcpy(&v, &raw[phys], 2);
      const float want = by + row < SH ? __half2float(hh[size_t(by + row) * SW + bx + col]) : 0.0f;
      if (__half2float(v) != want && bad++ < 5) std::printf("swizzle (%d,%d): %f, want %f\n", col, row, __half2float(v), want);
    }
  REQUIRE(bad == 0, "%d swizzled elements wrong", bad);
  std::printf("swizzle 128B: 64x32 halves, 0 mismatches\n");

  // 3. invalid arguments
  cuuint32_t big[2] = {300, 1};
  r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, d, dims, strides, big, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  REQUIRE(r == CUDA_ERROR_INVALID_VALUE, "boxDim 300: %d", int(r));
  cuuint64_t odd[1] = {pitch * sizeof(float) + 4};  // 452 bytes: not a multiple of 16
  r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, d, dims, odd, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  REQUIRE(r == CUDA_ERROR_INVALID_VALUE, "stride 452: %d", int(r));
  std::printf("invalid arguments: CUDA_ERROR_INVALID_VALUE\n");
  CHECK(cudaFree(d));
  CHECK(cudaFree(dh));
  CHECK(cudaFree(dout));
  std::printf("PASS tma\n");
  return 0;
}
