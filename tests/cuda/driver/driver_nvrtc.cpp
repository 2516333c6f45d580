// Run-time compilation as CuPy and jitify do it: NVIDIA's NVRTC (a host
// library) compiles CUDA source to PTX, which softgpu's driver API loads
// (cuModuleLoadDataEx) and launches; y = 2x + 1 checked on the host.
#include <cuda.h>
#include <nvrtc.h>
#include <cstdio>
#include <vector>
#define C(x) do { CUresult r = (x); if (r) { const char* s; cuGetErrorName(r, &s); printf("FAIL %s: %s\n", #x, s); return 1; } } while (0)
const char* src = R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
})";
int main() {
  nvrtcProgram p;
  nvrtcCreateProgram(&p, src, "saxpy.cu", 0, nullptr, nullptr);
  const char* opts[] = {"--gpu-architecture=compute_80"};
  nvrtcResult rr = nvrtcCompileProgram(p, 1, opts);
  size_t logn; nvrtcGetProgramLogSize(p, &logn); std::vector<char> log(logn); nvrtcGetProgramLog(p, log.data());
  if (rr != NVRTC_SUCCESS) { printf("nvrtc: %s\n%s\n", nvrtcGetErrorString(rr), log.data()); return 1; }
  size_t n; nvrtcGetPTXSize(p, &n); std::vector<char> ptx(n); nvrtcGetPTX(p, ptx.data());
  C(cuInit(0)); CUdevice d; C(cuDeviceGet(&d, 0)); CUcontext ctx; C(cuCtxCreate(&ctx, nullptr, 0, d));
  CUmodule m; C(cuModuleLoadDataEx(&m, ptx.data(), 0, nullptr, nullptr)); CUfunction f; C(cuModuleGetFunction(&f, m, "saxpy"));
  const int N = 1000; std::vector<float> x(N), y(N);
  for (int i = 0; i < N; ++i) x[i] = i, y[i] = 1;
  CUdeviceptr dx, dy; C(cuMemAlloc(&dx, N * 4)); C(cuMemAlloc(&dy, N * 4));
  C(cuMemcpyHtoD(dx, x.data(), N * 4)); C(cuMemcpyHtoD(dy, y.data(), N * 4));
  float a = 2; int nn = N; void* args[] = {&a, &dx, &dy, &nn};
  C(cuLaunchKernel(f, (N + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  C(cuMemcpyDtoH(y.data(), dy, N * 4));
  for (int i = 0; i < N; ++i) if (y[i] != 2 * i + 1) { printf("FAIL y[%d]=%g\n", i, y[i]); return 1; }
  printf("PASS driver_nvrtc (%zu bytes of PTX)\n", n);
}
