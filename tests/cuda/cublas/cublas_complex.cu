// Complex gemm: cublasCgemm/Zgemm, C/ZgemmStridedBatched, C/ZgemmBatched,
// cublasGemmEx and GemmStridedBatchedEx with CUDA_C_32F (COMPUTE_32F and
// _PEDANTIC) and CUDA_C_64F (COMPUTE_64F and _PEDANTIC), against a CPU
// reference in std::complex<double>: shapes 1x1x1 to 17x4x9 and k up to 33,
// lda/ldb/ldc > rows (the padding of C checked untouched), all 9 op pairs
// (N, T, C), complex alpha and beta, beta = 0 over a NaN C, both pointer
// modes, batches of 2 with gaps between them. Tolerance per element:
// 4 (k + 4) u |alpha| sum|a||b| + 4 u |beta c| (u: the type's unit
// roundoff), i.e. from the K dimension.
#include <complex>
#include <limits>
#include <type_traits>

#include "near.cuh"

using cd = std::complex<double>;

template <typename R>
using Cx = std::conditional_t<std::is_same_v<R, float>, cuComplex, cuDoubleComplex>;

template <typename V>
static cd to_cd(const V& v) { return {double(v.x), double(v.y)}; }
template <typename R>
static Cx<R> from_cd(cd v) { Cx<R> r; r.x = R(v.real()); r.y = R(v.imag()); return r; }

struct Shape { int m, n, k, pad; };
enum Kind { kGemm, kGemmEx, kStrided, kStridedEx, kBatched, kKinds };
static const char* kind_name[] = {"C/Zgemm", "GemmEx", "C/ZgemmStridedBatched", "GemmStridedBatchedEx",
                                  "C/ZgemmBatched"};

static cd op_at(const std::vector<cd>& x, long off, long ld, cublasOperation_t op, int r, int c) {
  const cd v = op == CUBLAS_OP_N ? x[off + r + c * ld] : x[off + c + r * ld];
  return op == CUBLAS_OP_C ? std::conj(v) : v;
}

template <typename R>
static int call(cublasHandle_t h, Kind kind, int ex_variant, cublasOperation_t ta, cublasOperation_t tb,
                const Shape& s, const Cx<R>* alpha, const Cx<R>* a, long lda, long sa, const Cx<R>* b, long ldb,
                long sb, const Cx<R>* beta, Cx<R>* c, long ldc, long sc, int batch, void** arrays) {
  constexpr bool dbl = std::is_same_v<R, double>;
  const cudaDataType t = dbl ? CUDA_C_64F : CUDA_C_32F;
  const cublasComputeType_t comp = dbl ? (ex_variant ? CUBLAS_COMPUTE_64F_PEDANTIC : CUBLAS_COMPUTE_64F)
                                       : (ex_variant ? CUBLAS_COMPUTE_32F_PEDANTIC : CUBLAS_COMPUTE_32F);
  const auto algo = CUBLAS_GEMM_DEFAULT;
  switch (kind) {
    case kGemm:
      if constexpr (dbl) CHECK_BLAS(cublasZgemm(h, ta, tb, s.m, s.n, s.k, alpha, a, lda, b, ldb, beta, c, ldc));
      else CHECK_BLAS(cublasCgemm(h, ta, tb, s.m, s.n, s.k, alpha, a, lda, b, ldb, beta, c, ldc));
      break;
    case kGemmEx:
      CHECK_BLAS(cublasGemmEx(h, ta, tb, s.m, s.n, s.k, alpha, a, t, lda, b, t, ldb, beta, c, t, ldc, comp, algo));
      break;
    case kStrided:
      if constexpr (dbl)
        CHECK_BLAS(cublasZgemmStridedBatched(h, ta, tb, s.m, s.n, s.k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc,
                                             sc, batch));
      else
        CHECK_BLAS(cublasCgemmStridedBatched(h, ta, tb, s.m, s.n, s.k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc,
                                             sc, batch));
      break;
    case kStridedEx:
      CHECK_BLAS(cublasGemmStridedBatchedEx(h, ta, tb, s.m, s.n, s.k, alpha, a, t, lda, sa, b, t, ldb, sb, beta, c,
                                            t, ldc, sc, batch, comp, algo));
      break;
    default: {
      using V = Cx<R>;
      auto pa = (const V* const*)arrays[0];
      auto pb = (const V* const*)arrays[1];
      auto pc = (V* const*)arrays[2];
      if constexpr (dbl)
        CHECK_BLAS(cublasZgemmBatched(h, ta, tb, s.m, s.n, s.k, alpha, pa, lda, pb, ldb, beta, pc, ldc, batch));
      else
        CHECK_BLAS(cublasCgemmBatched(h, ta, tb, s.m, s.n, s.k, alpha, pa, lda, pb, ldb, beta, pc, ldc, batch));
    }
  }
  return 0;
}

// One call of `kind` with ops ta/tb on shape s; beta_zero: beta = 0 over a NaN C.
template <typename R>
static int run_one(cublasHandle_t h, Kind kind, bool device, cublasOperation_t ta, cublasOperation_t tb,
                   const Shape& s, bool beta_zero, int variant) {
  using V = Cx<R>;
  const bool batched = kind == kStrided || kind == kStridedEx || kind == kBatched;
  const int batch = batched ? 2 : 1;
  const int ra = ta == CUBLAS_OP_N ? s.m : s.k, ca = ta == CUBLAS_OP_N ? s.k : s.m;
  const int rb = tb == CUBLAS_OP_N ? s.k : s.n, cb = tb == CUBLAS_OP_N ? s.n : s.k;
  const long lda = ra + s.pad, ldb = rb + s.pad + 1, ldc = s.m + s.pad;
  const long sa = lda * ca + 3, sb = ldb * cb + 1, sc = ldc * s.n + 2;  // gaps between batches
  std::vector<V> ha(sa * batch), hb(sb * batch), hc(sc * batch);
  const R nan = std::numeric_limits<R>::quiet_NaN();
  for (auto& v : ha) v = from_cd<R>({urand(), urand()});
  for (auto& v : hb) v = from_cd<R>({urand(), urand()});
  for (auto& v : hc) v = beta_zero ? from_cd<R>({nan, nan}) : from_cd<R>({urand(), urand()});
  const cd alpha(0.75, -0.5), beta = beta_zero ? cd(0, 0) : cd(-0.25, 0.625);
  Arg<V> al, be;
  if (make_arg(al, from_cd<R>(alpha)) || make_arg(be, from_cd<R>(beta))) return 1;
  V *da, *db, *dc;
  if (upload(ha, &da) || upload(hb, &db) || upload(hc, &dc)) return 1;
  void** darrays = nullptr;
  if (kind == kBatched) {
    std::vector<void*> ptrs = {da, da + sa, db, db + sb, dc, dc + sc};
    void** dp;
    if (upload(ptrs, &dp)) return 1;
    static void* arrays[3];
    arrays[0] = dp; arrays[1] = dp + 2; arrays[2] = dp + 4;
    darrays = arrays;
  }
  if (call<R>(h, kind, variant, ta, tb, s, al.get(device), da, lda, sa, db, ldb, sb, be.get(device), dc, ldc, sc,
              batch, darrays))
    return 1;
  std::vector<V> got(hc.size());
  if (download(got, dc)) return 1;
  std::vector<cd> A(ha.size()), B(hb.size());
  for (size_t i = 0; i < ha.size(); ++i) A[i] = to_cd(ha[i]);
  for (size_t i = 0; i < hb.size(); ++i) B[i] = to_cd(hb[i]);
  const double u = std::numeric_limits<R>::epsilon() / 2;
  char what[160];
  std::snprintf(what, sizeof what, "%s %s %s%s %dx%dx%d pad %d beta%s %s", std::is_same_v<R, float> ? "C" : "Z",
                kind_name[kind], op_name(ta), op_name(tb), s.m, s.n, s.k, s.pad, beta_zero ? "=0" : "",
                device ? "device" : "host");
  for (int bi = 0; bi < batch; ++bi)
    for (int j = 0; j < s.n; ++j)
      for (long i = 0; i < ldc; ++i) {
        const long idx = bi * sc + i + j * ldc;
        if (i >= s.m) {  // padding rows of C: untouched
          expect_same(got[idx], hc[idx], what, idx);
          continue;
        }
        cd sum = 0;
        double mag = 0;
        for (int p = 0; p < s.k; ++p) {
          const cd x = op_at(A, bi * sa, lda, ta, int(i), p), y = op_at(B, bi * sb, ldb, tb, p, j);
          sum += x * y;
          mag += std::abs(x) * std::abs(y);
        }
        cd ref = alpha * sum;
        double tol = 4.0 * (s.k + 4) * u * std::abs(alpha) * mag;
        if (!beta_zero) {
          ref += beta * to_cd(hc[idx]);
          tol += 4.0 * u * std::abs(beta * to_cd(hc[idx]));
        }
        const cd g = to_cd(got[idx]);
        expect_near(g.real(), ref.real(), tol, what, idx);
        expect_near(g.imag(), ref.imag(), tol, what, idx);
      }
  if (kind == kBatched && free_all({darrays[0]})) return 1;
  return free_all({da, db, dc, al.dev, be.dev});
}

template <typename R>
static int run_type(cublasHandle_t h, bool device) {
  const Shape shapes[] = {{1, 1, 1, 0}, {3, 5, 7, 2}, {17, 4, 9, 0}, {8, 8, 1, 3}, {5, 3, 33, 1}, {2, 6, 0, 1}};
  const cublasOperation_t ops[] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};
  int variant = 0;
  for (int kind = 0; kind < kKinds; ++kind)
    for (const Shape& s : shapes)
      for (auto ta : ops)
        for (auto tb : ops)
          for (bool beta_zero : {false, true})
            if (run_one<R>(h, Kind(kind), device, ta, tb, s, beta_zero, (variant++) & 1)) return 1;
  return 0;
}

// Statuses: invalid arguments as for gemm; complex combinations not implemented.
static int statuses(cublasHandle_t h) {
  void* p;
  CHECK(cudaMalloc(&p, 4096));
  const cuComplex one{1, 0};
  const auto N = CUBLAS_OP_N;
  auto cp = (cuComplex*)p;
  EXPECT_STATUS(cublasCgemm(nullptr, N, N, 2, 2, 2, &one, cp, 2, cp, 2, &one, cp, 2), CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_STATUS(cublasCgemm(h, (cublasOperation_t)7, N, 2, 2, 2, &one, cp, 2, cp, 2, &one, cp, 2),
                CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasCgemm(h, N, N, 2, 2, 2, &one, cp, 1, cp, 2, &one, cp, 2), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasCgemm(h, N, N, 2, 2, 2, nullptr, cp, 2, cp, 2, &one, cp, 2), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasGemmEx(h, N, N, 2, 2, 2, &one, p, CUDA_C_32F, 2, p, CUDA_C_32F, 2, &one, p, CUDA_C_32F, 2,
                             CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT), CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_STATUS(cublasGemmEx(h, N, N, 2, 2, 2, &one, p, CUDA_C_32F, 2, p, CUDA_C_32F, 2, &one, p, CUDA_C_64F, 2,
                             CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), CUBLAS_STATUS_NOT_SUPPORTED);
  CHECK(cudaFree(p));
  return 0;
}

int main() {
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  for (bool device : {false, true}) {
    CHECK_BLAS(cublasSetPointerMode(h, device ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST));
    if (run_type<float>(h, device) || run_type<double>(h, device)) return 1;
  }
  CHECK_BLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  if (statuses(h)) return 1;
  CHECK_BLAS(cublasDestroy(h));
  std::printf("%ld checks, %ld failures\n", checks, bad);
  if (bad) { std::printf("FAIL cublas_complex\n"); return 1; }
  std::printf("PASS cublas_complex\n");
  return 0;
}
