# `softgpu run` and loading: programs linked with the static CUDA runtime,
# what fails at the launch that needs it (kernels without PTX, corrupt
# fatbinaries), programs without kernels of their own, its own error
# messages, signals, --version.
set(_cli ${_src}/cli)
add_custom_command(
  OUTPUT ${_bin}/cli_static_cudart
  COMMAND ${SOFTGPU_NVCC} -O2 -arch=sm_80 -o ${_bin}/cli_static_cudart ${_src}/vector_add.cu
  DEPENDS ${_src}/vector_add.cu ${_src}/check.cuh
  COMMENT "nvcc cli_static_cudart (static cudart)"
  VERBATIM)
add_custom_command(
  OUTPUT ${_bin}/cli_sass_only
  COMMAND ${SOFTGPU_NVCC} -cudart shared -O2 -gencode arch=compute_80,code=sm_80 -o ${_bin}/cli_sass_only
          ${_src}/vector_add.cu
  DEPENDS ${_src}/vector_add.cu ${_src}/check.cuh
  COMMENT "nvcc cli_sass_only (no PTX)"
  VERBATIM)
list(APPEND _programs ${_bin}/cli_static_cudart ${_bin}/cli_sass_only)
softgpu_cuda_program(device_query SOURCES cli/device_query.cu ARCH default)

# nvcc's default (the static CUDA runtime) runs: static_runtime/tests.cmake.
cuda_test(cli_static_cudart cli_static_cudart STDOUT_REGEX "PASS vector_add")
# A kernel without PTX runs nowhere here: the launch fails with the error
# real CUDA gives for a kernel with no image for the device, naming it.
set(_vadd "'vadd\\(float const\\*, float const\\*, float\\*, int\\)' \\(_Z4vaddPKfS0_Pfi\\)")
cuda_test(cli_no_ptx_fails_at_launch cli_sass_only EXPECT_RC 1
          STDERR_REGEX "^softgpu: cannot run kernel ${_vadd}: the fatbinary contains no PTX \\(only machine code for: sm_80\\); softgpu runs PTX. Rebuild with PTX embedded, e.g. default nvcc flags or `-gencode arch=compute_80,code=compute_80` next to your code=sm_XX options\nFAIL [^\n]*/vector_add.cu:35: cudaGetLastError\\(\\) returned cudaErrorNoKernelImageForDevice \\(209\\): no kernel image is available for execution on the device\n$")

# deviceQuery-like: no kernels, properties checked against each config file.
file(GLOB _gpu_configs ${CMAKE_SOURCE_DIR}/configs/gpus/*.toml)
foreach(cfg IN LISTS _gpu_configs)
  get_filename_component(key ${cfg} NAME_WE)
  add_test(NAME cuda.cli_device_query_${key}
    COMMAND ${CMAKE_COMMAND} -DSOFTGPU=$<TARGET_FILE:softgpu> -DPROG=${_bin}/device_query -DCONFIG=${cfg}
            -P ${_cli}/run_device_query.cmake)
  set_tests_properties(cuda.cli_device_query_${key} PROPERTIES LABELS cuda TIMEOUT 60)
endforeach()

# A hypothetical GPU given as a file (--gpu PATH, absolute or relative): its
# override (the name) and what it inherits from its base (h100: 132 SMs).
set(_example ${CMAKE_SOURCE_DIR}/configs/examples/h100_2x_l2.toml)
set(_example_re "name: Hypothetical H100 SXM5 80GB with 2x L2 \\(softgpu\\)\ncompute_capability: 9.0\nsm_count: 132\n.*PASS device_query")
add_test(NAME cuda.cli_device_query_file COMMAND $<TARGET_FILE:softgpu> run --gpu ${_example} -- ${_bin}/device_query)
add_test(NAME cuda.cli_device_query_relative_file
  COMMAND $<TARGET_FILE:softgpu> run --gpu configs/examples/h100_2x_l2.toml -- ${_bin}/device_query)
set_tests_properties(cuda.cli_device_query_relative_file PROPERTIES WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(cuda.cli_device_query_file cuda.cli_device_query_relative_file PROPERTIES
  LABELS cuda TIMEOUT 60 PASS_REGULAR_EXPRESSION "${_example_re}")
add_test(NAME cuda.cli_device_query_missing_base
  COMMAND $<TARGET_FILE:softgpu> run --gpu ${_cli}/no_such_base.toml -- ${_bin}/device_query)
set_tests_properties(cuda.cli_device_query_missing_base PROPERTIES LABELS cuda TIMEOUT 60
  PASS_REGULAR_EXPRESSION "softgpu run: [^\n]*no_such_base.toml:2:8: base \"b200\" not found")

# Corrupt fatbinaries (issue 7): a copy of vector_add with one field
# corrupted fails at its first launch with cudaErrorInvalidKernelImage and a
# message naming the kernel and the field; it used to crash (SIGSEGV).
add_executable(corrupt_fatbin ${_cli}/corrupt_fatbin.cpp)
set(_corrupt_head "^softgpu: cannot run kernel ${_vadd}: the program's embedded fatbinary is corrupt: ")
set(_corrupt_tail "\nFAIL [^\n]*/vector_add.cu:35: cudaGetLastError\\(\\) returned cudaErrorInvalidKernelImage \\(200\\): device kernel image is invalid\n$")
function(corrupt_test name field value message)
  add_test(NAME cuda.cli_corrupt_${name}
    COMMAND ${CMAKE_COMMAND} -DCORRUPT=$<TARGET_FILE:corrupt_fatbin> -DSRC_PROG=${_bin}/vector_add
            -DPROG=${_bin}/corrupt_${name} -DFIELD=${field} -DVALUE=${value} -DSOFTGPU=$<TARGET_FILE:softgpu>
            -DEXPECT_RC=1 "-DSTDERR_REGEX=${_corrupt_head}${message}${_corrupt_tail}"
            -P ${_cli}/run_corrupt.cmake)
  set_tests_properties(cuda.cli_corrupt_${name} PROPERTIES LABELS cuda TIMEOUT 60)
endfunction()
corrupt_test(header_size_large container-header-size 0xffff
  "fatbin wrapper data: container header size 65535 \\+ payload size [0-9]+ runs past the end of readable memory \\([0-9]+ bytes from the container start\\)")
corrupt_test(header_size_small container-header-size 8
  "fatbin wrapper data: implausible container header \\(header size 8, payload [0-9]+\\)")
corrupt_test(header_size_off container-header-size 24
  "fatbin wrapper data: fatbin entry 0 \\(offset 24\\): header size 0 is outside \\[64, [0-9]+\\]")
corrupt_test(payload_size container-payload-size 0x100000
  "fatbin wrapper data: container header size 16 \\+ payload size 1048576 runs past the end of readable memory \\([0-9]+ bytes from the container start\\)")
corrupt_test(container_magic container-magic 0x12345678
  "fatbin wrapper data: not a fatbin container \\(magic 0x12345678, expected 0xba55ed50\\)")
corrupt_test(entry_header_size entry-header-size 0x7fffffff
  "fatbin wrapper data: fatbin entry 0 \\(offset 16\\): header size 2147483647 is outside \\[64, [0-9]+\\]")
corrupt_test(wrapper_magic wrapper-magic 0
  "not a fatbin wrapper: magic 0x00000000, expected 0x466243b1")

# softgpu's own messages, exit codes, --version, signal forwarding.
add_test(NAME cuda.cli_errors
  COMMAND bash ${_cli}/cli_errors.sh $<TARGET_FILE:softgpu> ${_bin}/vector_add ${PROJECT_VERSION})
add_executable(signal_child ${_cli}/signal_child.cpp)
add_test(NAME cuda.cli_signals COMMAND bash ${_cli}/cli_signals.sh $<TARGET_FILE:softgpu> $<TARGET_FILE:signal_child>)
# Input files that are devices, FIFOs, directories or too large (issue 21).
add_test(NAME cuda.cli_inputs COMMAND bash ${_cli}/cli_inputs.sh $<TARGET_FILE:softgpu> ${_bin}/vector_add)
set_tests_properties(cuda.cli_errors cuda.cli_signals cuda.cli_inputs PROPERTIES LABELS cuda TIMEOUT 60)

# Installing as users do: an installed tree runs with no source or build tree.
set(_install_driver "")
if(TARGET cuda_driver)
  set(_install_driver ${_bin}/driver_api)  # tests/cuda/driver
endif()
add_test(NAME cuda.cli_install
  COMMAND bash ${_cli}/install_test.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR} ${_bin}/vector_add ${_bin}/device_query
          ${_install_driver})
set_tests_properties(cuda.cli_install PROPERTIES LABELS cuda TIMEOUT 120)
