// Libraries loaded at run time (cudaLibrary*), kernel parameter layout,
// cluster occupancy, and the driver entry points softgpu's libcuda.so.1
// provides (cudaGetDriverEntryPoint*).
#include <dlfcn.h>

#include <string>

#include "cudart/cudart_internal.h"
#include "runtime/tensor_map.h"

#include <cstdio>

using softgpu::Dim3;
using softgpu::Status;
using softgpu::cudart::call;
using softgpu::cudart::rt;
using softgpu::cudart::to_dim;

extern "C" {

// JIT and library options change nothing here: PTX is interpreted, never
// compiled, and libraries are loaded at once.
cudaError_t cudaLibraryLoadData(cudaLibrary_t* library, const void* code, enum cudaJitOption*, void**, unsigned,
                                enum cudaLibraryOption*, void**, unsigned) {
  return call([&] {
    void* h = nullptr;
    if (!library) return Status::InvalidValue;
    Status s = rt().library_load(&h, code);
    if (s == Status::Success) *library = static_cast<cudaLibrary_t>(h);
    return s;
  });
}

cudaError_t cudaLibraryLoadFromFile(cudaLibrary_t* library, const char* fileName, enum cudaJitOption*, void**,
                                    unsigned, enum cudaLibraryOption*, void**, unsigned) {
  return call([&] {
    void* h = nullptr;
    if (!library) return Status::InvalidValue;
    Status s = rt().library_load_file(&h, fileName);
    if (s == Status::Success) *library = static_cast<cudaLibrary_t>(h);
    return s;
  });
}

cudaError_t cudaLibraryUnload(cudaLibrary_t library) {
  return call([&] { return rt().library_unload(library); });
}

cudaError_t cudaLibraryGetKernel(cudaKernel_t* pKernel, cudaLibrary_t library, const char* name) {
  return call([&] {
    void* k = nullptr;
    if (!pKernel) return Status::InvalidValue;
    Status s = rt().library_kernel(&k, library, name);
    if (s == Status::Success) *pKernel = static_cast<cudaKernel_t>(k);
    return s == Status::NotFound ? static_cast<Status>(cudaErrorSymbolNotFound) : s;
  });
}

cudaError_t cudaLibraryGetGlobal(void** dptr, size_t* bytes, cudaLibrary_t library, const char* name) {
  return call([&] {
    Status s = rt().library_global(dptr, bytes, library, name);
    return s == Status::NotFound ? static_cast<Status>(cudaErrorSymbolNotFound) : s;
  });
}

cudaError_t cudaFuncGetParamInfo(const void* func, size_t paramIndex, size_t* paramOffset, size_t* paramSize) {
  return call([&] { return rt().func_param_info(func, paramIndex, paramOffset, paramSize); });
}

cudaError_t cudaOccupancyMaxActiveClusters(int* numClusters, const void* func, const cudaLaunchConfig_t* config) {
  return call([&] {
    if (!config || (config->numAttrs && !config->attrs)) return Status::InvalidValue;
    Dim3 cluster;
    for (unsigned i = 0; i < config->numAttrs; ++i)
      if (config->attrs[i].id == cudaLaunchAttributeClusterDimension) {
        const auto& c = config->attrs[i].val.clusterDim;
        cluster = Dim3{c.x, c.y, c.z};
      }
    Dim3 block = to_dim(config->blockDim);
    if (block.count() > 0x7fffffff) return Status::InvalidValue;
    return rt().occupancy_max_active_clusters(numClusters, func, static_cast<int>(block.count()),
                                              config->dynamicSmemBytes, cluster);
  });
}

}  // extern "C"

namespace {
// softgpu's libcuda.so.1, beside this library (the directory `softgpu run`
// puts first on LD_LIBRARY_PATH), else whichever the loader finds. Opened
// once; null if neither loads.
void* driver_library() {
  static void* const handle = [] {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&cudaLibraryLoadData), &info) && info.dli_fname) {
      std::string path = info.dli_fname;
      path = path.substr(0, path.rfind('/') + 1) + "libcuda.so.1";
      if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL)) return h;
    }
    return dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  }();
  return handle;
}

using GetProcAddress = int (*)(const char*, void**, int, unsigned long long, int*);

cudaError_t entry_point(const char* symbol, void** funcPtr, unsigned version, unsigned long long flags,
                        cudaDriverEntryPointQueryResult* status) {
  if (!symbol || !funcPtr || flags > (cudaEnableLegacyStream | cudaEnablePerThreadDefaultStream))
    return cudaErrorInvalidValue;
  *funcPtr = nullptr;
  if (status) *status = cudaDriverEntryPointSymbolNotFound;
  void* lib = driver_library();
  auto get = lib ? reinterpret_cast<GetProcAddress>(dlsym(lib, "cuGetProcAddress_v2")) : nullptr;
  if (!get) return cudaErrorNotSupported;
  // The runtime has initialized the driver by now (NVIDIA's does at its own
  // initialization), so the functions handed out work without a cuInit of
  // the program's own.
  if (auto init = reinterpret_cast<int (*)(unsigned)>(dlsym(lib, "cuInit"))) init(0);
  int qr = 1;
  int r = get(symbol, funcPtr, static_cast<int>(version), flags, &qr);  // CUresult, CUdriverProcAddressQueryResult
  if (r != 0) *funcPtr = nullptr;
  if (status) *status = static_cast<cudaDriverEntryPointQueryResult>(r == 0 ? 0 : qr);
  return cudaSuccess;
}
}  // namespace

extern "C" {

cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** funcPtr, unsigned long long flags,
                                    cudaDriverEntryPointQueryResult* driverStatus) {
  return entry_point(symbol, funcPtr, CUDART_VERSION, flags, driverStatus);
}

cudaError_t cudaGetDriverEntryPoint_ptsz(const char* symbol, void** funcPtr, unsigned long long flags,
                                         cudaDriverEntryPointQueryResult* driverStatus) {
  return entry_point(symbol, funcPtr, CUDART_VERSION, flags, driverStatus);
}

cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** funcPtr, unsigned int cudaVersion,
                                             unsigned long long flags,
                                             cudaDriverEntryPointQueryResult* driverStatus) {
  return entry_point(symbol, funcPtr, cudaVersion, flags, driverStatus);
}

cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char* symbol, void** funcPtr, unsigned int cudaVersion,
                                                  unsigned long long flags,
                                                  cudaDriverEntryPointQueryResult* driverStatus) {
  return entry_point(symbol, funcPtr, cudaVersion, flags, driverStatus);
}

}  // extern "C"

namespace softgpu::cudart {

// As CUDA 12+'s cudaSetDevice: the driver is initialized and the device's
// primary context becomes current on the calling thread (for the driver API,
// when libcuda.so.1 is loaded and the thread has no current context). The runtime keeps the reference it
// retains, as NVIDIA's does for the life of the process.
void make_primary_context_current(int device) noexcept {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!lib) return;
  using Init = int (*)(unsigned);
  using GetCurrent = int (*)(void**);
  using Retain = int (*)(void**, int);
  using SetCurrent = int (*)(void*);
  auto init = reinterpret_cast<Init>(dlsym(lib, "cuInit"));
  auto get = reinterpret_cast<GetCurrent>(dlsym(lib, "cuCtxGetCurrent"));
  auto retain = reinterpret_cast<Retain>(dlsym(lib, "cuDevicePrimaryCtxRetain"));
  auto set = reinterpret_cast<SetCurrent>(dlsym(lib, "cuCtxSetCurrent"));
  void* cur = nullptr;
  void* ctx = nullptr;
  if (init && get && retain && set && init(0) == 0 && get(&cur) == 0 && !cur && retain(&ctx, device) == 0) set(ctx);
  dlclose(lib);  // drops the reference RTLD_NOLOAD took; the library stays loaded
}

}  // namespace softgpu::cudart

// libcuda.so.1's private entry points (src/cudadrv/driver.h): what the driver
// API needs that cudart's public API cannot express. Exported beside the CUDA
// API under the softgpu_cudart_ prefix, for softgpu's own libraries only.
extern "C" {

__attribute__((visibility("default"))) cudaError_t softgpu_cudart_address_range(const void* p, void** base,
                                                                               size_t* size) {
  return call([&] { return rt().address_range(p, base, size); });
}

__attribute__((visibility("default"))) cudaError_t softgpu_cudart_memset_elements(void* dst, unsigned value,
                                                                                 size_t elem_size, size_t count,
                                                                                 cudaStream_t stream) {
  return call([&] { return rt().memset_elements(dst, value, elem_size, count, stream); });
}

}  // extern "C"

extern "C" {

// cuTensorMapEncodeTiled / cuTensorMapReplaceAddress (src/cudadrv/tensor_map.cpp):
// 0 when encoded, 1 for invalid arguments, 2 for valid ones softgpu does not
// implement; the reason in why[why_len].
__attribute__((visibility("default"))) int softgpu_cudart_tensor_map_tiled(
    void* map, unsigned type, unsigned rank, const void* global, const uint64_t* dims, const uint64_t* strides,
    const unsigned* box, const unsigned* elem_strides, unsigned interleave, unsigned swizzle, unsigned l2,
    unsigned oob, char* why, size_t why_len) {
  softgpu::runtime::TiledEncodeArgs a;
  a.data_type = type, a.rank = rank, a.global_address = reinterpret_cast<uint64_t>(global);
  a.global_dim = dims, a.global_strides = strides, a.box_dim = box, a.element_strides = elem_strides;
  a.interleave = interleave, a.swizzle = swizzle, a.l2_promotion = l2, a.oob_fill = oob;
  bool unsupported = false;
  auto err = softgpu::runtime::encode_tiled(a, static_cast<std::byte*>(map), &unsupported);
  if (!err) return 0;
  if (why && why_len) std::snprintf(why, why_len, "%s", err->c_str());
  return unsupported ? 2 : 1;
}

// cuTensorMapEncodeIm2col: as softgpu_cudart_tensor_map_tiled.
__attribute__((visibility("default"))) int softgpu_cudart_tensor_map_im2col(
    void* map, unsigned type, unsigned rank, const void* global, const uint64_t* dims, const uint64_t* strides,
    const int* lower, const int* upper, unsigned channels, unsigned pixels, const unsigned* elem_strides,
    unsigned interleave, unsigned swizzle, unsigned l2, unsigned oob, char* why, size_t why_len) {
  softgpu::runtime::Im2colEncodeArgs a;
  a.base.data_type = type, a.base.rank = rank, a.base.global_address = reinterpret_cast<uint64_t>(global);
  a.base.global_dim = dims, a.base.global_strides = strides, a.base.element_strides = elem_strides;
  a.base.interleave = interleave, a.base.swizzle = swizzle, a.base.l2_promotion = l2, a.base.oob_fill = oob;
  a.lower_corner = lower, a.upper_corner = upper, a.channels_per_pixel = channels, a.pixels_per_column = pixels;
  bool unsupported = false;
  auto err = softgpu::runtime::encode_im2col(a, static_cast<std::byte*>(map), &unsupported);
  if (!err) return 0;
  if (why && why_len) std::snprintf(why, why_len, "%s", err->c_str());
  return unsupported ? 2 : 1;
}

__attribute__((visibility("default"))) int softgpu_cudart_tensor_map_replace_address(void* map, const void* global,
                                                                                    char* why, size_t why_len) {
  auto err = softgpu::runtime::replace_address(static_cast<std::byte*>(map), reinterpret_cast<uint64_t>(global));
  if (!err) return 0;
  if (why && why_len) std::snprintf(why, why_len, "%s", err->c_str());
  return 1;
}

__attribute__((visibility("default"))) cudaError_t softgpu_cudart_param_count(const void* func, size_t* count) {
  return call([&] { return rt().func_param_count(func, count); });
}

// Whether the program's runtime calls initialized the primary context (any
// thread), and *bind whether this thread's did since the last query
// (runtime.h, Runtime::take_context_use).
__attribute__((visibility("default"))) int softgpu_cudart_context_use(int* bind) {
  bool b = false;
  const bool used = softgpu::runtime::Runtime::take_context_use(&b);
  if (bind) *bind = b ? 1 : 0;
  return used ? 1 : 0;
}

// A driver API call's begin and end (src/cudadrv/driver.h): the cudart
// calls it makes leave the thread's last error as it was, report no
// failures to the sanitizers under their own names (the driver reports its
// own, softgpu_cudart_driver_error) and do not count as the program's use
// of the runtime. begin returns the last error to put back.

__attribute__((visibility("default"))) cudaError_t softgpu_cudart_driver_begin(void) {
  if (softgpu::cudart::driver_call_depth(+1) == 1) softgpu::runtime::Runtime::suspend_context_use(true);
  try {
    return softgpu::cudart::to_cuda(rt().thread_error());
  } catch (...) {
    return cudaSuccess;
  }
}

__attribute__((visibility("default"))) void softgpu_cudart_driver_end(cudaError_t saved) {
  try {
    rt().set_thread_error(static_cast<Status>(static_cast<int>(saved)));
  } catch (...) {
  }
  if (softgpu::cudart::driver_call_depth(-1) == 0) softgpu::runtime::Runtime::suspend_context_use(false);
}

__attribute__((visibility("default"))) void softgpu_cudart_driver_error(const char* call, int code, const char* name,
                                                                       const char* text) {
  try {
    rt().api_error(call ? call : "", code, name ? name : "", text ? text : "");
  } catch (...) {
  }
}

}  // extern "C"
