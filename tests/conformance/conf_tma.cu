// Conformance: TMA (sm_90) tensor copies on maps from cuTensorMapEncodeTiled
// and cuTensorMapEncodeIm2col (reached through cudaGetDriverEntryPointByVersion).
// Every element of every box is one check against a CPU model written here
// from the CUDA driver's and the PTX ISA's descriptions:
//  - tile loads: the box at signed coordinates, elements at c + i * stride,
//    dimension 0 innermost and dense in shared memory, zero outside the
//    tensor, each swizzle (16-byte chunk c of 128-byte row r lands at chunk
//    c ^ (r mod span/16) within its span);
//  - tile stores clipped at the tensor's edges, and reductions (add);
//  - im2col loads: pixels walked from the coordinates plus the im2col
//    offsets along W (traversal stride), wrapping into H and N at the pixel
//    box's edges [lower + offset, extent + upper + offset), zero outside.
//  - interleaved layouts (16- and 32-byte channel slices): each box row
//    takes the next multiple of the slice in shared memory and dimension 0
//    may have a traversal stride (softgpu's reading of the driver's
//    description: checked here, so a GPU run confirms or refutes it).
// DATA: the NaN fill's bit pattern (the driver says only "a special NaN"),
// an im2col start pixel off the traversal-stride grid (how the row wraps
// is softgpu's reading), and the padding bytes of interleaved rows.
#include <cuda.h>
#include <cudaTypedefs.h>

#include <array>

#include "conf.h"

__device__ unsigned saddr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

constexpr int kTileBytes = 16384;

// args: coordinates c[0..4], then im2col offsets o[0..2]. kind: 2/3 = a tile
// load of that rank, 13/14/15 = an im2col load of rank 3/4/5. The shared tile
// (filled with 0xab first) is copied out whole.
__global__ void load_box(const __grid_constant__ CUtensorMap map, const int* args, int kind, unsigned bytes,
                         unsigned* out) {
  __shared__ alignas(1024) unsigned char tile[kTileBytes];
  __shared__ alignas(8) unsigned long long bar;
  for (int i = threadIdx.x; i < kTileBytes; i += blockDim.x) tile[i] = 0xab;
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(saddr(&bar)));
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned t = saddr(tile), b = saddr(&bar);
    const int* c = args;
    const short o0 = short(args[5]), o1 = short(args[6]), o2 = short(args[7]);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(bytes));
    switch (kind) {
      case 2:
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     ::"r"(t), "l"(&map), "r"(c[0]), "r"(c[1]), "r"(b) : "memory");
        break;
      case 3:
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
                     ::"r"(t), "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(b) : "memory");
        break;
      case 13:
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5], {%6};"
                     ::"r"(t), "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(b), "h"(o0) : "memory");
        break;
      case 14:
        asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};"
                     ::"r"(t), "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(b), "h"(o0), "h"(o1) : "memory");
        break;
      case 15:
        asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5, %6}], [%7], {%8, %9, %10};"
                     ::"r"(t), "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4]), "r"(b), "h"(o0), "h"(o1), "h"(o2) : "memory");
        break;
    }
  }
  unsigned done = 0;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(saddr(&bar)) : "memory");
  for (int i = threadIdx.x; i < kTileBytes / 4; i += blockDim.x) out[i] = reinterpret_cast<const unsigned*>(tile)[i];
}

// A 2-D tile store (reduce: add) of `in` (the box's bytes) at c.
__global__ void store_box(const __grid_constant__ CUtensorMap map, int c0, int c1, int reduce, const unsigned* in,
                          unsigned bytes) {
  __shared__ alignas(1024) unsigned tile[kTileBytes / 4];
  for (unsigned i = threadIdx.x; i < bytes / 4; i += blockDim.x) tile[i] = in[i];
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  if (threadIdx.x == 0) {
    if (reduce)
      asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];"
                   ::"l"(&map), "r"(c0), "r"(c1), "r"(saddr(tile)) : "memory");
    else
      asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
                   ::"l"(&map), "r"(c0), "r"(c1), "r"(saddr(tile)) : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

namespace {

PFN_cuTensorMapEncodeTiled_v12000 encode_tiled;
PFN_cuTensorMapEncodeIm2col_v12000 encode_im2col;

// A dense tensor of 32-bit elements (floats or integers), up to rank 5.
struct Tensor {
  int rank = 2;
  uint64_t dims[5] = {1, 1, 1, 1, 1};
  uint64_t pitch0 = 0;  // bytes of dimension 1's stride (0: dense)
  std::vector<uint32_t> host;
  uint32_t* dev = nullptr;
  uint64_t stride(int d) const {  // bytes
    if (d == 0) return 4;
    uint64_t s = pitch0 ? pitch0 : dims[0] * 4;
    for (int i = 1; i < d; ++i) s *= dims[i];
    return s;
  }
  uint64_t bytes() const { return stride(rank - 1) * dims[rank - 1]; }
  bool in(const int64_t* x) const {
    for (int d = 0; d < rank; ++d)
      if (x[d] < 0 || x[d] >= int64_t(dims[d])) return false;
    return true;
  }
  uint32_t at(const int64_t* x) const {
    uint64_t o = 0;
    for (int d = 0; d < rank; ++d) o += uint64_t(x[d]) * stride(d);
    return host[o / 4];
  }
};

int make(Tensor& t, bool floats) {
  t.host.assign(t.bytes() / 4, 0);
  for (size_t i = 0; i < t.host.size(); ++i) {
    const float f = float(int(i * 37 % 1013) - 506) * 0.25f;
    std::memcpy(&t.host[i], &f, 4);
    if (!floats) t.host[i] = uint32_t(i * 2654435761u);
  }
  CONF_CHECK(cudaMalloc(&t.dev, t.bytes()));
  CONF_CHECK(cudaMemcpy(t.dev, t.host.data(), t.bytes(), cudaMemcpyHostToDevice));
  return 0;
}

// Runs load_box; `tile` gets the 16 KiB of shared memory.
int load(const CUtensorMap& map, const int args[8], int kind, unsigned bytes, std::vector<uint32_t>& tile) {
  int* dargs;
  unsigned* dout;
  CONF_CHECK(cudaMalloc(&dargs, 8 * sizeof(int)));
  CONF_CHECK(cudaMalloc(&dout, kTileBytes));
  CONF_CHECK(cudaMemcpy(dargs, args, 8 * sizeof(int), cudaMemcpyHostToDevice));
  load_box<<<1, 128>>>(map, dargs, kind, bytes, dout);
  CONF_CHECK(cudaGetLastError());
  tile.resize(kTileBytes / 4);
  CONF_CHECK(cudaMemcpy(tile.data(), dout, kTileBytes, cudaMemcpyDeviceToHost));
  CONF_CHECK(cudaFree(dargs));
  CONF_CHECK(cudaFree(dout));
  return 0;
}

// Where box byte `off` lands in shared memory under a swizzle span (0 = none).
uint64_t swizzled(uint64_t span, uint64_t off) {
  if (!span) return off;
  const uint64_t row = off / 128, chunk = off % 128 / 16, k = span / 16;
  return row * 128 + ((chunk & ~(k - 1)) | ((chunk ^ row) & (k - 1))) * 16 + off % 16;
}

const CUtensorMapSwizzle kSwizzle[] = {CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_32B, CU_TENSOR_MAP_SWIZZLE_64B,
                                       CU_TENSOR_MAP_SWIZZLE_128B};

// A tile load of `box` (element strides `es`) at c, every element checked.
// `il`: CU_TENSOR_MAP_INTERLEAVE_NONE, _16B or _32B.
int tile_case(Conf& conf, const Tensor& t, const char* form, const uint32_t* box, const uint32_t* es, int swz,
              bool nan_fill, const int64_t* c, int il = 0) {
  CUtensorMap map;
  cuuint64_t dims[5], strides[4];
  cuuint32_t b[5], e[5];
  for (int d = 0; d < t.rank; ++d) dims[d] = t.dims[d], b[d] = box[d], e[d] = es[d];
  for (int d = 1; d < t.rank; ++d) strides[d - 1] = t.stride(d);
  CUresult r = encode_tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, t.rank, t.dev, dims, strides, b, e,
                            CUtensorMapInterleave(il), kSwizzle[swz], CU_TENSOR_MAP_L2_PROMOTION_NONE,
                            nan_fill ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "FAIL %s: cuTensorMapEncodeTiled returned %d\n", form, int(r));
    return 1;
  }
  // Elements per dimension: ceil(box / stride); dimension 0 is strided only when interleaved.
  uint32_t n[3] = {1, 1, 1}, es0 = il ? es[0] : 1;
  for (int d = 0; d < t.rank; ++d) n[d] = d == 0 ? (box[0] + es0 - 1) / es0 : (box[d] + es[d] - 1) / es[d];
  const uint32_t slice = il == 2 ? 32 : il == 1 ? 16 : 1, row = (4 * n[0] + slice - 1) / slice * slice;
  const unsigned bytes = row * n[1] * n[2];
  int args[8] = {int(c[0]), int(c[1]), int(c[2]), 0, 0, 0, 0, 0};
  std::vector<uint32_t> tile;
  if (load(map, args, t.rank, bytes, tile)) return 1;
  const uint64_t span = swz == 1 ? 32 : swz == 2 ? 64 : swz == 3 ? 128 : 0;
  for (uint32_t i2 = 0; i2 < n[2]; ++i2)
    for (uint32_t i1 = 0; i1 < n[1]; ++i1)
      for (uint32_t i0 = 0; i0 < row / 4; ++i0) {
        const uint64_t o = (uint64_t(i2) * n[1] + i1) * row + i0 * 4;
        const int64_t x[3] = {c[0] + int64_t(i0) * es0, c[1] + int64_t(i1) * es[1], c[2] + int64_t(i2) * es[2]};
        const uint32_t got = tile[swizzled(span, o) / 4];
        char in[96];
        std::snprintf(in, sizeof in, "c=%lld,%lld,%lld;e=%u,%u,%u", (long long)c[0], (long long)c[1], (long long)c[2],
                      i0, i1, i2);
        if (i0 >= n[0]) {  // an interleaved row's padding
          conf.data(std::string(form) + ":pad", in, got, 32);
          continue;
        }
        if (t.in(x)) {
          conf.bits(form, in, t.at(x), got, 32);
        } else if (nan_fill) {
          conf.f32(form, in, NAN, got);
          conf.data(std::string(form) + ":nan-bits", in, got, 32);
        } else {
          conf.bits(form, in, 0, got, 32);
        }
      }
  for (uint64_t p = bytes; p < kTileBytes; p += 4)  // nothing written past the box
    if (tile[p / 4] != 0xabababab) conf.bits(form, "past-box@" + std::to_string(p), 0xabababab, tile[p / 4], 32);
  return 0;
}

// An im2col load (4-D NHWC or 3-D NWC), every element against the walk model.
struct Im2col {
  const char* form;
  int lower[2], upper[2];
  uint32_t es[4];
  uint32_t channels, pixels;
  int c[4];    // c, w, h, n (rank 4) or c, w, n (rank 3)
  int off[2];  // w, h
  bool off_grid;  // a start pixel not on the traversal-stride grid: DATA, not checked
};

int im2col_case(Conf& conf, const Tensor& t, const Im2col& k) {
  CUtensorMap map;
  cuuint64_t dims[5], strides[4];
  for (int d = 0; d < t.rank; ++d) dims[d] = t.dims[d];
  for (int d = 1; d < t.rank; ++d) strides[d - 1] = t.stride(d);
  cuuint32_t es[5] = {k.es[0], k.es[1], k.es[2], k.es[3], 1};
  CUresult r = encode_im2col(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, t.rank, t.dev, dims, strides, k.lower, k.upper,
                             k.channels, k.pixels, es, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                             CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "FAIL %s: cuTensorMapEncodeIm2col returned %d\n", k.form, int(r));
    return 1;
  }
  const int sp = t.rank - 2;
  int args[8] = {k.c[0], k.c[1], k.c[2], k.c[3], 0, k.off[0], k.off[1], 0};
  std::vector<uint32_t> tile;
  if (load(map, args, 10 + t.rank, 4 * k.channels * k.pixels, tile)) return 1;
  // The walk: pixel (w[, h], n) from the start, W fastest.
  int64_t pos[2], lo[2], hi[2], n = k.c[t.rank - 1];
  for (int s = 0; s < sp; ++s) {
    lo[s] = k.lower[s] + k.off[s];
    hi[s] = int64_t(t.dims[s + 1]) + k.upper[s] + k.off[s];
    pos[s] = k.c[s + 1] + k.off[s];
  }
  for (uint32_t p = 0; p < k.pixels; ++p) {
    for (uint32_t ch = 0; ch < k.channels; ++ch) {
      int64_t x[4] = {k.c[0] + int64_t(ch), pos[0], sp > 1 ? pos[1] : n, n};
      const uint32_t got = tile[p * k.channels + ch];
      char in[96];
      std::snprintf(in, sizeof in, "c=%d,%d,%d,%d;o=%d,%d;p=%u,ch=%u", k.c[0], k.c[1], k.c[2], k.c[3], k.off[0],
                    k.off[1], p, ch);
      if (k.off_grid) conf.data(k.form, in, got, 32);
      else conf.bits(k.form, in, t.in(x) ? t.at(x) : 0, got, 32);
    }
    int s = 0;
    for (; s < sp; ++s) {
      pos[s] += k.es[s + 1];
      if (pos[s] < hi[s]) break;
      pos[s] = lo[s];
    }
    if (s == sp) n += 1;
  }
  return 0;
}

// A 2-D store (or add) of a box partly outside the tensor: the tensor after.
int store_case(Conf& conf, Tensor& t, const char* form, int c0, int c1, bool reduce) {
  const uint32_t box[2] = {16, 8};
  CUtensorMap map;
  cuuint64_t dims[2] = {t.dims[0], t.dims[1]}, strides[1] = {t.stride(1)};
  cuuint32_t b[2] = {box[0], box[1]}, e[2] = {1, 1};
  if (encode_tiled(&map, reduce ? CU_TENSOR_MAP_DATA_TYPE_INT32 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, t.dev, dims,
                   strides, b, e, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                   CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::fprintf(stderr, "FAIL %s: encode\n", form);
    return 1;
  }
  std::vector<uint32_t> src(box[0] * box[1]);
  for (size_t i = 0; i < src.size(); ++i) src[i] = uint32_t(i * 977 + 5);
  unsigned* dsrc;
  CONF_CHECK(cudaMalloc(&dsrc, src.size() * 4));
  CONF_CHECK(cudaMemcpy(dsrc, src.data(), src.size() * 4, cudaMemcpyHostToDevice));
  CONF_CHECK(cudaMemcpy(t.dev, t.host.data(), t.bytes(), cudaMemcpyHostToDevice));
  store_box<<<1, 128>>>(map, c0, c1, reduce, dsrc, unsigned(src.size() * 4));
  CONF_CHECK(cudaGetLastError());
  std::vector<uint32_t> after(t.host.size());
  CONF_CHECK(cudaMemcpy(after.data(), t.dev, t.bytes(), cudaMemcpyDeviceToHost));
  CONF_CHECK(cudaFree(dsrc));
  for (uint64_t y = 0; y < t.dims[1]; ++y)
    for (uint64_t x = 0; x < t.stride(1) / 4; ++x) {
      const int64_t bx = int64_t(x) - c0, by = int64_t(y) - c1;
      const bool hit = x < t.dims[0] && bx >= 0 && bx < box[0] && by >= 0 && by < box[1];
      const uint32_t old = t.host[y * t.stride(1) / 4 + x];
      const uint32_t v = hit ? src[by * box[0] + bx] : 0;
      const uint32_t want = !hit ? old : reduce ? old + v : v;
      if (!hit && (bx < -2 || bx > int64_t(box[0]) + 1 || by < -2 || by > int64_t(box[1]) + 1)) continue;  // far away
      char in[64];
      std::snprintf(in, sizeof in, "c=%d,%d;x=%llu,y=%llu", c0, c1, (unsigned long long)x, (unsigned long long)y);
      conf.bits(form, in, want, after[y * t.stride(1) / 4 + x], 32);
    }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Conf conf("conf_tma", argc, argv);
  cudaDriverEntryPointQueryResult q;
  CONF_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&encode_tiled), 12000,
                                     cudaEnableDefault, &q));
  CONF_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeIm2col", reinterpret_cast<void**>(&encode_im2col), 12000,
                                     cudaEnableDefault, &q));
  if (!encode_tiled || !encode_im2col) {
    std::printf("FAIL conf_tma: no tensor-map entry points\n");
    return 1;
  }
  int err = 0;
  // Tile loads: a 37 x 29 matrix with rows padded to 160 bytes.
  Tensor m;
  m.rank = 2, m.dims[0] = 37, m.dims[1] = 29, m.pitch0 = 160;
  if (make(m, true)) return 1;
  const uint32_t b86[3] = {8, 6, 1}, one[3] = {1, 1, 1};
  for (auto c : {std::array<int64_t, 3>{0, 0, 0}, {33, 26, 0}, {-2, -3, 0}, {12, 5, 0}, {40, 0, 0}, {-8, -6, 0}})
    err |= tile_case(conf, m, "tile:2d-f32-8x6", b86, one, 0, false, c.data());
  const int64_t edge[3] = {33, 26, 0};
  err |= tile_case(conf, m, "tile:2d-f32-8x6-nanfill", b86, one, 0, true, edge);
  // Swizzles: 8-float (32 B), 16 (64 B) and 32 (128 B) rows, 8 of them.
  const char* sw_form[] = {"", "tile:2d-f32-swizzle32", "tile:2d-f32-swizzle64", "tile:2d-f32-swizzle128"};
  for (int swz = 1; swz <= 3; ++swz) {
    const uint32_t box[3] = {uint32_t(4 << swz), 8, 1};
    const int64_t c[3] = {10, 24, 0};  // the last rows and columns outside
    err |= tile_case(conf, m, sw_form[swz], box, one, swz, false, c);
  }
  // Element strides: a 16 x 10 x 7 tensor, every other row, every third plane.
  Tensor v;
  v.rank = 3, v.dims[0] = 16, v.dims[1] = 10, v.dims[2] = 7;
  if (make(v, true)) return 1;
  const uint32_t b3[3] = {12, 8, 6}, es3[3] = {1, 2, 3};
  const int64_t c3[3] = {8, 3, 2};
  err |= tile_case(conf, v, "tile:3d-f32-strided", b3, es3, 0, false, c3);
  // Interleaved: 4 f32 channels in 16-byte slices, 5 in 32-byte slices (32B
  // swizzle, as the driver requires), x W 13 x 6 rows; dimension-0 stride 2.
  Tensor i16, i32;
  i16.rank = 3, i16.dims[0] = 4, i16.dims[1] = 13, i16.dims[2] = 6, i16.pitch0 = 16;
  i32.rank = 3, i32.dims[0] = 5, i32.dims[1] = 13, i32.dims[2] = 6, i32.pitch0 = 32;
  if (make(i16, true) || make(i32, true)) return 1;
  const uint32_t bi16[3] = {4, 8, 3}, bi32[3] = {5, 8, 3}, es0[3] = {2, 1, 1};
  for (auto c : {std::array<int64_t, 3>{0, 0, 0}, {0, 9, 4}, {0, -3, -1}}) {
    err |= tile_case(conf, i16, "tile:3d-f32-interleave16", bi16, one, 0, false, c.data(), 1);
    err |= tile_case(conf, i16, "tile:3d-f32-interleave16-es2", bi16, es0, 0, false, c.data(), 1);
    err |= tile_case(conf, i32, "tile:3d-f32-interleave32-swizzle32", bi32, one, 1, false, c.data(), 2);
  }
  // Stores and reductions, clipped at the edges.
  Tensor s;
  s.rank = 2, s.dims[0] = 37, s.dims[1] = 29, s.pitch0 = 160;
  if (make(s, false)) return 1;
  err |= store_case(conf, s, "tile:store-2d", 28, 24, false);
  err |= store_case(conf, s, "tile:reduce-add-2d-s32", -5, -3, true);
  // im2col: 2 images of 7 x 9 pixels, 16 channels (NHWC).
  Tensor x;
  x.rank = 4, x.dims[0] = 16, x.dims[1] = 9, x.dims[2] = 7, x.dims[3] = 2;
  if (make(x, true)) return 1;
  const Im2col cases[] = {
      {"im2col:4d-padded-window", {-1, -1}, {-1, -1}, {1, 1, 1, 1}, 16, 32, {0, -1, -1, 0}, {0, 0}, false},
      {"im2col:4d-tap-offsets", {-1, -1}, {-1, -1}, {1, 1, 1, 1}, 16, 32, {0, -1, -1, 0}, {2, 1}, false},
      {"im2col:4d-batch-wrap", {0, 0}, {0, 0}, {1, 1, 1, 1}, 8, 64, {8, 5, 4, 0}, {0, 0}, false},
      {"im2col:4d-stride2", {-1, -1}, {-1, -1}, {1, 2, 2, 1}, 16, 24, {0, -1, -1, 0}, {1, 2}, false},
      {"im2col:4d-channel-edge", {-1, -1}, {-1, -1}, {1, 1, 1, 1}, 8, 16, {12, 3, 2, 1}, {0, 0}, false},
      {"im2col:4d-stride2-off-grid-start", {-1, -1}, {-1, -1}, {1, 2, 2, 1}, 16, 16, {0, 0, -1, 0}, {0, 0}, true},
  };
  for (const auto& k : cases) err |= im2col_case(conf, x, k);
  Tensor w;  // N W C: 3 sequences of 10, 8 channels
  w.rank = 3, w.dims[0] = 8, w.dims[1] = 10, w.dims[2] = 3;
  if (make(w, true)) return 1;
  const Im2col c1d = {"im2col:3d-causal", {-2, 0}, {0, 0}, {1, 1, 1, 1}, 8, 30, {0, -2, 0, 0}, {1, 0}, false};
  err |= im2col_case(conf, w, c1d);
  if (err) std::printf("FAIL conf_tma: a CUDA error\n");
  return conf.finish() | err;
}
