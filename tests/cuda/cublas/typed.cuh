// Typed host values for the gemm tests with cudaDataType operands (gemmEx,
// gemmBatchedEx, cublasLtMatmul): element size, store and load through
// double, the rounding of the FAST compute modes, the unit roundoff.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <library_types.h>

#include <cstring>

enum Round { kNone, kTf32, kF16, kBf16 };
static size_t tsize(cudaDataType t) {
  return t == CUDA_R_64F ? 8 : t == CUDA_R_32F ? 4 : t == CUDA_R_8F_E4M3 ? 1 : 2;
}
static void put(cudaDataType t, void* p, long i, double v) {
  switch (t) {
    case CUDA_R_16F: ((__half*)p)[i] = __float2half_rn((float)v); break;
    case CUDA_R_16BF: ((__nv_bfloat16*)p)[i] = __float2bfloat16_rn((float)v); break;
    case CUDA_R_32F: ((float*)p)[i] = (float)v; break;
    case CUDA_R_8F_E4M3: ((__nv_fp8_e4m3*)p)[i] = __nv_fp8_e4m3((float)v); break;
    default: ((double*)p)[i] = v; break;
  }
}
static double get(cudaDataType t, const void* p, long i) {
  switch (t) {
    case CUDA_R_16F: return __half2float(((const __half*)p)[i]);
    case CUDA_R_16BF: return __bfloat162float(((const __nv_bfloat16*)p)[i]);
    case CUDA_R_32F: return ((const float*)p)[i];
    case CUDA_R_8F_E4M3: return float(((const __nv_fp8_e4m3*)p)[i]);
    default: return ((const double*)p)[i];
  }
}
static double round_in(Round r, double v) {
  float f = (float)v;
  switch (r) {
    case kTf32: {
      unsigned u;
      std::memcpy(&u, &f, 4);
      if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;
      std::memcpy(&f, &u, 4);
      return f;
    }
    case kF16: return __half2float(__float2half_rn(f));
    case kBf16: return __bfloat162float(__float2bfloat16_rn(f));
    default: return v;
  }
}
static double unit(cudaDataType t) {
  return t == CUDA_R_16F ? 0x1p-11 : t == CUDA_R_16BF ? 0x1p-8 : t == CUDA_R_32F ? 0x1p-24 : 0x1p-53;
}

