// SRAD: speckle-reducing anisotropic diffusion (Y. Yu, S. T. Acton, "Speckle
// reducing anisotropic diffusion", IEEE Trans. Image Processing 11(11),
// 2002), in the shape GPU benchmark suites give it: an image of rows x cols
// floats in column-major order, 1-D grids of 512-thread blocks over the
// pixels, and per iteration
//   prepare  the value and its square per pixel,
//   reduce   a block reduction in shared memory with __syncthreads, launched
//            again on the blocks' partial sums until one block remains,
//   srad     4-neighbour derivatives (edges clamped) and the diffusion
//            coefficient from q0^2, which the host computes from the sums,
//   srad2    the divergence update,
// between extract (exp(I / 255)) and compress (log(I) * 255).
// A CPU implementation of the same algorithm (same reduction tree) checks
// every pixel with a relative tolerance (the GPU's exp/log and fused
// multiply-adds round differently from the host's).
//   srad [rows cols iterations [interleaved|halving]]   (default 502 458 100 interleaved)
#include "../check.cuh"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

constexpr int kBlock = 512;
constexpr float kLambda = 0.5f;

struct Image {
  int rows, cols;
  long n() const { return long(rows) * cols; }
};

__global__ void extract(float* img, long n) {
  long i = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) img[i] = expf(img[i] / 255.0f);
}

__global__ void compress(float* img, long n) {
  long i = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) img[i] = logf(img[i]) * 255.0f;
}

__global__ void prepare(const float* img, float* sum, float* sum2, long n) {
  long i = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    sum[i] = img[i];
    sum2[i] = img[i] * img[i];
  }
}

// Reduces `count` partial sums, element k at k * stride, block by block: each
// block adds its kBlock elements in shared memory and leaves the result in
// its first element, at blockIdx.x * kBlock * stride. Two tree shapes:
// halving (thread t adds t + half) and, as Rodinia's srad_v1 does it,
// interleaved pairs (thread t with (t + 1) % step == 0 adds t - step / 2:
// divergent inside every warp), where a partial last block reduces its
// largest power-of-two prefix and thread 0 adds the rest one by one.
__global__ void reduce(float* sum, float* sum2, long count, long stride, int interleaved) {
  __shared__ float s[kBlock];
  __shared__ float s2[kBlock];
  const int t = threadIdx.x;
  long k = long(blockIdx.x) * kBlock + t;
  s[t] = k < count ? sum[k * stride] : 0.0f;
  s2[t] = k < count ? sum2[k * stride] : 0.0f;
  __syncthreads();
  float r, r2;
  if (!interleaved) {
    for (int half = kBlock / 2; half > 0; half /= 2) {
      if (t < half) {
        s[t] += s[t + half];
        s2[t] += s2[t + half];
      }
      __syncthreads();
    }
    r = s[0];
    r2 = s2[0];
  } else {
    const long left = count - long(blockIdx.x) * kBlock;
    const int here = left < kBlock ? int(left) : kBlock;  // elements of this block
    int pow2 = 1;
    while (pow2 * 2 <= here) pow2 *= 2;
    for (int step = 2; step <= pow2; step *= 2) {
      if (t < pow2 && (t + 1) % step == 0) {
        s[t] += s[t - step / 2];
        s2[t] += s2[t - step / 2];
      }
      __syncthreads();
    }
    r = s[pow2 - 1];
    r2 = s2[pow2 - 1];
    if (t == 0)
      for (int j = pow2; j < here; ++j) {
        r += s[j];
        r2 += s2[j];
      }
  }
  if (t == 0) {
    sum[long(blockIdx.x) * kBlock * stride] = r;
    sum2[long(blockIdx.x) * kBlock * stride] = r2;
  }
}

// Derivatives towards the four neighbours (clamped at the edges) and the
// diffusion coefficient, clamped to [0, 1].
__global__ void srad(const float* img, float* dn, float* ds, float* dw, float* de, float* c, int rows,
                     int cols, float q0sqr) {
  long i = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= long(rows) * cols) return;
  int r = int(i % rows), col = int(i / rows);
  float v = img[i];
  float n = img[i - (r > 0 ? 1 : 0)];
  float s = img[i + (r < rows - 1 ? 1 : 0)];
  float w = img[i - (col > 0 ? rows : 0)];
  float e = img[i + (col < cols - 1 ? rows : 0)];
  float d_n = n - v, d_s = s - v, d_w = w - v, d_e = e - v;
  float g2 = (d_n * d_n + d_s * d_s + d_w * d_w + d_e * d_e) / (v * v);
  float l = (d_n + d_s + d_w + d_e) / v;
  float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
  float den = 1.0f + 0.25f * l;
  float qsqr = num / (den * den);
  den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
  float cf = 1.0f / (1.0f + den);
  cf = cf < 0.0f ? 0.0f : (cf > 1.0f ? 1.0f : cf);
  dn[i] = d_n;
  ds[i] = d_s;
  dw[i] = d_w;
  de[i] = d_e;
  c[i] = cf;
}

// The divergence of c * gradient (the south and east coefficients from the
// neighbours, clamped at the edges) and the update.
__global__ void srad2(float* img, const float* dn, const float* ds, const float* dw, const float* de,
                      const float* c, int rows, int cols, float lambda) {
  long i = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= long(rows) * cols) return;
  int r = int(i % rows), col = int(i / rows);
  float cn = c[i], cw = c[i];
  float cs = c[i + (r < rows - 1 ? 1 : 0)];
  float ce = c[i + (col < cols - 1 ? rows : 0)];
  float d = cn * dn[i] + cs * ds[i] + cw * dw[i] + ce * de[i];
  img[i] = img[i] + 0.25f * lambda * d;
}

// --- CPU implementation --------------------------------------------------

// The same reduction trees as the kernel.
void cpu_reduce(std::vector<float>& a, std::vector<float>& b, bool interleaved) {
  long count = long(a.size()), stride = 1;
  std::vector<float> s(kBlock), s2(kBlock);
  while (true) {
    const long blocks = (count + kBlock - 1) / kBlock;
    for (long blk = 0; blk < blocks; ++blk) {
      for (int t = 0; t < kBlock; ++t) {
        long k = blk * kBlock + t;
        s[t] = k < count ? a[k * stride] : 0.0f;
        s2[t] = k < count ? b[k * stride] : 0.0f;
      }
      float r, r2;
      if (!interleaved) {
        for (int half = kBlock / 2; half > 0; half /= 2)
          for (int t = 0; t < half; ++t) {
            s[t] += s[t + half];
            s2[t] += s2[t + half];
          }
        r = s[0];
        r2 = s2[0];
      } else {
        const int here = int(std::min<long>(kBlock, count - blk * kBlock));
        int pow2 = 1;
        while (pow2 * 2 <= here) pow2 *= 2;
        for (int step = 2; step <= pow2; step *= 2)
          for (int t = step - 1; t < pow2; t += step) {
            s[t] += s[t - step / 2];
            s2[t] += s2[t - step / 2];
          }
        r = s[pow2 - 1];
        r2 = s2[pow2 - 1];
        for (int j = pow2; j < here; ++j) {
          r += s[j];
          r2 += s2[j];
        }
      }
      a[blk * kBlock * stride] = r;
      b[blk * kBlock * stride] = r2;
    }
    if (blocks == 1) return;
    count = blocks;
    stride *= kBlock;
  }
}

float q0_squared(float sum, float sum2, long n) {
  float mean = sum / float(n);
  float var = sum2 / float(n) - mean * mean;
  return var / (mean * mean);
}

void cpu_srad(const Image& im, std::vector<float>& img, int iterations, bool interleaved) {
  const long n = im.n();
  const int rows = im.rows, cols = im.cols;
  for (auto& v : img) v = std::exp(v / 255.0f);
  std::vector<float> a(n), b(n), dn(n), ds(n), dw(n), de(n), c(n);
  for (int it = 0; it < iterations; ++it) {
    for (long i = 0; i < n; ++i) {
      a[i] = img[i];
      b[i] = img[i] * img[i];
    }
    cpu_reduce(a, b, interleaved);
    const float q0sqr = q0_squared(a[0], b[0], n);
    for (long i = 0; i < n; ++i) {
      int r = int(i % rows), col = int(i / rows);
      float v = img[i];
      dn[i] = img[r > 0 ? i - 1 : i] - v;
      ds[i] = img[r < rows - 1 ? i + 1 : i] - v;
      dw[i] = img[col > 0 ? i - rows : i] - v;
      de[i] = img[col < cols - 1 ? i + rows : i] - v;
      float g2 = (dn[i] * dn[i] + ds[i] * ds[i] + dw[i] * dw[i] + de[i] * de[i]) / (v * v);
      float l = (dn[i] + ds[i] + dw[i] + de[i]) / v;
      float num = 0.5f * g2 - (l * l) / 16.0f;
      float den = 1.0f + l / 4.0f;
      float q = num / (den * den);
      float cf = 1.0f / (1.0f + (q - q0sqr) / (q0sqr * (1.0f + q0sqr)));
      c[i] = std::fmin(1.0f, std::fmax(0.0f, cf));
    }
    for (long i = 0; i < n; ++i) {
      int r = int(i % rows), col = int(i / rows);
      float cs = c[r < rows - 1 ? i + 1 : i], ce = c[col < cols - 1 ? i + rows : i];
      img[i] += kLambda / 4.0f * (c[i] * dn[i] + cs * ds[i] + c[i] * dw[i] + ce * de[i]);
    }
  }
  for (auto& v : img) v = std::log(v) * 255.0f;
}

// --- GPU run ---------------------------------------------------------------

int gpu_srad(const Image& im, std::vector<float>& img, int iterations, bool interleaved) {
  const long n = im.n();
  const size_t bytes = size_t(n) * sizeof(float);
  const unsigned blocks = unsigned((n + kBlock - 1) / kBlock);
  float *d_img, *d_sum, *d_sum2, *d_dn, *d_ds, *d_dw, *d_de, *d_c;
  for (float** p : {&d_img, &d_sum, &d_sum2, &d_dn, &d_ds, &d_dw, &d_de, &d_c}) CHECK(cudaMalloc(p, bytes));
  CHECK(cudaMemcpy(d_img, img.data(), bytes, cudaMemcpyHostToDevice));
  extract<<<blocks, kBlock>>>(d_img, n);
  CHECK(cudaGetLastError());
  for (int it = 0; it < iterations; ++it) {
    prepare<<<blocks, kBlock>>>(d_img, d_sum, d_sum2, n);
    CHECK(cudaGetLastError());
    long count = n, stride = 1;
    while (true) {
      const long rblocks = (count + kBlock - 1) / kBlock;
      reduce<<<unsigned(rblocks), kBlock>>>(d_sum, d_sum2, count, stride, interleaved);
      CHECK(cudaGetLastError());
      if (rblocks == 1) break;
      count = rblocks;
      stride *= kBlock;
    }
    float sum, sum2;
    CHECK(cudaMemcpy(&sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&sum2, d_sum2, sizeof(float), cudaMemcpyDeviceToHost));
    const float q0sqr = q0_squared(sum, sum2, n);
    srad<<<blocks, kBlock>>>(d_img, d_dn, d_ds, d_dw, d_de, d_c, im.rows, im.cols, q0sqr);
    CHECK(cudaGetLastError());
    srad2<<<blocks, kBlock>>>(d_img, d_dn, d_ds, d_dw, d_de, d_c, im.rows, im.cols, kLambda);
    CHECK(cudaGetLastError());
  }
  compress<<<blocks, kBlock>>>(d_img, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(img.data(), d_img, bytes, cudaMemcpyDeviceToHost));
  for (float* p : {d_img, d_sum, d_sum2, d_dn, d_ds, d_dw, d_de, d_c}) CHECK(cudaFree(p));
  return 0;
}

int main(int argc, char** argv) {
  Image im{502, 458};
  int iterations = 100;
  bool interleaved = true;
  if (argc >= 4) {
    im.rows = std::atoi(argv[1]);
    im.cols = std::atoi(argv[2]);
    iterations = std::atoi(argv[3]);
  }
  if (argc >= 5) interleaved = std::strcmp(argv[4], "halving") != 0;
  REQUIRE(im.rows > 1 && im.cols > 1 && iterations >= 0 && (argc == 1 || argc == 4 || argc == 5),
          "usage: srad [rows cols iterations [interleaved|halving]]");
  // A speckled image: smooth bands times a pseudo-random speckle, 0..255.
  std::vector<float> input(im.n());
  Lcg rng(11);
  for (long i = 0; i < im.n(); ++i) {
    const int r = int(i % im.rows), col = int(i / im.rows);
    const float base = 96.0f + 64.0f * float((r / 32 + col / 48) % 2);
    input[i] = std::fmin(255.0f, base * rng.uniform(0.5f, 1.5f));
  }
  std::vector<float> got = input, want = input;
  if (int rc = gpu_srad(im, got, iterations, interleaved)) return rc;
  cpu_srad(im, want, iterations, interleaved);
  long bad = 0;
  double worst = 0;
  for (long i = 0; i < im.n(); ++i) {
    const double err = std::fabs(double(got[i]) - want[i]) / std::fmax(1.0, std::fabs(double(want[i])));
    worst = std::fmax(worst, err);
    if (!(err <= 1e-3)) {
      if (bad < 8) std::fprintf(stderr, "MISMATCH img[%ld]: got %.9g expected %.9g\n", i, got[i], want[i]);
      ++bad;
    }
  }
  // The diffusion must have changed the image (a kernel that did nothing
  // would otherwise pass with iterations = 0 on both sides).
  double moved = 0;
  for (long i = 0; i < im.n(); ++i) moved = std::fmax(moved, std::fabs(double(want[i]) - input[i]));
  REQUIRE(iterations == 0 || moved > 1.0, "the CPU result barely moved (%g)", moved);
  std::printf("srad %dx%d, %d iterations, %s reduction: max relative error %.3g, %ld of %ld pixels off\n",
              im.rows, im.cols, iterations, interleaved ? "interleaved" : "halving", worst, bad, im.n());
  if (bad) {
    std::printf("FAIL srad\n");
    return 1;
  }
  std::printf("PASS srad\n");
  return 0;
}
