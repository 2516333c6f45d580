// Kernels for bench/exec_bench.cpp. Regenerate: nvcc -ptx -arch=sm_80 bench_kernels.cu -o bench_kernels.ptx
// ALU-bound: a long chain of integer/float arithmetic per thread, no memory in the loop.
extern "C" __global__ void alu_bound(float* out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = i * 2654435761u;
  float f = float(i);
  for (int k = 0; k < iters; ++k) {
    x = x * 1664525u + 1013904223u;
    f = f * 0.999f + float(x >> 16) * 1e-6f;
  }
  out[i] = f + float(x & 0xff);
}
// Memory-bound: streaming triad.
extern "C" __global__ void triad(const float* a, const float* b, float* c, float s, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) c[i] = a[i] + s * b[i];
}
// Tiled shared-memory SGEMM, C = A*B, row-major n x n (n a multiple of 16),
// 16x16 tiles, one output per thread: the textbook kernel.
#define TILE 16
extern "C" __global__ void sgemm_tiled(const float* A, const float* B, float* C, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.f;
  for (int t = 0; t < n; t += TILE) {
    As[ty][tx] = A[row * n + t + tx];
    Bs[ty][tx] = B[(t + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}
// 2-D five-point stencil on an nx x ny grid (row-major, x fastest); the
// border is left as it is.
extern "C" __global__ void stencil5(const float* in, float* out, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  int i = y * nx + x;
  out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
}
// Sum reduction: a grid-stride loop per thread, a shared-memory tree per
// block (blockDim.x a power of two, at most 256), one atomicAdd per block.
extern "C" __global__ void reduce_sum(const float* in, float* out, int n) {
  __shared__ float s[256];
  float v = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, s[0]);
}
// GELU (sigmoid form, x * sigmoid(1.702 x)) over rows of `cols` floats, with
// a bias by column and by row and int8-style fake quantization: dominated by
// conversions, ex2.approx, rcp and the div/rem of the index math. (Its PTX
// in bench_kernels.ptx was written by hand in nvcc's style, as nvcc
// --use_fast_math emits these forms.)
extern "C" __global__ void gelu_quant(const float* in, float* out, int n, unsigned cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned row = unsigned(i) / cols, col = unsigned(i) % cols;
  float x = in[i] + float(col) * (1.0f / 1024.0f) - float(row & 7) * 0.125f;
  float e = exp2f(-2.4554669f * x);    // ex2.approx.ftz.f32
  float g = x * __frcp_rn(1.0f + e);   // rcp.rn.f32
  int q = __float2int_rn(g * 127.0f);  // cvt.rni.s32.f32
  out[i] = float(q) * (1.0f / 127.0f);
}

// 3x3 convolution of an 8-bit image with a filter in constant memory (edges
// clamped): byte loads and stores and ld.const, the forms of image kernels.
__constant__ float c_filter[9];
extern "C" __global__ void conv3x3_u8(const unsigned char* in, unsigned char* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int xx = min(max(x + dx, 0), w - 1), yy = min(max(y + dy, 0), h - 1);
      s += c_filter[(dy + 1) * 3 + dx + 1] * float(in[yy * w + xx]);
    }
  out[y * w + x] = (unsigned char)fminf(fmaxf(s + 0.5f, 0.f), 255.f);
}

// Mandelbrot iteration counts over 1024 x 768 pixels (16 x 16 blocks): a
// loop whose trip count differs per lane, so warps run diverged.
extern "C" __global__ void mandel(int* out, int w, int h, int maxit) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float cr = -2.0f + 3.0f * x / w, ci = -1.2f + 2.4f * y / h;
  float zr = 0.f, zi = 0.f;
  int it = 0;
  while (it < maxit && zr * zr + zi * zi < 4.0f) {
    float t = zr * zr - zi * zi + cr;
    zi = 2.0f * zr * zi + ci;
    zr = t;
    ++it;
  }
  out[y * w + x] = it;
}
// One thread per element, as vectorAdd and every elementwise layer kernel
// are: a CTA of 256 threads runs 14 instructions per warp, so what a CTA
// costs to start shows.
extern "C" __global__ void saxpy1(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
