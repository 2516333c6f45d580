// cuLink*: device code linked at run time, as Numba and the ptxjit sample do.
// link_a (a kernel calling poly() and reading `offset`, both extern) is
// linked with link_b (their definitions) given as PTX from memory or a file,
// as a fatbinary, as a relocatable host object and as an archive of it; the
// linked image is loaded from memory and from a file, and the kernel checked
// against a CPU loop. Then the failures: an undefined and a doubly defined
// symbol (cuLinkComplete fails, the error log names them), malformed PTX
// (CUDA_ERROR_INVALID_PTX), bad arguments.
// Usage: driver_link DIR (holding link_a.ptx, link_b.ptx, link_b.fatbin,
// link_b.o, liblink_b.a)
#include <cctype>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "link_check.h"

namespace {

std::string dir;

bool contains_nocase(const char* hay, const char* needle) {
  std::string h(hay), n(needle);
  for (auto& c : h) c = char(std::tolower(c));
  for (auto& c : n) c = char(std::tolower(c));
  return h.find(n) != std::string::npos;
}

// Runs apply() of the module.
int check_module(CUmodule mod, const char* how) {
  CUfunction f;
  CU_CHECK(cuModuleGetFunction(&f, mod, "apply"));
  return check_linked_kernel(f, how);
}

// Links link_a.ptx (from memory) with link_b in the form `type` from `file`,
// loads the result (from memory, or written to a file when `via_file`) and
// runs it.
int link_and_run(CUjitInputType type, const char* file, bool via_file, const char* how) {
  char error_log[4096], info_log[4096];
  float wall = -1.0f;
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                         CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_WALL_TIME};
  void* vals[] = {error_log, reinterpret_cast<void*>(uintptr_t(sizeof error_log)), info_log,
                  reinterpret_cast<void*>(uintptr_t(sizeof info_log)), nullptr};
  CUlinkState link;
  CU_CHECK(cuLinkCreate(5, opts, vals, &link));
  std::string a = slurp(dir, "link_a.ptx");
  CU_CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, a.data(), a.size() + 1, "link_a.ptx", 0, nullptr, nullptr));
  const std::string path = dir + "/" + file;
  CU_CHECK(cuLinkAddFile(link, type, path.c_str(), 0, nullptr, nullptr));
  void* image = nullptr;
  size_t size = 0;
  CU_CHECK(cuLinkComplete(link, &image, &size));
  EXPECT_TRUE(image && size > 0);
  std::memcpy(&wall, &vals[4], sizeof wall);
  EXPECT_TRUE(wall >= 0.0f);
  EXPECT_TRUE(std::strlen(error_log) < sizeof error_log);
  CUmodule mod;
  if (via_file) {
    const std::string out = dir + "/driver_link.out.cubin";
    std::ofstream(out, std::ios::binary).write(static_cast<const char*>(image), std::streamsize(size));
    CU_CHECK(cuLinkDestroy(link));  // the file outlives the linker
    CU_CHECK(cuModuleLoad(&mod, out.c_str()));
  } else {
    CU_CHECK(cuModuleLoadData(&mod, image));
    CU_CHECK(cuLinkDestroy(link));  // the module keeps what it loaded
  }
  if (check_module(mod, how)) return 1;
  CU_CHECK(cuModuleUnload(mod));
  return 0;
}

int failures() {
  char error_log[4096];
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[] = {error_log, reinterpret_cast<void*>(uintptr_t(sizeof error_log))};
  std::string a = slurp(dir, "link_a.ptx"), b = slurp(dir, "link_b.ptx");
  void* image = nullptr;

  // link_a alone: poly() and offset are undefined.
  CUlinkState link;
  CU_CHECK(cuLinkCreate(2, opts, vals, &link));
  CU_CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, a.data(), a.size() + 1, "link_a.ptx", 0, nullptr, nullptr));
  EXPECT_TRUE(cuLinkComplete(link, &image, nullptr) != CUDA_SUCCESS);
  EXPECT_TRUE(contains_nocase(error_log, "undefined reference"));
  EXPECT_TRUE(std::strstr(error_log, "_Z4polyf") != nullptr);
  CU_CHECK(cuLinkDestroy(link));

  // link_b twice: poly() and offset defined twice.
  CU_CHECK(cuLinkCreate(2, opts, vals, &link));
  CU_CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, a.data(), a.size() + 1, "link_a.ptx", 0, nullptr, nullptr));
  CU_CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, b.data(), b.size() + 1, "b1", 0, nullptr, nullptr));
  CU_CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, b.data(), b.size() + 1, "b2", 0, nullptr, nullptr));
  EXPECT_TRUE(cuLinkComplete(link, &image, nullptr) != CUDA_SUCCESS);
  EXPECT_TRUE(contains_nocase(error_log, "multiple definition"));
  CU_CHECK(cuLinkDestroy(link));

  // Malformed PTX is refused when added, the linker stays usable.
  CU_CHECK(cuLinkCreate(2, opts, vals, &link));
  std::string bad = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() {\n  ret;\n";
  CU_EXPECT(cuLinkAddData(link, CU_JIT_INPUT_PTX, bad.data(), bad.size() + 1, "bad.ptx", 0, nullptr, nullptr),
            CUDA_ERROR_INVALID_PTX);
  EXPECT_TRUE(std::strlen(error_log) > 0);
  CU_CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, a.data(), a.size() + 1, "link_a.ptx", 0, nullptr, nullptr));
  CU_CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, b.data(), b.size() + 1, "link_b.ptx", 0, nullptr, nullptr));
  size_t size = 0;
  CU_CHECK(cuLinkComplete(link, &image, &size));
  CUmodule mod;
  CU_CHECK(cuModuleLoadData(&mod, image));
  if (check_module(mod, "after a refused input")) return 1;
  CU_CHECK(cuModuleUnload(mod));
  CU_CHECK(cuLinkDestroy(link));

  // Arguments.
  CU_EXPECT(cuLinkCreate(0, nullptr, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  CU_EXPECT(cuLinkCreate(1, nullptr, nullptr, &link), CUDA_ERROR_INVALID_VALUE);
  CU_CHECK(cuLinkCreate(0, nullptr, nullptr, &link));
  CU_EXPECT(cuLinkAddData(link, CU_JIT_INPUT_PTX, nullptr, 10, "x", 0, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  CU_EXPECT(cuLinkAddFile(link, CU_JIT_INPUT_PTX, (dir + "/no-such.ptx").c_str(), 0, nullptr, nullptr),
            CUDA_ERROR_FILE_NOT_FOUND);
  CU_EXPECT(cuLinkComplete(link, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  CU_CHECK(cuLinkDestroy(link));
  std::printf("ok failures\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: driver_link DIR\n");
    return 2;
  }
  dir = argv[1];
  CUdevice dev;
  if (use_primary_context(&dev)) return 1;
  if (link_and_run(CU_JIT_INPUT_PTX, "link_b.ptx", false, "ptx + ptx")) return 1;
  if (link_and_run(CU_JIT_INPUT_FATBINARY, "link_b.fatbin", false, "ptx + fatbinary")) return 1;
  if (link_and_run(CU_JIT_INPUT_OBJECT, "link_b.o", false, "ptx + object")) return 1;
  if (link_and_run(CU_JIT_INPUT_LIBRARY, "liblink_b.a", false, "ptx + library")) return 1;
  if (link_and_run(CU_JIT_INPUT_PTX, "link_b.ptx", true, "ptx + ptx, loaded from a file")) return 1;
  if (failures()) return 1;
  CU_CHECK(cuDevicePrimaryCtxRelease(dev));
  std::printf("PASS driver_link\n");
  return 0;
}
