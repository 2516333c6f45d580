// cuda_fp16 / bf16 arithmetic and conversions.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void half_ops(__half* h, __nv_bfloat16* b, float* f) {
  int i = threadIdx.x;
  __half x = h[i];
  __half2 x2 = __halves2half2(x, __float2half(1.5f));
  x2 = __hfma2(x2, x2, x2);
  h[i] = __hadd(__low2half(x2), __high2half(x2));
  __nv_bfloat16 y = b[i];
  b[i] = __hmul(y, __float2bfloat16(3.0f));
  f[i] = __half2float(h[i]) + __bfloat162float(b[i]);
}
