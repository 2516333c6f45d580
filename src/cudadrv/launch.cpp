// Kernel launches: cuLaunchKernel (kernelParams, or the `extra` packed
// buffer), cuLaunchKernelEx (cluster and cooperative attributes),
// cuLaunchCooperativeKernel, their per-thread-stream variants, and
// cuOccupancyMaxActiveClusters.
#include <cstring>
#include <vector>

#include "cudadrv/driver.h"

using softgpu::cudadrv::guarded;
using softgpu::cudadrv::per_thread;
using softgpu::cudadrv::rt;

namespace {
// The argument pointers for a launch: kernelParams as given, or pointers into
// the `extra` buffer at each parameter's offset (cudaFuncGetParamInfo).
// Parameters the buffer does not cover are refused.
CUresult arguments(CUfunction f, void** kernelParams, void** extra, std::vector<void*>* args, void*** out) {
  if (kernelParams && extra) return CUDA_ERROR_INVALID_VALUE;
  size_t count = 0, end = 0;
  if (CUresult r = rt(softgpu_cudart_param_count(f, &count)); r != CUDA_SUCCESS) return r;
  for (size_t i = 0; i < count; ++i) {
    size_t off = 0, size = 0;
    if (CUresult r = rt(cudaFuncGetParamInfo(f, i, &off, &size)); r != CUDA_SUCCESS) return r;
    if (off + size > end) end = off + size;
    if (extra) args->push_back(nullptr);
  }
  if (!extra) {
    if (count && !kernelParams) return CUDA_ERROR_INVALID_VALUE;
    *out = kernelParams;
    return CUDA_SUCCESS;
  }
  char* buffer = nullptr;
  size_t* size = nullptr;
  for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = static_cast<char*>(extra[i + 1]);
    else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) size = static_cast<size_t*>(extra[i + 1]);
    else return CUDA_ERROR_INVALID_VALUE;
  }
  if (count && (!buffer || !size || *size < end)) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < count; ++i) {
    size_t off = 0, sz = 0;
    cudaFuncGetParamInfo(f, i, &off, &sz);
    (*args)[i] = buffer + off;
  }
  *out = args->data();
  return CUDA_SUCCESS;
}

CUresult launch(CUfunction f, dim3 grid, dim3 block, unsigned shmem, CUstream stream, void** kernelParams,
                void** extra, bool cooperative) {
  std::vector<void*> storage;
  void** args = nullptr;
  if (CUresult r = arguments(f, kernelParams, extra, &storage, &args); r != CUDA_SUCCESS) return r;
  if (cooperative) return rt(cudaLaunchCooperativeKernel(f, grid, block, args, shmem, stream));
  return rt(cudaLaunchKernel(f, grid, block, args, shmem, stream));
}

// CUlaunchAttribute -> cudaLaunchAttribute: the ids and value layouts are the
// runtime's (cuda.h and driver_types.h define them as equal).
static_assert(sizeof(CUlaunchAttributeValue) == sizeof(cudaLaunchAttributeValue));
static_assert(sizeof(CUlaunchAttribute) == sizeof(cudaLaunchAttribute));
static_assert(int(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) == int(cudaLaunchAttributeClusterDimension));
static_assert(int(CU_LAUNCH_ATTRIBUTE_COOPERATIVE) == int(cudaLaunchAttributeCooperative));

CUresult runtime_config(const CUlaunchConfig* c, cudaLaunchConfig_t* out, std::vector<cudaLaunchAttribute>* attrs) {
  if (!c || (c->numAttrs && !c->attrs)) return CUDA_ERROR_INVALID_VALUE;
  for (unsigned i = 0; i < c->numAttrs; ++i) {
    cudaLaunchAttribute a{};
    a.id = static_cast<cudaLaunchAttributeID>(c->attrs[i].id);
    std::memcpy(&a.val, &c->attrs[i].value, sizeof a.val);
    attrs->push_back(a);
  }
  *out = cudaLaunchConfig_t{};
  out->gridDim = dim3(c->gridDimX, c->gridDimY, c->gridDimZ);
  out->blockDim = dim3(c->blockDimX, c->blockDimY, c->blockDimZ);
  out->dynamicSmemBytes = c->sharedMemBytes;
  out->stream = c->hStream;
  out->attrs = attrs->data();
  out->numAttrs = c->numAttrs;
  return CUDA_SUCCESS;
}

CUresult launch_ex(const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra) {
  cudaLaunchConfig_t c;
  std::vector<cudaLaunchAttribute> attrs;
  if (CUresult r = runtime_config(config, &c, &attrs); r != CUDA_SUCCESS) return r;
  std::vector<void*> storage;
  void** args = nullptr;
  if (CUresult r = arguments(f, kernelParams, extra, &storage, &args); r != CUDA_SUCCESS) return r;
  return rt(cudaLaunchKernelExC(&c, f, args));
}

// The per-thread variants: stream 0 is the calling thread's default stream.
}  // namespace

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                                unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                                unsigned int sharedMemBytes, CUstream hStream, void** kernelParams, void** extra) {
  return guarded([&] {
    return launch(f, dim3(gridDimX, gridDimY, gridDimZ), dim3(blockDimX, blockDimY, blockDimZ), sharedMemBytes,
                  hStream, kernelParams, extra, false);
  });
}

CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                           unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                           unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                           void** kernelParams) {
  return guarded([&] {
    return launch(f, dim3(gridDimX, gridDimY, gridDimZ), dim3(blockDimX, blockDimY, blockDimZ), sharedMemBytes,
                  hStream, kernelParams, nullptr, true);
  });
}

CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra) {
  return guarded([&] { return launch_ex(config, f, kernelParams, extra); });
}

extern "C" {
CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                                     unsigned int by, unsigned int bz, unsigned int shmem, CUstream s, void** params,
                                     void** extra);
CUresult CUDAAPI cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                                                unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
                                                CUstream s, void** params);
CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f, void** params, void** extra);
}

CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                                     unsigned int by, unsigned int bz, unsigned int shmem, CUstream s, void** params,
                                     void** extra) {
  return cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shmem, per_thread(s), params, extra);
}

CUresult CUDAAPI cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                                                unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
                                                CUstream s, void** params) {
  return cuLaunchCooperativeKernel(f, gx, gy, gz, bx, by, bz, shmem, per_thread(s), params);
}

CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f, void** params, void** extra) {
  if (!config) return cuLaunchKernelEx(config, f, params, extra);
  CUlaunchConfig c = *config;
  c.hStream = per_thread(c.hStream);
  return cuLaunchKernelEx(&c, f, params, extra);
}

CUresult CUDAAPI cuOccupancyMaxActiveClusters(int* numClusters, CUfunction func, const CUlaunchConfig* config) {
  return guarded([&] {
    cudaLaunchConfig_t c;
    std::vector<cudaLaunchAttribute> attrs;
    if (CUresult r = runtime_config(config, &c, &attrs); r != CUDA_SUCCESS) return r;
    return rt(cudaOccupancyMaxActiveClusters(numClusters, func, &c));
  });
}
