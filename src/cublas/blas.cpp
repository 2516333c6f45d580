// Level 1 (S, D), Level 2 gemv (S, D), Level 3 gemm, gemmStridedBatched and
// gemmBatched (S, D, H), Hgemm, gemmEx, gemmStridedBatchedEx and
// gemmBatchedEx (real, and complex: blas_complex.h), and the geam extension
// (S, D): argument checks, pointer modes, then
// the kernels of kernels.cu on the handle's stream; gemm calls cuBLAS would
// run on tensor cores (tensor_core.h) go to those of kernels_tc.cu.
#include <cstdint>
#include <cstdio>
#include <type_traits>

#include "blas_args.h"
#include "handle.h"
#include "blas_complex.h"
#include "kernels.h"
#include "kernels_complex.h"
#include "tensor_core.h"

namespace softgpu::cublas {
namespace {

template <typename T>
cublasStatus_t axpy(cublasHandle_t h, int n, const T* alpha, const T* x, int64_t incx, T* y, int64_t incy) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!alpha) return CUBLAS_STATUS_INVALID_VALUE;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  auto a = scalar(h, alpha);
  return from_cuda(launch_axpy<T>(h->stream, n, a.value, a.dev, base(x, n, incx), incx, base(y, n, incy), incy));
}

template <typename T>
cublasStatus_t scal(cublasHandle_t h, int n, const T* alpha, T* x, int64_t incx) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!alpha) return CUBLAS_STATUS_INVALID_VALUE;
  if (n <= 0 || incx <= 0) return CUBLAS_STATUS_SUCCESS;  // reference BLAS: nothing to do
  auto a = scalar(h, alpha);
  return from_cuda(launch_scal<T>(h->stream, n, a.value, a.dev, x, incx));
}

template <typename T>
cublasStatus_t copy(cublasHandle_t h, int n, const T* x, int64_t incx, T* y, int64_t incy) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  return from_cuda(launch_copy<T>(h->stream, n, base(x, n, incx), incx, base(y, n, incy), incy));
}

template <typename T>
cublasStatus_t dot(cublasHandle_t h, int n, const T* x, int64_t incx, const T* y, int64_t incy, T* result) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!result) return CUBLAS_STATUS_INVALID_VALUE;
  return reduce(h, result, n <= 0, [&](T* out) {
    return launch_dot<T>(h->stream, n, base(x, n, incx), incx, base(y, n, incy), incy, out);
  });
}

template <typename T>
cublasStatus_t nrm2(cublasHandle_t h, int n, const T* x, int64_t incx, T* result) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!result) return CUBLAS_STATUS_INVALID_VALUE;
  return reduce(h, result, n <= 0 || incx <= 0, [&](T* out) { return launch_nrm2<T>(h->stream, n, x, incx, out); });
}

template <typename T>
cublasStatus_t asum(cublasHandle_t h, int n, const T* x, int64_t incx, T* result) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!result) return CUBLAS_STATUS_INVALID_VALUE;
  return reduce(h, result, n <= 0 || incx <= 0, [&](T* out) { return launch_asum<T>(h->stream, n, x, incx, out); });
}

// R: int, or int64_t for the _64 entry point.
template <typename T, typename R>
cublasStatus_t amax(cublasHandle_t h, int n, const T* x, int64_t incx, R* result) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!result) return CUBLAS_STATUS_INVALID_VALUE;
  return reduce_index(h, result, n <= 0 || incx <= 0,
                      [&](int* out) { return launch_amax<T>(h->stream, n, x, incx, out); });
}

// The checks gemm and gemmStridedBatched share: INVALID_VALUE for a bad
// operation, negative size or too small leading dimension.
cublasStatus_t gemm_args(cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, int64_t lda,
                         int64_t ldb, int64_t ldc, bool& ta, bool& tb) {
  bool ok_a, ok_b;
  ta = transposed(transa, ok_a);
  tb = transposed(transb, ok_b);
  if (!ok_a || !ok_b || m < 0 || n < 0 || k < 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (!at_least(lda, ta ? k : m) || !at_least(ldb, tb ? n : k) || !at_least(ldc, m))
    return CUBLAS_STATUS_INVALID_VALUE;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t gemm_ex(const char* name, cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, int m,
                       int n, int k, const void* alpha, const void* a, cudaDataType at, int64_t lda, long long sa,
                       const void* b, cudaDataType bt, int64_t ldb, long long sb, const void* beta, void* c,
                       cudaDataType ct, int64_t ldc, long long sc, int batch, cublasComputeType_t comp,
                       cublasGemmAlgo_t algo, const void* const* const* arrays = nullptr);

// Sgemm under a tensor-op math mode is gemmEx with CUBLAS_COMPUTE_32F
// (tensor_core.h decides); otherwise the SIMT kernels.
template <typename T>
bool sgemm_on_tensor_cores(cublasHandle_t h) {
  TcGemm unused;
  return std::is_same_v<T, float> && h &&
         tensor_core_route(h->math_mode, CUBLAS_COMPUTE_32F, GemmCombo::f_f, unused);
}

template <typename T>
cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                    const T* alpha, const T* a, int64_t lda, const T* b, int64_t ldb, const T* beta, T* c,
                    int64_t ldc) {
  if (sgemm_on_tensor_cores<T>(h))
    return gemm_ex("cublasSgemm_v2", h, transa, transb, m, n, k, alpha, a, CUDA_R_32F, lda, 0, b, CUDA_R_32F, ldb, 0,
                   beta, c, CUDA_R_32F, ldc, 0, 1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool ta, tb;
  if (auto st = gemm_args(transa, transb, m, n, k, lda, ldb, ldc, ta, tb); st != CUBLAS_STATUS_SUCCESS) return st;
  if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  auto al = scalar(h, alpha), be = scalar(h, beta);
  return from_cuda(launch_gemm<T>(h->stream, ta, tb, m, n, k, al.value, al.dev, a, lda, b, ldb, be.value, be.dev, c,
                                  ldc));
}

template <typename T>
cublasStatus_t gemm_strided_batched(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, int m,
                                    int n, int k, const T* alpha, const T* a, int64_t lda, long long stride_a,
                                    const T* b, int64_t ldb, long long stride_b, const T* beta, T* c, int64_t ldc,
                                    long long stride_c, int batch) {
  if (sgemm_on_tensor_cores<T>(h))
    return gemm_ex("cublasSgemmStridedBatched", h, transa, transb, m, n, k, alpha, a, CUDA_R_32F, lda, stride_a, b,
                   CUDA_R_32F, ldb, stride_b, beta, c, CUDA_R_32F, ldc, stride_c, batch, CUBLAS_COMPUTE_32F,
                   CUBLAS_GEMM_DEFAULT);
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool ta, tb;
  if (auto st = gemm_args(transa, transb, m, n, k, lda, ldb, ldc, ta, tb); st != CUBLAS_STATUS_SUCCESS) return st;
  if (batch < 0 || !alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0 || batch == 0) return CUBLAS_STATUS_SUCCESS;
  auto al = scalar(h, alpha), be = scalar(h, beta);
  return from_cuda(launch_gemm_strided_batched<T>(h->stream, ta, tb, m, n, k, al.value, al.dev, a, lda, stride_a, b,
                                                  ldb, stride_b, be.value, be.dev, c, ldc, stride_c, batch));
}

// The algorithms cuBLAS declares: DEFAULT, ALGO0..23, DEFAULT_TENSOR_OP,
// ALGO0..15_TENSOR_OP. The algo does not choose the kernel here: the
// types, compute type and math mode do (tensor_core.h).
bool known_algo(cublasGemmAlgo_t algo) {
  const int a = int(algo);
  return (a >= CUBLAS_GEMM_DEFAULT && a <= CUBLAS_GEMM_ALGO23) ||
         (a >= CUBLAS_GEMM_DEFAULT_TENSOR_OP && a <= CUBLAS_GEMM_ALGO15_TENSOR_OP);
}

// gemmEx / gemmStridedBatchedEx / gemmBatchedEx / Hgemm (and the S/D/H
// gemmBatched): the statuses of gemm, then
// NOT_SUPPORTED (with one line on stderr naming the types) for a type
// combination or algorithm softgpu does not implement. `arrays` non-null:
// the batched form, arrays[0..2] the device arrays of A, B and C pointers
// (INVALID_VALUE when one is null and there is work to do).
cublasStatus_t gemm_ex(const char* name, cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, int m,
                       int n, int k, const void* alpha, const void* a, cudaDataType at, int64_t lda, long long sa,
                       const void* b, cudaDataType bt, int64_t ldb, long long sb, const void* beta, void* c,
                       cudaDataType ct, int64_t ldc, long long sc, int batch, cublasComputeType_t comp,
                       cublasGemmAlgo_t algo, const void* const* const* arrays) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool ta, tb;
  if (auto st = gemm_args(transa, transb, m, n, k, lda, ldb, ldc, ta, tb); st != CUBLAS_STATUS_SUCCESS) return st;
  if (batch < 0 || !alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  bool dbl;
  const bool cx = complex_combo(at, bt, ct, comp, dbl);
  GemmCombo combo{};
  if (!cx && !gemm_combo(at, bt, ct, comp, combo)) {
    std::fprintf(stderr, "softgpu cublas: %s: Atype %s, Btype %s, Ctype %s with %s is not supported\n", name,
                 type_name(at), type_name(bt), type_name(ct), compute_name(comp));
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  if (!known_algo(algo)) {
    std::fprintf(stderr, "softgpu cublas: %s: algo %d is not supported\n", name, int(algo));
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  if (m == 0 || n == 0 || batch == 0) return CUBLAS_STATUS_SUCCESS;
  const bool dev = h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE;
  if (arrays && (!arrays[0] || !arrays[1] || !arrays[2])) return CUBLAS_STATUS_INVALID_VALUE;
  if (cx)
    return from_cuda(launch_gemm_complex(h->stream, dbl, complex_op(transa), complex_op(transb), m, n, k,
                                         dev ? nullptr : alpha, dev ? alpha : nullptr, a, lda, sa, b, ldb, sb,
                                         dev ? nullptr : beta, dev ? beta : nullptr, c, ldc, sc, batch, arrays));
  if (arrays) {
    if (TcGemm tc; tensor_core_route(h->math_mode, comp, combo, tc))
      return from_cuda(launch_gemm_tc(h->stream, tc, ta, tb, m, n, k, dev ? nullptr : alpha, dev ? alpha : nullptr,
                                      nullptr, lda, 0, nullptr, ldb, 0, dev ? nullptr : beta, dev ? beta : nullptr,
                                      nullptr, ldc, 0, batch, arrays));
    return from_cuda(launch_gemm_batched_ex(h->stream, combo, ta, tb, m, n, k, dev ? nullptr : alpha,
                                            dev ? alpha : nullptr, arrays[0], lda, arrays[1], ldb,
                                            dev ? nullptr : beta, dev ? beta : nullptr,
                                            const_cast<void* const*>(arrays[2]), ldc, batch));
  }
  if (TcGemm tc; tensor_core_route(h->math_mode, comp, combo, tc))
    return from_cuda(launch_gemm_tc(h->stream, tc, ta, tb, m, n, k, dev ? nullptr : alpha, dev ? alpha : nullptr, a,
                                    lda, sa, b, ldb, sb, dev ? nullptr : beta, dev ? beta : nullptr, c, ldc, sc,
                                    batch));
  return from_cuda(launch_gemm_ex(h->stream, combo, ta, tb, m, n, k, dev ? nullptr : alpha, dev ? alpha : nullptr, a,
                                  lda, sa, b, ldb, sb, dev ? nullptr : beta, dev ? beta : nullptr, c, ldc, sc,
                                  batch));
}

// gemv: INVALID_VALUE for a bad operation, m or n < 0, lda < max(1, m), a
// zero increment or a null scalar; m == 0 or n == 0 leaves y as it is
// (reference BLAS quick return).
template <typename T>
cublasStatus_t gemv(cublasHandle_t h, cublasOperation_t trans, int m, int n, const T* alpha, const T* a, int64_t lda,
                    const T* x, int64_t incx, const T* beta, T* y, int64_t incy) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool ok;
  const bool t = transposed(trans, ok);
  if (!ok || m < 0 || n < 0 || !at_least(lda, m) || incx == 0 || incy == 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  const int lx = t ? m : n, ly = t ? n : m;
  auto al = scalar(h, alpha), be = scalar(h, beta);
  return from_cuda(launch_gemv<T>(h->stream, t, m, n, al.value, al.dev, a, lda, base(x, lx, incx), incx, be.value,
                                  be.dev, base(y, ly, incy), incy));
}

// geam: INVALID_VALUE for a bad operation, m or n < 0, a leading dimension
// below max(1, rows of the stored matrix), a null scalar, or C aliasing A
// (B) other than in place (op N and the same leading dimension).
template <typename T>
cublasStatus_t geam(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, int m, int n, const T* alpha,
                    const T* a, int64_t lda, const T* beta, const T* b, int64_t ldb, T* c, int64_t ldc) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  bool ok_a, ok_b;
  const bool ta = transposed(transa, ok_a), tb = transposed(transb, ok_b);
  if (!ok_a || !ok_b || m < 0 || n < 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (!at_least(lda, ta ? n : m) || !at_least(ldb, tb ? n : m) || !at_least(ldc, m))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  if (c == a && (ta || lda != ldc)) return CUBLAS_STATUS_INVALID_VALUE;
  if (c == b && (tb || ldb != ldc)) return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  auto al = scalar(h, alpha), be = scalar(h, beta);
  return from_cuda(launch_geam<T>(h->stream, ta, tb, m, n, al.value, al.dev, a, lda, be.value, be.dev, b, ldb, c,
                                  ldc));
}

// S/D/HgemmBatched: gemmBatchedEx with the type and compute type of the name.
template <typename T>
cublasStatus_t gemm_batched(const char* name, cudaDataType type, cublasComputeType_t comp, cublasHandle_t h,
                            cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, const T* alpha,
                            const T* const a[], int64_t lda, const T* const b[], int64_t ldb, const T* beta,
                            T* const c[], int64_t ldc, int batch) {
  const void* const* arrays[3] = {reinterpret_cast<const void* const*>(a), reinterpret_cast<const void* const*>(b),
                                  reinterpret_cast<const void* const*>(c)};
  return gemm_ex(name, h, transa, transb, m, n, k, alpha, nullptr, type, lda, 0, nullptr, type, ldb, 0, beta,
                     nullptr, type, ldc, 0, batch, comp, CUBLAS_GEMM_DEFAULT, arrays);
}

}  // namespace

cublasStatus_t gemm_ex_call(const char* name, cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb,
                            int m, int n, int k, const void* alpha, const void* a, cudaDataType at, int64_t lda,
                            long long sa, const void* b, cudaDataType bt, int64_t ldb, long long sb,
                            const void* beta, void* c, cudaDataType ct, int64_t ldc, long long sc, int batch,
                            cublasComputeType_t comp, const void* const* const* arrays) {
  return gemm_ex(name, h, transa, transb, m, n, k, alpha, a, at, lda, sa, b, bt, ldb, sb, beta, c, ct, ldc, sc, batch,
                 comp, CUBLAS_GEMM_DEFAULT, arrays);
}

}  // namespace softgpu::cublas

namespace sc = softgpu::cublas;

// Each entry point twice, from one definition: I is the index type (int, or
// int64_t for the _64 names, suffix X); SG_FIT returns NOT_SUPPORTED for a
// size beyond the kernels' (blas_args.h), sc::dim narrows it.
extern "C" {

#define SG_LEVEL1(P, p, T, I, X)                                                                                 \
  cublasStatus_t cublas##P##axpy_v2##X(cublasHandle_t h, I n, const T* alpha, const T* x, I incx, T* y, I incy) { \
    SG_FIT(h, n);                                                                                                 \
    return sc::axpy(h, sc::dim(n), alpha, x, incx, y, incy);                                                      \
  }                                                                                                               \
  cublasStatus_t cublas##P##scal_v2##X(cublasHandle_t h, I n, const T* alpha, T* x, I incx) {                    \
    SG_FIT(h, n);                                                                                                 \
    return sc::scal(h, sc::dim(n), alpha, x, incx);                                                               \
  }                                                                                                               \
  cublasStatus_t cublas##P##copy_v2##X(cublasHandle_t h, I n, const T* x, I incx, T* y, I incy) {                \
    SG_FIT(h, n);                                                                                                 \
    return sc::copy(h, sc::dim(n), x, incx, y, incy);                                                             \
  }                                                                                                               \
  cublasStatus_t cublas##P##dot_v2##X(cublasHandle_t h, I n, const T* x, I incx, const T* y, I incy, T* result) { \
    SG_FIT(h, n);                                                                                                 \
    return sc::dot(h, sc::dim(n), x, incx, y, incy, result);                                                      \
  }                                                                                                               \
  cublasStatus_t cublas##P##nrm2_v2##X(cublasHandle_t h, I n, const T* x, I incx, T* result) {                   \
    SG_FIT(h, n);                                                                                                 \
    return sc::nrm2(h, sc::dim(n), x, incx, result);                                                              \
  }                                                                                                               \
  cublasStatus_t cublas##P##asum_v2##X(cublasHandle_t h, I n, const T* x, I incx, T* result) {                   \
    SG_FIT(h, n);                                                                                                 \
    return sc::asum(h, sc::dim(n), x, incx, result);                                                              \
  }                                                                                                               \
  cublasStatus_t cublasI##p##amax_v2##X(cublasHandle_t h, I n, const T* x, I incx, I* result) {                  \
    SG_FIT(h, n);                                                                                                 \
    return sc::amax<T>(h, sc::dim(n), x, incx, result);                                                           \
  }                                                                                                               \
  cublasStatus_t cublas##P##gemm_v2##X(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, I m, \
                                       I n, I k, const T* alpha, const T* a, I lda, const T* b, I ldb,            \
                                       const T* beta, T* c, I ldc) {                                              \
    SG_FIT(h, m, n, k);                                                                                           \
    return sc::gemm(h, transa, transb, sc::dim(m), sc::dim(n), sc::dim(k), alpha, a, lda, b, ldb, beta, c, ldc);  \
  }                                                                                                               \
  cublasStatus_t cublas##P##gemmStridedBatched##X(cublasHandle_t h, cublasOperation_t transa,                     \
                                                  cublasOperation_t transb, I m, I n, I k, const T* alpha,        \
                                                  const T* a, I lda, long long stride_a, const T* b, I ldb,       \
                                                  long long stride_b, const T* beta, T* c, I ldc,                 \
                                                  long long stride_c, I batch) {                                  \
    SG_FIT(h, m, n, k, batch);                                                                                    \
    return sc::gemm_strided_batched(h, transa, transb, sc::dim(m), sc::dim(n), sc::dim(k), alpha, a, lda,         \
                                    stride_a, b, ldb, stride_b, beta, c, ldc, stride_c, sc::dim(batch));          \
  }                                                                                                               \
  cublasStatus_t cublas##P##gemv_v2##X(cublasHandle_t h, cublasOperation_t trans, I m, I n, const T* alpha,       \
                                       const T* a, I lda, const T* x, I incx, const T* beta, T* y, I incy) {      \
    SG_FIT(h, m, n);                                                                                              \
    return sc::gemv(h, trans, sc::dim(m), sc::dim(n), alpha, a, lda, x, incx, beta, y, incy);                     \
  }                                                                                                               \
  cublasStatus_t cublas##P##geam##X(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, I m,    \
                                    I n, const T* alpha, const T* a, I lda, const T* beta, const T* b, I ldb,     \
                                    T* c, I ldc) {                                                                \
    SG_FIT(h, m, n);                                                                                              \
    return sc::geam(h, transa, transb, sc::dim(m), sc::dim(n), alpha, a, lda, beta, b, ldb, c, ldc);              \
  }

SG_LEVEL1(S, s, float, int, )
SG_LEVEL1(D, d, double, int, )
SG_LEVEL1(S, s, float, int64_t, _64)
SG_LEVEL1(D, d, double, int64_t, _64)

// The gemm family with cudaDataType or f16 operands, each for both index
// types (I, suffix X).
#define SG_GEMM_EX(I, X)                                                                                               \
  /* Hgemm: f16 in and out, f16 scalars; accumulated in f32 (cuBLAS allows */                                          \
  /* half or higher), rounded to f16 once per element. */                                                              \
  cublasStatus_t cublasHgemm##X(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k,   \
                                const __half* alpha, const __half* a, I lda, const __half* b, I ldb,                   \
                                const __half* beta, __half* c, I ldc) {                                                \
    SG_FIT(h, m, n, k);                                                                                                \
    return sc::gemm_ex(__func__, h, transa, transb, sc::dim(m), sc::dim(n), sc::dim(k), alpha, a, CUDA_R_16F, lda, 0,  \
                       b, CUDA_R_16F, ldb, 0, beta, c, CUDA_R_16F, ldc, 0, 1, CUBLAS_COMPUTE_16F,                      \
                       CUBLAS_GEMM_DEFAULT);                                                                           \
  }                                                                                                                    \
  /* HgemmStridedBatched: Hgemm per batch (batch i at A + i*strideA etc.). */                                          \
  cublasStatus_t cublasHgemmStridedBatched##X(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb,    \
                                              I m, I n, I k, const __half* alpha, const __half* a, I lda,              \
                                              long long stride_a, const __half* b, I ldb, long long stride_b,          \
                                              const __half* beta, __half* c, I ldc, long long stride_c, I batch) {     \
    SG_FIT(h, m, n, k, batch);                                                                                         \
    return sc::gemm_ex(__func__, h, transa, transb, sc::dim(m), sc::dim(n), sc::dim(k), alpha, a, CUDA_R_16F, lda,     \
                       stride_a, b, CUDA_R_16F, ldb, stride_b, beta, c, CUDA_R_16F, ldc, stride_c, sc::dim(batch),     \
                       CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT);                                                       \
  }                                                                                                                    \
  cublasStatus_t cublasGemmEx##X(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k,  \
                                 const void* alpha, const void* a, cudaDataType at, I lda, const void* b,              \
                                 cudaDataType bt, I ldb, const void* beta, void* c, cudaDataType ct, I ldc,            \
                                 cublasComputeType_t comp, cublasGemmAlgo_t algo) {                                    \
    SG_FIT(h, m, n, k);                                                                                                \
    return sc::gemm_ex(__func__, h, transa, transb, sc::dim(m), sc::dim(n), sc::dim(k), alpha, a, at, lda, 0, b, bt,   \
                       ldb, 0, beta, c, ct, ldc, 0, 1, comp, algo);                                                    \
  }                                                                                                                    \
  cublasStatus_t cublasGemmStridedBatchedEx##X(                                                                        \
      cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, const void* alpha,          \
      const void* a, cudaDataType at, I lda, long long stride_a, const void* b, cudaDataType bt, I ldb,                \
      long long stride_b, const void* beta, void* c, cudaDataType ct, I ldc, long long stride_c, I batch,              \
      cublasComputeType_t comp, cublasGemmAlgo_t algo) {                                                               \
    SG_FIT(h, m, n, k, batch);                                                                                         \
    return sc::gemm_ex(__func__, h, transa, transb, sc::dim(m), sc::dim(n), sc::dim(k), alpha, a, at, lda, stride_a,   \
                       b, bt, ldb, stride_b, beta, c, ct, ldc, stride_c, sc::dim(batch), comp, algo);                  \
  }                                                                                                                    \
  /* SgemmEx: gemmEx with f32 scalars and f32 computation (CUBLAS_COMPUTE_32F, */                                      \
  /* so the math mode decides about tensor cores as for Sgemm). */                                                     \
  cublasStatus_t cublasSgemmEx##X(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, \
                                  const float* alpha, const void* a, cudaDataType at, I lda, const void* b,            \
                                  cudaDataType bt, I ldb, const float* beta, void* c, cudaDataType ct, I ldc) {        \
    SG_FIT(h, m, n, k);                                                                                                \
    return sc::gemm_ex(__func__, h, transa, transb, sc::dim(m), sc::dim(n), sc::dim(k), alpha, a, at, lda, 0, b, bt,   \
                       ldb, 0, beta, c, ct, ldc, 0, 1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);                       \
  }                                                                                                                    \
  cublasStatus_t cublasGemmBatchedEx##X(                                                                               \
      cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, const void* alpha,          \
      const void* const a[], cudaDataType at, I lda, const void* const b[], cudaDataType bt, I ldb, const void* beta,  \
      void* const c[], cudaDataType ct, I ldc, I batch, cublasComputeType_t comp, cublasGemmAlgo_t algo) {             \
    SG_FIT(h, m, n, k, batch);                                                                                         \
    const void* const* arrays[3] = {a, b, const_cast<const void* const*>(c)};                                          \
    return sc::gemm_ex(__func__, h, transa, transb, sc::dim(m), sc::dim(n), sc::dim(k), alpha, nullptr, at, lda, 0,    \
                       nullptr, bt, ldb, 0, beta, nullptr, ct, ldc, 0, sc::dim(batch), comp, algo, arrays);            \
  }                                                                                                                    \
  SG_GEMM_BATCHED(S, float, CUDA_R_32F, CUBLAS_COMPUTE_32F, I, X)                                                      \
  SG_GEMM_BATCHED(D, double, CUDA_R_64F, CUBLAS_COMPUTE_64F, I, X)                                                     \
  /* As Hgemm: f16 scalars, accumulated in f32. */                                                                     \
  SG_GEMM_BATCHED(H, __half, CUDA_R_16F, CUBLAS_COMPUTE_16F, I, X)

// S/D/HgemmBatched: gemmBatchedEx with the type and compute type of the name.
#define SG_GEMM_BATCHED(P, T, type, comp, I, X)                                                                   \
  cublasStatus_t cublas##P##gemmBatched##X(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb,  \
                                           I m, I n, I k, const T* alpha, const T* const a[], I lda,              \
                                           const T* const b[], I ldb, const T* beta, T* const c[], I ldc,         \
                                           I batch) {                                                             \
    SG_FIT(h, m, n, k, batch);                                                                                    \
    return sc::gemm_batched(__func__, type, comp, h, transa, transb, sc::dim(m), sc::dim(n), sc::dim(k), alpha,   \
                            a, lda, b, ldb, beta, c, ldc, sc::dim(batch));                                        \
  }

SG_GEMM_EX(int, )
SG_GEMM_EX(int64_t, _64)

}  // extern "C"
