// The C ABI of our libcudart.so.13, called as a CUDA program would call it
// (through the real CUDA headers). Runs with SOFTGPU_GPU=a100.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace {

TEST(CudartAbi, ErrorNamesAndStringsForEveryValue) {
  int named = 0;
  // Every value of the CUDA 13 enum, from the same list the library uses.
#define SOFTGPU_ERROR(code, text)                                \
  EXPECT_STREQ(cudaGetErrorName(code), #code);                   \
  EXPECT_STRNE(cudaGetErrorString(code), "unrecognized error code"); \
  ++named;
#include "cudart/errors.inc"
#undef SOFTGPU_ERROR
  EXPECT_GT(named, 130);
  EXPECT_STREQ(cudaGetErrorString(cudaSuccess), "no error");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorIllegalAddress), "an illegal memory access was encountered");
  EXPECT_STREQ(cudaGetErrorString(static_cast<cudaError_t>(12345)), "unrecognized error code");
  EXPECT_STREQ(cudaGetErrorName(static_cast<cudaError_t>(12345)), "cudaErrorUnknown");
}

TEST(CudartAbi, DevicePropertiesComeFromTheConfig) {
  int n = 0;
  ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
  EXPECT_EQ(n, 1);
  cudaDeviceProp p;
  ASSERT_EQ(cudaGetDeviceProperties(&p, 0), cudaSuccess);
  EXPECT_NE(std::string(p.name).find("A100"), std::string::npos) << p.name;
  EXPECT_EQ(p.major, 8);
  EXPECT_EQ(p.minor, 0);
  EXPECT_EQ(p.multiProcessorCount, 108);
  EXPECT_EQ(p.warpSize, 32);
  EXPECT_EQ(p.maxThreadsPerBlock, 1024);
  int v = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  EXPECT_EQ(v, 108);
  ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  EXPECT_EQ(v, 8);
  EXPECT_EQ(cudaGetDeviceProperties(&p, 1), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetDeviceProperties(nullptr, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaSetDevice(3), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  int ver = 0;
  ASSERT_EQ(cudaRuntimeGetVersion(&ver), cudaSuccess);
  EXPECT_EQ(ver / 1000, 13);
}

TEST(CudartAbi, MemoryCallsAndErrorCodes) {
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 256), cudaSuccess);
  char in[256], out[256];
  for (int i = 0; i < 256; ++i) in[i] = static_cast<char>(i);
  ASSERT_EQ(cudaMemcpy(d, in, 256, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(out, d, 256, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(std::memcmp(in, out, 256), 0);
  EXPECT_EQ(cudaMemcpy(out, d, 257, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(out, d, 1, static_cast<cudaMemcpyKind>(9)), cudaErrorInvalidMemcpyDirection);
  EXPECT_EQ(cudaMemset(d, 0, 256), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaErrorInvalidValue);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  int sym = 0;
  EXPECT_EQ(cudaMemcpyToSymbol(&sym, in, 4, 0, cudaMemcpyHostToDevice), cudaErrorInvalidSymbol);
  EXPECT_EQ(cudaLaunchKernel(&sym, dim3(1), dim3(1), nullptr, 0, nullptr), cudaErrorInvalidDeviceFunction);
  cudaGetLastError();
}

TEST(CudartAbi, StreamsEventsAndCallbacks) {
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  cudaEvent_t a, b;
  ASSERT_EQ(cudaEventCreate(&a), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&b), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(a, s), cudaSuccess);
  int calls = 0;
  ASSERT_EQ(cudaStreamAddCallback(
                s, [](cudaStream_t, cudaError_t st, void* p) { *static_cast<int*>(p) += st == cudaSuccess ? 1 : 100; },
                &calls, 0),
            cudaSuccess);
  ASSERT_EQ(cudaLaunchHostFunc(s, [](void* p) { *static_cast<int*>(p) += 10; }, &calls), cudaSuccess);
  EXPECT_EQ(calls, 11);
  ASSERT_EQ(cudaEventRecord(b, s), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(b), cudaSuccess);
  float ms = -1;
  ASSERT_EQ(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
  EXPECT_GE(ms, 0.f);
  EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventDestroy(a), cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(b), cudaSuccess);
  cudaGetLastError();
}

}  // namespace

namespace {

// Texture and array entry points set the last error like every other call.
TEST(CudartAbi, TextureErrorsAreRecordedAsLastError) {
  (void)cudaGetLastError();
  cudaResourceDesc res;
  std::memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypeLinear;  // devPtr null: invalid
  cudaTextureDesc tex;
  std::memset(&tex, 0, sizeof tex);
  cudaTextureObject_t t = 0;
  EXPECT_EQ(cudaCreateTextureObject(&t, &res, &tex, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(reinterpret_cast<cudaArray_t>(0x1234)), cudaErrorInvalidValue);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidValue);
  (void)cudaGetLastError();
  // A valid round trip leaves no error behind.
  cudaChannelFormatDesc d = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaArray_t arr = nullptr;
  ASSERT_EQ(cudaMallocArray(&arr, &d, 16, 4), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(arr), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

}  // namespace
