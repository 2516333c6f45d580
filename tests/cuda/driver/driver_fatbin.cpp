// Loads kernels built by `nvcc -fatbin` (and `nvcc -ptx`) with the driver
// API alone: cuModuleLoad from the file, cuModuleLoadData and
// cuModuleLoadFatBinary from memory, cuLibraryLoadData with
// cuLibraryGetKernel / cuKernelGetFunction; runs them against CPU loops
// (and cuFuncGetName names the template instance).
// Usage: driver_fatbin FILE.fatbin FILE.ptx
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "drv_check.h"

namespace {

// vadd on n floats, then scaled<int> (x scale, a __device__ variable set
// through cuModuleGetGlobal), both checked.
int run(CUmodule mod, const char* how) {
  CUfunction vadd, scaled;
  CU_CHECK(cuModuleGetFunction(&vadd, mod, "vadd"));
  CU_CHECK(cuModuleGetFunction(&scaled, mod, "_Z6scaledIiEvPT_i"));
  CU_EXPECT(cuModuleGetFunction(&vadd, mod, "scaled"), CUDA_ERROR_NOT_FOUND);  // mangled names only
  CU_CHECK(cuModuleGetFunction(&vadd, mod, "vadd"));
  const char* fname = nullptr;
  CU_CHECK(cuFuncGetName(&fname, scaled));
  EXPECT_TRUE(fname && std::string(fname) == "_Z6scaledIiEvPT_i");
  const int n = 777;
  std::vector<float> a(n), b(n), c(n);
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) a[i] = i * 0.75f, b[i] = 10.0f - i, v[i] = i - 300;
  CUdeviceptr da, db, dc, dv;
  CU_CHECK(cuMemAlloc(&da, n * 4));
  CU_CHECK(cuMemAlloc(&db, n * 4));
  CU_CHECK(cuMemAlloc(&dc, n * 4));
  CU_CHECK(cuMemAlloc(&dv, n * 4));
  CU_CHECK(cuMemcpyHtoD(da, a.data(), n * 4));
  CU_CHECK(cuMemcpyHtoD(db, b.data(), n * 4));
  CU_CHECK(cuMemcpyHtoD(dv, v.data(), n * 4));
  int nn = n;
  void* p1[] = {&da, &db, &dc, &nn};
  CU_CHECK(cuLaunchKernel(vadd, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, p1, nullptr));
  CUdeviceptr scale;
  size_t scale_size = 0;
  CU_CHECK(cuModuleGetGlobal(&scale, &scale_size, mod, "scale"));
  EXPECT_TRUE(scale_size == sizeof(int));
  int initial = 0, five = 5;
  CU_CHECK(cuMemcpyDtoH(&initial, scale, 4));
  EXPECT_TRUE(initial == 3);  // the variable's initializer
  CU_CHECK(cuMemcpyHtoD(scale, &five, 4));
  void* p2[] = {&dv, &nn};
  CU_CHECK(cuLaunchKernel(scaled, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, p2, nullptr));
  CU_CHECK(cuMemcpyDtoH(c.data(), dc, n * 4));
  std::vector<int> w(n);
  CU_CHECK(cuMemcpyDtoH(w.data(), dv, n * 4));
  for (int i = 0; i < n; ++i) {
    if (c[i] != a[i] + b[i]) {
      std::fprintf(stderr, "FAIL %s: vadd c[%d] = %g, expected %g\n", how, i, c[i], a[i] + b[i]);
      return 1;
    }
    if (w[i] != v[i] * 5) {
      std::fprintf(stderr, "FAIL %s: scaled v[%d] = %d, expected %d\n", how, i, w[i], v[i] * 5);
      return 1;
    }
  }
  for (CUdeviceptr p : {da, db, dc, dv}) CU_CHECK(cuMemFree(p));
  std::printf("ok %s\n", how);
  return 0;
}

std::vector<char> read_file(const char* path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: driver_fatbin FILE.fatbin FILE.ptx\n");
    return 2;
  }
  CU_CHECK(cuInit(0));
  CUcontext ctx;
  CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
  CU_CHECK(cuCtxPushCurrent(ctx));

  CUmodule m;
  CU_CHECK(cuModuleLoad(&m, argv[1]));
  if (run(m, "cuModuleLoad fatbin")) return 1;
  CU_CHECK(cuModuleUnload(m));

  CU_CHECK(cuModuleLoad(&m, argv[2]));
  if (run(m, "cuModuleLoad ptx")) return 1;
  CU_CHECK(cuModuleUnload(m));

  // From memory; the image may be freed once loaded.
  std::vector<char> image = read_file(argv[1]);
  EXPECT_TRUE(image.size() > 16);
  std::vector<char>* copy = new std::vector<char>(image);
  CU_CHECK(cuModuleLoadData(&m, copy->data()));
  delete copy;
  if (run(m, "cuModuleLoadData fatbin")) return 1;
  CU_CHECK(cuModuleUnload(m));
  CU_CHECK(cuModuleLoadFatBinary(&m, image.data()));
  if (run(m, "cuModuleLoadFatBinary")) return 1;
  CU_CHECK(cuModuleUnload(m));

  std::vector<char> ptx = read_file(argv[2]);
  ptx.push_back('\0');
  CUjit_option opt[] = {CU_JIT_MAX_REGISTERS};
  void* val[] = {reinterpret_cast<void*>(uintptr_t(64))};
  CU_CHECK(cuModuleLoadDataEx(&m, ptx.data(), 1, opt, val));
  if (run(m, "cuModuleLoadDataEx ptx")) return 1;
  CU_CHECK(cuModuleUnload(m));

  // Libraries: the same kernels through CUkernel handles.
  CUlibrary lib;
  CU_CHECK(cuLibraryLoadData(&lib, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel k;
  CU_CHECK(cuLibraryGetKernel(&k, lib, "vadd"));
  CUfunction f;
  CU_CHECK(cuKernelGetFunction(&f, k));
  CUmodule lm;
  CU_CHECK(cuLibraryGetModule(&lm, lib));
  if (run(lm, "cuLibraryLoadData")) return 1;
  CUdeviceptr g;
  size_t gs = 0;
  CU_CHECK(cuLibraryGetGlobal(&g, &gs, lib, "scale"));
  EXPECT_TRUE(gs == 4);
  CU_EXPECT(cuLibraryGetKernel(&k, lib, "nope"), CUDA_ERROR_NOT_FOUND);
  CU_CHECK(cuLibraryUnload(lib));
  CU_EXPECT(cuLibraryUnload(lib), CUDA_ERROR_INVALID_HANDLE);
  std::printf("PASS driver_fatbin\n");
  return 0;
}
