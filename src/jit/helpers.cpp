// What compiled blocks call back into the executor for.
#include "jit/helpers.h"

#include <cstring>

namespace softgpu::jit {

extern "C" uint32_t softgpu_jit_exec(exec::Warp* w, uint32_t pc, uint32_t mask) {
  w->run_handler(pc, mask);
  return w->faulted() ? 1u : 0u;
}

extern "C" void softgpu_jit_src(exec::Warp* w, uint32_t pc, uint32_t idx, uint64_t* out) {
  const uint64_t* v = w->src(w->fn().code[pc].o[idx], out);
  if (v != out) std::memcpy(out, v, exec::kWarpSize * sizeof(uint64_t));
}

}  // namespace softgpu::jit
