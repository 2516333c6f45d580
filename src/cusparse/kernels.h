// Launchers of softgpu cuSPARSE's device kernels (kernels.cu, compiled by
// nvcc into the library's fatbinary). Arguments are validated by the API
// layer (products.cpp); a launcher only issues work on `stream` and returns
// the launch's error.
#pragma once

#include <cstdint>
#include <cuda_runtime_api.h>

namespace softgpu::cusparse {

// Values (and computation) of one call: float, double, cuComplex, cuDoubleComplex.
enum class VType { R32F, R64F, C32F, C64F };

// A compressed sparse matrix as the kernels walk it: `major` lines (rows of
// a CSR matrix, columns of a CSC one), line i holding the entries
// offsets[i] - base .. offsets[i + 1] - base - 1, each at minor index
// indices[p] - base. Offsets and indices are int32 or int64 each.
struct Compressed {
  const void* offsets = nullptr;
  const void* indices = nullptr;
  const void* values = nullptr;
  bool offsets64 = false, indices64 = false;
  int base = 0;
  int64_t major = 0, minor = 0;
};

// A scalar: its value copied from host memory (host pointer mode), or a
// device pointer the kernel reads (device pointer mode; wins when non-null).
struct Scalar {
  alignas(16) unsigned char host[16] = {};
  const void* dev = nullptr;
};

// A dense matrix: element (r, c) at r * ld + c (row-major) or r + c * ld.
struct Dense {
  void* values = nullptr;
  int64_t ld = 0;
  bool row_major = false;
};

// y = alpha op(M) x + beta y, M the major x minor matrix `a` describes:
// op(M) = M (trans false; y has major elements) or M^T (x has major
// elements, y minor); conj conjugates M's values. beta == 0 never reads y.
cudaError_t launch_spmv(cudaStream_t s, VType t, const Compressed& a, bool trans, bool conj, const Scalar& alpha,
                        const void* x, const Scalar& beta, void* y);

// C = alpha op(M) op(B) + beta C, C m x n, op(M) m x k (M as in launch_spmv),
// op(B) k x n: B (trans_b false) or B^T, conj_b conjugating it. beta == 0
// never reads C.
cudaError_t launch_spmm(cudaStream_t s, VType t, const Compressed& a, bool trans_a, bool conj_a, const Dense& b,
                        bool trans_b, bool conj_b, const Scalar& alpha, const Scalar& beta, const Dense& c, int64_t m,
                        int64_t n);

}  // namespace softgpu::cusparse
