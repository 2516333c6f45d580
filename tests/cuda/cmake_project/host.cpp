// Host-only C++ translation unit: the CPU reference, compiled by the C++ compiler.
#include <cstddef>

void saxpy_reference(float a, const float* x, const float* y, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = a * x[i] + y[i];
}
