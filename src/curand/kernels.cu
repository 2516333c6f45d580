// softgpu cuRAND's generation: the toolkit's curand_kernel.h algorithms
// (included, with QUALIFIERS made __host__ __device__ so that the same
// functions also run on the CPU for host generators and for state
// initialisation) driven in the order kernels.h describes.
#define QUALIFIERS static __forceinline__ __host__ __device__
#include <curand_kernel.h>

#include "kernels.h"

namespace softgpu::curand {
namespace {

constexpr int kThreads = 256;

// One step of stream `st`: step j of the call, writing its value(s).
template <typename S>
__host__ __device__ void step(S* st, const Request& r, size_t j) {
  float fm = float(r.a), fs = float(r.b);
  switch (r.out) {
    case Out::Bits: static_cast<unsigned*>(r.ptr)[j] = ::curand(st); break;
    case Out::UniformF: static_cast<float*>(r.ptr)[j] = curand_uniform(st); break;
    case Out::UniformD: static_cast<double*>(r.ptr)[j] = curand_uniform_double(st); break;
    case Out::NormalF: {
      float2 v = curand_normal2(st);
      static_cast<float*>(r.ptr)[2 * j] = fm + fs * v.x;
      static_cast<float*>(r.ptr)[2 * j + 1] = fm + fs * v.y;
      break;
    }
    case Out::NormalD: {
      double2 v = curand_normal2_double(st);
      static_cast<double*>(r.ptr)[2 * j] = r.a + r.b * v.x;
      static_cast<double*>(r.ptr)[2 * j + 1] = r.a + r.b * v.y;
      break;
    }
    case Out::LogNormalF: {
      float2 v = curand_log_normal2(st, fm, fs);
      static_cast<float*>(r.ptr)[2 * j] = v.x;
      static_cast<float*>(r.ptr)[2 * j + 1] = v.y;
      break;
    }
    case Out::LogNormalD: {
      double2 v = curand_log_normal2_double(st, r.a, r.b);
      static_cast<double*>(r.ptr)[2 * j] = v.x;
      static_cast<double*>(r.ptr)[2 * j + 1] = v.y;
      break;
    }
    case Out::Poisson: static_cast<unsigned*>(r.ptr)[j] = curand_poisson(st, r.a); break;
  }
}

// Stream s's steps of the call: j = (s - first) mod kStreams, then every kStreams-th.
template <typename S>
__host__ __device__ void run_stream(S* states, unsigned s, const Request& r) {
  size_t j = (s + kStreams - r.first) % kStreams;
  if (j >= r.steps) return;
  S st = states[s];
  for (; j < r.steps; j += kStreams) step(&st, r, j);
  states[s] = st;
}

template <typename S>
__global__ void generate_kernel(S* states, Request r) {
  unsigned s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < kStreams) run_stream(states, s, r);
}

template <typename S>
void init_all(unsigned long long seed, unsigned long long offset, S* states) {
  for (unsigned s = 0; s < kStreams; ++s) {
    unsigned long long skip = offset > s ? (offset - s - 1) / kStreams + 1 : 0;
    curand_init(seed, s, skip, &states[s]);
  }
}

template <typename S>
cudaError_t launch(cudaStream_t stream, void* states, const Request& r) {
  unsigned blocks = (kStreams + kThreads - 1) / kThreads;
  generate_kernel<S><<<blocks, kThreads, 0, stream>>>(static_cast<S*>(states), r);
  return cudaGetLastError();
}

template <typename S>
void host_run(void* states, const Request& r) {
  for (unsigned s = 0; s < kStreams; ++s) run_stream(static_cast<S*>(states), s, r);
}

}  // namespace

size_t state_bytes(Rng rng) {
  switch (rng) {
    case Rng::Xorwow: return sizeof(curandStateXORWOW_t);
    case Rng::Philox: return sizeof(curandStatePhilox4_32_10_t);
    case Rng::Mrg32k3a: return sizeof(curandStateMRG32k3a_t);
  }
  return 0;
}

void init_states(Rng rng, unsigned long long seed, unsigned long long offset, void* states) {
  switch (rng) {
    case Rng::Xorwow: init_all(seed, offset, static_cast<curandStateXORWOW_t*>(states)); break;
    case Rng::Philox: init_all(seed, offset, static_cast<curandStatePhilox4_32_10_t*>(states)); break;
    case Rng::Mrg32k3a: init_all(seed, offset, static_cast<curandStateMRG32k3a_t*>(states)); break;
  }
}

cudaError_t launch_generate(cudaStream_t s, Rng rng, void* states, const Request& r) {
  switch (rng) {
    case Rng::Xorwow: return launch<curandStateXORWOW_t>(s, states, r);
    case Rng::Philox: return launch<curandStatePhilox4_32_10_t>(s, states, r);
    case Rng::Mrg32k3a: return launch<curandStateMRG32k3a_t>(s, states, r);
  }
  return cudaErrorInvalidValue;
}

void host_generate(Rng rng, void* states, const Request& r) {
  switch (rng) {
    case Rng::Xorwow: host_run<curandStateXORWOW_t>(states, r); break;
    case Rng::Philox: host_run<curandStatePhilox4_32_10_t>(states, r); break;
    case Rng::Mrg32k3a: host_run<curandStateMRG32k3a_t>(states, r); break;
  }
}

}  // namespace softgpu::curand
