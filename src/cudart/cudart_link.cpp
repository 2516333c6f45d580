// libcuda.so.1's cuLink* (src/cudadrv/link.cpp) over runtime::PtxLinker:
// private entry points under the softgpu_cudart_ prefix, like those of
// cudart_library.cpp.
#include <cstddef>
#include <new>
#include <span>

#include "cudart/cudart_internal.h"
#include "runtime/link.h"

using softgpu::Status;
using softgpu::cudart::call;
using softgpu::cudart::rt;
using softgpu::runtime::PtxLinker;

extern "C" {

// A linker for the simulated device; null when the runtime did not start.
__attribute__((visibility("default"))) void* softgpu_cudart_link_create(void) {
  try {
    const auto* gpu = rt().gpu();
    if (!gpu) return nullptr;
    return new PtxLinker(uint32_t(gpu->cc_major * 10 + gpu->cc_minor));
  } catch (...) {
    return nullptr;
  }
}

__attribute__((visibility("default"))) cudaError_t softgpu_cudart_link_add(void* linker, int type, const void* data,
                                                                          size_t size, const char* name) {
  return call([&] {
    if (!linker || !data) return Status::InvalidValue;
    return static_cast<PtxLinker*>(linker)->add(type, {static_cast<const std::byte*>(data), size},
                                                  name && *name ? name : "<unnamed input>");
  });
}

__attribute__((visibility("default"))) cudaError_t softgpu_cudart_link_complete(void* linker, const void** image,
                                                                               size_t* size) {
  return call([&] {
    if (!linker || !image) return Status::InvalidValue;
    auto* l = static_cast<PtxLinker*>(linker);
    if (Status s = l->complete(); s != Status::Success) return s;
    *image = l->image().data();
    if (size) *size = l->image().size() + 1;  // with the NUL, as cuModuleLoadData reads it
    return Status::Success;
  });
}

// The error log (which = 0) or the info log (1) so far; valid until the
// linker's next call.
__attribute__((visibility("default"))) const char* softgpu_cudart_link_log(void* linker, int which) {
  if (!linker) return "";
  auto* l = static_cast<PtxLinker*>(linker);
  return which == 0 ? l->error_log().c_str() : l->info_log().c_str();
}

__attribute__((visibility("default"))) void softgpu_cudart_link_destroy(void* linker) {
  delete static_cast<PtxLinker*>(linker);
}

}  // extern "C"
