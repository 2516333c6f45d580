// Modules and libraries (cudaLibrary* in softgpu's cudart: a CUmodule, a
// CUlibrary and the module of a library are one handle, and a CUfunction is
// the library's cudaKernel_t), function attributes and occupancy.
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "cudadrv/driver.h"

using softgpu::cudadrv::guarded;
using softgpu::cudadrv::rt;

namespace {
// JIT and library options change nothing (PTX is interpreted, libraries load
// at once) but must be well-formed.
bool options_ok(unsigned n, const void* keys, const void* values) { return n == 0 || (keys && values); }

CUresult load(void** out, const void* image) {
  if (!out || !image) return CUDA_ERROR_INVALID_VALUE;
  cudaLibrary_t lib = nullptr;
  CUresult r = rt(cudaLibraryLoadData(&lib, image, nullptr, nullptr, 0, nullptr, nullptr, 0));
  if (r == CUDA_SUCCESS) *out = lib;
  return r;
}

CUresult load_file(void** out, const char* path) {
  if (!out || !path) return CUDA_ERROR_INVALID_VALUE;
  cudaLibrary_t lib = nullptr;
  CUresult r = rt(cudaLibraryLoadFromFile(&lib, path, nullptr, nullptr, 0, nullptr, nullptr, 0));
  if (r == CUDA_SUCCESS) *out = lib;
  return r;
}

CUresult kernel(void** out, void* lib, const char* name) {
  if (!out || !name) return CUDA_ERROR_INVALID_VALUE;
  cudaKernel_t k = nullptr;
  CUresult r = rt(cudaLibraryGetKernel(&k, static_cast<cudaLibrary_t>(lib), name));
  if (r == CUDA_SUCCESS) *out = k;
  return r;
}

CUresult global(CUdeviceptr* dptr, size_t* bytes, void* lib, const char* name) {
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  void* p = nullptr;
  size_t n = 0;
  CUresult r = rt(cudaLibraryGetGlobal(&p, &n, static_cast<cudaLibrary_t>(lib), name));
  if (r != CUDA_SUCCESS) return r;
  if (dptr) *dptr = softgpu::cudadrv::dptr(p);
  if (bytes) *bytes = n;
  return CUDA_SUCCESS;
}

const void* fn(CUfunction f) { return f; }
}  // namespace

// Modules load as the program asks (nothing is compiled ahead): lazy, as
// NVIDIA's driver defaults to, unless CUDA_MODULE_LOADING=EAGER says
// otherwise (which changes nothing here but what is reported).
CUresult CUDAAPI cuModuleGetLoadingMode(CUmoduleLoadingMode* mode) {
  if (!mode) return CUDA_ERROR_INVALID_VALUE;
  const char* env = std::getenv("CUDA_MODULE_LOADING");
  *mode = env && std::string_view(env) == "EAGER" ? CU_MODULE_EAGER_LOADING : CU_MODULE_LAZY_LOADING;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleLoad(CUmodule* module, const char* fname) {
  return guarded([&] { return load_file(reinterpret_cast<void**>(module), fname); });
}

CUresult CUDAAPI cuModuleLoadData(CUmodule* module, const void* image) {
  return guarded([&] { return load(reinterpret_cast<void**>(module), image); });
}

CUresult CUDAAPI cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int numOptions,
                                    CUjit_option* options, void** optionValues) {
  return guarded([&] {
    if (!options_ok(numOptions, options, optionValues)) return CUDA_ERROR_INVALID_VALUE;
    return load(reinterpret_cast<void**>(module), image);
  });
}

CUresult CUDAAPI cuModuleLoadFatBinary(CUmodule* module, const void* fatCubin) {
  return guarded([&] { return load(reinterpret_cast<void**>(module), fatCubin); });
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod) {
  return guarded([&] { return rt(cudaLibraryUnload(reinterpret_cast<cudaLibrary_t>(hmod))); });
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
  return guarded([&] { return kernel(reinterpret_cast<void**>(hfunc), hmod, name); });
}

CUresult CUDAAPI cuModuleGetGlobal(CUdeviceptr* dptr, size_t* bytes, CUmodule hmod, const char* name) {
  return guarded([&] { return global(dptr, bytes, hmod, name); });
}

CUresult CUDAAPI cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option* jitOptions,
                                   void** jitOptionsValues, unsigned int numJitOptions,
                                   CUlibraryOption* libraryOptions, void** libraryOptionValues,
                                   unsigned int numLibraryOptions) {
  return guarded([&] {
    if (!options_ok(numJitOptions, jitOptions, jitOptionsValues) ||
        !options_ok(numLibraryOptions, libraryOptions, libraryOptionValues))
      return CUDA_ERROR_INVALID_VALUE;
    return load(reinterpret_cast<void**>(library), code);
  });
}

CUresult CUDAAPI cuLibraryLoadFromFile(CUlibrary* library, const char* fileName, CUjit_option* jitOptions,
                                       void** jitOptionsValues, unsigned int numJitOptions,
                                       CUlibraryOption* libraryOptions, void** libraryOptionValues,
                                       unsigned int numLibraryOptions) {
  return guarded([&] {
    if (!options_ok(numJitOptions, jitOptions, jitOptionsValues) ||
        !options_ok(numLibraryOptions, libraryOptions, libraryOptionValues))
      return CUDA_ERROR_INVALID_VALUE;
    return load_file(reinterpret_cast<void**>(library), fileName);
  });
}

CUresult CUDAAPI cuLibraryUnload(CUlibrary library) {
  return guarded([&] { return rt(cudaLibraryUnload(reinterpret_cast<cudaLibrary_t>(library))); });
}

CUresult CUDAAPI cuLibraryGetKernel(CUkernel* pKernel, CUlibrary library, const char* name) {
  return guarded([&] { return kernel(reinterpret_cast<void**>(pKernel), library, name); });
}

CUresult CUDAAPI cuLibraryGetModule(CUmodule* pMod, CUlibrary library) {
  return guarded([&] {
    if (!pMod || !library) return CUDA_ERROR_INVALID_VALUE;
    *pMod = reinterpret_cast<CUmodule>(library);
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuLibraryGetGlobal(CUdeviceptr* dptr, size_t* bytes, CUlibrary library, const char* name) {
  return guarded([&] { return global(dptr, bytes, library, name); });
}

// Managed variables live in device memory like any global (managed memory
// is one memory here).
CUresult CUDAAPI cuLibraryGetManaged(CUdeviceptr* dptr, size_t* bytes, CUlibrary library, const char* name) {
  return guarded([&] { return global(dptr, bytes, library, name); });
}

CUresult CUDAAPI cuKernelGetFunction(CUfunction* pFunc, CUkernel kernel) {
  return guarded([&] {
    if (!pFunc) return CUDA_ERROR_INVALID_VALUE;
    size_t count = 0;  // validates the handle
    if (CUresult r = rt(softgpu_cudart_param_count(kernel, &count)); r != CUDA_SUCCESS) return r;
    *pFunc = reinterpret_cast<CUfunction>(kernel);
    return CUDA_SUCCESS;
  });
}

// ---------------------------------------------------------------- attributes

// The kernel's mangled name (a CUfunction is cudart's kernel handle).
CUresult CUDAAPI cuFuncGetName(const char** name, CUfunction hfunc) {
  return guarded([&] {
    if (!name || !hfunc) return CUDA_ERROR_INVALID_VALUE;
    return rt(cudaFuncGetName(name, fn(hfunc)));
  });
}

namespace {
// cuFuncGetAttribute's answer for a kernel handle.
CUresult func_attribute(int* pi, CUfunction_attribute attrib, const void* hfunc) {
  if (!pi) return CUDA_ERROR_INVALID_VALUE;
  cudaFuncAttributes a;
  if (CUresult r = rt(cudaFuncGetAttributes(&a, hfunc)); r != CUDA_SUCCESS) return r;
  switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = a.maxThreadsPerBlock; break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = static_cast<int>(a.sharedSizeBytes); break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *pi = static_cast<int>(a.constSizeBytes); break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = static_cast<int>(a.localSizeBytes); break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = a.numRegs; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: *pi = a.ptxVersion; break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = a.binaryVersion; break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *pi = a.cacheModeCA; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = a.maxDynamicSharedSizeBytes; break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *pi = a.preferredShmemCarveout; break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: *pi = a.clusterDimMustBeSet; break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: *pi = a.requiredClusterWidth; break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: *pi = a.requiredClusterHeight; break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: *pi = a.requiredClusterDepth; break;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: *pi = a.nonPortableClusterSizeAllowed; break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: *pi = a.clusterSchedulingPolicyPreference; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}
}  // namespace

CUresult CUDAAPI cuFuncGetAttribute(int* pi, CUfunction_attribute attrib, CUfunction hfunc) {
  return guarded([&] { return func_attribute(pi, attrib, fn(hfunc)); });
}

// CUfunction_attribute and cudaFuncAttribute share the settable numbers (8-15).
CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
  return guarded([&] { return rt(cudaFuncSetAttribute(fn(hfunc), static_cast<cudaFuncAttribute>(attrib), value)); });
}

CUresult CUDAAPI cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t* paramOffset, size_t* paramSize) {
  return guarded([&] { return rt(cudaFuncGetParamInfo(fn(func), paramIndex, paramOffset, paramSize)); });
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, CUfunction func, int blockSize,
                                                             size_t dynamicSMemSize) {
  return guarded([&] {
    return rt(cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, fn(func), blockSize, dynamicSMemSize));
  });
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, CUfunction func, int blockSize,
                                                                      size_t dynamicSMemSize, unsigned int flags) {
  return guarded([&] {
    return rt(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, fn(func), blockSize,
                                                                     dynamicSMemSize, flags));
  });
}

CUresult CUDAAPI cuOccupancyAvailableDynamicSMemPerBlock(size_t* dynamicSmemSize, CUfunction func, int numBlocks,
                                                         int blockSize) {
  return guarded([&] {
    return rt(cudaOccupancyAvailableDynamicSMemPerBlock(dynamicSmemSize, fn(func), numBlocks, blockSize));
  });
}

// The block size (a multiple of the warp size, largest first) that keeps
// the most threads resident per SM, and the grid that fills the GPU with it.
CUresult CUDAAPI cuOccupancyMaxPotentialBlockSizeWithFlags(int* minGridSize, int* blockSize, CUfunction func,
                                                          CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                          size_t dynamicSMemSize, int blockSizeLimit,
                                                          unsigned int flags) {
  return guarded([&] {
    if (!minGridSize || !blockSize || blockSizeLimit < 0 || flags > 1) return CUDA_ERROR_INVALID_VALUE;
    cudaFuncAttributes a;
    if (CUresult r = rt(cudaFuncGetAttributes(&a, fn(func))); r != CUDA_SUCCESS) return r;
    int warp = 32, sms = 0;
    if (CUresult r = rt(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0)); r != CUDA_SUCCESS) return r;
    int limit = a.maxThreadsPerBlock;
    if (blockSizeLimit > 0 && blockSizeLimit < limit) limit = blockSizeLimit;
    int best_threads = 0, best_block = 0, best_blocks = 0;
    for (int bs = (limit + warp - 1) / warp * warp; bs > 0; bs -= warp) {
      int b = bs > limit ? limit : bs;
      size_t smem = blockSizeToDynamicSMemSize ? blockSizeToDynamicSMemSize(b) : dynamicSMemSize;
      int blocks = 0;
      if (CUresult r = rt(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, fn(func), b, smem, flags));
          r != CUDA_SUCCESS)
        return r;
      if (blocks * b > best_threads) {
        best_threads = blocks * b;
        best_block = b;
        best_blocks = blocks;
      }
    }
    *blockSize = best_block;
    *minGridSize = best_blocks * sms;
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize, CUfunction func,
                                                  CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                  size_t dynamicSMemSize, int blockSizeLimit) {
  return cuOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func, blockSizeToDynamicSMemSize,
                                                   dynamicSMemSize, blockSizeLimit, 0);
}

// ------------------------------------------------------------ CUkernel
// A CUkernel is the same handle as its CUfunction (cudart's cudaKernel_t),
// and there is one device: `dev` must name it.

CUresult CUDAAPI cuKernelGetAttribute(int* pi, CUfunction_attribute attrib, CUkernel kernel, CUdevice dev) {
  return guarded([&] {
    if (CUresult r = softgpu::cudadrv::check_device(dev); r != CUDA_SUCCESS) return r;
    return func_attribute(pi, attrib, kernel);
  });
}

CUresult CUDAAPI cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel, CUdevice dev) {
  return guarded([&] {
    if (CUresult r = softgpu::cudadrv::check_device(dev); r != CUDA_SUCCESS) return r;
    return rt(cudaFuncSetAttribute(kernel, static_cast<cudaFuncAttribute>(attrib), val));
  });
}

CUresult CUDAAPI cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev) {
  return guarded([&] {
    if (CUresult r = softgpu::cudadrv::check_device(dev); r != CUDA_SUCCESS) return r;
    return rt(cudaFuncSetCacheConfig(kernel, static_cast<cudaFuncCache>(config)));
  });
}

CUresult CUDAAPI cuKernelGetName(const char** name, CUkernel hfunc) {
  return guarded([&] {
    if (!name || !hfunc) return CUDA_ERROR_INVALID_VALUE;
    return rt(cudaFuncGetName(name, hfunc));
  });
}

CUresult CUDAAPI cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t* paramOffset, size_t* paramSize) {
  return guarded([&] { return rt(cudaFuncGetParamInfo(kernel, paramIndex, paramOffset, paramSize)); });
}
