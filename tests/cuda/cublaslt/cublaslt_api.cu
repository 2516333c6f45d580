// cuBLASLt's bookkeeping calls: handle, versions, status strings, matmul
// descriptor / matrix layout / preference attributes (defaults, round trips,
// size queries, wrong sizes), descriptors initialized on the caller's stack
// (the *Init helpers) used by a matmul with algo == NULL, the heuristic, and
// cublasLtMatmul's invalid-argument (INVALID_VALUE) and unsupported
// (NOT_SUPPORTED, one stderr line naming the combination) statuses; an
// entry point softgpu does not implement returns NOT_SUPPORTED and says so.
#include <cstring>
#include <vector>

#include "common_lt.cuh"

template <typename T>
static int expect_desc(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t a, T want, const char* what) {
  T got{};
  size_t written = 0;
  CHECK_LT(cublasLtMatmulDescGetAttribute(d, a, &got, sizeof got, &written));
  if (written != sizeof got || std::memcmp(&got, &want, sizeof got) != 0) {
    std::fprintf(stderr, "FAIL desc attribute %s: wrong value (written %zu)\n", what, written);
    return 1;
  }
  return 0;
}
template <typename T>
static int expect_layout(cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t a, T want, const char* what) {
  T got{};
  size_t written = 0;
  CHECK_LT(cublasLtMatrixLayoutGetAttribute(l, a, &got, sizeof got, &written));
  if (written != sizeof got || std::memcmp(&got, &want, sizeof got) != 0) {
    std::fprintf(stderr, "FAIL layout attribute %s: wrong value\n", what);
    return 1;
  }
  return 0;
}

static int versions() {
  if (cublasLtGetVersion() != (size_t)CUBLAS_VERSION || cublasLtGetCudartVersion() != (size_t)CUDART_VERSION) {
    std::fprintf(stderr, "FAIL version %zu / cudart %zu\n", cublasLtGetVersion(), cublasLtGetCudartVersion());
    return 1;
  }
  int major = -1, minor = -1, patch = -1;
  CHECK_LT(cublasLtGetProperty(MAJOR_VERSION, &major));
  CHECK_LT(cublasLtGetProperty(MINOR_VERSION, &minor));
  CHECK_LT(cublasLtGetProperty(PATCH_LEVEL, &patch));
  if (major != CUBLAS_VER_MAJOR || minor != CUBLAS_VER_MINOR || patch != CUBLAS_VER_PATCH) return 1;
  if (std::strcmp(cublasLtGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED), "CUBLAS_STATUS_NOT_SUPPORTED") != 0) return 1;
  if (std::strlen(cublasLtGetStatusString(CUBLAS_STATUS_INVALID_VALUE)) == 0) return 1;
  EXPECT_LT(cublasLtCreate(nullptr), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_LT(cublasLtDestroy(nullptr), CUBLAS_STATUS_NOT_INITIALIZED);
  return 0;
}

static int attributes() {
  cublasLtMatmulDesc_t d;
  CHECK_LT(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F));
  if (expect_desc(d, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, (int32_t)CUBLAS_COMPUTE_32F_FAST_TF32, "COMPUTE_TYPE") ||
      expect_desc(d, CUBLASLT_MATMUL_DESC_SCALE_TYPE, (int32_t)CUDA_R_32F, "SCALE_TYPE") ||
      expect_desc(d, CUBLASLT_MATMUL_DESC_TRANSA, (int32_t)CUBLAS_OP_N, "TRANSA") ||
      expect_desc(d, CUBLASLT_MATMUL_DESC_POINTER_MODE, (int32_t)CUBLASLT_POINTER_MODE_HOST, "POINTER_MODE") ||
      expect_desc(d, CUBLASLT_MATMUL_DESC_EPILOGUE, (uint32_t)CUBLASLT_EPILOGUE_DEFAULT, "EPILOGUE") ||
      expect_desc(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, (const void*)nullptr, "BIAS_POINTER"))
    return 1;
  size_t need = 0;
  CHECK_LT(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, nullptr, 0, &need));
  if (need != sizeof(int64_t)) return 1;
  CHECK_LT(set_desc(d, CUBLASLT_MATMUL_DESC_TRANSB, (int32_t)CUBLAS_OP_T));
  CHECK_LT(set_desc(d, CUBLASLT_MATMUL_DESC_EPILOGUE, (uint32_t)CUBLASLT_EPILOGUE_GELU_AUX_BIAS));
  CHECK_LT(set_desc(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, (void*)&need));
  CHECK_LT(set_desc(d, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, (int64_t)136));
  if (expect_desc(d, CUBLASLT_MATMUL_DESC_TRANSB, (int32_t)CUBLAS_OP_T, "TRANSB") ||
      expect_desc(d, CUBLASLT_MATMUL_DESC_EPILOGUE, (uint32_t)CUBLASLT_EPILOGUE_GELU_AUX_BIAS, "EPILOGUE") ||
      expect_desc(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, (void*)&need, "BIAS_POINTER") ||
      expect_desc(d, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, (int64_t)136, "AUX_LD"))
    return 1;
  int64_t wide = 1;
  EXPECT_LT(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &wide, sizeof wide),
            CUBLAS_STATUS_INVALID_VALUE);  // TRANSA is int32_t
  EXPECT_LT(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, nullptr, 4), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_LT(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &wide, sizeof wide, nullptr),
            CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_LT(set_desc(d, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, (void*)nullptr), CUBLAS_STATUS_NOT_SUPPORTED);
  CHECK_LT(cublasLtMatmulDescDestroy(d));

  cublasLtMatrixLayout_t l;
  CHECK_LT(cublasLtMatrixLayoutCreate(&l, CUDA_R_16BF, 17, 5, 20));
  if (expect_layout(l, CUBLASLT_MATRIX_LAYOUT_TYPE, (uint32_t)CUDA_R_16BF, "TYPE") ||
      expect_layout(l, CUBLASLT_MATRIX_LAYOUT_ORDER, (int32_t)CUBLASLT_ORDER_COL, "ORDER") ||
      expect_layout(l, CUBLASLT_MATRIX_LAYOUT_ROWS, (uint64_t)17, "ROWS") ||
      expect_layout(l, CUBLASLT_MATRIX_LAYOUT_COLS, (uint64_t)5, "COLS") ||
      expect_layout(l, CUBLASLT_MATRIX_LAYOUT_LD, (int64_t)20, "LD") ||
      expect_layout(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, (int32_t)1, "BATCH_COUNT") ||
      expect_layout(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, (int64_t)0, "STRIDED_BATCH_OFFSET"))
    return 1;
  CHECK_LT(set_layout(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, (int32_t)4));
  CHECK_LT(set_layout(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, (int64_t)123));
  if (expect_layout(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, (int32_t)4, "BATCH_COUNT") ||
      expect_layout(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, (int64_t)123, "STRIDED_BATCH_OFFSET"))
    return 1;
  EXPECT_LT(set_layout(l, CUBLASLT_MATRIX_LAYOUT_ROWS, (int32_t)3), CUBLAS_STATUS_INVALID_VALUE);  // uint64_t
  CHECK_LT(cublasLtMatrixLayoutDestroy(l));

  cublasLtMatmulPreference_t p;
  CHECK_LT(cublasLtMatmulPreferenceCreate(&p));
  const uint64_t ws = 1 << 20;
  CHECK_LT(cublasLtMatmulPreferenceSetAttribute(p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
  uint64_t got = 0;
  size_t written = 0;
  CHECK_LT(cublasLtMatmulPreferenceGetAttribute(p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &got, sizeof got, &written));
  if (got != ws || written != sizeof got) return 1;
  CHECK_LT(cublasLtMatmulPreferenceDestroy(p));
  return 0;
}

// D = A B + C for 2x2 f32 matrices on descriptors initialized on the stack,
// algo NULL, against the hand-computed product.
static int stack_descriptors(cublasLtHandle_t lt) {
  cublasLtMatmulDescOpaque_t op;
  cublasLtMatrixLayoutOpaque_t l;
  CHECK_LT(cublasLtMatmulDescInit(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  CHECK_LT(cublasLtMatrixLayoutInit(&l, CUDA_R_32F, 2, 2, 2));
  const float a[4] = {1, 3, 2, 4}, b[4] = {5, 7, 6, 8}, c[4] = {1, 1, 1, 1};  // column-major
  const float want[4] = {1 + 19, 1 + 43, 1 + 22, 1 + 50};                     // A B + C
  float *da, *db, *dc, *dd;
  for (float** p : {&da, &db, &dc, &dd}) CHECK(cudaMalloc(p, sizeof a));
  CHECK(cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, c, sizeof c, cudaMemcpyHostToDevice));
  const float one = 1;
  CHECK_LT(cublasLtMatmul(lt, &op, &one, da, &l, db, &l, &one, dc, &l, dd, &l, nullptr, nullptr, 0, 0));
  float got[4];
  CHECK(cudaMemcpy(got, dd, sizeof got, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 4; ++i)
    if (got[i] != want[i]) {
      std::fprintf(stderr, "FAIL stack descriptors: D[%d] = %g, expected %g\n", i, got[i], want[i]);
      return 1;
    }
  for (float* p : {da, db, dc, dd}) CHECK(cudaFree(p));
  return 0;
}

static int statuses(cublasLtHandle_t lt) {
  float* buf;
  CHECK(cudaMalloc(&buf, 4096));
  CHECK(cudaMemset(buf, 0, 4096));
  cublasLtMatmulDesc_t op;
  CHECK_LT(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasLtMatrixLayout_t l8, l8x4, l8_ld4;
  CHECK_LT(cublasLtMatrixLayoutCreate(&l8, CUDA_R_32F, 8, 8, 8));
  CHECK_LT(cublasLtMatrixLayoutCreate(&l8x4, CUDA_R_32F, 8, 4, 8));
  CHECK_LT(cublasLtMatrixLayoutCreate(&l8_ld4, CUDA_R_32F, 8, 8, 4));
  cublasLtMatmulPreference_t pref;
  CHECK_LT(cublasLtMatmulPreferenceCreate(&pref));
  const float one = 1;
  auto mm = [&](cublasLtHandle_t h, cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t la, cublasLtMatrixLayout_t lb) {
    return cublasLtMatmul(h, d, &one, buf, la, buf, lb, &one, buf + 512, l8, buf + 512, l8, nullptr, nullptr, 0, 0);
  };
  CHECK_LT(mm(lt, op, l8, l8));
  cublasLtMatmulHeuristicResult_t r;
  int found = -1;
  EXPECT_LT(cublasLtMatmulAlgoGetHeuristic(lt, op, l8, l8, l8, l8, pref, 0, &r, &found), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_LT(mm(nullptr, op, l8, l8), CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_LT(mm(lt, op, l8x4, l8), CUBLAS_STATUS_INVALID_VALUE);    // A is 8x4: k = 4, B has 8 rows
  EXPECT_LT(mm(lt, op, l8_ld4, l8), CUBLAS_STATUS_INVALID_VALUE);  // ld < rows
  EXPECT_LT(cublasLtMatmul(lt, op, nullptr, buf, l8, buf, l8, &one, buf, l8, buf, l8, nullptr, nullptr, 0, 0),
            CUBLAS_STATUS_INVALID_VALUE);  // no alpha
  CHECK_LT(set_desc(op, CUBLASLT_MATMUL_DESC_EPILOGUE, (uint32_t)CUBLASLT_EPILOGUE_BIAS));
  EXPECT_LT(mm(lt, op, l8, l8), CUBLAS_STATUS_INVALID_VALUE);  // no bias pointer
  CHECK_LT(set_desc(op, CUBLASLT_MATMUL_DESC_EPILOGUE, (uint32_t)CUBLASLT_EPILOGUE_RELU_AUX));
  CHECK_LT(set_desc(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, (void*)(buf + 768)));
  CHECK_LT(set_desc(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, (int64_t)100));
  EXPECT_LT(mm(lt, op, l8, l8), CUBLAS_STATUS_INVALID_VALUE);  // mask ld not a multiple of 128
  CHECK_LT(set_desc(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, (int64_t)128));
  CHECK_LT(mm(lt, op, l8, l8));
  CHECK_LT(set_desc(op, CUBLASLT_MATMUL_DESC_EPILOGUE, (uint32_t)CUBLASLT_EPILOGUE_DEFAULT));
  CHECK_LT(set_desc(op, CUBLASLT_MATMUL_DESC_POINTER_MODE, (int32_t)CUBLASLT_POINTER_MODE_DEVICE_VECTOR));
  EXPECT_LT(mm(lt, op, l8, l8), CUBLAS_STATUS_NOT_SUPPORTED);
  CHECK_LT(set_desc(op, CUBLASLT_MATMUL_DESC_POINTER_MODE, (int32_t)CUBLASLT_POINTER_MODE_HOST));
  cublasLtMatrixLayout_t row, col32, row8x4;
  CHECK_LT(cublasLtMatrixLayoutCreate(&row, CUDA_R_32F, 8, 8, 8));
  CHECK_LT(set_layout(row, CUBLASLT_MATRIX_LAYOUT_ORDER, (int32_t)CUBLASLT_ORDER_ROW));
  CHECK_LT(mm(lt, op, row, l8));
  CHECK_LT(cublasLtMatrixLayoutCreate(&col32, CUDA_R_32F, 8, 8, 8));
  CHECK_LT(set_layout(col32, CUBLASLT_MATRIX_LAYOUT_ORDER, (int32_t)CUBLASLT_ORDER_COL32));
  EXPECT_LT(mm(lt, op, col32, l8), CUBLAS_STATUS_NOT_SUPPORTED);
  // Row-major: ld covers a row. An 8x4 A with ld 4 is valid (column-major
  // would need 8), an 8x8 one with ld 4 is not.
  cublasLtMatrixLayout_t row4x8;
  CHECK_LT(cublasLtMatrixLayoutCreate(&row8x4, CUDA_R_32F, 8, 4, 4));
  CHECK_LT(set_layout(row8x4, CUBLASLT_MATRIX_LAYOUT_ORDER, (int32_t)CUBLASLT_ORDER_ROW));
  CHECK_LT(cublasLtMatrixLayoutCreate(&row4x8, CUDA_R_32F, 4, 8, 8));
  CHECK_LT(set_layout(row4x8, CUBLASLT_MATRIX_LAYOUT_ORDER, (int32_t)CUBLASLT_ORDER_ROW));
  CHECK_LT(mm(lt, op, row8x4, row4x8));
  CHECK_LT(set_layout(row8x4, CUBLASLT_MATRIX_LAYOUT_COLS, (uint64_t)8));
  EXPECT_LT(mm(lt, op, row8x4, l8), CUBLAS_STATUS_INVALID_VALUE);
  // An aux epilogue with a row-major D.
  CHECK_LT(set_desc(op, CUBLASLT_MATMUL_DESC_EPILOGUE, (uint32_t)CUBLASLT_EPILOGUE_RELU_AUX));
  EXPECT_LT(cublasLtMatmul(lt, op, &one, buf, l8, buf, l8, &one, buf + 512, row, buf + 512, row, nullptr, nullptr,
                           0, 0),
            CUBLAS_STATUS_NOT_SUPPORTED);
  CHECK_LT(set_desc(op, CUBLASLT_MATMUL_DESC_EPILOGUE, (uint32_t)CUBLASLT_EPILOGUE_DEFAULT));
  cublasLtMatrixLayout_t h8, d8;
  CHECK_LT(cublasLtMatrixLayoutCreate(&h8, CUDA_R_16F, 8, 8, 8));
  CHECK_LT(cublasLtMatrixLayoutCreate(&d8, CUDA_R_64F, 8, 8, 8));
  EXPECT_LT(cublasLtMatmul(lt, op, &one, buf, h8, buf, h8, &one, buf, d8, buf, d8, nullptr, nullptr, 0, 0),
            CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_LT(cublasLtMatmulAlgoGetHeuristic(lt, op, h8, h8, d8, d8, pref, 1, &r, &found), CUBLAS_STATUS_NOT_SUPPORTED);
  if (found != 0) return 1;
  cublasLtMatmulDesc_t wrong_scale;
  CHECK_LT(cublasLtMatmulDescCreate(&wrong_scale, CUBLAS_COMPUTE_32F, CUDA_R_64F));
  EXPECT_LT(mm(lt, wrong_scale, l8, l8), CUBLAS_STATUS_NOT_SUPPORTED);
  // FP8 (e4m3 A and B, f16 D): on an sm_90 GPU only, TN only, ld a multiple
  // of 16 bytes; the heuristic says so as the matmul does.
  int dev = 0, major = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  cublasLtMatmulDesc_t op8;
  CHECK_LT(cublasLtMatmulDescCreate(&op8, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasLtMatrixLayout_t q16, q16_ld24, hd16;
  CHECK_LT(cublasLtMatrixLayoutCreate(&q16, CUDA_R_8F_E4M3, 16, 16, 16));
  CHECK_LT(cublasLtMatrixLayoutCreate(&q16_ld24, CUDA_R_8F_E4M3, 16, 16, 24));
  CHECK_LT(cublasLtMatrixLayoutCreate(&hd16, CUDA_R_16F, 16, 16, 16));
  auto heur8 = [&](cublasLtMatrixLayout_t la) {
    return cublasLtMatmulAlgoGetHeuristic(lt, op8, la, q16, hd16, hd16, pref, 1, &r, &found);
  };
  EXPECT_LT(heur8(q16), CUBLAS_STATUS_NOT_SUPPORTED);  // NN
  CHECK_LT(set_desc(op8, CUBLASLT_MATMUL_DESC_TRANSA, (int32_t)CUBLAS_OP_T));
  if (major == 9) {
    CHECK_LT(heur8(q16));
    EXPECT_LT(heur8(q16_ld24), CUBLAS_STATUS_NOT_SUPPORTED);  // ld 24 bytes
  } else {
    EXPECT_LT(heur8(q16), CUBLAS_STATUS_NOT_SUPPORTED);  // not an sm_90 GPU
  }
  EXPECT_LT(cublasLtMatrixTransform(lt, nullptr, &one, buf, l8, &one, buf, l8, buf, l8, 0),
            CUBLAS_STATUS_NOT_SUPPORTED);
  CHECK(cudaDeviceSynchronize());
  for (auto x : {q16, q16_ld24, hd16}) CHECK_LT(cublasLtMatrixLayoutDestroy(x));
  CHECK_LT(cublasLtMatmulDescDestroy(op8));
  for (auto x : {l8, l8x4, l8_ld4, row, col32, row8x4, row4x8, h8, d8}) CHECK_LT(cublasLtMatrixLayoutDestroy(x));
  CHECK_LT(cublasLtMatmulDescDestroy(op));
  CHECK_LT(cublasLtMatmulDescDestroy(wrong_scale));
  CHECK_LT(cublasLtMatmulPreferenceDestroy(pref));
  CHECK(cudaFree(buf));
  return 0;
}

int main() {
  cublasLtHandle_t lt;
  CHECK_LT(cublasLtCreate(&lt));
  if (versions() || attributes() || stack_descriptors(lt) || statuses(lt)) return 1;
  CHECK_LT(cublasLtDestroy(lt));
  std::printf("PASS cublaslt_api\n");
  return 0;
}
