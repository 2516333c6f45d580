// nvJitLink (libnvJitLink.so.13, as cuda.core and so Numba-CUDA use it):
// link_a's PTX linked with link_b given as PTX from memory or a file, as a
// fatbinary, as a relocatable host object and as an archive of it, each
// with its type named and with NVJITLINK_INPUT_ANY; the linked cubin loaded
// with cuModuleLoadData and cuLibraryLoadData and checked against a CPU loop.
// LTO-IR from NVRTC (-dlto) linked with -lto. Then the failures: no -arch,
// an unknown option, an undefined symbol, malformed PTX, a destroyed handle.
// Usage: driver_nvjitlink DIR (driver_link's inputs)
#include <nvJitLink.h>
#include <nvrtc.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "link_check.h"

#define NVJ_EXPECT(call, want)                                                                      \
  do {                                                                                              \
    nvJitLinkResult r_ = (call);                                                                    \
    if (r_ != (want)) {                                                                             \
      std::fprintf(stderr, "FAIL %s:%d: %s returned %d, expected %d\n", __FILE__, __LINE__, #call, \
                   (int)r_, (int)(want));                                                           \
      return 1;                                                                                     \
    }                                                                                               \
  } while (0)
#define NVJ_CHECK(call) NVJ_EXPECT(call, NVJITLINK_SUCCESS)

namespace {

std::string dir;
bool on_softgpu = false;  // checks of softgpu's own messages

std::string error_log(nvJitLinkHandle h) {
  size_t n = 0;
  if (nvJitLinkGetErrorLogSize(h, &n) != NVJITLINK_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  nvJitLinkGetErrorLog(h, s.data());
  return s;
}

// Runs `kernel` of the loaded image (check_linked_kernel).
int check_image(const void* image, bool as_library, const char* kernel, const char* how) {
  CUmodule mod = nullptr;
  CUlibrary lib = nullptr;
  CUfunction f;
  if (as_library) {
    CU_CHECK(cuLibraryLoadData(&lib, image, nullptr, nullptr, 0, nullptr, nullptr, 0));
    CUkernel k;
    CU_CHECK(cuLibraryGetKernel(&k, lib, kernel));
    CU_CHECK(cuKernelGetFunction(&f, k));
    int regs = -1;
    CU_CHECK(cuKernelGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, k, 0));  // cuda.core asks for this
    EXPECT_TRUE(regs > 0);
  } else {
    CU_CHECK(cuModuleLoadData(&mod, image));
    CU_CHECK(cuModuleGetFunction(&f, mod, kernel));
  }
  if (check_linked_kernel(f, how)) return 1;
  if (lib) CU_CHECK(cuLibraryUnload(lib));
  if (mod) CU_CHECK(cuModuleUnload(mod));
  return 0;
}

// The linked cubin of `h`, completed.
int linked(nvJitLinkHandle h, std::vector<char>& cubin) {
  NVJ_CHECK(nvJitLinkComplete(h));
  size_t size = 0;
  NVJ_CHECK(nvJitLinkGetLinkedCubinSize(h, &size));
  EXPECT_TRUE(size > 0);
  cubin.assign(size, '\0');
  NVJ_CHECK(nvJitLinkGetLinkedCubin(h, cubin.data()));
  return 0;
}

// link_a.ptx (from memory) with link_b in the form `type` from `file`.
int link_and_run(nvJitLinkInputType type, const char* file, bool any, bool as_library, const char* how) {
  const char* opts[] = {"-arch=sm_80", "-O3"};
  nvJitLinkHandle h;
  NVJ_CHECK(nvJitLinkCreate(&h, 2, opts));
  std::string a = slurp(dir, "link_a.ptx");
  NVJ_CHECK(nvJitLinkAddData(h, any ? NVJITLINK_INPUT_ANY : NVJITLINK_INPUT_PTX, a.data(), a.size(), "link_a.ptx"));
  NVJ_CHECK(nvJitLinkAddFile(h, any ? NVJITLINK_INPUT_ANY : type, (dir + "/" + file).c_str()));
  std::vector<char> cubin;
  if (linked(h, cubin)) return 1;
  NVJ_CHECK(nvJitLinkDestroy(&h));
  EXPECT_TRUE(h == nullptr);
  return check_image(cubin.data(), as_library, "apply", how);  // the image outlives the linker
}

// NVRTC's LTO-IR of one kernel computing the same, linked with -lto.
int lto() {
  const char* src =
      "__device__ int offset = 7;\n"
      "__device__ float poly(float x) { return (3.0f * x - 2.0f) * x + 1.0f; }\n"
      "extern \"C\" __global__ void apply_lto(float* y, const float* x, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) y[i] = poly(x[i]) + float(offset);\n"
      "}\n";
  nvrtcProgram p;
  EXPECT_TRUE(nvrtcCreateProgram(&p, src, "lto.cu", 0, nullptr, nullptr) == NVRTC_SUCCESS);
  const char* copts[] = {"-arch=compute_80", "-dlto", "-rdc=true"};
  EXPECT_TRUE(nvrtcCompileProgram(p, 3, copts) == NVRTC_SUCCESS);
  size_t n = 0;
  EXPECT_TRUE(nvrtcGetLTOIRSize(p, &n) == NVRTC_SUCCESS && n > 0);
  std::vector<char> ltoir(n);
  EXPECT_TRUE(nvrtcGetLTOIR(p, ltoir.data()) == NVRTC_SUCCESS);
  nvrtcDestroyProgram(&p);

  const char* opts[] = {"-arch=sm_80", "-lto"};
  nvJitLinkHandle h;
  NVJ_CHECK(nvJitLinkCreate(&h, 2, opts));
  NVJ_CHECK(nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, ltoir.data(), ltoir.size(), "lto.ltoir"));
  std::vector<char> cubin;
  if (linked(h, cubin)) return 1;
  NVJ_CHECK(nvJitLinkDestroy(&h));
  return check_image(cubin.data(), false, "apply_lto", "LTO-IR with -lto");
}

int failures() {
  nvJitLinkHandle h = nullptr;
  const char* arch[] = {"-arch=sm_80"};
  const char* no_arch[] = {"-O3"};
  const char* unknown[] = {"-arch=sm_80", "-no-such-option"};
  NVJ_EXPECT(nvJitLinkCreate(&h, 1, no_arch), NVJITLINK_ERROR_MISSING_ARCH);
  NVJ_EXPECT(nvJitLinkCreate(&h, 2, unknown), NVJITLINK_ERROR_UNRECOGNIZED_OPTION);
  const char* variants[] = {"-arch=sm_90a", "-lineinfo", "-maxrregcount=64", "-ftz=1", "-O0"};
  NVJ_CHECK(nvJitLinkCreate(&h, 5, variants));
  NVJ_CHECK(nvJitLinkDestroy(&h));
  if (on_softgpu) {  // which code NVIDIA's gives for a malformed -arch is not checked on a GPU
    const char* bad_arch[] = {"-arch=sm_x"};
    NVJ_EXPECT(nvJitLinkCreate(&h, 1, bad_arch), NVJITLINK_ERROR_UNRECOGNIZED_ARCH);
  }

  // link_a alone: poly() and offset are undefined; the log names poly.
  std::string a = slurp(dir, "link_a.ptx"), b = slurp(dir, "link_b.ptx");
  NVJ_CHECK(nvJitLinkCreate(&h, 1, arch));
  NVJ_CHECK(nvJitLinkAddData(h, NVJITLINK_INPUT_PTX, a.data(), a.size(), "link_a.ptx"));
  EXPECT_TRUE(nvJitLinkComplete(h) != NVJITLINK_SUCCESS);
  EXPECT_TRUE(error_log(h).find("_Z4polyf") != std::string::npos);
  NVJ_CHECK(nvJitLinkDestroy(&h));

  // Malformed PTX; a later link of good inputs on the same handle works.
  NVJ_CHECK(nvJitLinkCreate(&h, 1, arch));
  std::string bad = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() {\n  ret;\n";
  EXPECT_TRUE(nvJitLinkAddData(h, NVJITLINK_INPUT_PTX, bad.data(), bad.size(), "bad.ptx") != NVJITLINK_SUCCESS);
  EXPECT_TRUE(!error_log(h).empty());
  NVJ_CHECK(nvJitLinkDestroy(&h));

  // Handles and pointers.
  NVJ_CHECK(nvJitLinkCreate(&h, 1, arch));
  nvJitLinkHandle gone = h;
  NVJ_CHECK(nvJitLinkDestroy(&h));
  if (on_softgpu) {  // NVIDIA's library does not promise to detect a stale handle
    NVJ_EXPECT(nvJitLinkAddData(gone, NVJITLINK_INPUT_PTX, a.data(), a.size(), "x"), NVJITLINK_ERROR_INVALID_INPUT);
    NVJ_EXPECT(nvJitLinkComplete(gone), NVJITLINK_ERROR_INVALID_INPUT);
    NVJ_EXPECT(nvJitLinkDestroy(&gone), NVJITLINK_ERROR_INVALID_INPUT);
    NVJ_EXPECT(nvJitLinkCreate(nullptr, 1, arch), NVJITLINK_ERROR_NULL_INPUT);
    // Two PTX modules do not make one linked PTX.
    NVJ_CHECK(nvJitLinkCreate(&h, 1, arch));
    NVJ_CHECK(nvJitLinkAddData(h, NVJITLINK_INPUT_PTX, a.data(), a.size(), "link_a.ptx"));
    NVJ_CHECK(nvJitLinkAddData(h, NVJITLINK_INPUT_PTX, b.data(), b.size(), "link_b.ptx"));
    NVJ_CHECK(nvJitLinkComplete(h));
    size_t n = 0;
    EXPECT_TRUE(nvJitLinkGetLinkedPtxSize(h, &n) != NVJITLINK_SUCCESS);
    EXPECT_TRUE(error_log(h).find("2 PTX modules") != std::string::npos);
    NVJ_CHECK(nvJitLinkDestroy(&h));
  }
  unsigned major = 0, minor = 0;
  NVJ_CHECK(nvJitLinkVersion(&major, &minor));
  EXPECT_TRUE(major >= 12);
  std::printf("ok failures\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: driver_nvjitlink DIR\n");
    return 2;
  }
  dir = argv[1];
  CUdevice dev;
  if (use_primary_context(&dev)) return 1;
  char name[256] = {};
  CU_CHECK(cuDeviceGetName(name, sizeof name, dev));
  on_softgpu = std::strstr(name, "softgpu") != nullptr;
  struct Form {
    nvJitLinkInputType type;
    const char* file;
    const char* how;
  } forms[] = {{NVJITLINK_INPUT_PTX, "link_b.ptx", "ptx + ptx"},
               {NVJITLINK_INPUT_FATBIN, "link_b.fatbin", "ptx + fatbinary"},
               {NVJITLINK_INPUT_OBJECT, "link_b.o", "ptx + object"},
               {NVJITLINK_INPUT_LIBRARY, "liblink_b.a", "ptx + library"}};
  for (const Form& f : forms) {
    if (link_and_run(f.type, f.file, false, false, f.how)) return 1;
    const std::string any = std::string(f.how) + ", NVJITLINK_INPUT_ANY, as a CUlibrary";
    if (link_and_run(f.type, f.file, true, true, any.c_str())) return 1;
  }
  if (lto()) return 1;
  if (failures()) return 1;
  CU_CHECK(cuDevicePrimaryCtxRelease(dev));
  std::printf("PASS driver_nvjitlink\n");
  return 0;
}
