// Error codes of the driver API for bad input, each as cuda.h documents it:
// calls before cuInit, invalid values, bad handles, a missing function
// name, corrupt images, unknown error codes; an unimplemented entry point
// returns NOT_SUPPORTED; files that are not regular files. None of it may
// crash or hang. Usage: driver_errors
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "drv_check.h"

int main() {
  // Before cuInit.
  int count = -1;
  CU_EXPECT(cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
  CUdeviceptr d = 0;
  CU_EXPECT(cuMemAlloc(&d, 16), CUDA_ERROR_NOT_INITIALIZED);
  CUmodule mod = nullptr;
  CU_EXPECT(cuModuleLoadData(&mod, kSaxpyPtx), CUDA_ERROR_NOT_INITIALIZED);
  int version = 0;
  CU_CHECK(cuDriverGetVersion(&version));  // allowed before cuInit
  CU_EXPECT(cuInit(1), CUDA_ERROR_INVALID_VALUE);
  CU_EXPECT(cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
  CU_CHECK(cuInit(0));
  CU_CHECK(cuDeviceGetCount(&count));
  EXPECT_TRUE(count == 1);

  // Invalid values and devices.
  CUdevice dev;
  CU_EXPECT(cuDeviceGet(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  CU_EXPECT(cuDeviceGet(&dev, 1), CUDA_ERROR_INVALID_DEVICE);
  CU_EXPECT(cuDeviceGet(&dev, -1), CUDA_ERROR_INVALID_DEVICE);
  char name[8];
  CU_EXPECT(cuDeviceGetName(name, 0, 0), CUDA_ERROR_INVALID_VALUE);
  CU_EXPECT(cuMemAlloc(nullptr, 16), CUDA_ERROR_INVALID_VALUE);
  CU_EXPECT(cuMemAlloc(&d, 0), CUDA_ERROR_INVALID_VALUE);
  CU_EXPECT(cuMemAlloc(&d, size_t(1) << 62), CUDA_ERROR_OUT_OF_MEMORY);
  CU_EXPECT(cuModuleLoadData(nullptr, kSaxpyPtx), CUDA_ERROR_INVALID_VALUE);
  CU_EXPECT(cuModuleLoadData(&mod, nullptr), CUDA_ERROR_INVALID_VALUE);
  CU_EXPECT(cuModuleLoadDataEx(&mod, kSaxpyPtx, 2, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  CU_EXPECT(cuStreamCreate(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  CUstream s;
  CU_EXPECT(cuStreamCreate(&s, 0x10), CUDA_ERROR_INVALID_VALUE);
  CUevent ev;
  CU_EXPECT(cuEventCreate(&ev, 0x100), CUDA_ERROR_INVALID_VALUE);
  CU_EXPECT(cuMemcpyHtoD(0x10, name, 8), CUDA_ERROR_INVALID_VALUE);  // not device memory
  CUdeviceptr base;
  size_t size;
  CU_EXPECT(cuMemGetAddressRange(&base, &size, 0x1234), CUDA_ERROR_INVALID_VALUE);

  // Modules: missing names, bad handles.
  CU_CHECK(cuModuleLoadData(&mod, kSaxpyPtx));
  CUfunction f;
  CU_EXPECT(cuModuleGetFunction(&f, mod, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);
  CU_EXPECT(cuModuleGetFunction(&f, mod, nullptr), CUDA_ERROR_INVALID_VALUE);
  CU_EXPECT(cuModuleGetGlobal(&d, &size, mod, "no_such_global"), CUDA_ERROR_NOT_FOUND);
  int bogus_storage[16] = {};
  CUmodule bogus = reinterpret_cast<CUmodule>(bogus_storage);
  CU_EXPECT(cuModuleGetFunction(&f, bogus, "saxpy"), CUDA_ERROR_INVALID_HANDLE);
  CU_EXPECT(cuModuleUnload(bogus), CUDA_ERROR_INVALID_HANDLE);
  CUfunction bad_f = reinterpret_cast<CUfunction>(bogus_storage);
  int attr = 0;
  CU_EXPECT(cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_NUM_REGS, bad_f), CUDA_ERROR_INVALID_HANDLE);
  CU_EXPECT(cuLaunchKernel(bad_f, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_ERROR_INVALID_HANDLE);
  CU_CHECK(cuModuleGetFunction(&f, mod, "saxpy"));
  CU_EXPECT(cuFuncGetAttribute(&attr, static_cast<CUfunction_attribute>(999), f), CUDA_ERROR_INVALID_VALUE);
  CU_EXPECT(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NUM_REGS, 3), CUDA_ERROR_INVALID_VALUE);  // read-only
  // Launches: arguments missing, both forms at once, a bad shape.
  CU_EXPECT(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  int n = 0;
  float a = 0;
  void* params[] = {&n, &a, &d, &d};
  void* extra[] = {CU_LAUNCH_PARAM_END};
  CU_EXPECT(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, params, extra), CUDA_ERROR_INVALID_VALUE);
  CU_EXPECT(cuLaunchKernel(f, 1, 1, 1, 4096, 1, 1, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  CU_EXPECT(cuLaunchKernelEx(nullptr, f, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  CUstream bad_stream = reinterpret_cast<CUstream>(bogus_storage);
  CU_EXPECT(cuStreamSynchronize(bad_stream), CUDA_ERROR_INVALID_HANDLE);
  CU_EXPECT(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, bad_stream, params, nullptr), CUDA_ERROR_INVALID_HANDLE);
  CUevent bad_event = reinterpret_cast<CUevent>(bogus_storage);
  CU_EXPECT(cuEventRecord(bad_event, nullptr), CUDA_ERROR_INVALID_HANDLE);
  CU_EXPECT(cuEventSynchronize(nullptr), CUDA_ERROR_INVALID_HANDLE);
  CU_CHECK(cuModuleUnload(mod));
  CU_EXPECT(cuModuleUnload(mod), CUDA_ERROR_INVALID_HANDLE);
  CU_EXPECT(cuCtxPushCurrent(nullptr), CUDA_ERROR_INVALID_CONTEXT);

  // Corrupt images: random bytes, a fatbinary header over garbage, a cubin
  // (machine code only), PTX that does not parse, a missing file.
  std::vector<unsigned char> junk(512);
  for (size_t i = 0; i < junk.size(); ++i) junk[i] = (unsigned char)(i * 131 + 7);
  junk.back() = 0;
  CU_EXPECT(cuModuleLoadData(&mod, junk.data()), CUDA_ERROR_INVALID_IMAGE);
  std::vector<unsigned char> fat(512, 0xcd);
  const unsigned char header[16] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 0xf0, 1, 0, 0, 0, 0, 0, 0};
  std::memcpy(fat.data(), header, 16);
  CU_EXPECT(cuModuleLoadData(&mod, fat.data()), CUDA_ERROR_INVALID_IMAGE);
  CU_EXPECT(cuModuleLoadFatBinary(&mod, fat.data()), CUDA_ERROR_INVALID_IMAGE);
  const unsigned char too_big[16] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0x40};
  std::memcpy(fat.data(), too_big, 16);
  CU_EXPECT(cuModuleLoadData(&mod, fat.data()), CUDA_ERROR_INVALID_IMAGE);
  std::vector<unsigned char> elf(256, 0);
  std::memcpy(elf.data(), "\x7f" "ELF", 4);
  CU_EXPECT(cuModuleLoadData(&mod, elf.data()), CUDA_ERROR_NO_BINARY_FOR_GPU);
  const char* bad_ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() { ret;\n";  // no }
  CU_EXPECT(cuModuleLoadData(&mod, bad_ptx), CUDA_ERROR_INVALID_PTX);
  CU_EXPECT(cuModuleLoad(&mod, "/nonexistent/softgpu/kernels.ptx"), CUDA_ERROR_FILE_NOT_FOUND);
  CU_EXPECT(cuModuleLoad(&mod, nullptr), CUDA_ERROR_INVALID_VALUE);
  // Files that are not regular files: an error at once, never a read that
  // blocks (a FIFO without a writer) or grows without end (/dev/zero).
  char fifo[] = "/tmp/softgpu-driver-errors-XXXXXX";
  EXPECT_TRUE(mkdtemp(fifo) != nullptr);
  const std::string fifo_path = std::string(fifo) + "/k.ptx";
  EXPECT_TRUE(mkfifo(fifo_path.c_str(), 0600) == 0);
  for (const char* path : {"/dev/zero", "/tmp", fifo_path.c_str()})
    CU_EXPECT(cuModuleLoad(&mod, path), CUDA_ERROR_INVALID_VALUE);
  CUlinkState link;
  char log[256] = "";
  CUjit_option lopts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* lvals[2] = {log, reinterpret_cast<void*>(uintptr_t(sizeof log))};
  CU_CHECK(cuLinkCreate(2, lopts, lvals, &link));
  CU_EXPECT(cuLinkAddFile(link, CU_JIT_INPUT_PTX, fifo_path.c_str(), 0, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_TRUE(std::strstr(log, "FIFO") != nullptr);
  CU_EXPECT(cuLinkAddFile(link, CU_JIT_INPUT_PTX, "/nonexistent/softgpu/a.ptx", 0, nullptr, nullptr),
            CUDA_ERROR_FILE_NOT_FOUND);
  CU_CHECK(cuLinkDestroy(link));
  unlink(fifo_path.c_str());
  rmdir(fifo);

  // Error names and strings.
  const char* str = nullptr;
  CU_CHECK(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &str));
  EXPECT_TRUE(std::strcmp(str, "CUDA_ERROR_INVALID_VALUE") == 0);
  CU_CHECK(cuGetErrorName(CUDA_ERROR_NOT_FOUND, &str));
  EXPECT_TRUE(std::strcmp(str, "CUDA_ERROR_NOT_FOUND") == 0);
  CU_CHECK(cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &str));
  EXPECT_TRUE(std::strcmp(str, "invalid argument") == 0);
  CU_CHECK(cuGetErrorString(CUDA_ERROR_NOT_INITIALIZED, &str));
  EXPECT_TRUE(str && std::strstr(str, "initializ") != nullptr);
  CU_CHECK(cuGetErrorString(CUDA_ERROR_INVALID_HANDLE, &str));
  EXPECT_TRUE(std::strcmp(str, "invalid resource handle") == 0);
  CU_EXPECT(cuGetErrorName(static_cast<CUresult>(12345), &str), CUDA_ERROR_INVALID_VALUE);
  EXPECT_TRUE(str == nullptr);
  CU_EXPECT(cuGetErrorString(static_cast<CUresult>(12345), &str), CUDA_ERROR_INVALID_VALUE);
  CU_EXPECT(cuGetErrorName(CUDA_SUCCESS, nullptr), CUDA_ERROR_INVALID_VALUE);

  // An entry point softgpu does not implement (sm_100's wide im2col tensor
  // maps, for now), called twice: said once on stderr.
  CUtensorMap map;
  cuuint64_t dims[3] = {16, 4, 4}, strides[2] = {64, 256};
  cuuint32_t estr[3] = {1, 1, 1};
  for (int i = 0; i < 2; ++i)
    CU_EXPECT(cuTensorMapEncodeIm2colWide(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, reinterpret_cast<void*>(d), dims,
                                          strides, 0, 0, 4, 4, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                          CU_TENSOR_MAP_IM2COL_WIDE_MODE_W, CU_TENSOR_MAP_SWIZZLE_128B,
                                          CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
              CUDA_ERROR_NOT_SUPPORTED);
  std::printf("PASS driver_errors\n");
  return 0;
}
