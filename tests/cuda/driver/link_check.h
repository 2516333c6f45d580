// Shared by the two link tests (driver_link: cuLink*, driver_nvjitlink:
// nvJitLink): their inputs, and the check of the linked kernel.
#pragma once
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "drv_check.h"

// The bytes of `name` in the inputs' folder `dir` (link_a.ptx, link_b.*).
inline std::string slurp(const std::string& dir, const std::string& name) {
  std::ifstream f(dir + "/" + name, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// Runs link_a's kernel `f` (y = poly(x) + offset, with link_b's poly and
// offset: (3x - 2)x + 1 and 7) on 1000 elements and checks each against
// the same sum on the CPU.
inline int check_linked_kernel(CUfunction f, const char* how) {
  const int n = 1000;
  std::vector<float> x(n), y(n, -1.0f);
  for (int i = 0; i < n; ++i) x[i] = float(i % 37) * 0.25f - 3.0f;
  CUdeviceptr dx, dy;
  CU_CHECK(cuMemAlloc(&dx, n * 4));
  CU_CHECK(cuMemAlloc(&dy, n * 4));
  CU_CHECK(cuMemcpyHtoD(dx, x.data(), n * 4));
  int nn = n;
  void* args[] = {&dy, &dx, &nn};
  CU_CHECK(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  CU_CHECK(cuMemcpyDtoH(y.data(), dy, n * 4));
  CU_CHECK(cuMemFree(dx));
  CU_CHECK(cuMemFree(dy));
  for (int i = 0; i < n; ++i) {
    const float want = (3.0f * x[i] - 2.0f) * x[i] + 1.0f + 7.0f;
    if (y[i] != want) {
      std::fprintf(stderr, "FAIL %s: y[%d] = %g, expected %g\n", how, i, y[i], want);
      return 1;
    }
  }
  std::printf("ok %s\n", how);
  return 0;
}
