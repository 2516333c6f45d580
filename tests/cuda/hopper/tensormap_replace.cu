// Tensor maps changed on the device, as the CUDA programming guide's
// "device-side modification of a tensor map" and CUTLASS's grouped GEMMs do
// it (libcu++'s cuda::ptx wrappers of tensormap.replace,
// tensormap.cp_fenceproxy and fence.proxy.tensormap), checked against CPU
// loops:
//  1. groups: one map encoded on the host for a 64x64 template; each block
//     copies it to shared memory, points it at its group's tensor (address,
//     both dimensions, row pitch) with boxes of 16 rows instead of 4, fences
//     it into its own global slot and copies its tensor out tile by tile
//     through TMA; every in-bounds element arrives, every element of a tile
//     outside the group's tensor is zero;
//  2. global: the map's address and fill mode replaced in global memory
//     itself (NaN fill), then a load at the tensor's corner: NaN outside.
#include <cuda.h>
#include <cuda/barrier>
#include <cuda/ptx>
#include <cudaTypedefs.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "../check.cuh"

using barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;
namespace ptx = cuda::ptx;

constexpr int kBoxW = 32, kBoxH = 16;  // the boxes the kernel asks for (the template has 32 x 4)

struct Group {
  const float* base;
  int w, h;
  unsigned long long pitch;  // bytes
  float* out;                // w * h floats, dense
};

// Loads the box at (x, y) through `map` into `tile`, the whole block waiting.
__device__ void load_box(float (&tile)[kBoxH][kBoxW], const CUtensorMap* map, int x, int y, barrier& bar) {
  barrier::arrival_token token;
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_global_to_shared(&tile, map, x, y, bar);
    token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
}

__global__ void copy_groups(const __grid_constant__ CUtensorMap tmpl, const Group* groups, CUtensorMap* slots,
                            unsigned* nonzero_outside) {
  __shared__ alignas(128) CUtensorMap smap;
  __shared__ alignas(128) float tile[kBoxH][kBoxW];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier bar;
  const Group g = groups[blockIdx.x];
  CUtensorMap* map = slots + blockIdx.x;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  if (threadIdx.x < 32) {  // one warp: cp_fenceproxy is .sync.aligned
    if (threadIdx.x == 0) {
      smap = tmpl;
      ptx::tensormap_replace_global_address(ptx::space_shared, &smap, reinterpret_cast<uint64_t>(g.base));
      ptx::tensormap_replace_global_dim(ptx::space_shared, &smap, ptx::n32_t<0>{}, uint32_t(g.w));
      ptx::tensormap_replace_global_dim(ptx::space_shared, &smap, ptx::n32_t<1>{}, uint32_t(g.h));
      ptx::tensormap_replace_global_stride(ptx::space_shared, &smap, ptx::n32_t<0>{}, uint64_t(g.pitch));
      ptx::tensormap_replace_box_dim(ptx::space_shared, &smap, ptx::n32_t<1>{}, uint32_t(kBoxH));
    }
    __syncwarp();
    ptx::tensormap_cp_fenceproxy(ptx::sem_release, ptx::scope_gpu, map, &smap, ptx::n32_t<128>{});
  }
  __syncthreads();
  ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_gpu, map, ptx::n32_t<128>{});
  for (int y0 = 0; y0 < g.h; y0 += kBoxH)
    for (int x0 = 0; x0 < g.w; x0 += kBoxW) {
      load_box(tile, map, x0, y0, bar);
      for (int i = threadIdx.x; i < kBoxW * kBoxH; i += blockDim.x) {
        const int x = x0 + i % kBoxW, y = y0 + i / kBoxW;
        const float v = tile[i / kBoxW][i % kBoxW];
        if (x < g.w && y < g.h) g.out[size_t(y) * g.w + x] = v;
        else if (v != 0.0f) atomicAdd(nonzero_outside, 1u);
      }
      __syncthreads();  // the tile is read before the next load overwrites it
    }
}

// Replaces the address and the fill mode of the map in global memory, then loads the box at (x, y).
__global__ void replace_in_global(CUtensorMap* map, const float* base, int x, int y, float* out) {
  __shared__ alignas(128) float tile[kBoxH][kBoxW];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier bar;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
    ptx::tensormap_replace_global_address(ptx::space_global, map, reinterpret_cast<uint64_t>(base));
    ptx::tensormap_replace_fill_mode(ptx::space_global, map, ptx::n32_t<1>{});  // OOB-NaN fill
    ptx::fence_proxy_tensormap_generic(ptx::sem_release, ptx::scope_gpu);
    ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_gpu, map, ptx::n32_t<128>{});
  }
  __syncthreads();
  load_box(tile, map, x, y, bar);
  for (int i = threadIdx.x; i < kBoxW * kBoxH; i += blockDim.x) out[i] = tile[i / kBoxW][i % kBoxW];
}

int main() {
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult q;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&encode), 12000,
                                         cudaEnableDefault, &q));
  REQUIRE(q == cudaDriverEntryPointSuccess && encode, "cuTensorMapEncodeTiled not found");

  // The template: 64 x 64 floats of -1, boxes of 32 x 4.
  std::vector<float> htmpl(64 * 64, -1.0f);
  float* dtmpl = nullptr;
  CHECK(cudaMalloc(&dtmpl, htmpl.size() * sizeof(float)));
  CHECK(cudaMemcpy(dtmpl, htmpl.data(), htmpl.size() * sizeof(float), cudaMemcpyHostToDevice));
  alignas(64) CUtensorMap tmpl;
  cuuint64_t dims[2] = {64, 64}, strides[1] = {64 * sizeof(float)};
  cuuint32_t box[2] = {kBoxW, 4}, es[2] = {1, 1};
  CUresult r = encode(&tmpl, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, dtmpl, dims, strides, box, es,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  REQUIRE(r == CUDA_SUCCESS, "encode: %d", int(r));

  // 1. groups: width, height and row pitch (floats, a multiple of 4) of each.
  const int shapes[][3] = {{37, 29, 40}, {100, 70, 112}, {16, 5, 16}, {64, 33, 68}};
  const int ngroups = int(sizeof(shapes) / sizeof(shapes[0]));
  std::vector<Group> hg(ngroups);
  std::vector<std::vector<float>> data(ngroups);
  for (int i = 0; i < ngroups; ++i) {
    const int w = shapes[i][0], h = shapes[i][1], p = shapes[i][2];
    data[i].resize(size_t(p) * h);
    for (size_t k = 0; k < data[i].size(); ++k) data[i][k] = float(int((k * 37 + i * 101) % 1999) - 900) * 0.5f;
    float *base = nullptr, *out = nullptr;
    CHECK(cudaMalloc(&base, data[i].size() * sizeof(float)));
    CHECK(cudaMemcpy(base, data[i].data(), data[i].size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMalloc(&out, size_t(w) * h * sizeof(float)));
    CHECK(cudaMemset(out, 0xff, size_t(w) * h * sizeof(float)));  // NaNs: an element never written shows
    hg[i] = {base, w, h, (unsigned long long)p * sizeof(float), out};
  }
  Group* dg = nullptr;
  CUtensorMap* slots = nullptr;
  unsigned* dbad = nullptr;
  CHECK(cudaMalloc(&dg, ngroups * sizeof(Group)));
  CHECK(cudaMemcpy(dg, hg.data(), ngroups * sizeof(Group), cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&slots, ngroups * sizeof(CUtensorMap)));
  CHECK(cudaMalloc(&dbad, sizeof(unsigned)));
  CHECK(cudaMemset(dbad, 0, sizeof(unsigned)));
  copy_groups<<<ngroups, 128>>>(tmpl, dg, slots, dbad);
  CHECK_LAUNCH();
  unsigned outside = 0;
  CHECK(cudaMemcpy(&outside, dbad, sizeof outside, cudaMemcpyDeviceToHost));
  REQUIRE(outside == 0, "%u tile elements outside a group's tensor are not zero", outside);
  long bad = 0, total = 0;
  for (int i = 0; i < ngroups; ++i) {
    const int w = shapes[i][0], h = shapes[i][1], p = shapes[i][2];
    std::vector<float> got(size_t(w) * h), want(size_t(w) * h);
    CHECK(cudaMemcpy(got.data(), hg[i].out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) want[size_t(y) * w + x] = data[i][size_t(y) * p + x];
    bad += count_mismatches("group", got.data(), want.data(), long(got.size()));
    total += long(got.size());
  }
  REQUIRE(bad == 0, "%ld of %ld elements wrong", bad, total);
  std::printf("groups: %d tensors through one template map, %ld elements, 0 mismatches\n", ngroups, total);

  // 2. global: the map of group 1 (100 x 70), read at its corner with NaN fill.
  CUtensorMap* gmap = nullptr;
  CHECK(cudaMalloc(&gmap, sizeof(CUtensorMap)));
  CHECK(cudaMemcpy(gmap, slots + 1, sizeof(CUtensorMap), cudaMemcpyDeviceToDevice));
  std::vector<float> other(size_t(112) * 70);
  for (size_t k = 0; k < other.size(); ++k) other[k] = float(k % 4093) + 0.25f;
  float *dother = nullptr, *dout = nullptr;
  CHECK(cudaMalloc(&dother, other.size() * sizeof(float)));
  CHECK(cudaMemcpy(dother, other.data(), other.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&dout, kBoxW * kBoxH * sizeof(float)));
  const int cx = 80, cy = 60;  // columns 100..111 and rows 70..75 lie outside
  replace_in_global<<<1, 128>>>(gmap, dother, cx, cy, dout);
  CHECK_LAUNCH();
  std::vector<float> tile(kBoxW * kBoxH);
  CHECK(cudaMemcpy(tile.data(), dout, tile.size() * sizeof(float), cudaMemcpyDeviceToHost));
  bad = 0;
  for (int i = 0; i < kBoxW * kBoxH; ++i) {
    const int x = cx + i % kBoxW, y = cy + i / kBoxW;
    const bool in = x < 100 && y < 70;
    const bool ok = in ? tile[i] == other[size_t(y) * 112 + x] : std::isnan(tile[i]);
    if (!ok && bad++ < 5) std::printf("global (%d,%d): %f\n", x, y, tile[i]);
  }
  REQUIRE(bad == 0, "%ld elements of the NaN-filled box wrong", bad);
  std::printf("global: address and fill mode replaced in place, %dx%d box, 0 mismatches\n", kBoxW, kBoxH);
  std::printf("PASS tensormap_replace\n");
  return 0;
}
