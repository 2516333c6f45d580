// cuLink*: device code linked at run time (runtime/link.h does the work in
// softgpu's cudart). The "cubin" cuLinkComplete returns is softgpu's image
// of the linked PTX modules, which cuModuleLoadData (and a file written from
// it, through cuModuleLoad) accepts.
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/read_file.h"
#include "cudadrv/driver.h"

using softgpu::cudadrv::guarded;
using softgpu::cudadrv::rt;

// The handle cuda.h declares opaque.
struct CUlinkState_st {
  void* linker = nullptr;  // runtime::PtxLinker, through softgpu_cudart_link_*
  // cuLinkCreate's output options: the caller's buffers and the slots of its
  // optionValues array the sizes and the wall time are written back to.
  char* error_buf = nullptr;
  size_t error_size = 0;
  void** error_size_slot = nullptr;
  char* info_buf = nullptr;
  size_t info_size = 0;
  void** info_size_slot = nullptr;
  void** wall_time_slot = nullptr;
  double wall_ms = 0;
};

namespace {

// Copies a log into the caller's buffer (truncated, NUL-terminated) and
// writes back how many bytes it filled.
void put_log(const char* log, char* buf, size_t size, void** size_slot) {
  if (!buf || !size) return;
  const size_t n = std::min(std::strlen(log), size - 1);
  std::memcpy(buf, log, n);
  buf[n] = '\0';
  if (size_slot) *size_slot = reinterpret_cast<void*>(static_cast<uintptr_t>(n + 1));
}

// After each call: the logs and the time spent, as the options asked.
template <class F>
CUresult logged(CUlinkState s, F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  const CUresult r = f();
  s->wall_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  put_log(softgpu_cudart_link_log(s->linker, 0), s->error_buf, s->error_size, s->error_size_slot);
  put_log(softgpu_cudart_link_log(s->linker, 1), s->info_buf, s->info_size, s->info_size_slot);
  if (s->wall_time_slot) {
    const float ms = float(s->wall_ms);
    std::memcpy(s->wall_time_slot, &ms, sizeof ms);  // a float in the pointer-sized slot
  }
  return r;
}

bool options_ok(unsigned n, const void* keys, const void* values) { return n == 0 || (keys && values); }

CUresult add(CUlinkState state, CUjitInputType type, const void* data, size_t size, const char* name,
             unsigned num_options, CUjit_option* options, void** values) {
  if (!state || !state->linker) return CUDA_ERROR_INVALID_HANDLE;
  if (!data || !size || !options_ok(num_options, options, values)) return CUDA_ERROR_INVALID_VALUE;
  return logged(state, [&] { return rt(softgpu_cudart_link_add(state->linker, int(type), data, size, name)); });
}

}  // namespace

CUresult CUDAAPI cuLinkCreate(unsigned int numOptions, CUjit_option* options, void** optionValues,
                              CUlinkState* stateOut) {
  return guarded([&] {
    if (!stateOut || !options_ok(numOptions, options, optionValues)) return CUDA_ERROR_INVALID_VALUE;
    auto s = std::make_unique<CUlinkState_st>();
    for (unsigned i = 0; i < numOptions; ++i) {
      void** slot = &optionValues[i];
      const auto as_size = [&] { return static_cast<size_t>(reinterpret_cast<uintptr_t>(*slot)); };
      switch (options[i]) {
        case CU_JIT_ERROR_LOG_BUFFER: s->error_buf = static_cast<char*>(*slot); break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: s->error_size = as_size(), s->error_size_slot = slot; break;
        case CU_JIT_INFO_LOG_BUFFER: s->info_buf = static_cast<char*>(*slot); break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: s->info_size = as_size(), s->info_size_slot = slot; break;
        case CU_JIT_WALL_TIME: s->wall_time_slot = slot; break;
        default: break;  // optimization, target and cache options change nothing here: PTX runs as it is
      }
    }
    s->linker = softgpu_cudart_link_create();
    if (!s->linker) return CUDA_ERROR_NOT_INITIALIZED;
    if (s->error_buf && s->error_size) s->error_buf[0] = '\0';
    if (s->info_buf && s->info_size) s->info_buf[0] = '\0';
    *stateOut = s.release();
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuLinkAddData(CUlinkState state, CUjitInputType type, void* data, size_t size, const char* name,
                               unsigned int numOptions, CUjit_option* options, void** optionValues) {
  return guarded([&] { return add(state, type, data, size, name, numOptions, options, optionValues); });
}

CUresult CUDAAPI cuLinkAddFile(CUlinkState state, CUjitInputType type, const char* path, unsigned int numOptions,
                               CUjit_option* options, void** optionValues) {
  return guarded([&] {
    if (!state || !state->linker) return CUDA_ERROR_INVALID_HANDLE;
    if (!path) return CUDA_ERROR_INVALID_VALUE;
    auto read = softgpu::read_regular_file(path, softgpu::kMaxSourceFileBytes);
    if (!read) {  // missing, not a regular file (a FIFO, a device) or too large: said in the error log
      put_log(read.error().message.c_str(), state->error_buf, state->error_size, state->error_size_slot);
      return read.error().status == softgpu::Status::FileNotFound ? CUDA_ERROR_FILE_NOT_FOUND : CUDA_ERROR_INVALID_VALUE;
    }
    std::string& bytes = *read;
    if (type == CU_JIT_INPUT_PTX) bytes.push_back('\0');  // a PTX file need not end in NUL
    if (bytes.empty()) return CUDA_ERROR_INVALID_IMAGE;
    return add(state, type, bytes.data(), bytes.size(), path, numOptions, options, optionValues);
  });
}

CUresult CUDAAPI cuLinkComplete(CUlinkState state, void** cubinOut, size_t* sizeOut) {
  return guarded([&] {
    if (!state || !state->linker) return CUDA_ERROR_INVALID_HANDLE;
    if (!cubinOut) return CUDA_ERROR_INVALID_VALUE;
    const void* image = nullptr;
    size_t size = 0;
    CUresult r = logged(state, [&] { return rt(softgpu_cudart_link_complete(state->linker, &image, &size)); });
    if (r != CUDA_SUCCESS) return r;
    *cubinOut = const_cast<void*>(image);
    if (sizeOut) *sizeOut = size;
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuLinkDestroy(CUlinkState state) {
  return guarded([&] {
    if (!state) return CUDA_ERROR_INVALID_HANDLE;
    softgpu_cudart_link_destroy(state->linker);
    delete state;
    return CUDA_SUCCESS;
  });
}

// The pre-6.5 entry points, same signatures (cuda.h maps the names to _v2).
extern "C" CUresult CUDAAPI cuLinkCreate_v1(unsigned int n, CUjit_option* o, void** v, CUlinkState* s)
    __asm__("cuLinkCreate");
extern "C" CUresult CUDAAPI cuLinkCreate_v1(unsigned int n, CUjit_option* o, void** v, CUlinkState* s) {
  return cuLinkCreate(n, o, v, s);
}
extern "C" CUresult CUDAAPI cuLinkAddData_v1(CUlinkState st, CUjitInputType t, void* d, size_t sz, const char* name,
                                             unsigned int n, CUjit_option* o, void** v) __asm__("cuLinkAddData");
extern "C" CUresult CUDAAPI cuLinkAddData_v1(CUlinkState st, CUjitInputType t, void* d, size_t sz, const char* name,
                                             unsigned int n, CUjit_option* o, void** v) {
  return cuLinkAddData(st, t, d, sz, name, n, o, v);
}
extern "C" CUresult CUDAAPI cuLinkAddFile_v1(CUlinkState st, CUjitInputType t, const char* path, unsigned int n,
                                             CUjit_option* o, void** v) __asm__("cuLinkAddFile");
extern "C" CUresult CUDAAPI cuLinkAddFile_v1(CUlinkState st, CUjitInputType t, const char* path, unsigned int n,
                                             CUjit_option* o, void** v) {
  return cuLinkAddFile(st, t, path, n, o, v);
}
