// Shared helpers for the driver-API test programs: plain cuda.h, so every
// program also builds and runs on a real NVIDIA GPU.
#pragma once
#include <cuda.h>

#include <cstdio>

inline const char* cu_name(CUresult r) {
  const char* s = nullptr;
  return cuGetErrorName(r, &s) == CUDA_SUCCESS && s ? s : "?";
}

// Checks a driver call; on failure prints it and makes the enclosing
// int-returning function return 1.
#define CU_CHECK(call)                                                                          \
  do {                                                                                          \
    CUresult r_ = (call);                                                                       \
    if (r_ != CUDA_SUCCESS) {                                                                   \
      std::fprintf(stderr, "FAIL %s:%d: %s returned %s (%d)\n", __FILE__, __LINE__, #call,     \
                   cu_name(r_), (int)r_);                                                       \
      return 1;                                                                                 \
    }                                                                                           \
  } while (0)

// Asserts that a driver call returns exactly `want`.
#define CU_EXPECT(call, want)                                                                   \
  do {                                                                                          \
    CUresult r_ = (call);                                                                       \
    if (r_ != (want)) {                                                                         \
      std::fprintf(stderr, "FAIL %s:%d: %s returned %s (%d), expected %s (%d)\n", __FILE__,    \
                   __LINE__, #call, cu_name(r_), (int)r_, cu_name(want), (int)(want));          \
      return 1;                                                                                 \
    }                                                                                           \
  } while (0)

#define EXPECT_TRUE(cond)                                                                       \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                     \
      return 1;                                                                                 \
    }                                                                                           \
  } while (0)

// cuInit, device 0 and its primary context made current (the usual start
// of a driver-API program).
inline int use_primary_context(CUdevice* dev) {
  CU_CHECK(cuInit(0));
  CU_CHECK(cuDeviceGet(dev, 0));
  CUcontext ctx;
  CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, *dev));
  CU_CHECK(cuCtxSetCurrent(ctx));
  return 0;
}

// saxpy (y = a*x + y; thread 0 also counts launches in the global
// `launches`) and, for sm_90, a kernel that records each block's cluster
// rank and cluster size (1000 * size + rank).
inline const char* kSaxpyPtx = R"PTX(
.version 8.0
.target sm_80
.address_size 64

.global .align 4 .u32 launches;

.visible .entry saxpy(
  .param .u32 n,
  .param .f32 a,
  .param .u64 x,
  .param .u64 y)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<9>;
  ld.param.u32 %r1, [n];
  ld.param.f32 %f1, [a];
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mul.wide.s32 %rd5, %r5, 4;
  add.s64 %rd6, %rd3, %rd5;
  add.s64 %rd7, %rd4, %rd5;
  ld.global.f32 %f2, [%rd6];
  ld.global.f32 %f3, [%rd7];
  fma.rn.f32 %f4, %f1, %f2, %f3;
  st.global.f32 [%rd7], %f4;
  setp.ne.s32 %p2, %r5, 0;
  @%p2 bra DONE;
  mov.u64 %rd8, launches;
  atom.global.add.u32 %r6, [%rd8], 1;
DONE:
  ret;
}
)PTX";

inline const char* kClusterPtx = R"PTX(
.version 8.0
.target sm_90
.address_size 64

.visible .entry cluster_info(.param .u64 out)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, %cluster_nctarank;
  mad.lo.u32 %r4, %r3, 1000, %r2;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}
)PTX";
