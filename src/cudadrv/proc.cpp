// cuGetProcAddress (the table scripts/gen_stubs.py writes from cuda.h),
// cuGetErrorName / cuGetErrorString (cuGetExportTable: export_tables.cpp).
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "cudadrv/driver.h"
#include "cudadrv/stubs.h"

using namespace softgpu::cudadrv;

namespace {
// The newest entry of `name` whose ABI dates from cudaVersion or before;
// *known tells whether the name exists at all.
const ProcEntry* find_proc(const char* name, int cudaVersion, bool* known) {
  const ProcEntry* begin = kProcTable;
  const ProcEntry* end = kProcTable + kProcTableSize;
  const ProcEntry* lo = std::lower_bound(begin, end, name, [](const ProcEntry& e, const char* n) {
    return std::strcmp(e.name, n) < 0;
  });
  const ProcEntry* best = nullptr;
  *known = false;
  for (const ProcEntry* e = lo; e != end && std::strcmp(e->name, name) == 0; ++e) {
    *known = true;
    if (e->version <= cudaVersion) best = e;
  }
  return best;
}

const ErrorEntry* find_error(CUresult e) {
  for (size_t i = 0; i < kErrorTableSize; ++i)
    if (kErrorTable[i].code == static_cast<int>(e)) return &kErrorTable[i];
  return nullptr;
}

// The entry point of `symbol` with the newest ABI no later than
// cudaVersion (cuCtxCreate at 12000 is cuCtxCreate_v3's, at 13000
// cuCtxCreate_v4's); CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM picks the
// per-thread variant where one exists.
CUresult lookup(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                CUdriverProcAddressQueryResult* status) {
  if (!symbol || !pfn || flags > (CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM))
    return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  bool known = false;
  const ProcEntry* e = find_proc(symbol, cudaVersion, &known);
  if (!e) {
    if (status) *status = known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
  }
  *pfn = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && e->per_thread ? e->per_thread : e->fn;
  if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
  return CUDA_SUCCESS;
}
}  // namespace

CUresult CUDAAPI cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                                  CUdriverProcAddressQueryResult* symbolStatus) {
  try {
    return lookup(symbol, pfn, cudaVersion, flags, symbolStatus);
  } catch (...) {
    return CUDA_ERROR_UNKNOWN;
  }
}

// The CUDA 11.3 entry point, without the status out-parameter.
extern "C" CUresult CUDAAPI cuGetProcAddress_v1(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags)
    __asm__("cuGetProcAddress");
extern "C" CUresult CUDAAPI cuGetProcAddress_v1(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags) {
  return lookup(symbol, pfn, cudaVersion, flags, nullptr);
}

// Names and texts as NVIDIA's driver gives them: cudart's text for the
// codes the two APIs share, else the first sentence of cuda.h's description.
CUresult CUDAAPI cuGetErrorName(CUresult error, const char** pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  const ErrorEntry* e = find_error(error);
  *pStr = e ? e->name : nullptr;
  return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char** pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  const ErrorEntry* e = find_error(error);
  if (!e) {
    *pStr = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
  const char* rt_name = cudaGetErrorName(static_cast<cudaError_t>(error));
  bool shared = std::strcmp(rt_name, "cudaErrorUnknown") != 0 || error == CUDA_ERROR_UNKNOWN;
  *pStr = shared ? cudaGetErrorString(static_cast<cudaError_t>(error)) : e->doc;
  return CUDA_SUCCESS;
}
