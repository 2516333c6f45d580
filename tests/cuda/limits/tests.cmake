# cudaDeviceSetLimit/GetLimit by the runtime's documented rules (limit_rules.cu).
# (The older limits programs are registered in tests/cuda/CMakeLists.txt.)
softgpu_cuda_program(limit_rules SOURCES limits/limit_rules.cu ARCH -arch=sm_90)
foreach(m values stack overflow)
  cuda_test(limit_rules_${m} limit_rules ARGS ${m} STDOUT_REGEX "PASS limit_rules ${m}")
endforeach()
