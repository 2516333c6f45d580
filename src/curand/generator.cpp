// The generator's life cycle, options, version and the generation calls.
#include <cstdio>
#include <new>

#include "generator.h"
#include "stubs.h"

using softgpu::curand::kStreams;
using softgpu::curand::Out;
using softgpu::curand::Request;
using softgpu::curand::Rng;

extern "C" void softgpu_curand_unimplemented(const char* name, int* once) {
  if (__atomic_exchange_n(once, 1, __ATOMIC_RELAXED) == 0)
    std::fprintf(stderr, "softgpu curand: %s is not implemented yet\n", name);
}

namespace {

int quasi_once, mt_once;

void say_once(const char* what, int* once) {
  if (__atomic_exchange_n(once, 1, __ATOMIC_RELAXED) == 0)
    std::fprintf(stderr, "softgpu curand: %s generators are not implemented yet\n", what);
}

// The algorithm of a pseudorandom type softgpu implements; TYPE_ERROR for a
// type curand.h does not name, ARCH_MISMATCH (said once) for the ones it names
// that softgpu lacks (MTGP32, MT19937, the Sobol generators).
curandStatus_t algorithm(curandRngType_t type, Rng& rng) {
  switch (type) {
    case CURAND_RNG_PSEUDO_DEFAULT:
    case CURAND_RNG_PSEUDO_XORWOW: rng = Rng::Xorwow; return CURAND_STATUS_SUCCESS;
    case CURAND_RNG_PSEUDO_PHILOX4_32_10: rng = Rng::Philox; return CURAND_STATUS_SUCCESS;
    case CURAND_RNG_PSEUDO_MRG32K3A: rng = Rng::Mrg32k3a; return CURAND_STATUS_SUCCESS;
    case CURAND_RNG_PSEUDO_MTGP32:
    case CURAND_RNG_PSEUDO_MT19937:
      say_once("MTGP32 and MT19937", &mt_once);
      return CURAND_STATUS_ARCH_MISMATCH;
    case CURAND_RNG_QUASI_DEFAULT:
    case CURAND_RNG_QUASI_SOBOL32:
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL32:
    case CURAND_RNG_QUASI_SOBOL64:
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL64:
      say_once("quasirandom (Sobol)", &quasi_once);
      return CURAND_STATUS_ARCH_MISMATCH;
    default: return CURAND_STATUS_TYPE_ERROR;
  }
}

curandStatus_t create(curandGenerator_t* generator, curandRngType_t type, bool host) {
  if (!generator) return CURAND_STATUS_OUT_OF_RANGE;
  *generator = nullptr;
  Rng rng{};
  if (curandStatus_t st = algorithm(type, rng); st != CURAND_STATUS_SUCCESS) return st;
  auto* g = new (std::nothrow) curandGenerator_st;
  if (!g) return CURAND_STATUS_ALLOCATION_FAILED;
  g->type = type;
  g->rng = rng;
  g->host = host;
  size_t bytes = softgpu::curand::state_bytes(rng) * kStreams;
  if (host) {
    try {
      g->host_states.resize(bytes);
    } catch (const std::bad_alloc&) {
      delete g;
      return CURAND_STATUS_ALLOCATION_FAILED;
    }
  } else {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) {
      delete g;
      return CURAND_STATUS_INITIALIZATION_FAILED;
    }
    if (cudaMalloc(&g->dev_states, bytes) != cudaSuccess) {
      delete g;
      return CURAND_STATUS_ALLOCATION_FAILED;
    }
  }
  *generator = g;
  return CURAND_STATUS_SUCCESS;
}

// Makes the states for the current seed and offset if they changed.
curandStatus_t refresh(curandGenerator_t g) {
  if (!g->stale) return CURAND_STATUS_SUCCESS;
  size_t bytes = softgpu::curand::state_bytes(g->rng) * kStreams;
  if (g->host) {
    softgpu::curand::init_states(g->rng, g->seed, g->offset, g->host_states.data());
  } else {
    std::vector<unsigned char> states;
    try {
      states.resize(bytes);
    } catch (const std::bad_alloc&) {
      return CURAND_STATUS_ALLOCATION_FAILED;
    }
    softgpu::curand::init_states(g->rng, g->seed, g->offset, states.data());
    // Work already queued on the generator's stream may still use the states.
    if (cudaStreamSynchronize(g->stream) != cudaSuccess ||
        cudaMemcpy(g->dev_states, states.data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess)
      return CURAND_STATUS_LAUNCH_FAILURE;
  }
  g->stale = false;
  g->steps = 0;
  return CURAND_STATUS_SUCCESS;
}

// `steps` steps of kind `out` into ptr (a + b: mean and stddev, or lambda).
curandStatus_t generate(curandGenerator_t g, Out out, void* ptr, size_t steps, double a = 0, double b = 0) {
  if (!g) return CURAND_STATUS_NOT_INITIALIZED;
  if (steps == 0) return CURAND_STATUS_SUCCESS;
  if (!ptr) return CURAND_STATUS_OUT_OF_RANGE;
  if (curandStatus_t st = refresh(g); st != CURAND_STATUS_SUCCESS) return st;
  Request r;
  r.out = out;
  r.ptr = ptr;
  r.steps = steps;
  r.first = unsigned((g->offset + g->steps) % kStreams);
  r.a = a;
  r.b = b;
  if (g->host) {
    softgpu::curand::host_generate(g->rng, g->host_states.data(), r);
  } else if (softgpu::curand::launch_generate(g->stream, g->rng, g->dev_states, r) != cudaSuccess) {
    return CURAND_STATUS_LAUNCH_FAILURE;
  }
  g->steps += steps;
  return CURAND_STATUS_SUCCESS;
}

curandStatus_t pairs(curandGenerator_t g, Out out, void* ptr, size_t n, double mean, double stddev) {
  if (!g) return CURAND_STATUS_NOT_INITIALIZED;
  if (n % 2) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
  return generate(g, out, ptr, n / 2, mean, stddev);
}

}  // namespace

extern "C" {

curandStatus_t curandCreateGenerator(curandGenerator_t* generator, curandRngType_t rng_type) {
  return create(generator, rng_type, false);
}

curandStatus_t curandCreateGeneratorHost(curandGenerator_t* generator, curandRngType_t rng_type) {
  return create(generator, rng_type, true);
}

curandStatus_t curandDestroyGenerator(curandGenerator_t generator) {
  if (!generator) return CURAND_STATUS_NOT_INITIALIZED;
  if (generator->dev_states) {
    cudaStreamSynchronize(generator->stream);
    cudaFree(generator->dev_states);
  }
  delete generator;
  return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGetVersion(int* version) {
  if (!version) return CURAND_STATUS_OUT_OF_RANGE;
  *version = CURAND_VERSION;
  return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGetProperty(libraryPropertyType type, int* value) {
  if (!value) return CURAND_STATUS_OUT_OF_RANGE;
  switch (type) {
    case MAJOR_VERSION: *value = CURAND_VER_MAJOR; return CURAND_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CURAND_VER_MINOR; return CURAND_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CURAND_VER_PATCH; return CURAND_STATUS_SUCCESS;
  }
  return CURAND_STATUS_OUT_OF_RANGE;
}

curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream) {
  if (!generator) return CURAND_STATUS_NOT_INITIALIZED;
  generator->stream = stream;
  return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator, unsigned long long seed) {
  if (!generator) return CURAND_STATUS_NOT_INITIALIZED;
  generator->seed = seed;
  generator->stale = true;
  return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset) {
  if (!generator) return CURAND_STATUS_NOT_INITIALIZED;
  generator->offset = offset;
  generator->stale = true;
  return CURAND_STATUS_SUCCESS;
}

// Every pseudorandom ordering is accepted; none changes the output order.
curandStatus_t curandSetGeneratorOrdering(curandGenerator_t generator, curandOrdering_t order) {
  if (!generator) return CURAND_STATUS_NOT_INITIALIZED;
  if (order < CURAND_ORDERING_PSEUDO_BEST || order > CURAND_ORDERING_PSEUDO_DYNAMIC) return CURAND_STATUS_OUT_OF_RANGE;
  generator->ordering = order;
  return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetQuasiRandomGeneratorDimensions(curandGenerator_t generator, unsigned int) {
  if (!generator) return CURAND_STATUS_NOT_INITIALIZED;
  return CURAND_STATUS_TYPE_ERROR;  // only pseudorandom generators exist here
}

curandStatus_t curandGenerate(curandGenerator_t generator, unsigned int* outputPtr, size_t num) {
  return generate(generator, Out::Bits, outputPtr, num);
}

// Only 64-bit quasirandom generators give 64-bit results; none exists here.
curandStatus_t curandGenerateLongLong(curandGenerator_t generator, unsigned long long*, size_t) {
  if (!generator) return CURAND_STATUS_NOT_INITIALIZED;
  return CURAND_STATUS_TYPE_ERROR;
}

curandStatus_t curandGenerateUniform(curandGenerator_t generator, float* outputPtr, size_t num) {
  return generate(generator, Out::UniformF, outputPtr, num);
}

curandStatus_t curandGenerateUniformDouble(curandGenerator_t generator, double* outputPtr, size_t num) {
  return generate(generator, Out::UniformD, outputPtr, num);
}

curandStatus_t curandGenerateNormal(curandGenerator_t generator, float* outputPtr, size_t n, float mean,
                                    float stddev) {
  return pairs(generator, Out::NormalF, outputPtr, n, mean, stddev);
}

curandStatus_t curandGenerateNormalDouble(curandGenerator_t generator, double* outputPtr, size_t n, double mean,
                                          double stddev) {
  return pairs(generator, Out::NormalD, outputPtr, n, mean, stddev);
}

curandStatus_t curandGenerateLogNormal(curandGenerator_t generator, float* outputPtr, size_t n, float mean,
                                       float stddev) {
  return pairs(generator, Out::LogNormalF, outputPtr, n, mean, stddev);
}

curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t generator, double* outputPtr, size_t n, double mean,
                                             double stddev) {
  return pairs(generator, Out::LogNormalD, outputPtr, n, mean, stddev);
}

curandStatus_t curandGeneratePoisson(curandGenerator_t generator, unsigned int* outputPtr, size_t n, double lambda) {
  if (!generator) return CURAND_STATUS_NOT_INITIALIZED;
  if (!(lambda > 0.0) || lambda > 400000.0) return CURAND_STATUS_OUT_OF_RANGE;
  return generate(generator, Out::Poisson, outputPtr, n, lambda);
}

}  // extern "C"
