// synccheck: one seeded synchronization bug per case (argv[1]), and the same
// kernel without it (argv[2] == "fixed"), which must give no report.
//   warp    __syncthreads() taken by lanes 0-15 of a 32-thread block
//   block   the two warps of a block at two different __syncthreads()
//   mask    __syncwarp(0x0000ffff) executed by lane 20
//   exited  __syncwarp() after lanes 16-31 returned: legal (no report either way)
//   shfl    __shfl_sync(0xffffffff) executed by lanes 0-15
//   count   bar.sync 1, 48 (not a multiple of the warp size) in a 64-thread block
//   toolarge bar.sync 1, 128 in a 64-thread block: reported, then the launch
//           ends with softgpu's deadlock message instead of hanging
//   mismatch warp 0 at bar.sync 1, 64 and warp 1 at bar.sync 1, 32
//   ifelse  __syncwarp() on one side of a branch only (fixed: on both sides,
//           which sm_70+ pairs)
#include <cstdio>
#include <cstring>

__global__ void warp_div(int* out, bool fixed) {
  __shared__ int s[32];
  const int t = threadIdx.x;
  s[t] = t;
  if (fixed || t < 16) __syncthreads();
  out[t] = s[31 - t];
}

__global__ void block_div(int* out, bool fixed) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  s[t] = t;
  if (fixed) {
    __syncthreads();
    out[t] = s[63 - t];
  } else if (t < 32) {
    s[t] += 1;
    __syncthreads();
    out[t] = s[63 - t];
  } else {
    s[t] += 2;
    __syncthreads();
    out[t] = s[63 - t] * 3;
  }
}

__global__ void bad_mask(int* out, bool fixed) {
  const int t = threadIdx.x;
  if (t == 20) {
    __syncwarp(fixed ? 1u << 20 : 0x0000ffffu);
    out[0] = t;
  }
}

__global__ void exited_lanes(int* out, bool) {
  __shared__ int s[32];
  const int t = threadIdx.x;
  if (t >= 16) return;
  s[t] = t;
  __syncwarp();
  out[t] = s[15 - t];
}

__global__ void shfl_div(int* out, bool fixed) {
  const int t = threadIdx.x;
  int v = t * 7;
  if (fixed || t < 16) v = __shfl_sync(0xffffffffu, v, 3);
  out[t] = v;
}

__global__ void bad_count(int* out, bool fixed) {
  const int t = threadIdx.x;
  const unsigned n = fixed ? 64 : 48;  // in a register: ptxas rejects an immediate 48
  asm volatile("bar.sync 1, %0;" ::"r"(n) : "memory");
  out[t] = t;
}

__global__ void too_large(int* out, bool fixed) {
  const unsigned n = fixed ? 64 : 128;
  asm volatile("bar.sync 1, %0;" ::"r"(n) : "memory");
  out[threadIdx.x] = 1;
}

__global__ void mismatch(int* out, bool fixed) {
  const unsigned n = threadIdx.x < 32 || fixed ? 64 : 32;
  asm volatile("bar.sync 1, %0;" ::"r"(n) : "memory");
  out[threadIdx.x] = 1;
}

__global__ void if_else(int* out, bool fixed) {
  __shared__ int s[32];
  const int t = threadIdx.x;
  if (t & 1) {
    s[t] = t * 3;
    __syncwarp();
    out[t] = s[t ^ 1];
  } else {
    s[t] = t + 100;
    if (fixed) __syncwarp();
    out[t] = s[t ^ 1] * 2;
  }
  out[t + 32] = t;  // all lanes run on after the branch (none has exited)
}

int main(int argc, char** argv) {
  const char* c = argc > 1 ? argv[1] : "";
  const bool fixed = argc > 2 && std::strcmp(argv[2], "fixed") == 0;
  int* out = nullptr;
  cudaMalloc(&out, 64 * sizeof(int));
  if (!std::strcmp(c, "warp")) warp_div<<<1, 32>>>(out, fixed);
  else if (!std::strcmp(c, "block")) block_div<<<1, 64>>>(out, fixed);
  else if (!std::strcmp(c, "mask")) bad_mask<<<1, 32>>>(out, fixed);
  else if (!std::strcmp(c, "exited")) exited_lanes<<<1, 32>>>(out, fixed);
  else if (!std::strcmp(c, "shfl")) shfl_div<<<1, 32>>>(out, fixed);
  else if (!std::strcmp(c, "count")) bad_count<<<1, 64>>>(out, fixed);
  else if (!std::strcmp(c, "toolarge")) too_large<<<1, 64>>>(out, fixed);
  else if (!std::strcmp(c, "mismatch")) mismatch<<<1, 64>>>(out, fixed);
  else if (!std::strcmp(c, "ifelse")) if_else<<<1, 32>>>(out, fixed);
  else { std::printf("unknown case '%s'\n", c); return 2; }
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s: %s\n", c, cudaGetErrorName(e));
  cudaFree(out);
  return 0;
}
