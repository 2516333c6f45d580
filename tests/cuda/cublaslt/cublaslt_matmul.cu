// cublasLtMatmul against a CPU loop in double. Parts (argv[1]):
//   types:     every type combination softgpu implements (A/B 16F, 16BF, 32F,
//              64F; C = D 16F/16BF/32F/64F as cuBLAS's table allows; 16F,
//              32F, FAST_TF32/16F/16BF and 64F compute), shapes m, n, k from
//              {1, 17, 129} (at most one 129) with the transposes rotated,
//              epilogue DEFAULT.
//   epilogues: each of the 16 epilogues with f32, f16 (C/D 16F), bf16 (C/D
//              16BF) and f64, three shapes each.
//   multistage: the 16-bit input combinations with A and B laid out for
//              16-byte copies (lda, ldb and batch strides multiples of 8),
//              which run on the multistage 128x128 kernel (the ReLU-mask
//              epilogues excepted): every epilogue, all transposes, shapes
//              on and off the 128 tile with k tails inside a 32 chunk.
//   hopper:    (an sm_90 GPU, --gpu h100) the calls of the TMA + wgmma
//              kernel: TN in f16, bf16 and FP8 e4m3 (part_hopper).
// Every case: lda/ldb/ldc/ldd larger than the rows (padding of D must stay
// untouched), column-major or (every mixture of A, B, C, D in turn on some
// cases) row-major layouts, D a separate matrix with its own ld (C must stay untouched) or
// D == C in place, strided batches of 2 (with gaps) on some cases, alpha and
// beta from host or device memory (CUBLASLT_MATMUL_DESC_POINTER_MODE),
// beta = 0 over C full of NaN on some, the algo from
// cublasLtMatmulAlgoGetHeuristic.
//
// Reference: x = alpha op(A) op(B) + beta C (+ bias), inputs as the kernel
// sees them (FAST modes rounded on the host). Tolerances:
//   x:        tol_x = (max(k, 4) u_acc + u_out) * sum |terms| (+ 2^-25 for f16
//             D), u_acc 2^-24 (f32 accumulation, also for f16/bf16 inputs) or
//             2^-53, u_out the unit roundoff of D's type: ~1e-2 relative to
//             the accumulated magnitude for bf16 D, ~1e-3 for f16.
//   RELU, DRELU: tol_x (1-Lipschitz). GELU (tanh form): 1.2 tol_x + u_out |d|
//             + e_f (1 + |x|), e_f = 2^-20 for f32 math (tanh in f32), 2^-45
//             for f64. DGELU: tol_x |gelu'(aux)| + u_out |d| + e_f (1 + |x|).
//   ReLU bit mask (RELU_AUX*): bit == (x > 0) wherever |x| > tol_x.
//   GELU aux (GELU_AUX*): x within tol_x.
//   Bias gradients: DRELU/DGELU_BGRAD the row sums of D (sum of the element
//             tolerances + n u_acc sum |d| + u_out |s|); BGRADA/BGRADB the
//             sums over k of op(A)'s rows / op(B)'s columns (k u_acc sum|.| +
//             u_out |s|); entries past the vector stay untouched.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common_lt.cuh"

static const Combo kCombos[] = {
    {"16F/16F/COMPUTE_16F", CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F, kNone},
    {"16F/16F/COMPUTE_32F", CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, kNone},
    {"16F/32F/COMPUTE_32F", CUDA_R_16F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, kNone},
    {"16BF/16BF/COMPUTE_32F", CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, kNone},
    {"16BF/32F/COMPUTE_32F", CUDA_R_16BF, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, kNone},
    {"32F/32F/COMPUTE_32F", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, kNone},
    {"32F/32F/COMPUTE_32F_PEDANTIC", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC, kNone},
    {"32F/32F/COMPUTE_32F_FAST_TF32", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, kTf32},
    {"32F/32F/COMPUTE_32F_FAST_16F", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_16F, kF16},
    {"32F/32F/COMPUTE_32F_FAST_16BF", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_16BF, kBf16},
    {"64F/64F/COMPUTE_64F", CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, kNone},
};
// FP8 (cuBLASLt's e4m3 x e4m3 rows with a 16- or 32-bit D; sm_90 only).
static const Combo kFp8Combos[] = {
    {"8F_E4M3/16F/COMPUTE_32F", CUDA_R_8F_E4M3, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, kNone},
    {"8F_E4M3/16BF/COMPUTE_32F", CUDA_R_8F_E4M3, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, kNone},
    {"8F_E4M3/32F/COMPUTE_32F", CUDA_R_8F_E4M3, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, kNone},
};
static const Combo* kEpiCombos[] = {&kCombos[5], &kCombos[1], &kCombos[3], &kCombos[10]};

struct Epi {
  cublasLtEpilogue_t e;
  const char* name;
};
static const Epi kEpilogues[] = {
    {CUBLASLT_EPILOGUE_DEFAULT, "DEFAULT"},       {CUBLASLT_EPILOGUE_RELU, "RELU"},
    {CUBLASLT_EPILOGUE_BIAS, "BIAS"},             {CUBLASLT_EPILOGUE_RELU_BIAS, "RELU_BIAS"},
    {CUBLASLT_EPILOGUE_GELU, "GELU"},             {CUBLASLT_EPILOGUE_GELU_BIAS, "GELU_BIAS"},
    {CUBLASLT_EPILOGUE_RELU_AUX, "RELU_AUX"},     {CUBLASLT_EPILOGUE_RELU_AUX_BIAS, "RELU_AUX_BIAS"},
    {CUBLASLT_EPILOGUE_GELU_AUX, "GELU_AUX"},     {CUBLASLT_EPILOGUE_GELU_AUX_BIAS, "GELU_AUX_BIAS"},
    {CUBLASLT_EPILOGUE_DRELU, "DRELU"},           {CUBLASLT_EPILOGUE_DRELU_BGRAD, "DRELU_BGRAD"},
    {CUBLASLT_EPILOGUE_DGELU, "DGELU"},           {CUBLASLT_EPILOGUE_DGELU_BGRAD, "DGELU_BGRAD"},
    {CUBLASLT_EPILOGUE_BGRADA, "BGRADA"},         {CUBLASLT_EPILOGUE_BGRADB, "BGRADB"},
};

static bool has(cublasLtEpilogue_t e, std::initializer_list<cublasLtEpilogue_t> set) {
  return std::find(set.begin(), set.end(), e) != set.end();
}
static bool bias_in(cublasLtEpilogue_t e) {
  return has(e, {CUBLASLT_EPILOGUE_BIAS, CUBLASLT_EPILOGUE_RELU_BIAS, CUBLASLT_EPILOGUE_GELU_BIAS,
                 CUBLASLT_EPILOGUE_RELU_AUX_BIAS, CUBLASLT_EPILOGUE_GELU_AUX_BIAS});
}
static bool bias_out(cublasLtEpilogue_t e) {
  return has(e, {CUBLASLT_EPILOGUE_DRELU_BGRAD, CUBLASLT_EPILOGUE_DGELU_BGRAD, CUBLASLT_EPILOGUE_BGRADA,
                 CUBLASLT_EPILOGUE_BGRADB});
}
static bool relu_act(cublasLtEpilogue_t e) {
  return has(e, {CUBLASLT_EPILOGUE_RELU, CUBLASLT_EPILOGUE_RELU_BIAS, CUBLASLT_EPILOGUE_RELU_AUX,
                 CUBLASLT_EPILOGUE_RELU_AUX_BIAS});
}
static bool gelu_act(cublasLtEpilogue_t e) {
  return has(e, {CUBLASLT_EPILOGUE_GELU, CUBLASLT_EPILOGUE_GELU_BIAS, CUBLASLT_EPILOGUE_GELU_AUX,
                 CUBLASLT_EPILOGUE_GELU_AUX_BIAS});
}
static bool mask_out(cublasLtEpilogue_t e) {
  return has(e, {CUBLASLT_EPILOGUE_RELU_AUX, CUBLASLT_EPILOGUE_RELU_AUX_BIAS});
}
static bool mask_in(cublasLtEpilogue_t e) { return has(e, {CUBLASLT_EPILOGUE_DRELU, CUBLASLT_EPILOGUE_DRELU_BGRAD}); }
static bool gaux_out(cublasLtEpilogue_t e) {
  return has(e, {CUBLASLT_EPILOGUE_GELU_AUX, CUBLASLT_EPILOGUE_GELU_AUX_BIAS});
}
static bool gaux_in(cublasLtEpilogue_t e) { return has(e, {CUBLASLT_EPILOGUE_DGELU, CUBLASLT_EPILOGUE_DGELU_BGRAD}); }

struct Case {
  const Combo* cb;
  const char* epi_name;
  cublasLtEpilogue_t epi;
  cublasOperation_t ta, tb;
  int m, n, k, batch;
  bool device, beta_zero, in_place;
  unsigned row_major;  // bits: 1 A, 2 B, 4 C, 8 D in CUBLASLT_ORDER_ROW
  bool aligned = false;  // lda, ldb, sa, sb multiples of 16 bytes (8 16-bit or 16 fp8 elements)
};
static long ix(bool row, long i, long j, long ld) { return row ? i * ld + j : i + j * ld; }
static long checks = 0;

static int fail(const Case& t, const char* what, int q, long i, long j, double got, double want, double tol) {
  std::fprintf(stderr,
               "FAIL %s %s %s%s m=%d n=%d k=%d batch=%d %s%s%s row-major %x: %s[%d](%ld,%ld) = %.9g, expected %.9g "
               "(tol %.3g)\n",
               t.cb->name, t.epi_name, op_name(t.ta), op_name(t.tb), t.m, t.n, t.k, t.batch,
               t.device ? "device" : "host", t.beta_zero ? " beta=0" : "", t.in_place ? " D==C" : "", t.row_major,
               what, q, i, j, got, want, tol);
  return 1;
}

template <typename T>
static int to_device(const std::vector<T>& h, void** d) {
  CHECK(cudaMalloc(d, h.size() * sizeof(T) + 16));
  CHECK(cudaMemcpy(*d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return 0;
}

static int run_case(cublasLtHandle_t lt, const Case& t) {
  const Combo& cb = *t.cb;
  const cublasLtEpilogue_t e = t.epi;
  const int m = t.m, n = t.n, k = t.k, batch = t.batch;
  const bool tra = t.ta != CUBLAS_OP_N, trb = t.tb != CUBLAS_OP_N;
  const int ar = tra ? k : m, ac = tra ? m : k, br = trb ? n : k, bc = trb ? k : n;
  const bool arow = t.row_major & 1, brow = t.row_major & 2, crow = t.row_major & 4,
             drow = t.in_place ? crow : (t.row_major & 8) != 0;
  // ld: one past the column (column-major) or the row (row-major), plus padding.
  // Aligned: rounded up to 16 bytes, then 16 more.
  const long al = 16 / long(tsize(cb.ab));
  auto pad = [&](long rows, long extra) { return t.aligned ? (rows + al - 1) / al * al + al : rows + extra; };
  const long lda = pad(arow ? ac : ar, 1), ldb = pad(brow ? bc : br, 2), ldc = (crow ? n : m) + 3;
  const long ldd = t.in_place ? ldc : (drow ? n : m) + 1;
  const long sa = lda * (arow ? ar : ac) + (t.aligned ? al : 5), sb = ldb * (brow ? br : bc) + (t.aligned ? 2 * al : 7),
             sc = ldc * (crow ? m : n) + 11;
  const long sd = t.in_place ? sc : ldd * (drow ? m : n) + 3;
  const size_t ea = tsize(cb.ab), ed = tsize(cb.cd);
  const double sentinel = 1152, nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<unsigned char> a(sa * batch * ea), b(sb * batch * ea), c(sc * batch * ed), d(sd * batch * ed);
  for (long i = 0; i < sa * batch; ++i) put(cb.ab, a.data(), i, urand());
  for (long i = 0; i < sb * batch; ++i) put(cb.ab, b.data(), i, urand());
  for (long i = 0; i < sc * batch; ++i) put(cb.cd, c.data(), i, sentinel);
  for (long i = 0; i < sd * batch; ++i) put(cb.cd, d.data(), i, sentinel);
  for (int q = 0; q < batch; ++q)
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < m; ++i) put(cb.cd, c.data(), q * sc + ix(crow, i, j, ldc), t.beta_zero ? nan : urand());
  // Bias (input or gradient output), aux (bit mask or GELU input).
  const long blen = e == CUBLASLT_EPILOGUE_BGRADB ? n : m, bstride = blen + 3;
  std::vector<unsigned char> bias(bstride * batch * ed);
  for (long i = 0; i < bstride * batch; ++i) put(cb.cd, bias.data(), i, bias_in(e) ? urand() : nan);
  const bool mask = mask_in(e) || mask_out(e), gaux = gaux_in(e) || gaux_out(e);
  const long aux_ld = mask ? (m + 127) / 128 * 128 + 128 : (m + 7) / 8 * 8 + 8;
  const long aux_stride = mask ? aux_ld * n : aux_ld * n + 8;  // bits (mask) or elements
  std::vector<unsigned char> aux(mask ? aux_stride / 8 * batch : gaux ? aux_stride * batch * ed : 1);
  for (size_t i = 0; i < aux.size(); ++i) aux[i] = mask_in(e) ? (unsigned char)((urand() + 1) * 128) : 0xa5;
  if (gaux_in(e))
    for (long i = 0; i < aux_stride * batch; ++i) put(cb.cd, aux.data(), i, 3 * urand());

  const double alpha_v = 0.75, beta_v = t.beta_zero ? 0 : 1.5;
  unsigned char alpha_h[8], beta_h[8];
  put(cb.scale, alpha_h, 0, alpha_v);
  put(cb.scale, beta_h, 0, beta_v);
  void *da, *db, *dc, *dd, *dbias, *daux, *dal, *dbe;
  if (to_device(a, &da) || to_device(b, &db) || to_device(c, &dc) || to_device(bias, &dbias) ||
      to_device(aux, &daux))
    return 1;
  if (t.in_place) {
    dd = dc;
  } else if (to_device(d, &dd)) {
    return 1;
  }
  CHECK(cudaMalloc(&dal, 8));
  CHECK(cudaMalloc(&dbe, 8));
  CHECK(cudaMemcpy(dal, alpha_h, 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dbe, beta_h, 8, cudaMemcpyHostToDevice));

  cublasLtMatmulDesc_t op;
  CHECK_LT(cublasLtMatmulDescCreate(&op, cb.comp, cb.scale));
  CHECK_LT(set_desc(op, CUBLASLT_MATMUL_DESC_TRANSA, (int32_t)t.ta));
  CHECK_LT(set_desc(op, CUBLASLT_MATMUL_DESC_TRANSB, (int32_t)t.tb));
  CHECK_LT(set_desc(op, CUBLASLT_MATMUL_DESC_POINTER_MODE,
                    (int32_t)(t.device ? CUBLASLT_POINTER_MODE_DEVICE : CUBLASLT_POINTER_MODE_HOST)));
  CHECK_LT(set_desc(op, CUBLASLT_MATMUL_DESC_EPILOGUE, (uint32_t)e));
  if (bias_in(e) || bias_out(e)) {
    CHECK_LT(set_desc(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, dbias));
    CHECK_LT(set_desc(op, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, (int64_t)bstride));
    CHECK_LT(set_desc(op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, (int32_t)cb.cd));
  }
  if (mask || gaux) {
    CHECK_LT(set_desc(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, daux));
    CHECK_LT(set_desc(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, (int64_t)aux_ld));
    CHECK_LT(set_desc(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, (int64_t)aux_stride));
  }
  cublasLtMatrixLayout_t la, lb, lc, ld;
  CHECK_LT(cublasLtMatrixLayoutCreate(&la, cb.ab, ar, ac, lda));
  CHECK_LT(cublasLtMatrixLayoutCreate(&lb, cb.ab, br, bc, ldb));
  CHECK_LT(cublasLtMatrixLayoutCreate(&lc, cb.cd, m, n, ldc));
  CHECK_LT(cublasLtMatrixLayoutCreate(&ld, cb.cd, m, n, ldd));
  const cublasLtMatrixLayout_t lays[] = {la, lb, lc, ld};
  const int64_t strides[] = {sa, sb, sc, sd};
  const bool rows[] = {arow, brow, crow, drow};
  for (int i = 0; i < 4; ++i)
    if (rows[i]) CHECK_LT(set_layout(lays[i], CUBLASLT_MATRIX_LAYOUT_ORDER, (int32_t)CUBLASLT_ORDER_ROW));
  for (int i = 0; i < 4 && batch > 1; ++i) {
    CHECK_LT(set_layout(lays[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, (int32_t)batch));
    CHECK_LT(set_layout(lays[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, strides[i]));
  }
  cublasLtMatmulPreference_t pref;
  CHECK_LT(cublasLtMatmulPreferenceCreate(&pref));
  const uint64_t no_workspace = 0;
  CHECK_LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &no_workspace,
                                                sizeof no_workspace));
  cublasLtMatmulHeuristicResult_t heur[2];
  int found = 0;
  CHECK_LT(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, ld, pref, 2, heur, &found));
  if (found < 1 || heur[0].state != CUBLAS_STATUS_SUCCESS || heur[0].workspaceSize != 0) {
    std::fprintf(stderr, "FAIL heuristic: %d results, state %d, workspace %zu\n", found, (int)heur[0].state,
                 heur[0].workspaceSize);
    return 1;
  }
  CHECK_LT(cublasLtMatmul(lt, op, t.device ? dal : (const void*)alpha_h, da, la, db, lb,
                          t.device ? dbe : (const void*)beta_h, dc, lc, dd, ld, &heur[0].algo, nullptr, 0, 0));
  std::vector<unsigned char> got_d(t.in_place ? c.size() : d.size()), got_c(c.size()), got_bias(bias.size()),
      got_aux(aux.size());
  CHECK(cudaMemcpy(got_d.data(), dd, got_d.size(), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(got_c.data(), dc, got_c.size(), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(got_bias.data(), dbias, got_bias.size(), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(got_aux.data(), daux, got_aux.size(), cudaMemcpyDeviceToHost));

  const bool f64 = cb.cd == CUDA_R_64F;
  const double u_acc = f64 ? 0x1p-53 : 0x1p-24, u_out = unit(cb.cd), e_f = f64 ? 0x1p-45 : 0x1p-20;
  for (int q = 0; q < batch; ++q) {
    std::vector<double> row_sum(m, 0), row_tol(m, 0), row_abs(m, 0);
    if (!t.in_place)  // D's padding and the gap to the next batch
      for (long at = 0; at < sd; ++at) {
        const long i = drow ? at / ldd : at % ldd, j = drow ? at % ldd : at / ldd;
        const double g = get(cb.cd, got_d.data(), q * sd + at);
        if ((i >= m || j >= n) && g != sentinel) return fail(t, "D padding", q, i, j, g, sentinel, 0);
      }
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < m; ++i) {
        const double g = get(cb.cd, got_d.data(), q * sd + ix(drow, i, j, ldd));
        double x = 0, mag = 0;
        for (long p = 0; p < k; ++p) {
          const long ai = tra ? ix(arow, p, i, lda) : ix(arow, i, p, lda);
          const long bi = trb ? ix(brow, j, p, ldb) : ix(brow, p, j, ldb);
          const double av = round_in(cb.round, get(cb.ab, a.data(), q * sa + ai));
          const double bv = round_in(cb.round, get(cb.ab, b.data(), q * sb + bi));
          x += alpha_v * av * bv;
          mag += std::fabs(alpha_v * av * bv);
        }
        if (!t.beta_zero) {
          const double cv = get(cb.cd, c.data(), q * sc + ix(crow, i, j, ldc));
          x += beta_v * cv;
          mag += std::fabs(beta_v * cv);
        }
        if (bias_in(e)) {
          const double bv = get(cb.cd, bias.data(), q * bstride + i);
          x += bv;
          mag += std::fabs(bv);
        }
        const double tol_x = (std::max(k, 4) * u_acc + u_out) * mag + (cb.cd == CUDA_R_16F ? 0x1p-25 : 0);
        double want = x, tol = tol_x;
        const long at = i + j * aux_ld;
        if (relu_act(e)) want = x > 0 ? x : 0;
        if (gelu_act(e)) {
          want = gelu_ref(x);
          tol = 1.2 * tol_x + u_out * std::fabs(want) + e_f * (1 + std::fabs(x));
        }
        if (mask_in(e)) {
          const unsigned char byte = aux[q * aux_stride / 8 + at / 8];
          want = (byte >> (at % 8)) & 1 ? x : 0;
        }
        if (gaux_in(e)) {
          const double gg = gelu_grad_ref(get(cb.cd, aux.data(), q * aux_stride + at));
          want = x * gg;
          tol = tol_x * std::fabs(gg) + u_out * std::fabs(want) + e_f * (1 + std::fabs(x));
        }
        ++checks;
        if (!(std::fabs(g - want) <= tol)) return fail(t, "D", q, i, j, g, want, tol);
        if (mask_out(e) && std::fabs(x) > tol_x) {
          const unsigned char byte = got_aux[q * aux_stride / 8 + at / 8];
          const bool bit = (byte >> (at % 8)) & 1;
          ++checks;
          if (bit != (x > 0)) return fail(t, "ReLU mask bit", q, i, j, bit, x > 0, 0);
        }
        if (gaux_out(e)) {
          const double gx = get(cb.cd, got_aux.data(), q * aux_stride + at);
          ++checks;
          if (!(std::fabs(gx - x) <= tol_x)) return fail(t, "GELU aux", q, i, j, gx, x, tol_x);
        }
        row_sum[i] += want;
        row_tol[i] += tol + u_out * std::fabs(want);
        row_abs[i] += std::fabs(want);
      }
    if (!t.in_place)  // C is an input only
      for (long i = 0; i < sc; ++i)
        if (std::memcmp(&got_c[(q * sc + i) * ed], &c[(q * sc + i) * ed], ed) != 0)
          return fail(t, "C (input) changed at", q, i, 0, get(cb.cd, got_c.data(), q * sc + i),
                      get(cb.cd, c.data(), q * sc + i), 0);
    if (!bias_out(e)) continue;
    for (long i = 0; i < bstride; ++i) {
      const double g = get(cb.cd, got_bias.data(), q * bstride + i);
      if (i >= blen) {
        if (!std::isnan(g)) return fail(t, "bias gradient padding", q, i, 0, g, nan, 0);
        continue;
      }
      double want = 0, tol = 0;
      if (e == CUBLASLT_EPILOGUE_BGRADA || e == CUBLASLT_EPILOGUE_BGRADB) {
        double s = 0, sabs = 0;
        for (long p = 0; p < k; ++p) {
          const double v =
              e == CUBLASLT_EPILOGUE_BGRADA
                  ? get(cb.ab, a.data(), q * sa + (tra ? ix(arow, p, i, lda) : ix(arow, i, p, lda)))
                  : get(cb.ab, b.data(), q * sb + (trb ? ix(brow, i, p, ldb) : ix(brow, p, i, ldb)));
          s += v;
          sabs += std::fabs(v);
        }
        want = s;
        tol = std::max(k, 4) * u_acc * sabs + u_out * std::fabs(s) + (cb.cd == CUDA_R_16F ? 0x1p-25 : 0);
      } else {
        want = row_sum[i];
        tol = row_tol[i] + std::max(n, 4) * u_acc * row_abs[i] + u_out * std::fabs(want) +
              (cb.cd == CUDA_R_16F ? 0x1p-25 : 0);
      }
      ++checks;
      if (!(std::fabs(g - want) <= tol)) return fail(t, "bias gradient", q, i, 0, g, want, tol);
    }
  }
  for (auto l : lays) CHECK_LT(cublasLtMatrixLayoutDestroy(l));
  CHECK_LT(cublasLtMatmulDescDestroy(op));
  CHECK_LT(cublasLtMatmulPreferenceDestroy(pref));
  for (void* p : {da, db, dc, dbias, daux, dal, dbe}) CHECK(cudaFree(p));
  if (!t.in_place) CHECK(cudaFree(dd));
  return 0;
}

static const cublasOperation_t kOps[] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};

static int part_types(cublasLtHandle_t lt) {
  const int sizes[] = {1, 17, 129};
  int v = 0;
  for (const Combo& cb : kCombos)
    for (int mi = 0; mi < 3; ++mi)
      for (int ni = 0; ni < 3; ++ni)
        for (int ki = 0; ki < 3; ++ki) {
          if ((mi == 2) + (ni == 2) + (ki == 2) > 1) continue;
          ++v;
          const unsigned order = v % 4 == 1 ? (v / 4) % 15 + 1 : 0;  // every mixture of orders in turn
          Case t{&cb, "DEFAULT", CUBLASLT_EPILOGUE_DEFAULT, kOps[v % 3], kOps[(v / 3) % 3], sizes[mi], sizes[ni],
                 sizes[ki], v % 3 == 0 ? 2 : 1, v % 2 == 1, v % 5 == 0, v % 4 == 0, order};
          if (run_case(lt, t)) return 1;
        }
  return 0;
}

static int part_epilogues(cublasLtHandle_t lt) {
  struct Shape {
    int m, n, k;
  };
  const Shape shapes[] = {{17, 17, 17}, {129, 17, 33}, {1, 33, 129}};
  int v = 0;
  for (const Epi& ep : kEpilogues)
    for (const Combo* cb : kEpiCombos)
      for (const Shape& s : shapes) {
        ++v;
        // Some cases row-major; D stays column-major where the epilogue has an aux matrix.
        unsigned order = v % 4 == 3 ? (v / 4) % 15 + 1 : 0;
        if (mask_in(ep.e) || mask_out(ep.e) || gaux_in(ep.e) || gaux_out(ep.e)) order &= ~12u;  // D (and C: D == C)
        Case t{cb, ep.name, ep.e, kOps[v % 3], kOps[(v / 3) % 3], s.m, s.n, s.k, v % 3 == 1 ? 2 : 1, v % 2 == 0,
               v % 7 == 0, v % 5 == 0, order};
        if (run_case(lt, t)) return 1;
      }
  return 0;
}

static int part_multistage(cublasLtHandle_t lt) {
  struct Shape {
    int m, n, k;
  };
  // On and off the 128 x 128 tile, k tails inside a 32-element chunk, k = 1,
  // more k tiles than the 4 stages.
  const Shape shapes[] = {{128, 128, 32}, {130, 257, 41}, {1, 136, 200}, {257, 9, 1}, {72, 130, 264}};
  const Combo* combos[] = {&kCombos[0], &kCombos[1], &kCombos[2], &kCombos[3], &kCombos[4]};
  int v = 0;
  for (const Epi& ep : kEpilogues)
    for (const Shape& s : shapes) {
      ++v;
      unsigned order = v % 3 == 0 ? (v / 3) % 15 + 1 : 0;
      if (mask_in(ep.e) || mask_out(ep.e) || gaux_in(ep.e) || gaux_out(ep.e)) order &= ~12u;
      Case t{combos[v % 5], ep.name, ep.e, kOps[v % 3], kOps[(v / 3) % 3], s.m, s.n, s.k, v % 4 == 1 ? 2 : 1,
             v % 2 == 0, v % 7 == 0, v % 5 == 0, order, true};
      if (run_case(lt, t)) return 1;
    }
  return 0;
}

// The Hopper kernel's calls (run with --gpu h100): the 16-bit combinations
// in every transpose pair (N/T/C rotated, A and B K-major or MN-major) and
// FP8 with K-major A and B (op(A) = A^T and op(B) = B of column-major
// storage, or A not transposed but row-major, B transposed but row-major:
// the same bytes), epilogue DEFAULT, 16-byte aligned; shapes on and off the
// 128 x 128 tile, k tails inside a stage, more K stages than the ring's
// four (twice round for FP8 at k = 1030). The last cases: two with an
// epilogue (the multistage kernel on an H100) and three NN ones.
static int part_hopper(cublasLtHandle_t lt) {
  struct Shape {
    int m, n, k;
  };
  const Shape shapes[] = {{128, 128, 64}, {130, 257, 41}, {1, 136, 200}, {257, 9, 1}, {72, 130, 264},
                          {256, 384, 520}, {64, 128, 1030}};
  std::vector<const Combo*> combos = {&kCombos[0], &kCombos[1], &kCombos[2], &kCombos[3], &kCombos[4]};
  for (const Combo& c : kFp8Combos) combos.push_back(&c);
  int v = 0;
  for (const Combo* cb : combos)
    for (const Shape& s : shapes) {
      ++v;
      const bool fp8 = cb->ab == CUDA_R_8F_E4M3;
      const bool a_row = v % 3 == 1, b_row = v % 4 == 2;  // FP8: the same K-major bytes, described row-major
      const unsigned order = (a_row ? 1u : 0u) | (b_row ? 2u : 0u) | (v % 5 == 0 ? 4u : 0u) | (v % 7 == 3 ? 8u : 0u);
      const cublasOperation_t ta = fp8 ? (a_row ? CUBLAS_OP_N : CUBLAS_OP_T) : kOps[v % 3];
      const cublasOperation_t tb = fp8 ? (b_row ? CUBLAS_OP_T : CUBLAS_OP_N) : kOps[(v / 3) % 3];
      Case t{cb, "DEFAULT", CUBLASLT_EPILOGUE_DEFAULT, ta, tb, s.m, s.n, s.k, v % 3 == 2 ? 2 : 1, v % 2 == 0,
             v % 5 == 1, v % 6 == 0, order, true};
      if (run_case(lt, t)) return 1;
    }
  for (int i = 0; i < 5; ++i) {  // BIAS: not the Hopper kernel's
    Case t{combos[i], i % 2 ? "BIAS" : "DEFAULT", i % 2 ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT,
           i % 2 ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, 130, 72, 96, 1, false, false, false, 0, true};
    if (run_case(lt, t)) return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  const std::string part = argc > 1 ? argv[1] : "all";
  cublasLtHandle_t lt;
  CHECK_LT(cublasLtCreate(&lt));
  if ((part == "types" || part == "all") && part_types(lt)) return 1;
  if ((part == "epilogues" || part == "all") && part_epilogues(lt)) return 1;
  if ((part == "multistage" || part == "all") && part_multistage(lt)) return 1;
  if (part == "hopper" && part_hopper(lt)) return 1;
  CHECK_LT(cublasLtDestroy(lt));
  std::printf("PASS cublaslt_matmul %s (%ld values checked)\n", part.c_str(), checks);
  return 0;
}
