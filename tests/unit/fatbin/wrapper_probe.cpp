// A stand-in libcudart.so.13 for the nvcc-labelled test: each
// __cudaRegisterFatBinary runs read_wrapper on the real in-process wrapper
// nvcc emitted and prints what it found; everything else is a no-op.
#include <cstdio>
#include <cstring>

#include "fatbin/fatbin.h"

using namespace softgpu::fatbin;

extern "C" {

void** __cudaRegisterFatBinary(void* wrapper) {
  static void* handle = nullptr;
  auto img = read_wrapper(wrapper);
  if (!img) {
    std::printf("probe: error %d: %s\n", int(img.error().status), img.error().message.c_str());
    return &handle;
  }
  auto mods = img->modules_to_load();
  std::printf("probe: wrapper v%u, %zu prelinked, %zu modules:", img->wrapper_version, img->prelinked.size(),
              mods.size());
  for (const auto* m : mods) {
    bool entry = m->text.find(".entry ") != std::string::npos;
    std::printf(" sm_%u%s", m->arch, entry ? "+entry" : "");
  }
  std::printf("\n");
  std::fflush(stdout);
  return &handle;
}
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}
void __cudaRegisterFunction(void**, const char*, char*, const char*, int, void*, void*, void*, void*, int*) {}
void __cudaRegisterVar(void**, char*, char*, const char*, int, size_t, int, int) {}
void __cudaRegisterManagedVar(void**, void**, char*, const char*, int, size_t, int, int) {}
char __cudaInitModule(void**) { return 1; }
}
