// cusparseSpMV against a CPU reference (complex<double>, entry by entry):
// random CSR and CSC matrices of several shapes (square, wide, tall, empty
// rows, nnz = 0, one row, no rows), 0- and 1-based, 32- and 64-bit offsets
// and indices (also mixed), float, double, cuComplex and cuDoubleComplex,
// op N, T and C, alpha/beta from host or device memory, beta = 0 over a
// NaN-filled y (must not be read). Tolerance: Val<T>::tol times the sum of
// the terms' magnitudes.
#include <cmath>
#include <limits>

#include "common.cuh"

struct Shape {
  int64_t rows, cols;
  double density;
  int empty_every;
};
static const Shape kShapes[] = {{64, 64, 0.1, 0}, {37, 150, 0.2, 3}, {150, 29, 0.15, 4},
                                {50, 40, 0.0, 0}, {1, 70, 0.5, 0},   {0, 12, 0.3, 0}, {120, 1, 0.5, 5}};

// One call: y = alpha op(A) x + beta y, checked against the CPU.
template <typename T>
static int one(cusparseHandle_t h, const HostCsr& a, bool csc, cusparseOperation_t op, bool off64, bool idx64,
               int base, bool device_scalars, bool beta_zero, const char* what) {
  const bool n = op == CUSPARSE_OPERATION_NON_TRANSPOSE;
  const int64_t xlen = n ? a.cols : a.rows, ylen = n ? a.rows : a.cols;
  std::vector<cplx> x(xlen), y0(ylen);
  for (auto& v : x) v = rand_val<T>();
  for (auto& v : y0) v = beta_zero ? cplx(NAN, NAN) : rand_val<T>();
  const cplx alpha = rand_val<T>(), beta = beta_zero ? cplx(0, 0) : rand_val<T>();

  DevCompressed d;
  if (upload_csr<T>(csc ? transpose(a) : a, off64, idx64, base, d)) return 1;
  void *dx, *dy, *dscal;
  if (upload_vals<T>(x, &dx) || upload_vals<T>(y0, &dy)) return 1;
  const T hs[2] = {Val<T>::from(alpha), Val<T>::from(beta)};
  CHECK(cudaMalloc(&dscal, sizeof hs));
  CHECK(cudaMemcpy(dscal, hs, sizeof hs, cudaMemcpyHostToDevice));
  const T* al = device_scalars ? (const T*)dscal : &hs[0];
  const T* be = device_scalars ? (const T*)dscal + 1 : &hs[1];

  cusparseSpMatDescr_t m;
  const auto ot = off64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I, it = idx64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
  const auto b = base ? CUSPARSE_INDEX_BASE_ONE : CUSPARSE_INDEX_BASE_ZERO;
  if (csc)
    CHECK_SP(cusparseCreateCsc(&m, a.rows, a.cols, a.nnz(), d.off, d.idx, d.val, ot, it, b, Val<T>::type));
  else
    CHECK_SP(cusparseCreateCsr(&m, a.rows, a.cols, a.nnz(), d.off, d.idx, d.val, ot, it, b, Val<T>::type));
  cusparseDnVecDescr_t vx, vy;
  CHECK_SP(cusparseCreateDnVec(&vx, xlen, dx, Val<T>::type));
  CHECK_SP(cusparseCreateDnVec(&vy, ylen, dy, Val<T>::type));
  CHECK_SP(cusparseSetPointerMode(h, device_scalars ? CUSPARSE_POINTER_MODE_DEVICE : CUSPARSE_POINTER_MODE_HOST));
  size_t bytes = 1;
  CHECK_SP(cusparseSpMV_bufferSize(h, op, al, m, vx, be, vy, Val<T>::type, CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
  void* buf = nullptr;
  CHECK(cudaMalloc(&buf, bytes));
  CHECK_SP(cusparseSpMV(h, op, al, m, vx, be, vy, Val<T>::type, CUSPARSE_SPMV_ALG_DEFAULT, buf));
  CHECK(cudaDeviceSynchronize());
  std::vector<cplx> y(ylen);
  if (download_vals<T>(y, dy)) return 1;

  std::vector<cplx> sum(ylen, 0.0);
  std::vector<double> mag(ylen, 0.0);
  for (int64_t r = 0; r < a.rows; ++r)
    for (int64_t p = a.off[r]; p < a.off[r + 1]; ++p) {
      const int64_t c = a.col[p];
      const int64_t out = n ? r : c, in = n ? c : r;
      sum[out] += op_val(a.val[p], op) * x[in];
      mag[out] += std::abs(a.val[p]) * std::abs(x[in]);
    }
  for (int64_t i = 0; i < ylen; ++i) {
    const cplx ref = alpha * sum[i] + (beta_zero ? cplx(0, 0) : beta * y0[i]);
    const double old = beta_zero ? 0.0 : std::abs(beta) * std::abs(y0[i]);
    expect_near(y[i], ref, Val<T>::tol, std::abs(alpha) * mag[i] + old, what, i);
  }
  CHECK_SP(cusparseDestroySpMat(m));
  CHECK_SP(cusparseDestroyDnVec(vx));
  CHECK_SP(cusparseDestroyDnVec(vy));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  CHECK(cudaFree(dscal));
  CHECK(cudaFree(buf));
  return 0;
}

template <typename T>
static int run(cusparseHandle_t h, const char* type) {
  const cusparseOperation_t ops[] = {CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_TRANSPOSE,
                                     CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE};
  int k = 0;
  for (const Shape& s : kShapes) {
    const HostCsr a = random_csr<T>(s.rows, s.cols, s.density, s.empty_every);
    for (auto op : ops)
      for (int layout = 0; layout < 5; ++layout, ++k) {
        // (offsets, indices) widths and base: 32/32 0, 64/64 1, 32/32 1, 64/64 0, 64/32 0; CSC for 1 in 3 calls.
        const bool off64 = layout == 1 || layout == 3 || layout == 4, idx64 = layout == 1 || layout == 3;
        const int base = layout == 1 || layout == 2;
        char what[160];
        std::snprintf(what, sizeof what, "%s %lldx%lld nnz %lld op %d layout %d%s", type, (long long)s.rows,
                      (long long)s.cols, (long long)a.nnz(), (int)op, layout, k % 3 == 2 ? " csc" : "");
        if (one<T>(h, a, k % 3 == 2, op, off64, idx64, base, k % 2 == 1, k % 4 == 3, what)) return 1;
      }
  }
  return 0;
}

int main() {
  cusparseHandle_t h;
  CHECK_SP(cusparseCreate(&h));
  if (run<float>(h, "S") || run<double>(h, "D") || run<cuComplex>(h, "C") || run<cuDoubleComplex>(h, "Z")) return 1;
  CHECK_SP(cusparseDestroy(h));
  std::printf("%ld checks, %ld failed\n", checks, bad);
  if (bad || checks < 10000) return 1;
  std::printf("PASS cusparse_spmv\n");
  return 0;
}
