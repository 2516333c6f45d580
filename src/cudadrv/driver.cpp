// libcuda.so.1's state (driver.h), error mapping, and the stubs' message.
#include "cudadrv/driver.h"

#include <atomic>
#include <cstdio>
#include <string>
#include <string_view>

namespace softgpu::cudadrv {

Driver& Driver::get() {
  static Driver* const d = new Driver();  // never destroyed: calls may come from atexit handlers
  return *d;
}

bool Driver::initialized() const {
  std::lock_guard lock(mu_);
  return initialized_;
}

CUresult Driver::init() {
  int n = 0;
  if (CUresult r = to_cu(cudaGetDeviceCount(&n)); r != CUDA_SUCCESS) return r;
  if (n < 1) return CUDA_ERROR_NO_DEVICE;
  std::lock_guard lock(mu_);
  initialized_ = true;
  return CUDA_SUCCESS;
}

bool Driver::adopt_runtime() {
  int bind = 0;
  const bool used = softgpu_cudart_context_use(&bind) != 0;
  {
    std::lock_guard lock(mu_);
    if (used && !runtime_retained_) {
      initialized_ = runtime_retained_ = true;
      ++refcount_;
    }
    if (!initialized_) return false;
  }
  if (bind && context_stack().empty()) context_stack().push_back(&primary_);
  return true;
}

void Driver::retain() {
  std::lock_guard lock(mu_);
  ++refcount_;
}

bool Driver::release() {
  std::lock_guard lock(mu_);
  if (refcount_ == 0) return false;
  --refcount_;
  return true;
}

void Driver::reset_flags() {
  std::lock_guard lock(mu_);
  flags_ = 0;
}

unsigned Driver::flags() const {
  std::lock_guard lock(mu_);
  return flags_;
}

void Driver::set_flags(unsigned f) {
  std::lock_guard lock(mu_);
  flags_ = f;
}

bool Driver::active() const {
  std::lock_guard lock(mu_);
  return refcount_ > 0;
}

void Driver::created() {
  std::lock_guard lock(mu_);
  ++created_;
  ++refcount_;
}

bool Driver::destroyed() {
  std::lock_guard lock(mu_);
  if (created_ == 0) return false;
  --created_;
  --refcount_;
  return true;
}

std::vector<CUcontext>& context_stack() {
  thread_local std::vector<CUcontext> stack;  // per host thread, as the driver API defines it
  return stack;
}

CUresult to_cu(cudaError_t e) {
  const int c = static_cast<int>(e);
  if (c == cudaErrorInvalidDeviceFunction) return CUDA_ERROR_INVALID_HANDLE;
  if (c == cudaErrorInitializationError) return CUDA_ERROR_NOT_INITIALIZED;
  if (c >= 9 && c < 100 && c != 34 && c != 46) return CUDA_ERROR_INVALID_VALUE;  // runtime-only argument errors
  return static_cast<CUresult>(c);
}

void note_error(const char* function, CUresult r) noexcept {
  try {
    // "CUresult cuMemAlloc_v2(CUdeviceptr*, size_t)" -> "cuMemAlloc_v2"
    std::string_view f = function;
    f = f.substr(0, f.find('('));
    if (auto sp = f.rfind(' '); sp != std::string_view::npos) f = f.substr(sp + 1);
    const char* name = nullptr;
    const char* text = nullptr;
    cuGetErrorName(r, &name);
    cuGetErrorString(r, &text);
    std::string call(f);
    softgpu_cudart_driver_error(call.c_str(), static_cast<int>(r), name ? name : "CUDA_ERROR_UNKNOWN",
                                text ? text : "unknown error");
  } catch (...) {
  }
}

CUresult check_device(CUdevice dev) {
  int n = 0;
  if (CUresult r = to_cu(cudaGetDeviceCount(&n)); r != CUDA_SUCCESS) return r;
  return dev >= 0 && dev < n ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

}  // namespace softgpu::cudadrv

extern "C" void softgpu_cuda_unimplemented(const char* name, int* once) {
  if (__atomic_exchange_n(once, 1, __ATOMIC_RELAXED)) return;
  std::fflush(stdout);
  std::fprintf(stderr, "softgpu cuda: %s is not implemented yet\n", name);
}
