// What compiled blocks call back into the executor for.
#include "jit/helpers.h"

#include <cstring>

#include "exec/float_util.h"

namespace softgpu::jit {

extern "C" uint32_t softgpu_jit_exec(exec::Warp* w, uint32_t pc, uint32_t mask) {
  w->run_handler(pc, mask);
  return w->faulted() ? 1u : 0u;
}

extern "C" void softgpu_jit_src(exec::Warp* w, uint32_t pc, uint32_t idx, uint64_t* out) {
  const uint64_t* v = w->src(w->fn().code[pc].o[idx], out);
  if (v != out) std::memcpy(out, v, exec::kWarpSize * sizeof(uint64_t));
}

extern "C" void softgpu_jit_special(float* v, uint32_t fn, uint32_t mask) {
  using F = float (*)(float);
  static constexpr F fns[16] = {
      &exec::approx_special_f32<false, 0>, &exec::approx_special_f32<false, 1>, &exec::approx_special_f32<false, 2>,
      &exec::approx_special_f32<false, 3>, &exec::approx_special_f32<false, 4>, nullptr, nullptr, nullptr,
      &exec::approx_special_f32<true, 0>,  &exec::approx_special_f32<true, 1>,  &exec::approx_special_f32<true, 2>,
      &exec::approx_special_f32<true, 3>,  &exec::approx_special_f32<true, 4>,  nullptr, nullptr, nullptr};
  const F f = fns[fn & 15];
  if (!f) return;
  for (uint32_t m = mask; m; m &= m - 1) {
    const unsigned l = unsigned(__builtin_ctz(m));
    v[l] = f(v[l]);
  }
}

}  // namespace softgpu::jit
