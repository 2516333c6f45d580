// libcuda.so.1's shared state and helpers. The driver API is a C ABI over
// softgpu's runtime core, libsoftgpu_cudart.so (the runtime API's entry
// points at version node SOFTGPU_CUDART, plus private ones, softgpu_cudart_*),
// which libcudart.so.13 forwards to as well, so the program's runtime and
// driver calls share one device, one memory and one softgpu::runtime::Runtime.
//
// Contexts: one device, one context, its primary context. cuCtxCreate
// returns it too (an alias, counted so cuCtxDestroy balances). The context
// stack is per host thread; calls that operate on the device (memory,
// modules, launches, streams) use the primary context whether or not the
// calling thread has made it current, as there is no other. The runtime API
// initializes the driver API (Driver::adopt_runtime).
#pragma once
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <exception>
#include <mutex>
#include <new>
#include <source_location>
#include <vector>

struct CUctx_st {
  int device = 0;
};

namespace softgpu::cudadrv {

class Driver {
 public:
  static Driver& get();  // the process's driver state, created on first use

  bool initialized() const;
  CUresult init();  // cuInit: the runtime must have a device
  // As NVIDIA's runtime initializes the driver API: once the program's
  // runtime calls have initialized the primary context, the driver is
  // initialized (and the runtime holds a reference to the primary context),
  // and a thread whose runtime calls did so since its last driver call gets
  // the primary context made current if it has no current context.
  // Returns initialized().
  bool adopt_runtime();

  CUcontext primary() { return &primary_; }
  bool valid_context(CUcontext c) const { return c == &primary_; }

  // Primary context reference counting and flags (cuDevicePrimaryCtx*).
  void retain();
  bool release();  // false if not retained
  void reset_flags();
  unsigned flags() const;
  void set_flags(unsigned f);
  bool active() const;
  void created();        // cuCtxCreate
  bool destroyed();      // cuCtxDestroy; false if none was created

 private:
  Driver() = default;
  mutable std::mutex mu_;
  bool initialized_ = false;
  bool runtime_retained_ = false;  // the runtime's reference to the primary context
  CUctx_st primary_;
  int refcount_ = 0;   // primary retains (and contexts cuCtxCreate handed out)
  int created_ = 0;
  unsigned flags_ = 0;
};

// The calling thread's context stack (cuCtxPush/Pop/Set/GetCurrent).
std::vector<CUcontext>& context_stack();

// cudaError_t -> CUresult: the runtime's codes share the driver's numbers
// where both exist; runtime-only argument errors become INVALID_VALUE, an
// unknown function INVALID_HANDLE.
CUresult to_cu(cudaError_t e);

}  // namespace softgpu::cudadrv

// libcudart's private entry points for what its public API cannot say
// (src/cudart/cudart_library.cpp).
extern "C" {
cudaError_t softgpu_cudart_address_range(const void* p, void** base, size_t* size);
cudaError_t softgpu_cudart_memset_elements(void* dst, unsigned value, size_t elem_size, size_t count,
                                           cudaStream_t stream);
cudaError_t softgpu_cudart_param_count(const void* func, size_t* count);
int softgpu_cudart_context_use(int* bind);
cudaError_t softgpu_cudart_driver_begin(void);
void softgpu_cudart_driver_end(cudaError_t saved);
void softgpu_cudart_driver_error(const char* call, int code, const char* name, const char* text);
int softgpu_cudart_tensor_map_tiled(void* map, unsigned type, unsigned rank, const void* global, const uint64_t* dims,
                                    const uint64_t* strides, const unsigned* box, const unsigned* elem_strides,
                                    unsigned interleave, unsigned swizzle, unsigned l2, unsigned oob, char* why,
                                    size_t why_len);
int softgpu_cudart_tensor_map_replace_address(void* map, const void* global, char* why, size_t why_len);
int softgpu_cudart_tensor_map_im2col(void* map, unsigned type, unsigned rank, const void* global, const uint64_t* dims,
                                     const uint64_t* strides, const int* lower, const int* upper, unsigned channels,
                                     unsigned pixels, const unsigned* elem_strides, unsigned interleave,
                                     unsigned swizzle, unsigned l2, unsigned oob, char* why, size_t why_len);
void* softgpu_cudart_link_create(void);
cudaError_t softgpu_cudart_link_add(void* linker, int type, const void* data, size_t size, const char* name);
cudaError_t softgpu_cudart_link_complete(void* linker, const void** image, size_t* size);
const char* softgpu_cudart_link_log(void* linker, int which);
void softgpu_cudart_link_destroy(void* linker);
}

namespace softgpu::cudadrv {

// A failed call, for the sanitizers ("Program hit CUDA_ERROR_INVALID_VALUE
// ... on CUDA API call to cuMemAlloc_v2"); `function` is the entry point's
// signature.
void note_error(const char* function, CUresult r) noexcept;

// Runs f (returning CUresult) once cuInit has succeeded or the runtime API
// has initialized the driver (Driver::adopt_runtime); nothing unwinds
// into the C program. The runtime calls f makes leave the thread's
// cudaGetLastError as it was (driver API calls do not set it), and a
// failure is reported under the driver entry point's name.
template <class F>
CUresult guarded(F&& f, std::source_location loc = std::source_location::current()) noexcept {
  CUresult r;
  try {
    if (!Driver::get().adopt_runtime()) {
      r = CUDA_ERROR_NOT_INITIALIZED;
    } else {
      const cudaError_t saved = softgpu_cudart_driver_begin();
      try {
        r = f();
      } catch (...) {
        softgpu_cudart_driver_end(saved);
        throw;
      }
      softgpu_cudart_driver_end(saved);
    }
  } catch (const std::bad_alloc&) {
    r = CUDA_ERROR_OUT_OF_MEMORY;
  } catch (...) {
    r = CUDA_ERROR_UNKNOWN;
  }
  if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_READY) note_error(loc.function_name(), r);
  return r;
}

// A cudart call's result as a CUresult.
inline CUresult rt(cudaError_t e) { return to_cu(e); }

inline void* ptr(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }
inline CUdeviceptr dptr(const void* p) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)); }

// The stream a _ptsz/_ptds entry point means: stream 0 is the calling
// thread's default stream there.
inline CUstream per_thread(CUstream s) { return s ? s : CU_STREAM_PER_THREAD; }

// A context's state is gone (a primary context reset): the values the
// static runtime kept in it through CONTEXT_LOCAL_STORAGE (export_tables.cpp)
// are dropped, their destructors called.
void context_reset(CUcontext ctx);

// A driver 3-D copy as the runtime's parameters (arrays.cpp), for memcpy
// graph nodes.
CUresult memcpy3d_params(const CUDA_MEMCPY3D* c, cudaMemcpy3DParms* out);

// Only device 0 exists; INVALID_DEVICE otherwise.
CUresult check_device(CUdevice dev);

}  // namespace softgpu::cudadrv

