// Texture sampling probe: samples many (format, filter, address mode,
// coordinate mode) combinations at deterministic coordinates and prints every
// result as hex bits. Its output on a real GPU is the reference
// (tex_probe.expected, recorded on an H200). With the argument "point" it
// skips the linear-filtering cases (tex_probe_point.expected holds that
// subset); the ctest cuda.tex_probe compares the full output line by line.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#include "../check.cuh"

__global__ void sample2d(cudaTextureObject_t t, const float2* xy, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float4>(t, xy[i].x, xy[i].y);
}
__global__ void fetch1d(cudaTextureObject_t t, const int* x, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float4>(t, x[i]);
}

static uint32_t lcg = 12345;
static uint32_t rnd() { lcg = lcg * 1664525u + 1013904223u; return lcg >> 8; }
static float frand(float lo, float hi) { return lo + (hi - lo) * float(rnd() & 0xffff) / 65536.0f; }

static void print4(const float4* v, int n) {
  for (int i = 0; i < n; ++i) {
    uint32_t b[4];
    std::memcpy(b, &v[i], 16);
    std::printf(" %08x %08x %08x %08x\n", b[0], b[1], b[2], b[3]);
  }
}

static int run2d(cudaArray_t arr, int W, int H, int filter, int addr, int norm, int readNorm,
                 const std::vector<float2>& xy) {
  cudaResourceDesc rd{};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = arr;
  cudaTextureDesc td{};
  td.addressMode[0] = td.addressMode[1] = (cudaTextureAddressMode)addr;
  td.filterMode = (cudaTextureFilterMode)filter;
  td.readMode = readNorm ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
  td.normalizedCoords = norm;
  td.borderColor[0] = 0.25f; td.borderColor[1] = 0.5f; td.borderColor[2] = 0.75f; td.borderColor[3] = 1.0f;
  cudaTextureObject_t t = 0;
  CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  int n = (int)xy.size();
  float2* dxy; float4* dout;
  CHECK(cudaMalloc(&dxy, n * sizeof(float2)));
  CHECK(cudaMalloc(&dout, n * sizeof(float4)));
  CHECK(cudaMemcpy(dxy, xy.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
  sample2d<<<(n + 63) / 64, 64>>>(t, dxy, dout, n);
  CHECK_LAUNCH();
  std::vector<float4> out(n);
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float4), cudaMemcpyDeviceToHost));
  std::printf("case %dx%d filter=%d addr=%d norm=%d readnorm=%d\n", W, H, filter, addr, norm, readNorm);
  print4(out.data(), n);
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFree(dxy));
  CHECK(cudaFree(dout));
  return 0;
}

int main(int argc, char** argv) {
  const bool point_only = argc > 1 && std::strcmp(argv[1], "point") == 0;
  const int W = 5, H = 4;
  // float1 5x4 and uchar4 5x4 arrays.
  std::vector<float> f(W * H);
  for (auto& v : f) v = frand(-4.f, 4.f);
  std::vector<uchar4> u(W * H);
  for (auto& v : u) v = make_uchar4(rnd() & 255, rnd() & 255, rnd() & 255, rnd() & 255);
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
  cudaChannelFormatDesc cu = cudaCreateChannelDesc<uchar4>();
  cudaArray_t af, au;
  CHECK(cudaMallocArray(&af, &cf, W, H));
  CHECK(cudaMallocArray(&au, &cu, W, H));
  CHECK(cudaMemcpy2DToArray(af, 0, 0, f.data(), W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy2DToArray(au, 0, 0, u.data(), W * sizeof(uchar4), W * sizeof(uchar4), H, cudaMemcpyHostToDevice));

  // Coordinates: random spread over [-1.5N, 2.5N], plus points near texel centres and edges.
  std::vector<float2> un, nn;
  for (int i = 0; i < 96; ++i) un.push_back(make_float2(frand(-1.5f * W, 2.5f * W), frand(-1.5f * H, 2.5f * H)));
  for (int i = 0; i < 32; ++i) {
    float x = float(rnd() % (W + 2)) - 1.f + float(rnd() % 9) / 8.f - 0.5f + frand(-1e-3f, 1e-3f);
    float y = float(rnd() % (H + 2)) - 1.f + float(rnd() % 9) / 8.f;
    un.push_back(make_float2(x, y));
  }
  for (auto p : un) nn.push_back(make_float2(p.x / W, p.y / H));
  for (int filter = 0; filter < 2; ++filter)
    for (int addr = 0; addr < 4; ++addr)
      for (int norm = 0; norm < 2; ++norm) {
        if (!norm && (addr == 0 || addr == 2)) continue;  // wrap/mirror need normalized coordinates
        if (point_only && filter == 1) continue;
        if (run2d(af, W, H, filter, addr, norm, 0, norm ? nn : un)) return 1;
        if (run2d(au, W, H, filter, addr, norm, 1, norm ? nn : un)) return 1;
      }
  // Fine sweep of the linear weight: a 2x1 ramp [0, 1] sampled every 1/1024.
  {
    float ramp[2] = {0.f, 1.f};
    cudaArray_t ar;
    CHECK(cudaMallocArray(&ar, &cf, 2, 1));
    CHECK(cudaMemcpy2DToArray(ar, 0, 0, ramp, 8, 8, 1, cudaMemcpyHostToDevice));
    std::vector<float2> xs;
    for (int k = 0; k <= 1024; ++k) xs.push_back(make_float2(0.5f + k / 1024.f, 0.5f));
    if (run2d(ar, 2, 1, 1, 1, 0, 0, xs)) return 1;
    CHECK(cudaFreeArray(ar));
  }
  // Normalized-float conversion of every 8-bit value, unsigned and signed, and some 16-bit ones.
  {
    std::vector<unsigned char> b(256);
    for (int i = 0; i < 256; ++i) b[i] = (unsigned char)i;
    cudaChannelFormatDesc c8u = cudaCreateChannelDesc<unsigned char>();
    cudaChannelFormatDesc c8s = cudaCreateChannelDesc<signed char>();
    cudaChannelFormatDesc c16u = cudaCreateChannelDesc<unsigned short>();
    cudaChannelFormatDesc c16s = cudaCreateChannelDesc<short>();
    std::vector<float2> xs;
    for (int i = 0; i < 256; ++i) xs.push_back(make_float2(i + 0.5f, 0.5f));
    cudaArray_t a8u, a8s, a16u, a16s;
    CHECK(cudaMallocArray(&a8u, &c8u, 256, 1));
    CHECK(cudaMallocArray(&a8s, &c8s, 256, 1));
    CHECK(cudaMallocArray(&a16u, &c16u, 256, 1));
    CHECK(cudaMallocArray(&a16s, &c16s, 256, 1));
    std::vector<unsigned short> h(256);
    for (int i = 0; i < 256; ++i) h[i] = (unsigned short)(i < 128 ? i : 65535 - 255 + i) ^ (i * 0x0101 & 0x7f00);
    CHECK(cudaMemcpy2DToArray(a8u, 0, 0, b.data(), 256, 256, 1, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy2DToArray(a8s, 0, 0, b.data(), 256, 256, 1, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy2DToArray(a16u, 0, 0, h.data(), 512, 512, 1, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy2DToArray(a16s, 0, 0, h.data(), 512, 512, 1, cudaMemcpyHostToDevice));
    if (run2d(a8u, 256, 1, 0, 1, 0, 1, xs)) return 1;
    if (run2d(a8s, 256, 1, 0, 1, 0, 1, xs)) return 1;
    if (run2d(a16u, 256, 1, 0, 1, 0, 1, xs)) return 1;
    if (run2d(a16s, 256, 1, 0, 1, 0, 1, xs)) return 1;
    // Linear filtering between signed normalized values (-1 clamp of -128).
    std::vector<float2> ls;
    for (int i = 0; i < 64; ++i) ls.push_back(make_float2(frand(120.f, 136.f), 0.5f));
    if (!point_only && run2d(a8s, 256, 1, 1, 1, 0, 1, ls)) return 1;
    CHECK(cudaFreeArray(a8u)); CHECK(cudaFreeArray(a8s)); CHECK(cudaFreeArray(a16u)); CHECK(cudaFreeArray(a16s));
  }
  // tex1Dfetch on linear memory, in and out of range, float1 element mode.
  {
    const int N = 10;
    float* d;
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaMemcpy(d, f.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    cudaResourceDesc rd{};
    rd.resType = cudaResourceTypeLinear;
    rd.res.linear.devPtr = d;
    rd.res.linear.desc = cf;
    rd.res.linear.sizeInBytes = N * sizeof(float);
    for (int addr = 1; addr <= 3; addr += 2) {
      cudaTextureDesc td{};
      td.addressMode[0] = (cudaTextureAddressMode)addr;
      td.readMode = cudaReadModeElementType;
      cudaTextureObject_t t;
      CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
      int xs[16] = {-5, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 100, 1 << 20};
      int* dx; float4* dout;
      CHECK(cudaMalloc(&dx, sizeof xs));
      CHECK(cudaMalloc(&dout, 16 * sizeof(float4)));
      CHECK(cudaMemcpy(dx, xs, sizeof xs, cudaMemcpyHostToDevice));
      fetch1d<<<1, 16>>>(t, dx, dout, 16);
      CHECK_LAUNCH();
      float4 out[16];
      CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
      std::printf("case fetch1d addr=%d\n", addr);
      print4(out, 16);
      CHECK(cudaDestroyTextureObject(t));
      CHECK(cudaFree(dx)); CHECK(cudaFree(dout));
    }
    CHECK(cudaFree(d));
  }
  CHECK(cudaFreeArray(af));
  CHECK(cudaFreeArray(au));
  std::printf("PASS tex_probe\n");
  return 0;
}
