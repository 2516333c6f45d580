// PTX that a driver's JIT rejects, loaded through the driver API
// (cuModuleLoadData) and the runtime (cudaLibraryLoadData): an unknown
// .target is CUDA_ERROR_INVALID_PTX / cudaErrorInvalidPtx (218), a .version
// newer than CUDA 13.0's PTX ISA 9.0 is CUDA_ERROR_UNSUPPORTED_PTX_VERSION /
// cudaErrorUnsupportedPtxVersion (222); registers declared twice, registers
// of the wrong type, a CTA of 2048 threads, 70,000 kernel parameters and an
// instruction that is not PTX are invalid PTX. None of it is sticky: the
// same kernel, valid, then loads and runs. Usage: driver_ptx_errors
#include <cuda.h>
#include <cuda_runtime.h>

#include <string>

#include "../check.cuh"
#include "drv_check.h"

namespace {

// Writes 7 * (thread index + 1) to out[thread index].
std::string ptx(const char* version, const char* target, const char* decls, const char* directive,
                const char* extra_params = "") {
  return std::string(".version ") + version + "\n.target " + target + "\n.address_size 64\n\n" +
         ".visible .entry fill(.param .u64 out" + extra_params + ")" + directive + "\n{\n" +
         "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n" + decls +
         "\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r1, %tid.x;\n"
         "\tadd.u32 %r2, %r1, 1;\n\tmul.lo.u32 %r3, %r2, 7;\n\tmul.wide.u32 %rd3, %r1, 4;\n"
         "\tadd.s64 %rd2, %rd2, %rd3;\n\tst.global.u32 [%rd2], %r3;\n\tret;\n}\n";
}

int driver_loads(const std::string& text, CUresult want, const char* what) {
  CUmodule m = nullptr;
  CUresult r = cuModuleLoadData(&m, text.c_str());
  if (r != want) {
    std::fprintf(stderr, "FAIL %s: cuModuleLoadData returned %s (%d), expected %s (%d)\n", what, cu_name(r), int(r),
                 cu_name(want), int(want));
    return 1;
  }
  if (r == CUDA_SUCCESS) CU_CHECK(cuModuleUnload(m));
  return 0;
}

int runtime_loads(const std::string& text, cudaError_t want, const char* what) {
  cudaLibrary_t lib = nullptr;
  cudaError_t e = cudaLibraryLoadData(&lib, text.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  cudaError_t last = cudaGetLastError();
  if (e != want || last != want) {
    std::fprintf(stderr, "FAIL %s: cudaLibraryLoadData returned %s, cudaGetLastError %s, expected %s\n", what,
                 cudaGetErrorName(e), cudaGetErrorName(last), cudaGetErrorName(want));
    return 1;
  }
  if (e == cudaSuccess) CHECK(cudaLibraryUnload(lib));
  return 0;
}

// The valid module runs: out[i] == 7 * (i + 1).
int runs(const std::string& text) {
  CUmodule m = nullptr;
  CU_CHECK(cuModuleLoadData(&m, text.c_str()));
  CUfunction f = nullptr;
  CU_CHECK(cuModuleGetFunction(&f, m, "fill"));
  const int n = 64;
  CUdeviceptr d = 0;
  CU_CHECK(cuMemAlloc(&d, n * 4));
  void* params[] = {&d};
  CU_CHECK(cuLaunchKernel(f, 1, 1, 1, n, 1, 1, 0, nullptr, params, nullptr));
  int host[n];
  CU_CHECK(cuMemcpyDtoH(host, d, sizeof host));
  for (int i = 0; i < n; ++i) EXPECT_TRUE(host[i] == 7 * (i + 1));
  CU_CHECK(cuMemFree(d));
  CU_CHECK(cuModuleUnload(m));
  return 0;
}

}  // namespace

int main() {
  CHECK(cudaSetDevice(0));
  CU_CHECK(cuInit(0));
  std::string many;
  for (int i = 0; i < 70000; ++i) many += ", .param .u32 p" + std::to_string(i);
  struct Case {
    const char* what;
    std::string text;
    CUresult drv;
    cudaError_t rt;
  } cases[] = {
      {"sm_99", ptx("9.0", "sm_99", "", ""), CUDA_ERROR_INVALID_PTX, cudaErrorInvalidPtx},
      {"version 99.9", ptx("99.9", "sm_80", "", ""), CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
       cudaErrorUnsupportedPtxVersion},
      {"version 9.1", ptx("9.1", "sm_80", "", ""), CUDA_ERROR_UNSUPPORTED_PTX_VERSION, cudaErrorUnsupportedPtxVersion},
      {"register twice", ptx("9.0", "sm_80", "\t.reg .u32 %r1;\n\t.reg .u32 %r1;\n", ""), CUDA_ERROR_INVALID_PTX,
       cudaErrorInvalidPtx},
      {"register in a range", ptx("9.0", "sm_80", "\t.reg .b32 %r2;\n", ""), CUDA_ERROR_INVALID_PTX,
       cudaErrorInvalidPtx},
      {"b16 for f32", ptx("9.0", "sm_80", "\t.reg .b16 %h<3>;\n\t.reg .f32 %f1;\n\tadd.f32 %f1, %h1, %h2;\n", ""),
       CUDA_ERROR_INVALID_PTX, cudaErrorInvalidPtx},
      {"reqntid 2048", ptx("9.0", "sm_80", "", " .reqntid 2048"), CUDA_ERROR_INVALID_PTX, cudaErrorInvalidPtx},
      {"maxntid 32x32x2", ptx("9.0", "sm_80", "", " .maxntid 32, 32, 2"), CUDA_ERROR_INVALID_PTX,
       cudaErrorInvalidPtx},
      {"70000 parameters", ptx("9.0", "sm_80", "", "", many.c_str()), CUDA_ERROR_INVALID_PTX, cudaErrorInvalidPtx},
      {"frobnicate", ptx("9.0", "sm_80", "\tfrobnicate.u32 %r1, %r2, %r3;\n", ""), CUDA_ERROR_INVALID_PTX,
       cudaErrorInvalidPtx},
  };
  for (const auto& c : cases) {
    if (driver_loads(c.text, c.drv, c.what) || runtime_loads(c.text, c.rt, c.what)) return 1;
  }
  // Nested scopes may declare names again; .b32 registers serve .f32; the
  // limits themselves are allowed.
  const std::string ok = ptx("9.0", "sm_80", "\t{\n\t.reg .b32 %r1;\n\tadd.f32 %r1, %r1, %r1;\n\t}\n", " .maxntid 1024");
  if (driver_loads(ok, CUDA_SUCCESS, "valid") || runtime_loads(ok, cudaSuccess, "valid") || runs(ok)) return 1;
  std::printf("PASS driver_ptx_errors\n");
  return 0;
}
