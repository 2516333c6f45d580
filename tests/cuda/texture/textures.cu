// Texture objects and surfaces against a CPU implementation of the CUDA
// Programming Guide's "Texture Fetching" formulas: 2-D point and linear
// filtering with clamp and wrap, unnormalized and normalized coordinates, on
// float and uchar4 (normalized-float read) arrays; a 1-D linear-memory
// texture (tex1Dfetch); a surface write/read kernel. Point sampling must match
// exactly. Linear: the Guide fixes the 9-bit weights a, b but not how their
// products are rounded; hardware keeps each axis weight exact and rounds a*b
// to 1/256, which moves the result by at most 0.5/256 * |T00 - T10 - T01 + T11|
// (plus float rounding, and 0.5/65535 for 8-bit data filtered to 16 bits).
#include <cmath>
#include <vector>
#include "../check.cuh"

__global__ void sample(cudaTextureObject_t t, const float2* xy, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float4>(t, xy[i].x, xy[i].y);
}
__global__ void fetch(cudaTextureObject_t t, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<int>(t, i - 3);  // reads before and after the buffer too
}
__global__ void surf_rw(cudaSurfaceObject_t s, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= W || y >= H) return;
  uchar4 v = surf2Dread<uchar4>(s, x * 4, y);
  uchar4 r = make_uchar4(v.w, v.z, v.y, v.x + 1);
  surf2Dwrite(r, s, x * 4, y);
  // Clamp mode reads the nearest element; zero mode reads zero.
  if (x == 0 && y == 0) {
    uchar4 c = surf2Dread<uchar4>(s, -4, -1, cudaBoundaryModeClamp);
    uchar4 z = surf2Dread<uchar4>(s, W * 4, 0, cudaBoundaryModeZero);
    surf2Dwrite(make_uchar4(c.x, c.y, z.x, z.w), s, W * 4 + 4, H, cudaBoundaryModeZero);  // dropped
  }
}

static uint32_t lcg = 777;
static uint32_t rnd() { lcg = lcg * 1664525u + 1013904223u; return lcg >> 8; }

struct Tex { int W, H, C; std::vector<float> v; };  // texel values as floats, C channels

static int addr(int i, int n, cudaTextureAddressMode m) {
  if (m == cudaAddressModeWrap) { i %= n; return i < 0 ? i + n : i; }
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}
// The Guide's formulas (point: T[floor(x)]; linear: 9-bit weights of frac(x-0.5)).
// tol (linear only): per channel, the allowed distance from the Guide's value.
static void reference(const Tex& T, float u, float v, bool linear, cudaTextureAddressMode m, bool norm, float* out,
                      float* tol) {
  float x = norm ? u * T.W : u, y = norm ? v * T.H : v;
  auto at = [&](int i, int j, int c) { return T.v[(addr(j, T.H, m) * T.W + addr(i, T.W, m)) * T.C + c]; };
  for (int c = 0; c < 4; ++c) out[c] = tol[c] = 0;
  if (!linear) {
    int i = (int)std::floor(x), j = (int)std::floor(y);
    for (int c = 0; c < T.C; ++c) out[c] = at(i, j, c);
    return;
  }
  float xb = x - 0.5f, yb = y - 0.5f;
  int i = (int)std::floor(xb), j = (int)std::floor(yb);
  float a = std::floor((xb - i) * 256.f + 0.5f) / 256.f, b = std::floor((yb - j) * 256.f + 0.5f) / 256.f;
  for (int c = 0; c < T.C; ++c) {
    out[c] = (1 - a) * (1 - b) * at(i, j, c) + a * (1 - b) * at(i + 1, j, c) + (1 - a) * b * at(i, j + 1, c) +
             a * b * at(i + 1, j + 1, c);
    const float cross = at(i, j, c) - at(i + 1, j, c) - at(i, j + 1, c) + at(i + 1, j + 1, c);
    tol[c] = 0.5f / 256.f * std::fabs(cross) + 1e-5f;
  }
}

static int check_2d(cudaArray_t arr, const Tex& T, bool uchar, long* bad_total) {
  const int n = 256;
  std::vector<float2> un(n), nn(n);
  for (int k = 0; k < n; ++k) {
    float x = -1.5f * T.W + 4.f * T.W * float(rnd() & 0xffff) / 65536.f;
    float y = -1.5f * T.H + 4.f * T.H * float(rnd() & 0xffff) / 65536.f;
    un[k] = make_float2(x, y);
    nn[k] = make_float2(x / T.W, y / T.H);
  }
  float2* dxy; float4* dout;
  CHECK(cudaMalloc(&dxy, n * sizeof(float2)));
  CHECK(cudaMalloc(&dout, n * sizeof(float4)));
  const cudaTextureAddressMode modes[2] = {cudaAddressModeClamp, cudaAddressModeWrap};
  for (int linear = 0; linear < 2; ++linear)
    for (int mi = 0; mi < 2; ++mi)
      for (int norm = 0; norm < 2; ++norm) {
        if (!norm && modes[mi] == cudaAddressModeWrap) continue;  // wrap needs normalized coordinates
        cudaResourceDesc rd{};
        rd.resType = cudaResourceTypeArray;
        rd.res.array.array = arr;
        cudaTextureDesc td{};
        td.addressMode[0] = td.addressMode[1] = modes[mi];
        td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
        td.readMode = uchar ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
        td.normalizedCoords = norm;
        cudaTextureObject_t t;
        CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
        const std::vector<float2>& c = norm ? nn : un;
        CHECK(cudaMemcpy(dxy, c.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
        sample<<<n / 64, 64>>>(t, dxy, dout, n);
        CHECK_LAUNCH();
        std::vector<float4> got(n);
        CHECK(cudaMemcpy(got.data(), dout, n * sizeof(float4), cudaMemcpyDeviceToHost));
        long bad = 0;
        for (int k = 0; k < n; ++k) {
          float want[4], tol[4];
          reference(T, c[k].x, c[k].y, linear, modes[mi], norm, want, tol);
          const float g[4] = {got[k].x, got[k].y, got[k].z, got[k].w};
          for (int ch = 0; ch < 4; ++ch)
            if (!(std::fabs(g[ch] - want[ch]) <= tol[ch] + (linear && uchar ? 0.5f / 65535.f : 0.f))) {
              if (bad++ < 4)
                std::fprintf(stderr, "%s linear=%d mode=%d norm=%d (%g,%g) ch%d: got %.8g want %.8g\n",
                             uchar ? "uchar4" : "float", linear, mi, norm, c[k].x, c[k].y, ch, g[ch], want[ch]);
            }
        }
        *bad_total += bad;
        CHECK(cudaDestroyTextureObject(t));
      }
  CHECK(cudaFree(dxy));
  CHECK(cudaFree(dout));
  return 0;
}

int main() {
  long bad = 0;
  // 2-D float array, values in [-4, 4).
  Tex tf{7, 5, 1, {}};
  for (int i = 0; i < tf.W * tf.H; ++i) tf.v.push_back(-4.f + 8.f * float(rnd() & 0xffff) / 65536.f);
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
  cudaArray_t af;
  CHECK(cudaMallocArray(&af, &cf, tf.W, tf.H));
  CHECK(cudaMemcpy2DToArray(af, 0, 0, tf.v.data(), tf.W * 4, tf.W * 4, tf.H, cudaMemcpyHostToDevice));
  cudaChannelFormatDesc back;
  CHECK(cudaGetChannelDesc(&back, af));
  REQUIRE(back.x == 32 && back.y == 0 && back.f == cudaChannelFormatKindFloat, "channel desc %d %d", back.x, back.f);
  if (check_2d(af, tf, false, &bad)) return 1;
  // Round trip through cudaMemcpy2DFromArray.
  std::vector<float> rt(tf.W * tf.H);
  CHECK(cudaMemcpy2DFromArray(rt.data(), tf.W * 4, af, 0, 0, tf.W * 4, tf.H, cudaMemcpyDeviceToHost));
  bad += count_mismatches("array round trip", rt.data(), tf.v.data(), (long)rt.size());

  // 2-D uchar4 array read as normalized floats (v / 255).
  const int UW = 6, UH = 4;
  std::vector<uchar4> ub(UW * UH);
  Tex tu{UW, UH, 4, {}};
  for (auto& p : ub) {
    p.x = rnd() & 255; p.y = rnd() & 255; p.z = rnd() & 255; p.w = rnd() & 255;
    const unsigned char ch[4] = {p.x, p.y, p.z, p.w};
    for (int c = 0; c < 4; ++c) tu.v.push_back(float(ch[c]) / 255.f);
  }
  cudaChannelFormatDesc cu = cudaCreateChannelDesc<uchar4>();
  cudaArray_t au;
  CHECK(cudaMallocArray(&au, &cu, UW, UH, cudaArraySurfaceLoadStore));
  CHECK(cudaMemcpy2DToArray(au, 0, 0, ub.data(), UW * 4, UW * 4, UH, cudaMemcpyHostToDevice));
  if (check_2d(au, tu, true, &bad)) return 1;

  // Surface: each element (x,y,z,w) becomes (w,z,y,x+1).
  {
    cudaResourceDesc rd{};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = au;
    cudaSurfaceObject_t s;
    CHECK(cudaCreateSurfaceObject(&s, &rd));
    surf_rw<<<dim3(1, UH), 32>>>(s, UW, UH);
    CHECK_LAUNCH();
    std::vector<uchar4> out(UW * UH);
    CHECK(cudaMemcpy2DFromArray(out.data(), UW * 4, au, 0, 0, UW * 4, UH, cudaMemcpyDeviceToHost));
    for (int i = 0; i < UW * UH; ++i) {
      const uchar4 w = make_uchar4(ub[i].w, ub[i].z, ub[i].y, (unsigned char)(ub[i].x + 1));
      if (out[i].x != w.x || out[i].y != w.y || out[i].z != w.z || out[i].w != w.w) {
        if (bad < 8) std::fprintf(stderr, "surface element %d differs\n", i);
        ++bad;
      }
    }
    CHECK(cudaDestroySurfaceObject(s));
  }

  // 1-D texture over linear memory: tex1Dfetch, zero outside the buffer.
  {
    const int N = 40;
    std::vector<int> h(N);
    for (int i = 0; i < N; ++i) h[i] = int(rnd()) - (1 << 23);
    int *d, *dout;
    CHECK(cudaMalloc(&d, N * sizeof(int)));
    CHECK(cudaMalloc(&dout, (N + 6) * sizeof(int)));
    CHECK(cudaMemcpy(d, h.data(), N * sizeof(int), cudaMemcpyHostToDevice));
    cudaResourceDesc rd{};
    rd.resType = cudaResourceTypeLinear;
    rd.res.linear.devPtr = d;
    rd.res.linear.desc = cudaCreateChannelDesc<int>();
    rd.res.linear.sizeInBytes = N * sizeof(int);
    cudaTextureDesc td{};
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t;
    CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    cudaResourceDesc q{};
    CHECK(cudaGetTextureObjectResourceDesc(&q, t));
    REQUIRE(q.resType == cudaResourceTypeLinear && q.res.linear.devPtr == d &&
                q.res.linear.sizeInBytes == N * sizeof(int), "resource desc round trip");
    fetch<<<1, N + 6>>>(t, dout, N + 6);
    CHECK_LAUNCH();
    std::vector<int> got(N + 6), want(N + 6);
    for (int i = 0; i < N + 6; ++i) want[i] = (i - 3 >= 0 && i - 3 < N) ? h[i - 3] : 0;
    CHECK(cudaMemcpy(got.data(), dout, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
    bad += count_mismatches("tex1Dfetch", got.data(), want.data(), (long)got.size());
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFree(d));
    CHECK(cudaFree(dout));
  }
  CHECK(cudaFreeArray(af));
  CHECK(cudaFreeArray(au));
  if (bad) { std::printf("FAIL textures: %ld mismatches\n", bad); return 1; }
  std::printf("PASS textures\n");
  return 0;
}
