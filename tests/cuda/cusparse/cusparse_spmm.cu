// cusparseSpMM against a CPU reference (complex<double>): C = alpha op(A)
// op(B) + beta C for random CSR and CSC matrices of several shapes (empty
// rows, nnz = 0, one column of C, non-square), 0- and 1-based, 32- and
// 64-bit indices, float, double, cuComplex and cuDoubleComplex, op(A) N, T
// (and C for the complex types), op(B) N and T, B and C column- or
// row-major each with ld above the minimum, alpha/beta from host or device
// memory, beta = 0 over a NaN-filled C. Elements of C's padding (between
// the rows/columns and ld) are checked untouched.
#include <cmath>
#include <cstring>

#include "common.cuh"

struct Dn {
  int64_t rows, cols, ld;
  bool row_major;
  std::vector<cplx> v;
  Dn(int64_t r, int64_t c, bool rm, int64_t pad) : rows(r), cols(c), ld((rm ? c : r) + pad), row_major(rm) {
    v.assign((size_t)(ld * (rm ? r : c)), cplx(0, 0));
  }
  size_t at(int64_t r, int64_t c) const { return (size_t)(row_major ? r * ld + c : r + c * ld); }
};

struct Case {
  int64_t m, k, n;  // op(A) is m x k, C m x n
  double density;
  int empty_every;
};
static const Case kCases[] = {{40, 30, 7, 0.15, 3}, {17, 60, 1, 0.3, 0}, {33, 33, 5, 0.0, 0}, {64, 20, 9, 0.2, 5}};

template <typename T>
static int one(cusparseHandle_t h, const Case& cs, cusparseOperation_t opa, cusparseOperation_t opb, bool row_b,
               bool row_c, int variant, const char* what) {
  const bool na = opa == CUSPARSE_OPERATION_NON_TRANSPOSE, nb = opb == CUSPARSE_OPERATION_NON_TRANSPOSE;
  const bool csc = variant % 3 == 1, wide = variant % 2 == 1, device_scalars = variant % 4 >= 2;
  const int base = variant % 5 >= 2;
  const bool beta_zero = variant % 7 == 3;
  const HostCsr a = random_csr<T>(na ? cs.m : cs.k, na ? cs.k : cs.m, cs.density, cs.empty_every);
  Dn b(nb ? cs.k : cs.n, nb ? cs.n : cs.k, row_b, variant % 3), c(cs.m, cs.n, row_c, 1 + variant % 2);
  for (auto& v : b.v) v = rand_val<T>();
  for (auto& v : c.v) v = beta_zero ? cplx(NAN, NAN) : rand_val<T>();
  const std::vector<cplx> c0 = c.v;
  const cplx alpha = rand_val<T>(), beta = beta_zero ? cplx(0, 0) : rand_val<T>();

  DevCompressed d;
  if (upload_csr<T>(csc ? transpose(a) : a, wide, wide, base, d)) return 1;
  void *db, *dc, *dscal;
  if (upload_vals<T>(b.v, &db) || upload_vals<T>(c.v, &dc)) return 1;
  const T hs[2] = {Val<T>::from(alpha), Val<T>::from(beta)};
  CHECK(cudaMalloc(&dscal, sizeof hs));
  CHECK(cudaMemcpy(dscal, hs, sizeof hs, cudaMemcpyHostToDevice));
  const T* al = device_scalars ? (const T*)dscal : &hs[0];
  const T* be = device_scalars ? (const T*)dscal + 1 : &hs[1];

  cusparseSpMatDescr_t ma;
  const auto it = wide ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
  const auto bs = base ? CUSPARSE_INDEX_BASE_ONE : CUSPARSE_INDEX_BASE_ZERO;
  if (csc)
    CHECK_SP(cusparseCreateCsc(&ma, a.rows, a.cols, a.nnz(), d.off, d.idx, d.val, it, it, bs, Val<T>::type));
  else
    CHECK_SP(cusparseCreateCsr(&ma, a.rows, a.cols, a.nnz(), d.off, d.idx, d.val, it, it, bs, Val<T>::type));
  cusparseDnMatDescr_t mb, mc;
  CHECK_SP(cusparseCreateDnMat(&mb, b.rows, b.cols, b.ld, db, Val<T>::type, row_b ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL));
  CHECK_SP(cusparseCreateDnMat(&mc, c.rows, c.cols, c.ld, dc, Val<T>::type, row_c ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL));
  CHECK_SP(cusparseSetPointerMode(h, device_scalars ? CUSPARSE_POINTER_MODE_DEVICE : CUSPARSE_POINTER_MODE_HOST));
  size_t bytes = 1;
  CHECK_SP(cusparseSpMM_bufferSize(h, opa, opb, al, ma, mb, be, mc, Val<T>::type, CUSPARSE_SPMM_ALG_DEFAULT, &bytes));
  void* buf = nullptr;
  CHECK(cudaMalloc(&buf, bytes));
  CHECK_SP(cusparseSpMM(h, opa, opb, al, ma, mb, be, mc, Val<T>::type, CUSPARSE_SPMM_ALG_DEFAULT, buf));
  CHECK(cudaDeviceSynchronize());
  std::vector<cplx> got(c.v.size());
  if (download_vals<T>(got, dc)) return 1;

  std::vector<cplx> sum(c.v.size(), 0.0);
  std::vector<double> mag(c.v.size(), 0.0);
  for (int64_t r = 0; r < a.rows; ++r)
    for (int64_t p = a.off[r]; p < a.off[r + 1]; ++p) {
      const int64_t i = na ? r : a.col[p], kk = na ? a.col[p] : r;
      const cplx av = op_val(a.val[p], opa);
      for (int64_t j = 0; j < cs.n; ++j) {
        const cplx bv = op_val(nb ? b.v[b.at(kk, j)] : b.v[b.at(j, kk)], opb);
        sum[c.at(i, j)] += av * bv;
        mag[c.at(i, j)] += std::abs(av) * std::abs(bv);
      }
    }
  std::vector<bool> inside(c.v.size(), false);
  for (int64_t i = 0; i < cs.m; ++i)
    for (int64_t j = 0; j < cs.n; ++j) {
      const size_t e = c.at(i, j);
      inside[e] = true;
      const cplx ref = alpha * sum[e] + (beta_zero ? cplx(0, 0) : beta * c0[e]);
      const double old = beta_zero ? 0.0 : std::abs(beta) * std::abs(c0[e]);
      expect_near(got[e], ref, Val<T>::tol, std::abs(alpha) * mag[e] + old, what, (long)e);
    }
  for (size_t e = 0; e < got.size(); ++e)  // padding: bit for bit (NaN stays NaN)
    if (!inside[e]) {
      ++checks;
      const T g = Val<T>::from(got[e]), w = Val<T>::from(c0[e]);
      if (std::memcmp(&g, &w, sizeof g) != 0 && ++bad <= 10) std::printf("FAIL %s: padding [%zu] written\n", what, e);
    }
  CHECK_SP(cusparseDestroySpMat(ma));
  CHECK_SP(cusparseDestroyDnMat(mb));
  CHECK_SP(cusparseDestroyDnMat(mc));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  CHECK(cudaFree(dscal));
  CHECK(cudaFree(buf));
  return 0;
}

template <typename T>
static int run(cusparseHandle_t h, const char* type) {
  std::vector<cusparseOperation_t> opas = {CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_TRANSPOSE};
  if (Val<T>::complex) opas.push_back(CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE);
  const cusparseOperation_t opbs[] = {CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_TRANSPOSE};
  int variant = 0;
  for (const Case& cs : kCases)
    for (auto opa : opas)
      for (auto opb : opbs)
        for (int orders = 0; orders < 4; ++orders, ++variant) {
          char what[160];
          std::snprintf(what, sizeof what, "%s m %lld k %lld n %lld opA %d opB %d B %s C %s variant %d", type,
                        (long long)cs.m, (long long)cs.k, (long long)cs.n, (int)opa, (int)opb,
                        orders & 1 ? "row" : "col", orders & 2 ? "row" : "col", variant);
          if (one<T>(h, cs, opa, opb, orders & 1, orders & 2, variant, what)) return 1;
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
  std::printf("PASS cusparse_spmm\n");
  return 0;
}
