// What the generated stubs and tables (scripts/gen_stubs.py --api cuda) share
// with the rest of libcuda.so.1.
#pragma once
#include <cstddef>

#define SG_STUB __attribute__((weak, visibility("default")))

// Prints "softgpu cuda: NAME is not implemented yet" to stderr the first
// time it is called for *once (thread-safe).
extern "C" void softgpu_cuda_unimplemented(const char* name, int* once);

namespace softgpu::cudadrv {

// cuGetProcAddress: a base name, the CUDA version (major*1000 + minor*10)
// from which `fn` is its ABI (0: unknown, always), the symbol, and its
// per-thread-default-stream variant (null if none). Sorted by name, then
// version.
struct ProcEntry {
  const char* name;
  int version;
  void* fn;
  void* per_thread;
};
extern const ProcEntry kProcTable[];
extern const size_t kProcTableSize;

// Every CUresult of cuda.h: value, name, first sentence of its documentation.
struct ErrorEntry {
  int code;
  const char* name;
  const char* doc;
};
extern const ErrorEntry kErrorTable[];
extern const size_t kErrorTableSize;

}  // namespace softgpu::cudadrv
