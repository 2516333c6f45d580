// The _64 (ILP64) entry points of every routine softgpu cuBLAS implements
// (Set/GetVector/Matrix's are in cublas_transfer.cu): each call made once
// through the 32-bit name and once through the _64 name with the same
// arguments must leave every byte of the device buffers (and the host
// result) the same; the _64 call with a size of 2^32 + 17 (17 once
// truncated to 32 bits) must return CUBLAS_STATUS_NOT_SUPPORTED, say so on
// stderr and write nothing. 64-bit increments and leading dimensions reach
// the kernels whole: an increment or lda of 2^32 (0 if truncated) on a
// single element or column gives the unit-increment result. Both pointer
// modes; S for every routine, D, H and the Ex forms for the gemm family and
// a few others.
#include <cublas_v2.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "common.cuh"

static long checks = 0, bad = 0;
static const int64_t kBig = (int64_t(1) << 32) + 17;

// Buffers every call reads and writes: X, Y (vectors), A, B, C (matrices,
// two strided batches), R (reduction results). Values are multiples of 1/8,
// so the bytes read as f16 are finite too; A's diagonals are 2 (trsv/trsm).
// With them the scalars for the pointer mode, where a reduction's result
// goes (R, or host_result) and device arrays of pointers to the two batches
// of A, B and C.
template <typename T>
struct Pool {
  static constexpr int kLen = 1024;
  enum { X, Y, A, B, C, R, kBufs };
  T* d[kBufs] = {};
  std::vector<T> init;
  T host_result = 0;
  Arg<T> al, be;
  const T *alpha = nullptr, *beta = nullptr;
  T* res = nullptr;
  T** arr[3] = {};
  int create(bool device, T alpha_v, T beta_v) {
    init.resize(size_t(kLen) * kBufs);
    for (auto& v : init) v = T(std::floor(urand() * 8) / 8);
    for (int i = 0; i < kLen; i += 21) init[size_t(A) * kLen + i] = T(2);
    for (int b = 0; b < kBufs; ++b) CHECK(cudaMalloc(&d[b], kLen * sizeof(T)));
    if (make_arg(al, alpha_v) || make_arg(be, beta_v)) return 1;
    alpha = al.get(device);
    beta = be.get(device);
    res = device ? d[R] : &host_result;
    for (int w = 0; w < 3; ++w) {
      T* host[2] = {d[A + w], d[A + w] + 400};
      CHECK(cudaMalloc(&arr[w], sizeof(host)));
      CHECK(cudaMemcpy(arr[w], host, sizeof(host), cudaMemcpyHostToDevice));
    }
    return 0;
  }
  int reset() {
    for (int b = 0; b < kBufs; ++b)
      CHECK(cudaMemcpy(d[b], init.data() + size_t(b) * kLen, kLen * sizeof(T), cudaMemcpyHostToDevice));
    host_result = T(-1);
    return 0;
  }
  int snapshot(std::vector<T>& out) {
    out.resize(init.size() + 1);
    CHECK(cudaDeviceSynchronize());
    for (int b = 0; b < kBufs; ++b)
      CHECK(cudaMemcpy(out.data() + size_t(b) * kLen, d[b], kLen * sizeof(T), cudaMemcpyDeviceToHost));
    out.back() = host_result;
    return 0;
  }
  int destroy() {
    for (T* q : d) CHECK(cudaFree(q));
    for (T** q : arr) CHECK(cudaFree(q));
    CHECK(cudaFree(al.dev));
    CHECK(cudaFree(be.dev));
    return 0;
  }
};

static void expect(bool ok, const char* what, const char* how) {
  ++checks;
  if (!ok && ++bad <= 10) std::printf("FAIL %s: %s\n", what, how);
}

// call32() and call64(0) must leave the same bytes; call64(kBig) must be
// NOT_SUPPORTED and leave the buffers as they were.
template <typename T, typename F32, typename F64>
static int same(Pool<T>& pool, const char* name, F32 call32, F64 call64) {
  std::vector<T> r32, r64, rbig;
  if (pool.reset()) return 1;
  const cublasStatus_t s32 = call32();
  if (pool.snapshot(r32) || pool.reset()) return 1;
  const cublasStatus_t s64 = call64(int64_t(0));
  if (pool.snapshot(r64) || pool.reset()) return 1;
  const cublasStatus_t sbig = call64(kBig);
  if (pool.snapshot(rbig)) return 1;
  std::vector<T> start = pool.init;
  start.push_back(T(-1));
  expect(s32 == CUBLAS_STATUS_SUCCESS && s64 == CUBLAS_STATUS_SUCCESS, name, "status of the 32/64-bit call");
  expect(std::memcmp(r32.data(), r64.data(), r32.size() * sizeof(T)) == 0, name, "_64 result differs");
  expect(std::memcmp(r32.data(), start.data(), r32.size() * sizeof(T)) != 0, name, "the call changed nothing");
  expect(sbig == CUBLAS_STATUS_NOT_SUPPORTED, name, "size 2^32 + 17 not NOT_SUPPORTED");
  expect(std::memcmp(rbig.data(), start.data(), rbig.size() * sizeof(T)) == 0, name, "size 2^32 + 17 wrote");
  return 0;
}

// One call written once for both names: n is 17, or in the _64 call w when
// w != 0; the other sizes, leading dimensions (20) and increments (1, or
// -2 as inc2) have the index type of the name.
#define SAME(pool, NAME, ...)                                                                                      \
  if (same(                                                                                                       \
          pool, #NAME,                                                                                            \
          [&] {                                                                                                   \
            const int n = 17, m = 13, k = 9, ld = 20, inc = 1, inc2 = -2, batch = 2;                             \
            (void)m, (void)k, (void)ld, (void)inc, (void)inc2, (void)batch;                                       \
            return NAME(__VA_ARGS__);                                                                             \
          },                                                                                                      \
          [&](int64_t w) {                                                                                        \
            const int64_t n = w ? w : 17, m = 13, k = 9, ld = 20, inc = 1, inc2 = -2, batch = 2;                 \
            (void)m, (void)k, (void)ld, (void)inc, (void)inc2, (void)batch;                                       \
            return NAME##_64(__VA_ARGS__);                                                                        \
          }))                                                                                                     \
  return 1

static const cublasOperation_t N = CUBLAS_OP_N, T_ = CUBLAS_OP_T;
static const cublasFillMode_t L = CUBLAS_FILL_MODE_LOWER, U = CUBLAS_FILL_MODE_UPPER;
static const cublasSideMode_t SL = CUBLAS_SIDE_LEFT, SR = CUBLAS_SIDE_RIGHT;
static const cublasDiagType_t DN = CUBLAS_DIAG_NON_UNIT;

static int single(cublasHandle_t h, bool device) {
  Pool<float> p;
  if (p.create(device, 0.75f, -1.5f)) return 1;
  float *x = p.d[p.X], *y = p.d[p.Y], *a = p.d[p.A], *b = p.d[p.B], *c = p.d[p.C], *res = p.res;
  const float *alpha = p.alpha, *beta = p.beta;
  // Level 1
  SAME(p, cublasSaxpy_v2, h, n, alpha, x, inc, y, inc2);
  SAME(p, cublasSscal_v2, h, n, alpha, x, inc);
  SAME(p, cublasScopy_v2, h, n, x, inc2, y, inc);
  SAME(p, cublasSdot_v2, h, n, x, inc, y, inc2, res);
  SAME(p, cublasSnrm2_v2, h, n, x, inc, res);
  SAME(p, cublasSasum_v2, h, n, x, inc, res);
  SAME(p, cublasSswap_v2, h, n, x, inc, y, inc2);
  SAME(p, cublasSrot_v2, h, n, x, inc, y, inc2, alpha, beta);
  // Level 2
  SAME(p, cublasSgemv_v2, h, T_, m, n, alpha, a, ld, x, inc, beta, y, inc2);
  SAME(p, cublasSger_v2, h, m, n, alpha, x, inc, y, inc2, a, ld);
  SAME(p, cublasSsymv_v2, h, U, n, alpha, a, ld, x, inc2, beta, y, inc);
  SAME(p, cublasStrsv_v2, h, L, T_, DN, n, a, ld, x, inc2);
  SAME(p, cublasStrmv_v2, h, U, N, DN, n, a, ld, x, inc2);
  // Level 3 and extensions
  SAME(p, cublasSgemm_v2, h, N, T_, m, n, k, alpha, a, ld, b, ld, beta, c, ld);
  SAME(p, cublasSgemmStridedBatched, h, T_, N, m, n, k, alpha, a, ld, 400, b, ld, 400, beta, c, ld, 400, batch);
  SAME(p, cublasSgemmBatched, h, N, N, m, n, k, alpha, p.arr[0], ld, p.arr[1], ld, beta, p.arr[2], ld, batch);
  SAME(p, cublasSgeam, h, T_, N, m, n, alpha, a, ld, beta, b, ld, c, ld);
  SAME(p, cublasSdgmm, h, SR, m, n, a, ld, x, inc2, c, ld);
  SAME(p, cublasSsyrk_v2, h, L, T_, n, k, alpha, a, ld, beta, c, ld);
  SAME(p, cublasStrsm_v2, h, SR, U, N, DN, m, n, alpha, a, ld, b, ld);
  SAME(p, cublasSsymm_v2, h, SL, L, m, n, alpha, a, ld, b, ld, beta, c, ld);
  SAME(p, cublasStrmm_v2, h, SR, L, T_, DN, m, n, alpha, a, ld, b, ld, c, ld);
  SAME(p, cublasStrmm_v2, h, SL, U, N, CUBLAS_DIAG_UNIT, m, n, alpha, a, ld, b, ld, b, ld);  // in place
  SAME(p, cublasSsyr2k_v2, h, U, N, n, k, alpha, a, ld, b, ld, beta, c, ld);
  SAME(p, cublasSgemmEx, h, N, N, m, n, k, alpha, a, CUDA_R_32F, ld, b, CUDA_R_32F, ld, beta, c, CUDA_R_32F, ld);
  SAME(p, cublasGemmEx, h, T_, T_, m, n, k, alpha, a, CUDA_R_32F, ld, b, CUDA_R_32F, ld, beta, c, CUDA_R_32F, ld,
       CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
  SAME(p, cublasGemmStridedBatchedEx, h, N, T_, m, n, k, alpha, a, CUDA_R_32F, ld, 400, b, CUDA_R_32F, ld, 400, beta,
       c, CUDA_R_32F, ld, 400, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  SAME(p, cublasGemmBatchedEx, h, N, N, m, n, k, alpha, (const void* const*)p.arr[0], CUDA_R_32F, ld,
       (const void* const*)p.arr[1], CUDA_R_32F, ld, beta, (void* const*)p.arr[2], CUDA_R_32F, ld, batch,
       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  // f16 operands in the same bytes (multiples of 1/8 as f32 read as f16 are finite).
  __half hv[2] = {__float2half(0.5f), __float2half(-1.0f)}, *dh;
  CHECK(cudaMalloc(&dh, sizeof(hv)));
  CHECK(cudaMemcpy(dh, hv, sizeof(hv), cudaMemcpyHostToDevice));
  const __half *halpha = device ? dh : &hv[0], *hbeta = device ? dh + 1 : &hv[1];
  auto ha = (const __half*)a, hb = (const __half*)b;
  auto hc = (__half*)c;
  SAME(p, cublasHgemm, h, N, T_, m, n, k, halpha, ha, ld, hb, ld, hbeta, hc, ld);
  SAME(p, cublasHgemmStridedBatched, h, T_, N, m, n, k, halpha, ha, ld, 800, hb, ld, 800, hbeta, hc, ld, 800, batch);
  SAME(p, cublasHgemmBatched, h, N, N, m, n, k, halpha, (const __half* const*)p.arr[0], ld,
       (const __half* const*)p.arr[1], ld, hbeta, (__half* const*)p.arr[2], ld, batch);
  SAME(p, cublasGemmEx, h, N, N, m, n, k, alpha, ha, CUDA_R_16F, ld, hb, CUDA_R_16F, ld, beta, c, CUDA_R_32F, ld,
       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);

  // amax / amin: the 1-based index as int and as int64_t.
  for (bool smallest : {false, true}) {
    const char* name = smallest ? "cublasIsamin_v2_64" : "cublasIsamax_v2_64";
    int64_t* d64;
    int* d32;
    CHECK(cudaMalloc(&d64, sizeof(int64_t)));
    CHECK(cudaMalloc(&d32, sizeof(int)));
    CHECK(cudaMemset(d64, 0xff, sizeof(int64_t)));
    int i32 = -1;
    int64_t i64 = -1, big = 12345;
    if (p.reset()) return 1;
    cublasStatus_t s32 = smallest ? cublasIsamin(h, 17, x, 2, device ? d32 : &i32)
                                  : cublasIsamax(h, 17, x, 2, device ? d32 : &i32);
    cublasStatus_t s64 = smallest ? cublasIsamin_v2_64(h, 17, x, 2, device ? d64 : &i64)
                                  : cublasIsamax_v2_64(h, 17, x, 2, device ? d64 : &i64);
    if (device) {
      CHECK(cudaMemcpy(&i32, d32, sizeof(int), cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(&i64, d64, sizeof(int64_t), cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(d64, &big, sizeof(int64_t), cudaMemcpyHostToDevice));
    }
    int64_t* out_big = device ? d64 : &big;
    cublasStatus_t sbig =
        smallest ? cublasIsamin_v2_64(h, kBig, x, 2, out_big) : cublasIsamax_v2_64(h, kBig, x, 2, out_big);
    if (device) CHECK(cudaMemcpy(&big, d64, sizeof(int64_t), cudaMemcpyDeviceToHost));
    expect(s32 == CUBLAS_STATUS_SUCCESS && s64 == CUBLAS_STATUS_SUCCESS, name, "status");
    expect(i32 >= 1 && i32 <= 17 && i64 == i32, name, "index differs from the 32-bit call's");
    expect(sbig == CUBLAS_STATUS_NOT_SUPPORTED && big == 12345, name, "size 2^32 + 17");
    CHECK(cudaFree(d64));
    CHECK(cudaFree(d32));
  }

  // 64-bit increments and leading dimensions are not truncated: one
  // element with increment +-2^32, one column with lda, ldb or ldc 2^32 (+ 20).
  {
    std::vector<float> r32, r64;
    const int64_t wide = int64_t(1) << 32;
    if (p.reset()) return 1;
    CHECK_BLAS(cublasSaxpy(h, 1, alpha, x, 1, y, 1));
    CHECK_BLAS(cublasSgemv(h, N, 17, 1, alpha, a, 20, x, 1, beta, c, 1));
    CHECK_BLAS(cublasSgemm(h, N, N, 17, 1, 9, alpha, a, 20, b, 20, beta, c + 100, 20));
    if (p.snapshot(r32) || p.reset()) return 1;
    CHECK_BLAS(cublasSaxpy_v2_64(h, 1, alpha, x, wide, y, -wide));
    CHECK_BLAS(cublasSgemv_v2_64(h, N, 17, 1, alpha, a, wide, x, wide, beta, c, 1));
    CHECK_BLAS(cublasSgemm_v2_64(h, N, N, 17, 1, 9, alpha, a, 20, b, wide + 20, beta, c + 100, wide));
    if (p.snapshot(r64)) return 1;
    expect(std::memcmp(r32.data(), r64.data(), r32.size() * sizeof(float)) == 0, "increment/lda 2^32",
           "differs from the unit-stride result");
  }
  CHECK(cudaFree(dh));
  return p.destroy();
}

static int dbl(cublasHandle_t h, bool device) {
  Pool<double> p;
  if (p.create(device, -0.25, 2.0)) return 1;
  double *x = p.d[p.X], *y = p.d[p.Y], *a = p.d[p.A], *b = p.d[p.B], *c = p.d[p.C], *res = p.res;
  const double *alpha = p.alpha, *beta = p.beta;
  SAME(p, cublasDaxpy_v2, h, n, alpha, x, inc2, y, inc);
  SAME(p, cublasDnrm2_v2, h, n, x, inc, res);
  SAME(p, cublasDrot_v2, h, n, x, inc2, y, inc, alpha, beta);
  SAME(p, cublasDgemv_v2, h, N, m, n, alpha, a, ld, x, inc, beta, y, inc);
  SAME(p, cublasDtrmv_v2, h, L, T_, CUBLAS_DIAG_UNIT, n, a, ld, x, inc);
  SAME(p, cublasDgemm_v2, h, T_, N, m, n, k, alpha, a, ld, b, ld, beta, c, ld);
  SAME(p, cublasDgemmStridedBatched, h, N, N, m, n, k, alpha, a, ld, 400, b, ld, 400, beta, c, ld, 400, batch);
  SAME(p, cublasDgemmBatched, h, T_, T_, m, n, k, alpha, p.arr[0], ld, p.arr[1], ld, beta, p.arr[2], ld, batch);
  SAME(p, cublasDtrsm_v2, h, SL, L, T_, DN, m, n, alpha, a, ld, b, ld);
  SAME(p, cublasDtrmm_v2, h, SL, U, T_, DN, m, n, alpha, a, ld, b, ld, c, ld);
  SAME(p, cublasDsymm_v2, h, SR, U, m, n, alpha, a, ld, b, ld, beta, c, ld);
  SAME(p, cublasDsyr2k_v2, h, L, T_, n, k, alpha, a, ld, b, ld, beta, c, ld);
  SAME(p, cublasGemmEx, h, N, N, m, n, k, alpha, a, CUDA_R_64F, ld, b, CUDA_R_64F, ld, beta, c, CUDA_R_64F, ld,
       CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT);
  return p.destroy();
}

int main() {
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  for (bool device : {false, true}) {
    CHECK_BLAS(cublasSetPointerMode(h, device ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST));
    if (single(h, device) || dbl(h, device)) return 1;
  }
  // A null handle is still NOT_INITIALIZED with a size out of range.
  float one = 1;
  EXPECT_STATUS(cublasSscal_v2_64(nullptr, kBig, &one, nullptr, 1), CUBLAS_STATUS_NOT_INITIALIZED);
  CHECK_BLAS(cublasDestroy(h));
  std::printf("%ld checks, %ld failures\n", checks, bad);
  if (bad) { std::printf("FAIL cublas_ilp64\n"); return 1; }
  std::printf("PASS cublas_ilp64\n");
  return 0;
}
