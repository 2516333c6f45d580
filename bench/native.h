// The benchmark kernels' algorithms as plain -O3 host code on one core: the
// native baseline in exec_bench and the reference its results are checked
// against.
#pragma once

#include <cstddef>

namespace softgpu::bench {

// C = A*B, row-major n x n, i-k-j order (the inner loop vectorizes).
void native_sgemm(const float* a, const float* b, float* c, int n);
// out = 0.2 * (five-point sum) inside an nx x ny grid; the border is left.
void native_stencil5(const float* in, float* out, int nx, int ny);
// Sum of n floats with 16 independent partial sums (the loop vectorizes
// without reassociating any one sum).
float native_sum(const float* in, size_t n);
// gelu_quant of bench_kernels.cu: out[i] from in[i], rows of `cols`.
void native_gelu_quant(const float* in, float* out, int n, unsigned cols);
// conv3x3_u8 of bench_kernels.cu: a w x h 8-bit image, edges clamped.
// mandel of bench_kernels.cu: iteration counts of a w x h grid, with the
// multiply-add nvcc fuses (zi) as std::fma, so the counts are the kernel's.
void native_mandel(int* out, int w, int h, int maxit);
void native_conv3x3_u8(const unsigned char* in, unsigned char* out, int w, int h, const float filter[9]);

}  // namespace softgpu::bench
