// cublasGemmBatchedEx and cublasSgemmBatched / cublasDgemmBatched /
// cublasHgemmBatched (arrays of device pointers, in device memory, to A, B
// and C) against a CPU loop in double: the type combinations 16F (compute
// 16F and 32F), 16BF, 32F (also FAST_TF32), 64F; shapes m, n, k from
// {1, 17, 129} (at most one 129) with the transposes rotated over them, all
// 9 transpose pairs at 17^3; lda/ldb/ldc larger than the rows (padding must
// stay untouched); batches of 3 whose matrices are separate allocations
// listed out of order (batch q's A is not next to batch q-1's); host and
// device pointer modes; beta = 0 over C full of NaN. Then batchCount 0 (no
// work), the invalid-argument statuses and an unsupported combination.
//
// Tolerance as cublas_gemm_ex.cu: |got - ref| <= (max(k, 4) u_acc + u_out)
// * sum |terms| (+ 2^-25 for f16 C), u_acc = 2^-24 (f32 accumulation, f16 and
// bf16 inputs included), 2^-11 for COMPUTE_16F (f16 accumulation: these
// run on the tensor cores, as cuBLAS's Hgemm does) or 2^-53 (f64), u_out the
// unit roundoff of C's type.
#include <cublas_v2.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "common.cuh"
#include "typed.cuh"

enum class Api { ex, s, d, h };
struct Combo {
  const char* name;
  cudaDataType ab, c, scale;
  cublasComputeType_t comp;
  Round round;
  Api api;
};
static const Combo kCombos[] = {
    {"Ex 16F/16F/COMPUTE_16F", CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F, kNone, Api::ex},
    {"Ex 16F/16F/COMPUTE_32F", CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, kNone, Api::ex},
    {"Ex 16F/32F/COMPUTE_32F", CUDA_R_16F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, kNone, Api::ex},
    {"Ex 16BF/16BF/COMPUTE_32F", CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, kNone, Api::ex},
    {"Ex 32F/32F/COMPUTE_32F", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, kNone, Api::ex},
    {"Ex 32F/32F/COMPUTE_32F_FAST_TF32", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, kTf32,
     Api::ex},
    {"Ex 64F/64F/COMPUTE_64F", CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, kNone, Api::ex},
    {"SgemmBatched", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, kNone, Api::s},
    {"DgemmBatched", CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, kNone, Api::d},
    {"HgemmBatched", CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F, kNone, Api::h},
};
constexpr int kBatch = 3;
static long checks = 0;

// The three pointer arrays of a batch, copied to device memory.
static int device_array(const std::vector<void*>& ptrs, void*** out) {
  CHECK(cudaMalloc(out, ptrs.size() * sizeof(void*)));
  CHECK(cudaMemcpy(*out, ptrs.data(), ptrs.size() * sizeof(void*), cudaMemcpyHostToDevice));
  return 0;
}

static cublasStatus_t call(cublasHandle_t h, const Combo& cb, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const void* al, void** da, int lda, void** db, int ldb, const void* be,
                           void** dc, int ldc, int batch) {
  switch (cb.api) {
    case Api::s:
      return cublasSgemmBatched(h, ta, tb, m, n, k, (const float*)al, (const float* const*)da, lda,
                                (const float* const*)db, ldb, (const float*)be, (float* const*)dc, ldc, batch);
    case Api::d:
      return cublasDgemmBatched(h, ta, tb, m, n, k, (const double*)al, (const double* const*)da, lda,
                                (const double* const*)db, ldb, (const double*)be, (double* const*)dc, ldc, batch);
    case Api::h:
      return cublasHgemmBatched(h, ta, tb, m, n, k, (const __half*)al, (const __half* const*)da, lda,
                                (const __half* const*)db, ldb, (const __half*)be, (__half* const*)dc, ldc, batch);
    default:
      return cublasGemmBatchedEx(h, ta, tb, m, n, k, al, (const void* const*)da, cb.ab, lda, (const void* const*)db,
                                 cb.ab, ldb, be, dc, cb.c, ldc, batch, cb.comp, CUBLAS_GEMM_DEFAULT);
  }
}

static int batched_case(cublasHandle_t h, const Combo& cb, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                        int k, bool device, bool beta_zero) {
  const bool tra = ta != CUBLAS_OP_N, trb = tb != CUBLAS_OP_N;
  const int ar = tra ? k : m, ac = tra ? m : k, br = trb ? n : k, bc = trb ? k : n;
  const int lda = ar + 2, ldb = br + 1, ldc = m + 3;
  const long na = (long)lda * ac, nb = (long)ldb * bc, nc = (long)ldc * n;
  const size_t ea = tsize(cb.ab), ec = tsize(cb.c);
  std::vector<std::vector<unsigned char>> a(kBatch), b(kBatch), c(kBatch);
  const double sentinel = 1152;  // exact in every type
  for (int q = 0; q < kBatch; ++q) {
    a[q].resize(na * ea);
    b[q].resize(nb * ea);
    c[q].resize(nc * ec);
    for (long i = 0; i < na; ++i) put(cb.ab, a[q].data(), i, urand());
    for (long i = 0; i < nb; ++i) put(cb.ab, b[q].data(), i, urand());
    for (long i = 0; i < nc; ++i) put(cb.c, c[q].data(), i, sentinel);
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < m; ++i)
        put(cb.c, c[q].data(), i + j * ldc, beta_zero ? std::numeric_limits<double>::quiet_NaN() : urand());
  }
  // Allocations in reverse batch order, so batch q's matrices sit after q+1's.
  std::vector<void*> pa(kBatch), pb(kBatch), pc(kBatch);
  for (int q = kBatch - 1; q >= 0; --q) {
    CHECK(cudaMalloc(&pa[q], a[q].size()));
    CHECK(cudaMalloc(&pb[q], b[q].size()));
    CHECK(cudaMalloc(&pc[q], c[q].size()));
    CHECK(cudaMemcpy(pa[q], a[q].data(), a[q].size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(pb[q], b[q].data(), b[q].size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(pc[q], c[q].data(), c[q].size(), cudaMemcpyHostToDevice));
  }
  void **da, **db, **dc;
  if (device_array(pa, &da) || device_array(pb, &db) || device_array(pc, &dc)) return 1;
  const double alpha_v = 0.75, beta_v = beta_zero ? 0 : 1.5;
  unsigned char alpha_h[8], beta_h[8];
  put(cb.scale, alpha_h, 0, alpha_v);
  put(cb.scale, beta_h, 0, beta_v);
  void *dal, *dbe;
  CHECK(cudaMalloc(&dal, 8));
  CHECK(cudaMalloc(&dbe, 8));
  CHECK(cudaMemcpy(dal, alpha_h, 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dbe, beta_h, 8, cudaMemcpyHostToDevice));
  CHECK_BLAS(cublasSetPointerMode(h, device ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST));
  CHECK_BLAS(call(h, cb, ta, tb, m, n, k, device ? dal : (const void*)alpha_h, da, lda, db, ldb,
                  device ? dbe : (const void*)beta_h, dc, ldc, kBatch));
  const double u_acc = cb.ab == CUDA_R_64F ? 0x1p-53 : cb.comp == CUBLAS_COMPUTE_16F ? 0x1p-11 : 0x1p-24;
  const double u_out = unit(cb.c);
  for (int q = 0; q < kBatch; ++q) {
    std::vector<unsigned char> got(c[q].size());
    CHECK(cudaMemcpy(got.data(), pc[q], got.size(), cudaMemcpyDeviceToHost));
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < ldc; ++i) {
        const long at = i + j * ldc;
        const double g = get(cb.c, got.data(), at);
        if (i >= m) {  // padding between columns
          if (g != sentinel) {
            std::fprintf(stderr, "FAIL %s batch %d: padding C(%ld,%ld) = %g changed\n", cb.name, q, i, j, g);
            return 1;
          }
          continue;
        }
        double ref = 0, mag = 0;
        for (long p = 0; p < k; ++p) {
          const double av = round_in(cb.round, get(cb.ab, a[q].data(), tra ? p + i * lda : i + p * lda));
          const double bv = round_in(cb.round, get(cb.ab, b[q].data(), trb ? j + p * ldb : p + j * ldb));
          ref += alpha_v * av * bv;
          mag += std::fabs(alpha_v * av * bv);
        }
        if (!beta_zero) {
          const double cv = get(cb.c, c[q].data(), at);
          ref += beta_v * cv;
          mag += std::fabs(beta_v * cv);
        }
        const double tol = (std::max(k, 4) * u_acc + u_out) * mag + (cb.c == CUDA_R_16F ? 0x1p-25 : 0);
        ++checks;
        if (!(std::fabs(g - ref) <= tol)) {
          std::fprintf(stderr, "FAIL %s %s%s m=%d n=%d k=%d %s batch %d: C(%ld,%ld) = %.9g, expected %.9g (tol %.3g)\n",
                       cb.name, op_name(ta), op_name(tb), m, n, k, device ? "device" : "host", q, i, j, g, ref, tol);
          return 1;
        }
      }
  }
  for (int q = 0; q < kBatch; ++q) {
    CHECK(cudaFree(pa[q]));
    CHECK(cudaFree(pb[q]));
    CHECK(cudaFree(pc[q]));
  }
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  CHECK(cudaFree(dal));
  CHECK(cudaFree(dbe));
  return 0;
}

static int statuses(cublasHandle_t h) {
  float one = 1;
  void **dummy;
  CHECK(cudaMalloc(&dummy, kBatch * sizeof(void*)));
  CHECK(cudaMemset(dummy, 0, kBatch * sizeof(void*)));
  CHECK_BLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  const Combo& f = kCombos[4];
  // batchCount 0: nothing to do (the null pointers inside are never read).
  CHECK_BLAS(call(h, f, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, dummy, 4, dummy, 4, &one, dummy, 4, 0));
  EXPECT_STATUS(call(h, f, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, dummy, 4, dummy, 4, &one, dummy, 4, -1),
                CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(call(h, f, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, dummy, 3, dummy, 4, &one, dummy, 4, 1),
                CUBLAS_STATUS_INVALID_VALUE);  // lda < m
  EXPECT_STATUS(call(h, f, CUBLAS_OP_N, CUBLAS_OP_N, -1, 4, 4, &one, dummy, 4, dummy, 4, &one, dummy, 4, 1),
                CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(call(h, f, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, nullptr, 4, dummy, 4, &one, dummy, 4, 1),
                CUBLAS_STATUS_INVALID_VALUE);  // no A array
  EXPECT_STATUS(cublasGemmBatchedEx(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, (const void* const*)dummy,
                                    CUDA_R_32F, 4, (const void* const*)dummy, CUDA_R_32F, 4, &one, dummy, CUDA_R_32F,
                                    4, 1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_STATUS(cublasGemmBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, (const void* const*)dummy,
                                    CUDA_R_16F, 4, (const void* const*)dummy, CUDA_R_16F, 4, &one, dummy, CUDA_R_64F,
                                    4, 1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                CUBLAS_STATUS_NOT_SUPPORTED);
  CHECK(cudaFree(dummy));
  return 0;
}

int main() {
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  const int sizes[] = {1, 17, 129};
  const cublasOperation_t ops[] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};
  int variant = 0;
  for (const Combo& cb : kCombos) {
    for (int mi = 0; mi < 3; ++mi)
      for (int ni = 0; ni < 3; ++ni)
        for (int ki = 0; ki < 3; ++ki) {
          if ((mi == 2) + (ni == 2) + (ki == 2) > 1) continue;
          ++variant;
          if (batched_case(h, cb, ops[variant % 3], ops[(variant / 3) % 3], sizes[mi], sizes[ni], sizes[ki],
                           variant % 2 == 1, variant % 5 == 0))
            return 1;
        }
    for (int t = 0; t < 9; ++t)
      if (batched_case(h, cb, ops[t % 3], ops[t / 3], 17, 17, 17, t % 2 == 0, false)) return 1;
  }
  if (statuses(h)) return 1;
  CHECK_BLAS(cublasDestroy(h));
  std::printf("PASS cublas_gemm_batched_ex (%ld elements checked)\n", checks);
  return 0;
}
