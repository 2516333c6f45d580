// softgpu cuBLAS's tensor-core gemm (src/cublas/kernels_tc.cu) against CPU
// loops in double, and the routing rule (src/cublas/tensor_core.h).
//
// Parts:
//   tf32:  Sgemm / SgemmStridedBatched / GemmEx / GemmStridedBatchedEx on f32
//          under CUBLAS_TF32_TENSOR_OP_MATH and CUBLAS_COMPUTE_32F_FAST_TF32,
//          and the calls that must stay exact f32 (default math,
//          COMPUTE_32F_PEDANTIC, CUBLAS_PEDANTIC_MATH).
//   half:  Hgemm(StridedBatched), GemmEx and GemmStridedBatchedEx with f16 / bf16 inputs, the
//          f32 FAST_16F / FAST_16BF modes and the deprecated TENSOR_OP_MATH;
//          then the multistage 128x128 kernel (part_multistage) and its fallback.
//   route: one small call per path, in a fixed order; tests.cmake runs it under
//          `softgpu run --timing --report` and checks which launches used the
//          tensor pipe (check_tensor_route.cmake).
// Shapes from {1, 17, 129, 255} (not multiples of the 64x64x32 tile), all 9
// transposes rotated over them and all 9 at one shape, leading dimensions
// larger than the matrix (padding must stay untouched), both pointer modes,
// beta = 0 over C full of NaN, batches of 3 with gaps between matrices.
//
// How the TF32 path shows itself: "positive" data are f32 values in [0.5, 1)
// lying 0.3 tf32-ulp above a tf32 number, so rounding to tf32 (nearest)
// lowers every product by at least 2^-11.7 relative. A tf32 result matches the
// reference that rounds inputs to tf32 and misses the exact one by more than
// 2^-12 * sum|alpha a b| in every element; an exact f32 result is the other way round.
//
// Tolerance: |got - ref| <= (2 (ceil(k / step) + 2) u_acc + u_out) * sum|terms|
// + floor, where step is the k of one rounding of the accumulator (16 for the
// f16/bf16 mma, 8 for tf32, 1 for the SIMT fma chain), u_acc = 2^-24 (f32
// accumulator) or 2^-11 (f16 accumulator: Hgemm, COMPUTE_16F), u_out the unit
// roundoff of C's type; floor 2^-25 for f16 C, (ceil(k/16) + 1) 2^-24 with an
// f16 accumulator (its subnormal spacing per rounding). The factor 2 leaves
// hardware's last-bit freedom in each mma.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common.cuh"

enum Round { kNone, kTf32, kF16, kBf16 };
enum Api { kSgemm, kSgemmBatched, kGemmEx, kGemmBatchedEx, kHgemm, kHgemmBatched };
enum Expect { kAny, kIsTf32, kIsExact };  // what "positive" data must show

struct Spec {
  const char* name;
  Api api;
  cudaDataType ab, c, scale;
  cublasComputeType_t comp;
  cublasMath_t math;
  Round seen;  // the inputs as the product sees them
  int step;
  double u_acc;
  Expect expect;
};

static const Spec kTf32Specs[] = {
    {"Sgemm TF32_TENSOR_OP_MATH", kSgemm, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F,
     CUBLAS_TF32_TENSOR_OP_MATH, kTf32, 8, 0x1p-24, kIsTf32},
    {"SgemmStridedBatched TF32_TENSOR_OP_MATH", kSgemmBatched, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
     CUBLAS_COMPUTE_32F, CUBLAS_TF32_TENSOR_OP_MATH, kTf32, 8, 0x1p-24, kIsTf32},
    {"GemmEx COMPUTE_32F TF32_TENSOR_OP_MATH", kGemmEx, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F,
     CUBLAS_TF32_TENSOR_OP_MATH, kTf32, 8, 0x1p-24, kIsTf32},
    {"GemmEx COMPUTE_32F_FAST_TF32", kGemmEx, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32,
     CUBLAS_DEFAULT_MATH, kTf32, 8, 0x1p-24, kIsTf32},
    {"GemmStridedBatchedEx COMPUTE_32F_FAST_TF32", kGemmBatchedEx, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
     CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_DEFAULT_MATH, kTf32, 8, 0x1p-24, kIsTf32},
    {"Sgemm DEFAULT_MATH (exact f32)", kSgemm, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F,
     CUBLAS_DEFAULT_MATH, kNone, 1, 0x1p-24, kIsExact},
    {"Sgemm PEDANTIC_MATH (exact f32)", kSgemm, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F,
     CUBLAS_PEDANTIC_MATH, kNone, 1, 0x1p-24, kIsExact},
    {"GemmEx COMPUTE_32F_PEDANTIC TF32_TENSOR_OP_MATH (exact f32)", kGemmEx, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
     CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_TF32_TENSOR_OP_MATH, kNone, 1, 0x1p-24, kIsExact},
};
static const Spec kHalfSpecs[] = {
    {"Hgemm", kHgemm, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F, CUBLAS_DEFAULT_MATH, kNone, 16,
     0x1p-11, kAny},
    {"HgemmStridedBatched", kHgemmBatched, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F,
     CUBLAS_DEFAULT_MATH, kNone, 16, 0x1p-11, kAny},
    {"GemmEx 16F/16F COMPUTE_16F", kGemmEx, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F,
     CUBLAS_DEFAULT_MATH, kNone, 16, 0x1p-11, kAny},
    {"GemmEx 16F/16F COMPUTE_32F", kGemmEx, CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F,
     CUBLAS_DEFAULT_MATH, kNone, 16, 0x1p-24, kAny},
    {"GemmEx 16F/32F COMPUTE_32F", kGemmEx, CUDA_R_16F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F,
     CUBLAS_DEFAULT_MATH, kNone, 16, 0x1p-24, kAny},
    {"GemmEx 16BF/16BF COMPUTE_32F", kGemmEx, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F,
     CUBLAS_DEFAULT_MATH, kNone, 16, 0x1p-24, kAny},
    {"GemmEx 16BF/32F COMPUTE_32F", kGemmEx, CUDA_R_16BF, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F,
     CUBLAS_DEFAULT_MATH, kNone, 16, 0x1p-24, kAny},
    {"GemmStridedBatchedEx 16F/32F COMPUTE_32F", kGemmBatchedEx, CUDA_R_16F, CUDA_R_32F, CUDA_R_32F,
     CUBLAS_COMPUTE_32F, CUBLAS_DEFAULT_MATH, kNone, 16, 0x1p-24, kAny},
    {"GemmStridedBatchedEx 16BF/16BF COMPUTE_32F", kGemmBatchedEx, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F,
     CUBLAS_COMPUTE_32F, CUBLAS_DEFAULT_MATH, kNone, 16, 0x1p-24, kAny},
    {"GemmEx 32F COMPUTE_32F_FAST_16F", kGemmEx, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_16F,
     CUBLAS_DEFAULT_MATH, kF16, 16, 0x1p-24, kAny},
    {"GemmEx 32F COMPUTE_32F_FAST_16BF", kGemmEx, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_16BF,
     CUBLAS_DEFAULT_MATH, kBf16, 16, 0x1p-24, kAny},
    {"Sgemm TENSOR_OP_MATH (f16 inputs)", kSgemm, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F,
     CUBLAS_TENSOR_OP_MATH, kF16, 16, 0x1p-24, kAny},
};

static size_t tsize(cudaDataType t) { return t == CUDA_R_32F ? 4 : 2; }
static void put(cudaDataType t, void* p, long i, double v) {
  switch (t) {
    case CUDA_R_16F: ((__half*)p)[i] = __float2half_rn((float)v); break;
    case CUDA_R_16BF: ((__nv_bfloat16*)p)[i] = __float2bfloat16_rn((float)v); break;
    default: ((float*)p)[i] = (float)v; break;
  }
}
static double get(cudaDataType t, const void* p, long i) {
  switch (t) {
    case CUDA_R_16F: return __half2float(((const __half*)p)[i]);
    case CUDA_R_16BF: return __bfloat162float(((const __nv_bfloat16*)p)[i]);
    default: return ((const float*)p)[i];
  }
}
static float bits_to_float(unsigned u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
static unsigned float_bits(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return u;
}
// f32 to tf32, nearest with ties away from zero (cvt.rna.tf32.f32).
static double tf32(double v) {
  unsigned u = float_bits((float)v);
  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;
  return bits_to_float(u);
}
static double round_in(Round r, double v) {
  switch (r) {
    case kTf32: return tf32(v);
    case kF16: return __half2float(__float2half_rn((float)v));
    case kBf16: return __bfloat162float(__float2bfloat16_rn((float)v));
    default: return v;
  }
}
static double unit(cudaDataType t) { return t == CUDA_R_16F ? 0x1p-11 : t == CUDA_R_16BF ? 0x1p-8 : 0x1p-24; }

// In [0.5, 1) on the tf32 grid (spacing 2^-11 there), plus 0.3 of a spacing.
static double positive() {
  const double q = 0.5 + std::floor((urand() + 1) * 0.25 * 2048) / 2048;
  return q + 0.3 * 0x1p-11;
}

static long checks = 0;

struct Shape {
  cublasOperation_t ta, tb;
  int m, n, k, batch;
  bool device, beta_zero, positive;
  // lda, ldb and the A / B batch strides multiples of 8 elements (the
  // multistage kernel's cp.async precondition), else odd paddings.
  bool aligned = false;
};

static int run_case(cublasHandle_t h, const Spec& sp, const Shape& s) {
  const bool tra = s.ta != CUBLAS_OP_N, trb = s.tb != CUBLAS_OP_N;
  const int m = s.m, n = s.n, k = s.k, batch = s.batch;
  const int ar = tra ? k : m, ac = tra ? m : k, br = trb ? n : k, bc = trb ? k : n;
  const auto up8 = [](int v) { return (v + 7) / 8 * 8; };
  const int lda = s.aligned ? up8(ar) + 8 : ar + 3, ldb = s.aligned ? up8(br) + 8 : br + 1, ldc = m + 2;
  const long sa = (long)lda * ac + (s.aligned ? 8 : 7), sb = (long)ldb * bc + (s.aligned ? 16 : 5);
  const long sc = (long)ldc * n + 3;
  const size_t ea = tsize(sp.ab), ec = tsize(sp.c);
  std::vector<unsigned char> a(sa * batch * ea), b(sb * batch * ea), c(sc * batch * ec);
  for (long i = 0; i < sa * batch; ++i) put(sp.ab, a.data(), i, s.positive ? positive() : urand());
  for (long i = 0; i < sb * batch; ++i) put(sp.ab, b.data(), i, s.positive ? positive() : urand());
  const double sentinel = 1152;  // exact in every type
  for (long i = 0; i < sc * batch; ++i) put(sp.c, c.data(), i, sentinel);
  for (int q = 0; q < batch; ++q)
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < m; ++i)
        put(sp.c, c.data(), q * sc + i + j * ldc, s.beta_zero ? std::numeric_limits<double>::quiet_NaN() : urand());
  const double alpha_v = 1.25, beta_v = s.beta_zero ? 0 : -0.5;
  unsigned char alpha_h[4], beta_h[4];
  put(sp.scale, alpha_h, 0, alpha_v);
  put(sp.scale, beta_h, 0, beta_v);
  void *da, *db, *dc, *dal, *dbe;
  CHECK(cudaMalloc(&da, a.size()));
  CHECK(cudaMalloc(&db, b.size()));
  CHECK(cudaMalloc(&dc, c.size()));
  CHECK(cudaMalloc(&dal, 4));
  CHECK(cudaMalloc(&dbe, 4));
  CHECK(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, c.data(), c.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dal, alpha_h, 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dbe, beta_h, 4, cudaMemcpyHostToDevice));
  CHECK_BLAS(cublasSetPointerMode(h, s.device ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST));
  CHECK_BLAS(cublasSetMathMode(h, sp.math));
  const void* al = s.device ? dal : (const void*)alpha_h;
  const void* be = s.device ? dbe : (const void*)beta_h;
  switch (sp.api) {
    case kSgemm:
      CHECK_BLAS(cublasSgemm(h, s.ta, s.tb, m, n, k, (const float*)al, (const float*)da, lda, (const float*)db, ldb,
                             (const float*)be, (float*)dc, ldc));
      break;
    case kSgemmBatched:
      CHECK_BLAS(cublasSgemmStridedBatched(h, s.ta, s.tb, m, n, k, (const float*)al, (const float*)da, lda, sa,
                                           (const float*)db, ldb, sb, (const float*)be, (float*)dc, ldc, sc, batch));
      break;
    case kGemmEx:
      CHECK_BLAS(cublasGemmEx(h, s.ta, s.tb, m, n, k, al, da, sp.ab, lda, db, sp.ab, ldb, be, dc, sp.c, ldc, sp.comp,
                              CUBLAS_GEMM_DEFAULT));
      break;
    case kGemmBatchedEx:
      CHECK_BLAS(cublasGemmStridedBatchedEx(h, s.ta, s.tb, m, n, k, al, da, sp.ab, lda, sa, db, sp.ab, ldb, sb, be,
                                            dc, sp.c, ldc, sc, batch, sp.comp, CUBLAS_GEMM_DEFAULT));
      break;
    case kHgemm:
      CHECK_BLAS(cublasHgemm(h, s.ta, s.tb, m, n, k, (const __half*)al, (const __half*)da, lda, (const __half*)db,
                             ldb, (const __half*)be, (__half*)dc, ldc));
      break;
    case kHgemmBatched:
      CHECK_BLAS(cublasHgemmStridedBatched(h, s.ta, s.tb, m, n, k, (const __half*)al, (const __half*)da, lda, sa,
                                           (const __half*)db, ldb, sb, (const __half*)be, (__half*)dc, ldc, sc,
                                           batch));
      break;
  }
  std::vector<unsigned char> got(c.size());
  CHECK(cudaMemcpy(got.data(), dc, got.size(), cudaMemcpyDeviceToHost));
  CHECK_BLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  const int steps = (k + sp.step - 1) / sp.step;
  const double tol = 2 * (steps + 2) * sp.u_acc + unit(sp.c);
  const double floor_abs =
      sp.u_acc > 0x1p-24 ? ((k + 15) / 16 + 1) * 0x1p-24 : (sp.c == CUDA_R_16F ? 0x1p-25 : 1e-300);
  long bad = 0;
  for (int q = 0; q < batch; ++q)
    for (long e = 0; e < sc; ++e) {
      const long i = e % ldc, j = e / ldc;
      const double g = get(sp.c, got.data(), q * sc + e);
      if (i >= m || j >= n) {
        if (!(g == sentinel) && bad++ < 4) std::fprintf(stderr, "  batch %d C[%ld] outside the matrix: %g\n", q, e, g);
        continue;
      }
      // ref: inputs as the product sees them; exact: inputs as stored; tf:
      // inputs rounded to tf32.
      double ref = 0, mag = 0, exact = 0, tf = 0;
      for (int p = 0; p < k; ++p) {
        const double av = get(sp.ab, a.data(), q * sa + (tra ? p + i * lda : i + (long)p * lda));
        const double bv = get(sp.ab, b.data(), q * sb + (trb ? j + (long)p * ldb : p + j * ldb));
        ref += round_in(sp.seen, av) * round_in(sp.seen, bv);
        mag += std::fabs(round_in(sp.seen, av) * round_in(sp.seen, bv));
        exact += av * bv;
        tf += tf32(av) * tf32(bv);
      }
      const double orig = s.beta_zero ? 0 : get(sp.c, c.data(), q * sc + e);
      ref = alpha_v * ref + beta_v * orig;
      exact = alpha_v * exact + beta_v * orig;
      tf = alpha_v * tf + beta_v * orig;
      const double mag_ab = std::fabs(alpha_v) * mag;
      mag = mag_ab + std::fabs(beta_v * orig);
      if (!(std::fabs(g - ref) <= tol * mag + floor_abs) && bad++ < 4)
        std::fprintf(stderr, "  batch %d C(%ld,%ld) = %.17g, expected %.17g (tol %.3g)\n", q, i, j, g, ref,
                     tol * mag + floor_abs);
      if (s.positive && sp.expect != kAny) {
        const double other = sp.expect == kIsTf32 ? exact : tf;  // the result it must not be
        if (!(std::fabs(g - other) > 0x1p-12 * mag_ab) && bad++ < 4)
          std::fprintf(stderr, "  batch %d C(%ld,%ld) = %.17g is within 2^-12 relative of the %s result %.17g\n", q,
                       i, j, g, sp.expect == kIsTf32 ? "exact f32" : "tf32", other);
      }
    }
  REQUIRE(bad == 0, "%s %s%s m=%d n=%d k=%d batch=%d device=%d beta0=%d positive=%d aligned=%d tile=%s: %ld bad",
          sp.name, op_name(s.ta), op_name(s.tb), m, n, k, batch, s.device, s.beta_zero, s.positive, s.aligned,
          std::getenv("SOFTGPU_CUBLAS_TC_TILE") ? std::getenv("SOFTGPU_CUBLAS_TC_TILE") : "auto", bad);
  ++checks;
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  CHECK(cudaFree(dal));
  CHECK(cudaFree(dbe));
  return 0;
}

static const cublasOperation_t kOps[] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};

// The shapes every spec runs: sizes 1, 17, 129, 255 (255^3 once), the 9
// transposes rotating, then all 9 at 17 x 33 x 19.
static int spec_all(cublasHandle_t h, const Spec& sp) {
  const bool batched = sp.api == kSgemmBatched || sp.api == kGemmBatchedEx || sp.api == kHgemmBatched;
  const int batch = batched ? 3 : 1;
  const bool f32 = sp.ab == CUDA_R_32F;
  static const int kShapes[][3] = {{1, 1, 1},     {1, 17, 255},   {17, 1, 129},  {255, 17, 1},  {17, 129, 255},
                                   {129, 255, 17}, {64, 128, 96}, {255, 255, 255}, {129, 129, 129}};
  int v = 0;
  for (const auto& d : kShapes) {
    if (batched && d[0] * d[1] * d[2] > 129 * 129 * 129) continue;
    Shape s{kOps[v % 3], kOps[(v / 3) % 3], d[0], d[1], d[2], batch, v % 2 == 1, v % 4 == 2, f32 && v % 3 != 1};
    if (run_case(h, sp, s)) return 1;
    ++v;
  }
  for (auto ta : kOps)
    for (auto tb : kOps) {
      Shape s{ta, tb, 17, 33, 19, batch, v % 2 == 0, false, f32};
      if (run_case(h, sp, s)) return 1;
      ++v;
    }
  return 0;
}

static int part_specs(cublasHandle_t h, const Spec* specs, int count) {
  for (int i = 0; i < count; ++i)
    if (spec_all(h, specs[i])) return 1;
  return 0;
}

// The multistage kernel (128x128 or 128x64 tiles, 4-stage cp.async,
// ldmatrix; the library's choice wherever lda, ldb, the batch strides and
// the pointers allow 16-byte copies, each width forced in turn by
// SOFTGPU_CUBLAS_TC_TILE=128x128 / 128x64 here): f16 / bf16 inputs with f32 or f16 / bf16 C,
// Hgemm (f16 accumulator), strided batches; all 4 transpose pairs (and C
// for T) over shapes that are and are not multiples of 128 in m and n and
// of 32 and 8 in k (k tails inside a 16-byte chunk, k = 1, more k tiles than
// stages), m and n not multiples of 8 (partial chunks along rows /
// columns). lda / ldb > rows everywhere. Then the same calls with odd lda,
// ldb and batch strides, where the 16-byte copies cannot be used: the
// 64x64 kernel must still give the right answer. Finally one aligned call
// with the default choice and one with SOFTGPU_CUBLAS_TC_TILE=64 (the
// 64x64 kernel on a layout the multistage one could take).
static const Spec& spec(const char* name);
static int part_multistage(cublasHandle_t h) {
  static const char* const kNames[] = {"GemmEx 16F/32F COMPUTE_32F",
                                       "GemmEx 16BF/32F COMPUTE_32F",
                                       "GemmEx 16F/16F COMPUTE_32F",
                                       "GemmEx 16BF/16BF COMPUTE_32F",
                                       "Hgemm",
                                       "GemmStridedBatchedEx 16F/32F COMPUTE_32F",
                                       "GemmStridedBatchedEx 16BF/16BF COMPUTE_32F",
                                       "HgemmStridedBatched"};
  static const int kShapes[][3] = {{128, 128, 64}, {131, 77, 45}, {256, 136, 96}, {40, 300, 33},
                                   {1, 1, 1},      {200, 130, 1}, {129, 255, 160}, {64, 136, 328}};
  static const cublasOperation_t kPairs[][2] = {
      {CUBLAS_OP_N, CUBLAS_OP_N}, {CUBLAS_OP_N, CUBLAS_OP_T}, {CUBLAS_OP_T, CUBLAS_OP_N}, {CUBLAS_OP_T, CUBLAS_OP_T}};
  // Both tile widths (128 x 128 and 128 x 64, each forced), the same calls.
  for (const char* tile : {"128x128", "128x64"}) {
    setenv("SOFTGPU_CUBLAS_TC_TILE", tile, 1);
    int v = 0;
    for (const char* name : kNames) {
      const Spec& sp = spec(name);
      const bool batched = sp.api == kGemmBatchedEx || sp.api == kHgemmBatched;
      // f16 / bf16 -> f32: every shape, with all 4 pairs where k is no
      // multiple of 8 (a chunk crosses k: with A^T and B both k-contiguous
      // only the partial copy keeps the padding beyond k out); the others 3
      // shapes, the pairs rotating.
      const bool main_type = sp.c == CUDA_R_32F && !batched;
      const int count = main_type ? 8 : 3;
      for (int i = 0; i < count; ++i) {
        const auto& d = kShapes[main_type ? i : (v * 3) % 8];
        if (batched && d[0] * d[1] * d[2] > 131 * 77 * 45) {
          ++v, --i;
          continue;
        }
        const int pairs = main_type && d[2] % 8 ? 4 : 1;
        for (int p = 0; p < pairs; ++p, ++v) {
          const auto& ops = kPairs[pairs == 4 ? p : v % 4];
          const cublasOperation_t tb = ops[1] == CUBLAS_OP_T && v % 8 == 5 ? CUBLAS_OP_C : ops[1];
          Shape s{ops[0], tb, d[0], d[1], d[2], batched ? 3 : 1, v % 2 == 1, v % 3 == 2, false, true};
          if (run_case(h, sp, s)) return 1;
        }
      }
    }
  }
  for (const char* name : {"GemmEx 16F/32F COMPUTE_32F", "GemmStridedBatchedEx 16BF/16BF COMPUTE_32F"}) {
    const Spec& sp = spec(name);
    const bool batched = sp.api == kGemmBatchedEx;
    Shape s{CUBLAS_OP_T, CUBLAS_OP_N, 131, 77, 45, batched ? 3 : 1, false, false, false, false};
    if (run_case(h, sp, s)) return 1;
  }
  unsetenv("SOFTGPU_CUBLAS_TC_TILE");
  Shape s{CUBLAS_OP_N, CUBLAS_OP_N, 256, 136, 96, 1, false, false, false, true};
  if (run_case(h, spec("GemmEx 16BF/32F COMPUTE_32F"), s)) return 1;
  setenv("SOFTGPU_CUBLAS_TC_TILE", "64", 1);
  s.ta = CUBLAS_OP_T;
  const int bad = run_case(h, spec("GemmEx 16F/32F COMPUTE_32F"), s);
  unsetenv("SOFTGPU_CUBLAS_TC_TILE");
  return bad;
}

// One 64x64x64 call per route, in this order (check_tensor_route.cmake
// expects: simt tc tc tc tc simt simt tc simt):
//   Sgemm default, Sgemm TF32 math, Hgemm, GemmEx bf16 -> f32, GemmEx
//   FAST_TF32, GemmEx COMPUTE_32F_PEDANTIC under TF32 math, Dgemm under TF32
//   math, GemmStridedBatchedEx f16 (batch 2), GemmEx 16F PEDANTIC_MATH.
static const Spec& spec(const char* name) {
  for (const Spec& s : kTf32Specs)
    if (!std::strcmp(s.name, name)) return s;
  for (const Spec& s : kHalfSpecs)
    if (!std::strcmp(s.name, name)) return s;
  std::fprintf(stderr, "FAIL cublas_tensor_core: no spec %s\n", name);
  std::exit(1);
}

static int part_route(cublasHandle_t h) {
  const Shape s{CUBLAS_OP_N, CUBLAS_OP_T, 64, 64, 64, 1, false, false, false};
  Shape s2 = s;
  s2.batch = 2;
  if (run_case(h, spec("Sgemm DEFAULT_MATH (exact f32)"), s) || run_case(h, spec("Sgemm TF32_TENSOR_OP_MATH"), s) ||
      run_case(h, spec("Hgemm"), s) || run_case(h, spec("GemmEx 16BF/32F COMPUTE_32F"), s) ||
      run_case(h, spec("GemmEx COMPUTE_32F_FAST_TF32"), s) ||
      run_case(h, spec("GemmEx COMPUTE_32F_PEDANTIC TF32_TENSOR_OP_MATH (exact f32)"), s))
    return 1;
  // Dgemm: f64 never runs on the tensor cores here.
  CHECK_BLAS(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
  std::vector<double> a(64 * 64), b(64 * 64), c(64 * 64, 0.0), ref(64 * 64, 0.0);
  for (auto& x : a) x = urand();
  for (auto& x : b) x = urand();
  for (int j = 0; j < 64; ++j)
    for (int i = 0; i < 64; ++i)
      for (int p = 0; p < 64; ++p) ref[i + j * 64] += a[i + p * 64] * b[p + j * 64];
  double *da, *db, *dc;
  if (upload(a, &da) || upload(b, &db) || upload(c, &dc)) return 1;
  const double one = 1, zero = 0;
  CHECK_BLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  CHECK_BLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &one, da, 64, db, 64, &zero, dc, 64));
  if (download(c, dc)) return 1;
  for (int e = 0; e < 64 * 64; ++e)  // |terms| <= 1: 64 roundings of at most 64 * 2^-53 each
    REQUIRE(std::fabs(c[e] - ref[e]) <= 64 * 64 * 0x1p-53, "Dgemm C[%d] %.17g vs %.17g", e, c[e], ref[e]);
  ++checks;
  CHECK_BLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  const Spec& batched = spec("GemmStridedBatchedEx 16F/32F COMPUTE_32F");
  Spec pedantic = spec("GemmEx 16F/16F COMPUTE_32F");
  pedantic.math = CUBLAS_PEDANTIC_MATH;
  pedantic.step = 1;
  if (run_case(h, batched, s2) || run_case(h, pedantic, s)) return 1;
  return 0;
}

// The Hopper kernel's calls (run with --gpu h100): f16 / bf16 inputs
// accumulating in f32, the four transpose pairs in turn (A and B K-major
// or MN-major), 16-byte aligned layouts, plain and strided-batched, shapes
// on and off the 128 x 128 and 128 x 256 tiles, k tails inside a
// 64-element stage and more K stages than the ring's four, both pointer
// modes, beta = 0; each width forced, then the default pick. Then Hgemm
// (f16 accumulation: not the Hopper kernel's) and one more NT call.
static int part_hopper(cublasHandle_t h) {
  static const char* const kNames[] = {"GemmEx 16F/32F COMPUTE_32F", "GemmEx 16BF/32F COMPUTE_32F",
                                       "GemmEx 16F/16F COMPUTE_32F", "GemmEx 16BF/16BF COMPUTE_32F",
                                       "GemmStridedBatchedEx 16F/32F COMPUTE_32F",
                                       "GemmStridedBatchedEx 16BF/16BF COMPUTE_32F"};
  static const int kShapes[][3] = {{128, 128, 64}, {131, 77, 45}, {256, 272, 520}, {1, 136, 200}, {200, 9, 1}};
  for (const char* tile : {"wgmma128x128", "wgmma128x256", ""}) {
    if (*tile) setenv("SOFTGPU_CUBLAS_TC_TILE", tile, 1);
    else unsetenv("SOFTGPU_CUBLAS_TC_TILE");
    int v = 0;
    for (const char* name : kNames) {
      const Spec& sp = spec(name);
      const bool batched = sp.api == kGemmBatchedEx;
      for (const auto& d : kShapes) {
        ++v;
        if (batched && d[0] * d[1] * d[2] > 256 * 272 * 64) continue;
        static const cublasOperation_t kOps[][2] = {
            {CUBLAS_OP_T, CUBLAS_OP_N}, {CUBLAS_OP_N, CUBLAS_OP_N}, {CUBLAS_OP_N, CUBLAS_OP_T}, {CUBLAS_OP_T, CUBLAS_OP_T}};
        const auto& ops = kOps[v % 4];
        Shape s{ops[0], ops[1], d[0], d[1], d[2], batched ? 2 : 1, v % 2 == 1, v % 3 == 2, false, true};
        if (run_case(h, sp, s)) return 1;
      }
    }
  }
  Shape s{CUBLAS_OP_T, CUBLAS_OP_N, 131, 77, 45, 1, false, false, false, true};
  if (run_case(h, spec("Hgemm"), s)) return 1;
  s.ta = CUBLAS_OP_N, s.tb = CUBLAS_OP_T;
  return run_case(h, spec("GemmEx 16F/32F COMPUTE_32F"), s);
}

int main(int argc, char** argv) {
  const std::string part = argc > 1 ? argv[1] : "all";
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  const bool all = part == "all";
  if ((all || part == "tf32") && part_specs(h, kTf32Specs, sizeof kTf32Specs / sizeof *kTf32Specs)) return 1;
  if ((all || part == "half") &&
      (part_specs(h, kHalfSpecs, sizeof kHalfSpecs / sizeof *kHalfSpecs) || part_multistage(h)))
    return 1;
  if ((all || part == "route") && part_route(h)) return 1;
  if (part == "hopper" && part_hopper(h)) return 1;
  CHECK_BLAS(cublasDestroy(h));
  if (!checks) {
    std::fprintf(stderr, "FAIL cublas_tensor_core: unknown part %s\n", part.c_str());
    return 1;
  }
  std::printf("PASS cublas_tensor_core %s (%ld checks)\n", part.c_str(), checks);
  return 0;
}
