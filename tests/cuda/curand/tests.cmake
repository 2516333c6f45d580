# softgpu's libcurand.so.10 (src/curand), built only with the CUDA toolkit:
# programs link NVIDIA's libcurand (-lcurand) and `softgpu run` gives them
# softgpu's. Each checks against a reference of its own.
#   curand_sequence: XORWOW, Philox, MRG32k3a output (device and host
#     generators) against the same curand_kernel.h functions run on the CPU
#     in the documented order (common.cuh).
#   curand_stats: moments, chi-square and Kolmogorov-Smirnov bounds at
#     n = 1e6; seeds and offsets; host generator equals device generator.
#   curand_errors: statuses of misuse and an unimplemented routine's line
#     on stderr.
if(TARGET curand)
  foreach(p sequence stats errors)
    softgpu_cuda_program(curand_${p} SOURCES curand/curand_${p}.cu FLAGS -lcurand HEADERS curand/common.cuh)
  endforeach()
  foreach(p sequence stats)
    cuda_test(curand_${p} curand_${p} STDOUT_REGEX "PASS curand_${p}")
  endforeach()
  cuda_test(curand_errors curand_errors STDOUT_REGEX "PASS curand_errors"
            STDERR_REGEX "softgpu curand: curandCreatePoissonDistribution is not implemented yet")
endif()
