// cublasSet/GetVector, cublasSet/GetMatrix, their Async and _64 forms,
// checked byte by byte against a CPU model of where each element must land:
// the destination starts filled with a sentinel byte, and every byte the
// call must not write still holds it afterwards. Element sizes 1, 4, 8 and
// 16 (cuDoubleComplex), unit and non-unit increments, leading dimensions
// above the row count; then the documented invalid values and a copy the
// runtime refuses (CUBLAS_STATUS_MAPPING_ERROR).
#include <vector>

#include "common.cuh"

namespace {

constexpr unsigned char kSentinel = 0xa5;

// Source bytes: byte k of the buffer is a value no sentinel or neighbour shares.
std::vector<unsigned char> pattern(size_t n) {
  std::vector<unsigned char> v(n);
  for (size_t k = 0; k < n; ++k) v[k] = (unsigned char)(k * 7 + 3) == kSentinel ? 0x11 : (unsigned char)(k * 7 + 3);
  return v;
}

// The destination a strided copy must produce: `count` runs of `run` bytes,
// run r read at src + r*spitch and written at dst + r*dpitch.
std::vector<unsigned char> expected(const std::vector<unsigned char>& src, size_t dst_bytes, long count, size_t run,
                                    size_t spitch, size_t dpitch) {
  std::vector<unsigned char> want(dst_bytes, kSentinel);
  for (long r = 0; r < count; ++r)
    for (size_t b = 0; b < run; ++b) want[r * dpitch + b] = src[r * spitch + b];
  return want;
}

int compare(const std::vector<unsigned char>& got, const std::vector<unsigned char>& want, const char* what) {
  for (size_t k = 0; k < want.size(); ++k)
    if (got[k] != want[k]) {
      std::fprintf(stderr, "FAIL %s: byte %zu is 0x%02x, expected 0x%02x\n", what, k, got[k], want[k]);
      return 1;
    }
  return 0;
}

enum class Form { Plain, Async, Wide };

cublasStatus_t set_vector(Form f, int64_t n, int64_t e, const void* x, int64_t incx, void* y, int64_t incy,
                          cudaStream_t s) {
  if (f == Form::Async) return cublasSetVectorAsync((int)n, (int)e, x, (int)incx, y, (int)incy, s);
  if (f == Form::Wide) return cublasSetVector_64(n, e, x, incx, y, incy);
  return cublasSetVector((int)n, (int)e, x, (int)incx, y, (int)incy);
}
cublasStatus_t get_vector(Form f, int64_t n, int64_t e, const void* x, int64_t incx, void* y, int64_t incy,
                          cudaStream_t s) {
  if (f == Form::Async) return cublasGetVectorAsync_64(n, e, x, incx, y, incy, s);
  if (f == Form::Wide) return cublasGetVector_64(n, e, x, incx, y, incy);
  return cublasGetVector((int)n, (int)e, x, (int)incx, y, (int)incy);
}
cublasStatus_t set_matrix(Form f, int64_t r, int64_t c, int64_t e, const void* a, int64_t lda, void* b, int64_t ldb,
                          cudaStream_t s) {
  if (f == Form::Async) return cublasSetMatrixAsync_64(r, c, e, a, lda, b, ldb, s);
  if (f == Form::Wide) return cublasSetMatrix_64(r, c, e, a, lda, b, ldb);
  return cublasSetMatrix((int)r, (int)c, (int)e, a, (int)lda, b, (int)ldb);
}
cublasStatus_t get_matrix(Form f, int64_t r, int64_t c, int64_t e, const void* a, int64_t lda, void* b, int64_t ldb,
                          cudaStream_t s) {
  if (f == Form::Async) return cublasGetMatrixAsync((int)r, (int)c, (int)e, a, (int)lda, b, (int)ldb, s);
  if (f == Form::Wide) return cublasGetMatrix_64(r, c, e, a, lda, b, ldb);
  return cublasGetMatrix((int)r, (int)c, (int)e, a, (int)lda, b, (int)ldb);
}

// One strided transfer each way: count runs of `run` bytes, source pitch
// spitch, destination pitch dpitch (bytes). `set` host -> device, else
// device -> host; `call` performs it with the given pointers.
template <typename Call>
int check_copy(bool set, long count, size_t run, size_t spitch, size_t dpitch, cudaStream_t s, const char* what,
               Call call) {
  const size_t sbytes = (count - 1) * spitch + run + 13, dbytes = (count - 1) * dpitch + run + 13;
  const std::vector<unsigned char> src = pattern(sbytes);
  std::vector<unsigned char> got(dbytes, 0);
  unsigned char *dsrc = nullptr, *ddst = nullptr;
  CHECK(cudaMalloc(&dsrc, sbytes));
  CHECK(cudaMalloc(&ddst, dbytes));
  CHECK(cudaMemcpy(dsrc, src.data(), sbytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(ddst, kSentinel, dbytes));
  std::vector<unsigned char> hdst(dbytes, kSentinel);
  CHECK_BLAS(set ? call(src.data(), ddst) : call(dsrc, hdst.data()));
  if (s) CHECK(cudaStreamSynchronize(s));
  if (set) CHECK(cudaMemcpy(got.data(), ddst, dbytes, cudaMemcpyDeviceToHost));
  else got = hdst;
  CHECK(cudaFree(dsrc));
  CHECK(cudaFree(ddst));
  return compare(got, expected(src, dbytes, count, run, spitch, dpitch), what);
}

int vectors(Form f, cudaStream_t s) {
  struct Case { int64_t n, elem, incx, incy; };
  const Case cases[] = {{1, 4, 1, 1}, {37, 4, 1, 1}, {37, 4, 3, 1}, {37, 8, 1, 5}, {19, 16, 2, 3}, {64, 1, 7, 2}};
  for (const Case& c : cases)
    for (bool set : {true, false}) {
      char what[96];
      std::snprintf(what, sizeof what, "%sVector n=%lld elem=%lld incx=%lld incy=%lld", set ? "Set" : "Get",
                    (long long)c.n, (long long)c.elem, (long long)c.incx, (long long)c.incy);
      const size_t e = size_t(c.elem);
      if (check_copy(set, c.n, e, c.incx * e, c.incy * e, s, what, [&](const void* x, void* y) {
            return set ? set_vector(f, c.n, c.elem, x, c.incx, y, c.incy, s)
                       : get_vector(f, c.n, c.elem, x, c.incx, y, c.incy, s);
          }))
        return 1;
    }
  return 0;
}

int matrices(Form f, cudaStream_t s) {
  struct Case { int64_t rows, cols, elem, lda, ldb; };
  const Case cases[] = {{5, 3, 4, 5, 5}, {5, 3, 4, 7, 6}, {17, 9, 8, 17, 20}, {3, 4, 16, 4, 3}, {1, 1, 1, 1, 1},
                        {6, 2, 1, 9, 6}};
  for (const Case& c : cases)
    for (bool set : {true, false}) {
      char what[96];
      std::snprintf(what, sizeof what, "%sMatrix %lldx%lld elem=%lld lda=%lld ldb=%lld", set ? "Set" : "Get",
                    (long long)c.rows, (long long)c.cols, (long long)c.elem, (long long)c.lda, (long long)c.ldb);
      const size_t e = size_t(c.elem);
      if (check_copy(set, c.cols, c.rows * e, c.lda * e, c.ldb * e, s, what, [&](const void* a, void* b) {
            return set ? set_matrix(f, c.rows, c.cols, c.elem, a, c.lda, b, c.ldb, s)
                       : get_matrix(f, c.rows, c.cols, c.elem, a, c.lda, b, c.ldb, s);
          }))
        return 1;
    }
  return 0;
}

int invalid() {
  float h[16] = {};
  float* d = nullptr;
  CHECK(cudaMalloc(&d, sizeof h));
  EXPECT_STATUS(cublasSetVector(4, 4, h, 0, d, 1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasSetVector(4, 4, h, 1, d, -1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasGetVector(4, 0, d, 1, h, 1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasSetVectorAsync_64(4, -4, h, 1, d, 1, nullptr), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasSetMatrix(-1, 2, 4, h, 4, d, 4), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasSetMatrix(2, -1, 4, h, 4, d, 4), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasGetMatrix(2, 2, 4, d, 0, h, 2), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasGetMatrix(4, 2, 4, d, 3, h, 4), CUBLAS_STATUS_INVALID_VALUE);  // lda < rows
  EXPECT_STATUS(cublasSetMatrix_64(2, 2, 0, h, 2, d, 2), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STATUS(cublasSetVector_64(int64_t(1) << 40, int64_t(1) << 30, h, 1, d, 1), CUBLAS_STATUS_INVALID_VALUE);
  // Nothing to copy: success, nothing touched (null pointers never read).
  EXPECT_STATUS(cublasSetVector(0, 4, nullptr, 1, nullptr, 1), CUBLAS_STATUS_SUCCESS);
  EXPECT_STATUS(cublasGetMatrix(0, 3, 4, nullptr, 1, nullptr, 1), CUBLAS_STATUS_SUCCESS);
  // Copies the runtime refuses: a null device pointer, and more than the allocation holds.
  EXPECT_STATUS(cublasSetVector(4, 4, h, 1, nullptr, 1), CUBLAS_STATUS_MAPPING_ERROR);
  EXPECT_STATUS(cublasGetMatrix(4, 4, 4, d, 64, h, 4), CUBLAS_STATUS_MAPPING_ERROR);
  CHECK(cudaFree(d));
  cudaGetLastError();  // the refused copies left their runtime error
  return 0;
}

}  // namespace

int main() {
  cudaStream_t s = nullptr;
  CHECK(cudaStreamCreate(&s));
  for (Form f : {Form::Plain, Form::Wide, Form::Async}) {
    const cudaStream_t st = f == Form::Async ? s : nullptr;
    if (vectors(f, st) || matrices(f, st)) return 1;
  }
  if (invalid()) return 1;
  CHECK(cudaStreamDestroy(s));
  std::printf("PASS cublas_transfer\n");
  return 0;
}
