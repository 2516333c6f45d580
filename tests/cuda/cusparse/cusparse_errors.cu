// cuSPARSE misuse and bookkeeping: the statuses of the handle, legacy and
// generic descriptor calls, SpMV and SpMM for a null handle
// (NOT_INITIALIZED), null or out-of-range arguments and mismatched sizes
// (INVALID_VALUE), and types or algorithms softgpu does not implement
// (NOT_SUPPORTED); a failed call leaves y untouched. Then descriptor
// getters round-trip, an SpMV on a stream set with cusparseSetStream, and an
// unimplemented routine (cusparseCreateCoo) returns NOT_SUPPORTED and says
// so once on stderr (captured here), the library still usable after it.
#include <unistd.h>

#include <string>

#include "common.cuh"

#define EXPECT_SP(call, want)                                                                  \
  do {                                                                                         \
    cusparseStatus_t s_ = (call);                                                              \
    if (s_ != (want)) {                                                                        \
      std::fprintf(stderr, "FAIL %s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__,    \
                   #call, cusparseGetErrorName(s_), #want);                                    \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)
#define INVALID CUSPARSE_STATUS_INVALID_VALUE

static int handle_calls() {
  EXPECT_SP(cusparseCreate(nullptr), INVALID);
  EXPECT_SP(cusparseDestroy(nullptr), CUSPARSE_STATUS_NOT_INITIALIZED);
  cusparseHandle_t h;
  CHECK_SP(cusparseCreate(&h));
  int v = 0;
  EXPECT_SP(cusparseGetVersion(nullptr, &v), CUSPARSE_STATUS_NOT_INITIALIZED);
  EXPECT_SP(cusparseGetVersion(h, nullptr), INVALID);
  CHECK_SP(cusparseGetVersion(h, &v));
  REQUIRE(v == CUSPARSE_VERSION, "version %d", v);
  CHECK_SP(cusparseGetProperty(MAJOR_VERSION, &v));
  REQUIRE(v == CUSPARSE_VER_MAJOR, "major %d", v);
  CHECK_SP(cusparseGetProperty(PATCH_LEVEL, &v));
  REQUIRE(v == CUSPARSE_VER_PATCH, "patch %d", v);
  EXPECT_SP(cusparseGetProperty((libraryPropertyType)7, &v), INVALID);
  cudaStream_t s = nullptr, got = nullptr;
  CHECK(cudaStreamCreate(&s));
  EXPECT_SP(cusparseSetStream(nullptr, s), CUSPARSE_STATUS_NOT_INITIALIZED);
  EXPECT_SP(cusparseGetStream(h, nullptr), INVALID);
  CHECK_SP(cusparseSetStream(h, s));
  CHECK_SP(cusparseGetStream(h, &got));
  REQUIRE(got == s, "stream");
  cusparsePointerMode_t pm;
  EXPECT_SP(cusparseSetPointerMode(h, (cusparsePointerMode_t)5), INVALID);
  EXPECT_SP(cusparseGetPointerMode(nullptr, &pm), CUSPARSE_STATUS_NOT_INITIALIZED);
  CHECK_SP(cusparseGetPointerMode(h, &pm));
  REQUIRE(pm == CUSPARSE_POINTER_MODE_HOST, "default pointer mode %d", (int)pm);
  REQUIRE(std::string(cusparseGetErrorName(CUSPARSE_STATUS_INVALID_VALUE)) == "CUSPARSE_STATUS_INVALID_VALUE", "name");
  REQUIRE(std::string(cusparseGetErrorName(CUSPARSE_STATUS_NOT_SUPPORTED)) == "CUSPARSE_STATUS_NOT_SUPPORTED", "name");
  REQUIRE(*cusparseGetErrorString(CUSPARSE_STATUS_ZERO_PIVOT) != 0, "string");
  CHECK_SP(cusparseDestroy(h));
  CHECK(cudaStreamDestroy(s));

  cusparseMatDescr_t md;
  EXPECT_SP(cusparseCreateMatDescr(nullptr), INVALID);
  CHECK_SP(cusparseCreateMatDescr(&md));
  REQUIRE(cusparseGetMatType(md) == CUSPARSE_MATRIX_TYPE_GENERAL && cusparseGetMatIndexBase(md) == CUSPARSE_INDEX_BASE_ZERO &&
              cusparseGetMatFillMode(md) == CUSPARSE_FILL_MODE_LOWER && cusparseGetMatDiagType(md) == CUSPARSE_DIAG_TYPE_NON_UNIT,
          "legacy descriptor defaults");
  CHECK_SP(cusparseSetMatType(md, CUSPARSE_MATRIX_TYPE_SYMMETRIC));
  CHECK_SP(cusparseSetMatIndexBase(md, CUSPARSE_INDEX_BASE_ONE));
  CHECK_SP(cusparseSetMatFillMode(md, CUSPARSE_FILL_MODE_UPPER));
  CHECK_SP(cusparseSetMatDiagType(md, CUSPARSE_DIAG_TYPE_UNIT));
  REQUIRE(cusparseGetMatType(md) == CUSPARSE_MATRIX_TYPE_SYMMETRIC && cusparseGetMatIndexBase(md) == CUSPARSE_INDEX_BASE_ONE &&
              cusparseGetMatFillMode(md) == CUSPARSE_FILL_MODE_UPPER && cusparseGetMatDiagType(md) == CUSPARSE_DIAG_TYPE_UNIT,
          "legacy descriptor set/get");
  EXPECT_SP(cusparseSetMatType(md, (cusparseMatrixType_t)9), INVALID);
  EXPECT_SP(cusparseSetMatIndexBase(md, (cusparseIndexBase_t)2), INVALID);
  EXPECT_SP(cusparseSetMatFillMode(nullptr, CUSPARSE_FILL_MODE_UPPER), INVALID);
  CHECK_SP(cusparseDestroyMatDescr(md));
  return 0;
}

// A 3x4 CSR matrix (int32, 0-based), x of 4 and y of 3 floats.
struct Fixture {
  void *off, *idx, *val, *x, *y;
  cusparseSpMatDescr_t a;
  cusparseDnVecDescr_t vx, vy;
  cusparseDnMatDescr_t b, c;
};

static int descriptors(Fixture& f) {
  const std::vector<int> off = {0, 2, 2, 3}, idx = {0, 3, 1};
  const std::vector<float> val = {1, 2, 3}, x = {1, 1, 1, 1}, y = {7, 7, 7};
  if (upload_raw(off, &f.off) || upload_raw(idx, &f.idx) || upload_raw(val, &f.val) || upload_raw(x, &f.x) ||
      upload_raw(y, &f.y))
    return 1;
  cusparseSpMatDescr_t m;
  const auto I32 = CUSPARSE_INDEX_32I;
  const auto Z = CUSPARSE_INDEX_BASE_ZERO;
  EXPECT_SP(cusparseCreateCsr(nullptr, 3, 4, 3, f.off, f.idx, f.val, I32, I32, Z, CUDA_R_32F), INVALID);
  EXPECT_SP(cusparseCreateCsr(&m, -1, 4, 3, f.off, f.idx, f.val, I32, I32, Z, CUDA_R_32F), INVALID);
  EXPECT_SP(cusparseCreateCsr(&m, 3, 4, -3, f.off, f.idx, f.val, I32, I32, Z, CUDA_R_32F), INVALID);
  EXPECT_SP(cusparseCreateCsr(&m, 3, 4, 3, f.off, f.idx, f.val, I32, I32, (cusparseIndexBase_t)2, CUDA_R_32F), INVALID);
  EXPECT_SP(cusparseCreateCsr(&m, 3, 4, 3, f.off, f.idx, f.val, CUSPARSE_INDEX_16U, I32, Z, CUDA_R_32F),
            CUSPARSE_STATUS_NOT_SUPPORTED);
  CHECK_SP(cusparseCreateCsr(&f.a, 3, 4, 3, f.off, f.idx, f.val, I32, I32, Z, CUDA_R_32F));
  int64_t r, c, n;
  void *p0, *p1, *p2;
  cusparseIndexType_t t0, t1;
  cusparseIndexBase_t bs;
  cudaDataType vt;
  CHECK_SP(cusparseCsrGet(f.a, &r, &c, &n, &p0, &p1, &p2, &t0, &t1, &bs, &vt));
  REQUIRE(r == 3 && c == 4 && n == 3 && p0 == f.off && p1 == f.idx && p2 == f.val && t0 == I32 && t1 == I32 && bs == Z &&
              vt == CUDA_R_32F, "CsrGet");
  EXPECT_SP(cusparseCscGet(f.a, &r, &c, &n, &p0, &p1, &p2, &t0, &t1, &bs, &vt), INVALID);
  cusparseFormat_t fmt;
  CHECK_SP(cusparseSpMatGetFormat(f.a, &fmt));
  REQUIRE(fmt == CUSPARSE_FORMAT_CSR, "format");
  CHECK_SP(cusparseSpMatGetSize(f.a, &r, &c, &n));
  REQUIRE(r == 3 && c == 4 && n == 3, "GetSize");
  EXPECT_SP(cusparseSpMatGetSize(nullptr, &r, &c, &n), INVALID);

  cusparseDnVecDescr_t v;
  EXPECT_SP(cusparseCreateDnVec(&v, -1, f.x, CUDA_R_32F), INVALID);
  EXPECT_SP(cusparseCreateDnVec(nullptr, 4, f.x, CUDA_R_32F), INVALID);
  CHECK_SP(cusparseCreateDnVec(&f.vx, 4, f.x, CUDA_R_32F));
  CHECK_SP(cusparseCreateDnVec(&f.vy, 3, f.y, CUDA_R_32F));
  CHECK_SP(cusparseDnVecGet(f.vx, &n, &p0, &vt));
  REQUIRE(n == 4 && p0 == f.x && vt == CUDA_R_32F, "DnVecGet");

  cusparseDnMatDescr_t d;
  EXPECT_SP(cusparseCreateDnMat(&d, 4, 2, 3, f.x, CUDA_R_32F, CUSPARSE_ORDER_COL), INVALID);  // ld < rows
  EXPECT_SP(cusparseCreateDnMat(&d, 2, 4, 3, f.x, CUDA_R_32F, CUSPARSE_ORDER_ROW), INVALID);  // ld < cols
  EXPECT_SP(cusparseCreateDnMat(&d, 4, 1, 4, f.x, CUDA_R_32F, (cusparseOrder_t)0), INVALID);
  EXPECT_SP(cusparseCreateDnMat(&d, -4, 1, 4, f.x, CUDA_R_32F, CUSPARSE_ORDER_COL), INVALID);
  CHECK_SP(cusparseCreateDnMat(&f.b, 4, 1, 4, f.x, CUDA_R_32F, CUSPARSE_ORDER_COL));
  CHECK_SP(cusparseCreateDnMat(&f.c, 3, 1, 1, f.y, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  int64_t ld;
  cusparseOrder_t o;
  CHECK_SP(cusparseDnMatGet(f.c, &r, &c, &ld, &p0, &vt, &o));
  REQUIRE(r == 3 && c == 1 && ld == 1 && p0 == f.y && o == CUSPARSE_ORDER_ROW, "DnMatGet");
  return 0;
}

static int products(Fixture& f) {
  cusparseHandle_t h;
  CHECK_SP(cusparseCreate(&h));
  const float one = 1, zero = 0;
  const auto N = CUSPARSE_OPERATION_NON_TRANSPOSE, T = CUSPARSE_OPERATION_TRANSPOSE;
  const auto ALG = CUSPARSE_SPMV_ALG_DEFAULT;
  size_t bytes;
  EXPECT_SP(cusparseSpMV(nullptr, N, &one, f.a, f.vx, &zero, f.vy, CUDA_R_32F, ALG, nullptr), CUSPARSE_STATUS_NOT_INITIALIZED);
  EXPECT_SP(cusparseSpMV(h, N, nullptr, f.a, f.vx, &zero, f.vy, CUDA_R_32F, ALG, nullptr), INVALID);
  EXPECT_SP(cusparseSpMV(h, N, &one, nullptr, f.vx, &zero, f.vy, CUDA_R_32F, ALG, nullptr), INVALID);
  EXPECT_SP(cusparseSpMV(h, T, &one, f.a, f.vx, &zero, f.vy, CUDA_R_32F, ALG, nullptr), INVALID);  // x 4, needs 3
  EXPECT_SP(cusparseSpMV(h, (cusparseOperation_t)5, &one, f.a, f.vx, &zero, f.vy, CUDA_R_32F, ALG, nullptr), INVALID);
  EXPECT_SP(cusparseSpMV(h, N, &one, f.a, f.vx, &zero, f.vy, CUDA_R_64F, ALG, nullptr), CUSPARSE_STATUS_NOT_SUPPORTED);
  EXPECT_SP(cusparseSpMV(h, N, &one, f.a, f.vx, &zero, f.vy, CUDA_R_32F, (cusparseSpMVAlg_t)99, nullptr), INVALID);
  EXPECT_SP(cusparseSpMV(h, N, &one, f.a, f.vx, &zero, f.vy, CUDA_R_32F, CUSPARSE_SPMV_COO_ALG1, nullptr),
            CUSPARSE_STATUS_NOT_SUPPORTED);
  EXPECT_SP(cusparseSpMV_bufferSize(h, N, &one, f.a, f.vx, &zero, f.vy, CUDA_R_32F, ALG, nullptr), INVALID);
  EXPECT_SP(cusparseSpMV_bufferSize(nullptr, N, &one, f.a, f.vx, &zero, f.vy, CUDA_R_32F, ALG, &bytes),
            CUSPARSE_STATUS_NOT_INITIALIZED);
  cusparseSpMatDescr_t half;
  CHECK_SP(cusparseCreateCsr(&half, 3, 4, 3, f.off, f.idx, f.val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                             CUSPARSE_INDEX_BASE_ZERO, CUDA_R_16F));
  EXPECT_SP(cusparseSpMV(h, N, &one, half, f.vx, &zero, f.vy, CUDA_R_32F, ALG, nullptr), CUSPARSE_STATUS_NOT_SUPPORTED);
  CHECK_SP(cusparseDestroySpMat(half));
  const auto MM = CUSPARSE_SPMM_ALG_DEFAULT;
  EXPECT_SP(cusparseSpMM(nullptr, N, N, &one, f.a, f.b, &zero, f.c, CUDA_R_32F, MM, nullptr), CUSPARSE_STATUS_NOT_INITIALIZED);
  EXPECT_SP(cusparseSpMM(h, N, T, &one, f.a, f.b, &zero, f.c, CUDA_R_32F, MM, nullptr), INVALID);  // op(B) 1x4
  EXPECT_SP(cusparseSpMM(h, T, N, &one, f.a, f.b, &zero, f.c, CUDA_R_32F, MM, nullptr), INVALID);  // op(A) 4x3
  EXPECT_SP(cusparseSpMM(h, N, (cusparseOperation_t)4, &one, f.a, f.b, &zero, f.c, CUDA_R_32F, MM, nullptr), INVALID);
  EXPECT_SP(cusparseSpMM(h, N, N, &one, f.a, f.b, nullptr, f.c, CUDA_R_32F, MM, nullptr), INVALID);
  EXPECT_SP(cusparseSpMM(h, N, N, &one, f.a, f.b, &zero, f.c, CUDA_R_32F, CUSPARSE_SPMM_COO_ALG1, nullptr),
            CUSPARSE_STATUS_NOT_SUPPORTED);
  std::vector<float> y(3);
  CHECK(cudaMemcpy(y.data(), f.y, sizeof(float) * 3, cudaMemcpyDeviceToHost));
  REQUIRE(y[0] == 7 && y[1] == 7 && y[2] == 7, "y written by a failed call: %g %g %g", y[0], y[1], y[2]);

  // The real thing on a stream of the handle's: y = A x = {3, 0, 3}, then C = 2 A B + C = {9, 0, 9}.
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK_SP(cusparseSetStream(h, s));
  CHECK_SP(cusparseSpMV(h, N, &one, f.a, f.vx, &zero, f.vy, CUDA_R_32F, ALG, nullptr));
  const float two = 2;
  CHECK_SP(cusparseSpMM(h, N, N, &two, f.a, f.b, &one, f.c, CUDA_R_32F, MM, nullptr));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(y.data(), f.y, sizeof(float) * 3, cudaMemcpyDeviceToHost));
  REQUIRE(y[0] == 9 && y[1] == 0 && y[2] == 9, "results %g %g %g", y[0], y[1], y[2]);
  CHECK_SP(cusparseDestroy(h));
  CHECK(cudaStreamDestroy(s));
  return 0;
}

// An unimplemented routine: NOT_SUPPORTED, one line on stderr for two calls.
static int unimplemented() {
  std::fflush(stderr);
  FILE* tmp = std::tmpfile();
  REQUIRE(tmp, "tmpfile");
  const int saved = dup(2);
  dup2(fileno(tmp), 2);
  cusparseSpMatDescr_t m = nullptr;
  const cusparseStatus_t s1 = cusparseCreateCoo(&m, 2, 2, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I,
                                                CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
  const cusparseStatus_t s2 = cusparseCreateCoo(&m, 3, 3, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I,
                                                CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::string text;
  std::rewind(tmp);
  for (int ch; (ch = std::fgetc(tmp)) != EOF;) text += (char)ch;
  std::fclose(tmp);
  std::fputs(text.c_str(), stderr);
  REQUIRE(s1 == CUSPARSE_STATUS_NOT_SUPPORTED && s2 == CUSPARSE_STATUS_NOT_SUPPORTED, "statuses %d %d", (int)s1, (int)s2);
  const std::string line = "softgpu cusparse: cusparseCreateCoo is not implemented yet\n";
  const size_t first = text.find(line);
  REQUIRE(first != std::string::npos, "message missing, stderr was: %s", text.c_str());
  REQUIRE(text.find(line, first + 1) == std::string::npos, "message printed twice");
  return 0;
}

int main() {
  Fixture f{};
  if (handle_calls() || descriptors(f) || products(f) || unimplemented()) return 1;
  CHECK_SP(cusparseDestroySpMat(f.a));
  CHECK_SP(cusparseDestroyDnVec(f.vx));
  CHECK_SP(cusparseDestroyDnVec(f.vy));
  CHECK_SP(cusparseDestroyDnMat(f.b));
  CHECK_SP(cusparseDestroyDnMat(f.c));
  for (void* p : {f.off, f.idx, f.val, f.x, f.y}) CHECK(cudaFree(p));
  std::printf("PASS cusparse_errors\n");
  return 0;
}
