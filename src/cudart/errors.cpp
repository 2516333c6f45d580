// cudaGetErrorName / cudaGetErrorString for every cudaError_t value.
#include <cstdio>
#include <string_view>

#include "cudart/cudart_internal.h"

namespace {
struct ErrorText {
  cudaError_t code;
  const char* name;
  const char* text;
};

constexpr ErrorText kErrors[] = {
#define SOFTGPU_ERROR(code, text) {code, #code, text},
#include "cudart/errors.inc"
#undef SOFTGPU_ERROR
};

const ErrorText* lookup(cudaError_t e) {
  for (const auto& t : kErrors)
    if (t.code == e) return &t;
  return nullptr;
}
}  // namespace

const char* cudaGetErrorName(cudaError_t error) {
  const ErrorText* t = lookup(error);
  return t ? t->name : "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
  const ErrorText* t = lookup(error);
  return t ? t->text : "unrecognized error code";
}

namespace softgpu::cudart {

int driver_call_depth(int delta) noexcept {
  thread_local int depth = 0;  // per host thread, like the driver calls it counts
  depth += delta;
  return depth;
}

void note_api_error(const char* function, cudaError_t e) noexcept {
  if (driver_call_depth(0) > 0) return;  // the driver reports the failure under its own name
  try {
    // "cudaError_t cudaMalloc(void**, size_t)" -> "cudaMalloc"
    std::string_view f = function;
    f = f.substr(0, f.find('('));
    if (auto sp = f.rfind(' '); sp != std::string_view::npos) f = f.substr(sp + 1);
    if (f == "cudaGetLastError" || f == "cudaPeekAtLastError") return;  // they report, not fail
    if (f.starts_with("__cudaLaunchKernel")) f = "cudaLaunchKernel";  // what <<<>>> calls, as NVIDIA's runtime names it
    // Every failed call is the thread's last error, whichever layer found it
    // (NVIDIA's runtime records an argument error such as
    // cudaStreamGetFlags(s, nullptr)'s too); the runtime core's own failures
    // are recorded already, recording again changes nothing.
    rt().set_thread_error(static_cast<Status>(int(e)));
    rt().api_error(f, int(e), cudaGetErrorName(e), cudaGetErrorString(e));
  } catch (...) {
  }
}

}  // namespace softgpu::cudart

// The generated stubs (scripts/gen_stubs.py --api cudart): "softgpu cudart:
// NAME is not implemented yet" on stderr the first time *once is seen.
extern "C" __attribute__((visibility("hidden"))) void softgpu_cudart_unimplemented(const char* name, int* once) {
  if (__atomic_exchange_n(once, 1, __ATOMIC_RELAXED)) return;
  std::fflush(stdout);
  std::fprintf(stderr, "softgpu cudart: %s is not implemented yet\n", name);
}
