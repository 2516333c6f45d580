// The driver API's pitched memory, 2-D/3-D copies, 2-D memsets, CUDA arrays
// and texture objects, with the driver API alone, each checked against
// host-side expectations:
//  1. cuMemAllocPitch; host -> pitched device -> 2-D array -> host through
//     cuMemcpy2D (all sides offset), the pitch padding untouched;
//  2. cuMemsetD2D8/16/32 on a pitched region: only the rectangle changes;
//  3. host -> 3-D array -> host through cuMemcpy3D, with a sub-box;
//  4. texture objects on a float array (point sampled, element reads) and a
//     uchar4 array read as normalized floats (no CU_TRSF_READ_AS_INTEGER),
//     kernels from driver_kernels.ptx;
//  5. descriptors back from cuArray[3D]GetDescriptor; invalid arguments.
// Usage: driver_arrays FILE.ptx
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "drv_check.h"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  std::ifstream f(argv[1]);
  std::string ptx((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  CUdevice dev;
  if (use_primary_context(&dev)) return 1;
  CUmodule mod;
  CU_CHECK(cuModuleLoadData(&mod, ptx.c_str()));

  // 1. pitched memory and 2-D copies
  const int W = 37, H = 11;  // floats
  std::vector<float> src(W * H);
  for (int i = 0; i < W * H; ++i) src[i] = float(i) * 0.5f - 40.0f;
  CUdeviceptr pitched;
  size_t pitch = 0;
  CU_CHECK(cuMemAllocPitch(&pitched, &pitch, W * 4, H, 4));
  EXPECT_TRUE(pitch >= W * 4 && pitch % 4 == 0);
  CU_CHECK(cuMemsetD8(pitched, 0x7f, pitch * H));
  CUDA_MEMCPY2D c = {};
  c.srcMemoryType = CU_MEMORYTYPE_HOST, c.srcHost = src.data(), c.srcPitch = W * 4;
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE, c.dstDevice = pitched, c.dstPitch = pitch;
  c.WidthInBytes = W * 4, c.Height = H;
  CU_CHECK(cuMemcpy2D(&c));
  CUarray arr;
  CUDA_ARRAY_DESCRIPTOR ad = {};
  ad.Width = W, ad.Height = H, ad.Format = CU_AD_FORMAT_FLOAT, ad.NumChannels = 1;
  CU_CHECK(cuArrayCreate(&arr, &ad));
  c = {};
  c.srcMemoryType = CU_MEMORYTYPE_DEVICE, c.srcDevice = pitched, c.srcPitch = pitch;
  c.dstMemoryType = CU_MEMORYTYPE_ARRAY, c.dstArray = arr;
  c.WidthInBytes = W * 4, c.Height = H;
  CU_CHECK(cuMemcpy2D(&c));
  // array (x 5..24, y 2..9) -> host, at an offset of a 40-float-pitch buffer
  std::vector<float> back(40 * 12, -1.0f);
  c = {};
  c.srcMemoryType = CU_MEMORYTYPE_ARRAY, c.srcArray = arr, c.srcXInBytes = 5 * 4, c.srcY = 2;
  c.dstMemoryType = CU_MEMORYTYPE_HOST, c.dstHost = back.data(), c.dstPitch = 40 * 4, c.dstXInBytes = 3 * 4, c.dstY = 1;
  c.WidthInBytes = 20 * 4, c.Height = 8;
  CU_CHECK(cuMemcpy2DAsync(&c, nullptr));
  CU_CHECK(cuStreamSynchronize(nullptr));
  for (int y = 0; y < 12; ++y)
    for (int x = 0; x < 40; ++x) {
      const bool in = x >= 3 && x < 23 && y >= 1 && y < 9;
      const float want = in ? src[(y - 1 + 2) * W + (x - 3 + 5)] : -1.0f;
      if (back[y * 40 + x] != want) {
        std::fprintf(stderr, "FAIL 2-D copy (%d,%d): %g, want %g\n", x, y, back[y * 40 + x], want);
        return 1;
      }
    }
  std::vector<unsigned char> raw(pitch * H);
  CU_CHECK(cuMemcpyDtoH(raw.data(), pitched, raw.size()));
  for (int y = 0; y < H; ++y)
    for (size_t b = W * 4; b < pitch; ++b) EXPECT_TRUE(raw[y * pitch + b] == 0x7f);  // padding kept

  // 2. 2-D memsets
  CU_CHECK(cuMemsetD2D32(pitched, pitch, 0xdeadbeefu, 10, 4));
  CU_CHECK(cuMemsetD2D16(pitched + 40, pitch, 0x1234, 6, 3));
  CU_CHECK(cuMemsetD2D8Async(pitched + 2 * pitch + 60, pitch, 0xab, 5, 2, nullptr));
  CU_CHECK(cuStreamSynchronize(nullptr));
  std::vector<unsigned char> want(pitch * H);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) std::memcpy(&want[y * pitch + x * 4], &src[y * W + x], 4);
  for (int y = 0; y < H; ++y)
    for (size_t b = W * 4; b < pitch; ++b) want[y * pitch + b] = 0x7f;
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 10; ++x) {
      const uint32_t v = 0xdeadbeefu;
      std::memcpy(&want[y * pitch + x * 4], &v, 4);
    }
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 6; ++x) {
      const uint16_t v = 0x1234;
      std::memcpy(&want[y * pitch + 40 + x * 2], &v, 2);
    }
  for (int y = 2; y < 4; ++y)
    for (int x = 0; x < 5; ++x) want[y * pitch + 60 + x] = 0xab;
  CU_CHECK(cuMemcpyDtoH(raw.data(), pitched, raw.size()));
  for (size_t i = 0; i < raw.size(); ++i)
    if (raw[i] != want[i]) {
      std::fprintf(stderr, "FAIL memsetD2D byte %zu (row %zu): %02x, want %02x\n", i, i / pitch, raw[i], want[i]);
      return 1;
    }

  // 3. a 3-D array
  const int X = 16, Y = 8, Z = 4;
  std::vector<float> vol(X * Y * Z);
  for (int i = 0; i < X * Y * Z; ++i) vol[i] = float(i * 3 % 1000);
  CUarray arr3;
  CUDA_ARRAY3D_DESCRIPTOR d3 = {};
  d3.Width = X, d3.Height = Y, d3.Depth = Z, d3.Format = CU_AD_FORMAT_FLOAT, d3.NumChannels = 1;
  CU_CHECK(cuArray3DCreate(&arr3, &d3));
  CUDA_MEMCPY3D m = {};
  m.srcMemoryType = CU_MEMORYTYPE_HOST, m.srcHost = vol.data(), m.srcPitch = X * 4, m.srcHeight = Y;
  m.dstMemoryType = CU_MEMORYTYPE_ARRAY, m.dstArray = arr3;
  m.WidthInBytes = X * 4, m.Height = Y, m.Depth = Z;
  CU_CHECK(cuMemcpy3D(&m));
  std::vector<float> sub(6 * 3 * 2, -2.0f);
  m = {};
  m.srcMemoryType = CU_MEMORYTYPE_ARRAY, m.srcArray = arr3, m.srcXInBytes = 4 * 4, m.srcY = 2, m.srcZ = 1;
  m.dstMemoryType = CU_MEMORYTYPE_HOST, m.dstHost = sub.data(), m.dstPitch = 6 * 4, m.dstHeight = 3;
  m.WidthInBytes = 6 * 4, m.Height = 3, m.Depth = 2;
  CU_CHECK(cuMemcpy3D(&m));
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 6; ++x) {
        const float w = vol[((z + 1) * Y + (y + 2)) * X + (x + 4)];
        if (sub[(z * 3 + y) * 6 + x] != w) {
          std::fprintf(stderr, "FAIL 3-D copy (%d,%d,%d): %g, want %g\n", x, y, z, sub[(z * 3 + y) * 6 + x], w);
          return 1;
        }
      }

  // 4. texture objects
  CUfunction tex_read, tex_read4;
  CU_CHECK(cuModuleGetFunction(&tex_read, mod, "tex_read"));
  CU_CHECK(cuModuleGetFunction(&tex_read4, mod, "tex_read4"));
  CUDA_RESOURCE_DESC rd = {};
  rd.resType = CU_RESOURCE_TYPE_ARRAY;
  rd.res.array.hArray = arr;
  CUDA_TEXTURE_DESC td = {};
  td.addressMode[0] = td.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
  td.filterMode = CU_TR_FILTER_MODE_POINT;
  CUtexObject tex;
  CU_CHECK(cuTexObjectCreate(&tex, &rd, &td, nullptr));
  CUdeviceptr out;
  CU_CHECK(cuMemAlloc(&out, W * H * 4));
  int w = W, h = H;
  void* args[] = {&tex, &out, &w, &h};
  CU_CHECK(cuLaunchKernel(tex_read, (W + 31) / 32, H, 1, 32, 1, 1, 0, nullptr, args, nullptr));
  std::vector<float> got(W * H);
  CU_CHECK(cuMemcpyDtoH(got.data(), out, got.size() * 4));
  for (int i = 0; i < W * H; ++i)
    if (got[i] != src[i]) {
      std::fprintf(stderr, "FAIL tex_read %d: %g, want %g\n", i, got[i], src[i]);
      return 1;
    }
  const int W4 = 8, H4 = 5;
  std::vector<unsigned char> px(W4 * H4 * 4);
  for (size_t i = 0; i < px.size(); ++i) px[i] = static_cast<unsigned char>(i * 37 % 256);
  CUarray arr4;
  ad.Width = W4, ad.Height = H4, ad.Format = CU_AD_FORMAT_UNSIGNED_INT8, ad.NumChannels = 4;
  CU_CHECK(cuArrayCreate(&arr4, &ad));
  c = {};
  c.srcMemoryType = CU_MEMORYTYPE_HOST, c.srcHost = px.data(), c.srcPitch = W4 * 4;
  c.dstMemoryType = CU_MEMORYTYPE_ARRAY, c.dstArray = arr4;
  c.WidthInBytes = W4 * 4, c.Height = H4;
  CU_CHECK(cuMemcpy2D(&c));
  rd.res.array.hArray = arr4;
  CUtexObject tex4;
  CU_CHECK(cuTexObjectCreate(&tex4, &rd, &td, nullptr));
  w = W4, h = H4;
  void* args4[] = {&tex4, &out, &w, &h};
  CU_CHECK(cuLaunchKernel(tex_read4, 1, H4, 1, 32, 1, 1, 0, nullptr, args4, nullptr));
  CU_CHECK(cuMemcpyDtoH(got.data(), out, W4 * H4 * 4));
  for (int i = 0; i < W4 * H4; ++i) {
    const unsigned char* p = &px[i * 4];
    const float wv = p[0] / 255.0f + 2 * (p[1] / 255.0f) + 4 * (p[2] / 255.0f) + 8 * (p[3] / 255.0f);
    if (std::fabs(got[i] - wv) > 1e-5f) {
      std::fprintf(stderr, "FAIL tex_read4 %d: %g, want %g\n", i, got[i], wv);
      return 1;
    }
  }

  // 5. descriptors and errors
  CUDA_ARRAY_DESCRIPTOR back_d;
  CU_CHECK(cuArrayGetDescriptor(&back_d, arr4));
  EXPECT_TRUE(back_d.Width == W4 && back_d.Height == H4 && back_d.Format == CU_AD_FORMAT_UNSIGNED_INT8 &&
              back_d.NumChannels == 4);
  CUDA_ARRAY3D_DESCRIPTOR back3;
  CU_CHECK(cuArray3DGetDescriptor(&back3, arr3));
  EXPECT_TRUE(back3.Width == X && back3.Height == Y && back3.Depth == Z && back3.Format == CU_AD_FORMAT_FLOAT &&
              back3.NumChannels == 1);
  // A peer 3-D copy within the one device: rows 2..5, floats 1..10 of the
  // pitched source, to the host.
  CUcontext cur = nullptr;
  CU_CHECK(cuCtxGetCurrent(&cur));
  std::vector<float> peer_back(10 * 4, -1.0f);
  CUDA_MEMCPY3D_PEER pc = {};
  pc.srcMemoryType = CU_MEMORYTYPE_DEVICE, pc.srcDevice = pitched, pc.srcPitch = pitch, pc.srcContext = cur;
  pc.srcXInBytes = 1 * 4, pc.srcY = 2;
  pc.dstMemoryType = CU_MEMORYTYPE_HOST, pc.dstHost = peer_back.data(), pc.dstPitch = 10 * 4, pc.dstContext = cur;
  pc.WidthInBytes = 10 * 4, pc.Height = 4, pc.Depth = 1;
  CU_CHECK(cuMemcpy3DPeer(&pc));
  std::vector<float> whole(W * H);  // what the pitched rows hold now, read the 2-D way
  c = {};
  c.srcMemoryType = CU_MEMORYTYPE_DEVICE, c.srcDevice = pitched, c.srcPitch = pitch;
  c.dstMemoryType = CU_MEMORYTYPE_HOST, c.dstHost = whole.data(), c.dstPitch = W * 4;
  c.WidthInBytes = W * 4, c.Height = H;
  CU_CHECK(cuMemcpy2D(&c));
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 10; ++x) EXPECT_TRUE(peer_back[y * 10 + x] == whole[(y + 2) * W + x + 1]);
  pc.srcContext = nullptr;
  CU_EXPECT(cuMemcpy3DPeer(&pc), CUDA_ERROR_INVALID_CONTEXT);
  CUDA_RESOURCE_DESC back_r;
  CU_CHECK(cuTexObjectGetResourceDesc(&back_r, tex4));
  EXPECT_TRUE(back_r.resType == CU_RESOURCE_TYPE_ARRAY && back_r.res.array.hArray == arr4);
  // A pitched 2-D resource (the `pitched` allocation above) comes back field by field.
  CUDA_RESOURCE_DESC rp = {};
  rp.resType = CU_RESOURCE_TYPE_PITCH2D;
  rp.res.pitch2D.devPtr = pitched;
  rp.res.pitch2D.format = CU_AD_FORMAT_SIGNED_INT16;
  rp.res.pitch2D.numChannels = 2;
  rp.res.pitch2D.width = 16;
  rp.res.pitch2D.height = 3;
  rp.res.pitch2D.pitchInBytes = pitch;
  CUtexObject texp;
  CU_CHECK(cuTexObjectCreate(&texp, &rp, &td, nullptr));
  CU_CHECK(cuTexObjectGetResourceDesc(&back_r, texp));
  EXPECT_TRUE(back_r.resType == CU_RESOURCE_TYPE_PITCH2D && back_r.res.pitch2D.devPtr == pitched &&
              back_r.res.pitch2D.format == CU_AD_FORMAT_SIGNED_INT16 && back_r.res.pitch2D.numChannels == 2 &&
              back_r.res.pitch2D.width == 16 && back_r.res.pitch2D.height == 3 &&
              back_r.res.pitch2D.pitchInBytes == pitch);
  CU_CHECK(cuTexObjectDestroy(texp));
  CU_EXPECT(cuTexObjectGetResourceDesc(nullptr, tex4), CUDA_ERROR_INVALID_VALUE);
  CUdeviceptr bad;
  CU_EXPECT(cuMemAllocPitch(&bad, &pitch, 64, 4, 3), CUDA_ERROR_INVALID_VALUE);
  ad.NumChannels = 3;
  CUarray none;
  CU_EXPECT(cuArrayCreate(&none, &ad), CUDA_ERROR_INVALID_VALUE);
  CU_EXPECT(cuMemcpy2D(nullptr), CUDA_ERROR_INVALID_VALUE);
  c = {};
  c.srcMemoryType = static_cast<CUmemorytype>(9);
  CU_EXPECT(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);

  CU_CHECK(cuTexObjectDestroy(tex));
  CU_CHECK(cuTexObjectDestroy(tex4));
  CU_CHECK(cuArrayDestroy(arr));
  CU_CHECK(cuArrayDestroy(arr3));
  CU_CHECK(cuArrayDestroy(arr4));
  CU_CHECK(cuMemFree(pitched));
  CU_CHECK(cuMemFree(out));
  CU_CHECK(cuModuleUnload(mod));
  CU_CHECK(cuDevicePrimaryCtxRelease(dev));
  std::printf("PASS driver_arrays\n");
  return 0;
}
