// The host/device transfer helpers: cublasSet/GetVector, cublasSet/GetMatrix,
// their Async forms and _64 variants. No handle is needed. Each is one
// (2-D) copy through softgpu's runtime:
//   vector: n elements, element i at x + i*incx*elemSize (host or device) to
//           y + i*incy*elemSize: a copy of n rows of elemSize bytes, pitches
//           incx*elemSize and incy*elemSize;
//   matrix: column-major rows x cols, column j at A + j*lda*elemSize to
//           B + j*ldb*elemSize: cols rows of rows*elemSize bytes.
// Statuses as cuBLAS documents them: CUBLAS_STATUS_INVALID_VALUE for
// incx, incy or elemSize <= 0 (vectors) and rows, cols < 0 or elemSize,
// lda, ldb <= 0 (matrices); also, where the documentation says nothing, for
// lda or ldb < rows (the columns would overlap) and for sizes whose byte
// counts overflow 64 bits. A copy the runtime refuses (a null or unmapped
// pointer, a buffer too small) is CUBLAS_STATUS_MAPPING_ERROR. Nothing to
// copy (n, rows or cols 0) succeeds without touching memory.
#include <cublas_api.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

namespace {

struct Copy {
  int64_t height;   // rows of the 2-D copy
  int64_t width;    // elements per row
  int64_t spitch;   // elements between source rows
  int64_t dpitch;   // elements between destination rows
};

bool bytes(int64_t n, int64_t elem, size_t* out) {
  int64_t b = 0;
  if (__builtin_mul_overflow(n, elem, &b)) return false;
  *out = size_t(b);
  return true;
}

cublasStatus_t run(const Copy& c, int64_t elem, const void* src, void* dst, cudaMemcpyKind kind, bool async,
                   cudaStream_t stream) {
  if (c.height == 0 || c.width == 0) return CUBLAS_STATUS_SUCCESS;
  size_t width = 0, spitch = 0, dpitch = 0, extent = 0;  // extent: the bytes either side spans
  if (!bytes(c.width, elem, &width) || !bytes(c.spitch, elem, &spitch) || !bytes(c.dpitch, elem, &dpitch) ||
      !bytes(c.height, int64_t(std::max(spitch, dpitch)), &extent))
    return CUBLAS_STATUS_INVALID_VALUE;
  cudaError_t e;
  if (spitch == width && dpitch == width) {  // contiguous on both sides: one copy
    size_t all = 0;
    if (!bytes(c.height, int64_t(width), &all)) return CUBLAS_STATUS_INVALID_VALUE;
    e = async ? cudaMemcpyAsync(dst, src, all, kind, stream) : cudaMemcpy(dst, src, all, kind);
  } else {
    e = async ? cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, size_t(c.height), kind, stream)
              : cudaMemcpy2D(dst, dpitch, src, spitch, width, size_t(c.height), kind);
  }
  return e == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_MAPPING_ERROR;
}

cublasStatus_t vector(int64_t n, int64_t elem, const void* x, int64_t incx, void* y, int64_t incy,
                      cudaMemcpyKind kind, bool async, cudaStream_t stream) {
  if (incx <= 0 || incy <= 0 || elem <= 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  return run({n, 1, incx, incy}, elem, x, y, kind, async, stream);
}

cublasStatus_t matrix(int64_t rows, int64_t cols, int64_t elem, const void* a, int64_t lda, void* b, int64_t ldb,
                      cudaMemcpyKind kind, bool async, cudaStream_t stream) {
  if (rows < 0 || cols < 0 || elem <= 0 || lda <= 0 || ldb <= 0 || lda < rows || ldb < rows)
    return CUBLAS_STATUS_INVALID_VALUE;
  return run({cols, rows, lda, ldb}, elem, a, b, kind, async, stream);
}

constexpr cudaMemcpyKind kSet = cudaMemcpyHostToDevice, kGet = cudaMemcpyDeviceToHost;

}  // namespace

extern "C" {

cublasStatus_t cublasSetVector(int n, int elemSize, const void* x, int incx, void* devicePtr, int incy) {
  return vector(n, elemSize, x, incx, devicePtr, incy, kSet, false, nullptr);
}
cublasStatus_t cublasSetVector_64(int64_t n, int64_t elemSize, const void* x, int64_t incx, void* devicePtr,
                                  int64_t incy) {
  return vector(n, elemSize, x, incx, devicePtr, incy, kSet, false, nullptr);
}
cublasStatus_t cublasGetVector(int n, int elemSize, const void* x, int incx, void* y, int incy) {
  return vector(n, elemSize, x, incx, y, incy, kGet, false, nullptr);
}
cublasStatus_t cublasGetVector_64(int64_t n, int64_t elemSize, const void* x, int64_t incx, void* y, int64_t incy) {
  return vector(n, elemSize, x, incx, y, incy, kGet, false, nullptr);
}
cublasStatus_t cublasSetVectorAsync(int n, int elemSize, const void* hostPtr, int incx, void* devicePtr, int incy,
                                    cudaStream_t stream) {
  return vector(n, elemSize, hostPtr, incx, devicePtr, incy, kSet, true, stream);
}
cublasStatus_t cublasSetVectorAsync_64(int64_t n, int64_t elemSize, const void* hostPtr, int64_t incx,
                                       void* devicePtr, int64_t incy, cudaStream_t stream) {
  return vector(n, elemSize, hostPtr, incx, devicePtr, incy, kSet, true, stream);
}
cublasStatus_t cublasGetVectorAsync(int n, int elemSize, const void* devicePtr, int incx, void* hostPtr, int incy,
                                    cudaStream_t stream) {
  return vector(n, elemSize, devicePtr, incx, hostPtr, incy, kGet, true, stream);
}
cublasStatus_t cublasGetVectorAsync_64(int64_t n, int64_t elemSize, const void* devicePtr, int64_t incx,
                                       void* hostPtr, int64_t incy, cudaStream_t stream) {
  return vector(n, elemSize, devicePtr, incx, hostPtr, incy, kGet, true, stream);
}

cublasStatus_t cublasSetMatrix(int rows, int cols, int elemSize, const void* A, int lda, void* B, int ldb) {
  return matrix(rows, cols, elemSize, A, lda, B, ldb, kSet, false, nullptr);
}
cublasStatus_t cublasSetMatrix_64(int64_t rows, int64_t cols, int64_t elemSize, const void* A, int64_t lda, void* B,
                                  int64_t ldb) {
  return matrix(rows, cols, elemSize, A, lda, B, ldb, kSet, false, nullptr);
}
cublasStatus_t cublasGetMatrix(int rows, int cols, int elemSize, const void* A, int lda, void* B, int ldb) {
  return matrix(rows, cols, elemSize, A, lda, B, ldb, kGet, false, nullptr);
}
cublasStatus_t cublasGetMatrix_64(int64_t rows, int64_t cols, int64_t elemSize, const void* A, int64_t lda, void* B,
                                  int64_t ldb) {
  return matrix(rows, cols, elemSize, A, lda, B, ldb, kGet, false, nullptr);
}
cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elemSize, const void* A, int lda, void* B, int ldb,
                                    cudaStream_t stream) {
  return matrix(rows, cols, elemSize, A, lda, B, ldb, kSet, true, stream);
}
cublasStatus_t cublasSetMatrixAsync_64(int64_t rows, int64_t cols, int64_t elemSize, const void* A, int64_t lda,
                                       void* B, int64_t ldb, cudaStream_t stream) {
  return matrix(rows, cols, elemSize, A, lda, B, ldb, kSet, true, stream);
}
cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elemSize, const void* A, int lda, void* B, int ldb,
                                    cudaStream_t stream) {
  return matrix(rows, cols, elemSize, A, lda, B, ldb, kGet, true, stream);
}
cublasStatus_t cublasGetMatrixAsync_64(int64_t rows, int64_t cols, int64_t elemSize, const void* A, int64_t lda,
                                       void* B, int64_t ldb, cudaStream_t stream) {
  return matrix(rows, cols, elemSize, A, lda, B, ldb, kGet, true, stream);
}

}  // extern "C"
