# Device memory as one arena: sizes a real GPU has (60 GB on an 80 GB
# config on a smaller host), reads just outside an allocation that a GPU
# maps, faults far outside, many allocations, cudaMemGetInfo, and the
# host-memory budget's clean error instead of the OOM killer.
softgpu_cuda_program(arena SOURCES arena/arena.cu)
cuda_test(arena_huge arena ARGS huge RUN_OPTS "--gpu@@a100" STDOUT_REGEX "PASS arena huge")
foreach(m big4g before many meminfo)
  cuda_test(arena_${m} arena ARGS ${m} STDOUT_REGEX "PASS arena ${m}")
endforeach()
cuda_test(arena_far arena ARGS far STDOUT_REGEX "PASS arena far"
          STDERR_REGEX "load_at@@[Bb]lock@@no allocation holds it")
cuda_test(arena_budget arena ARGS budget RUN_OPTS "--host-memory-limit@@64M" STDOUT_REGEX "PASS arena budget"
          STDERR_REGEX "out of host memory: cudaMemset@@cudaMalloc, 1073741824 bytes@@fill_strided@@out of host memory")
