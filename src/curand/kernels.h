// softgpu cuRAND's generation (kernels.cu, compiled by nvcc): the same
// per-element code runs as a CUDA kernel on the software GPU (device
// generators) and as a plain loop on the CPU (host generators).
//
// Output order. A generator owns kStreams states of its algorithm, stream s
// initialised by curand_init(seed, s, k_s) (subsequence s). The generator's
// output is a sequence of steps numbered from the offset on; step g is taken
// by stream g mod kStreams, each stream taking its steps in order from its
// own state. A step writes one value (curandGenerate, the uniforms,
// Poisson) or one pair (normal and log-normal: curand_normal2 and the like,
// so num must be even). k_s, the 32-bit draws stream s skips for an offset
// o, is the number of steps g < o with g mod kStreams == s. Consecutive
// calls continue the sequence; the states persist in the generator.
// Bit-exact equality with NVIDIA's libcurand host-API output is NOT verified
// (no GPU here to compare with); only the algorithms (curand_kernel.h's) are
// the same. The ordering set by curandSetGeneratorOrdering does not change it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cuda_runtime_api.h>

namespace softgpu::curand {

constexpr unsigned kStreams = 4096;

enum class Rng { Xorwow, Philox, Mrg32k3a };
enum class Out { Bits, UniformF, UniformD, NormalF, NormalD, LogNormalF, LogNormalD, Poisson };

// One call's work: `steps` steps starting at stream `first`, written to out.
struct Request {
  Out out = Out::Bits;
  void* ptr = nullptr;
  size_t steps = 0;
  unsigned first = 0;
  double a = 0, b = 0;  // mean and stddev, or lambda in a
};

// Bytes of one stream's state.
size_t state_bytes(Rng rng);
// kStreams states for `seed` and `offset` (in steps) into host memory.
void init_states(Rng rng, unsigned long long seed, unsigned long long offset, void* states);
// Runs `r` on the device states (device memory) on stream s.
cudaError_t launch_generate(cudaStream_t s, Rng rng, void* states, const Request& r);
// Runs `r` on the CPU with host states, writing host memory.
void host_generate(Rng rng, void* states, const Request& r);

}  // namespace softgpu::curand
