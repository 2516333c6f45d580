# softgpu's libcublasLt.so.13 (src/cublaslt), built only with the CUDA
# toolkit: programs link NVIDIA's libcublasLt (-lcublasLt) and `softgpu run`
# gives them softgpu's. See the sources for what each covers and the
# tolerances.
#   cublaslt_matmul PART: cublasLtMatmul for every implemented type
#     combination (types), each of the 16 epilogues (epilogues), the
#     16-bit combinations laid out for the multistage kernel (multistage),
#     and on an H100 the TN f16/bf16/FP8 calls of the Hopper kernel
#     (hopper), against a CPU loop; *_route: which kernel those calls run on.
#   cublaslt_api: handles, versions, descriptor attributes, preferences,
#     heuristics, the invalid-argument and NOT_SUPPORTED statuses, a stub.
if(TARGET cublaslt)
  softgpu_cuda_program(cublaslt_matmul SOURCES cublaslt/cublaslt_matmul.cu FLAGS -lcublasLt)
  softgpu_cuda_program(cublaslt_api SOURCES cublaslt/cublaslt_api.cu FLAGS -lcublasLt)
  foreach(part types epilogues multistage)
    cuda_test(cublaslt_${part} cublaslt_matmul ARGS ${part} STDOUT_REGEX "PASS cublaslt_matmul ${part}")
  endforeach()
  # The multistage part again with each tile width forced (the default
  # picks by the grid's shape: gemm_tc::ms::pick_tile_n).
  foreach(tile 128x128 128x64)
    cuda_test(cublaslt_multistage_${tile} cublaslt_matmul ARGS multistage STDOUT_REGEX "PASS cublaslt_matmul multistage")
    set_tests_properties(cuda.cublaslt_multistage_${tile} PROPERTIES ENVIRONMENT SOFTGPU_CUBLAS_TC_TILE=${tile})
  endforeach()
  # The multistage part on an A100: 80 calls, of which the 10 with a ReLU
  # mask (RELU_AUX, RELU_AUX_BIAS) run on the 64x64 kernel, the other 70 on
  # the multistage one; with SOFTGPU_CUBLAS_TC_TILE=64 all 80 on the 64x64
  # one. (On an H100 its calls with the DEFAULT epilogue take the Hopper
  # kernel: cuda.cublaslt_hopper_route.)
  add_test(NAME cuda.cublaslt_route
    COMMAND ${CMAKE_COMMAND} -DSOFTGPU=$<TARGET_FILE:softgpu> -DPROG=${_bin}/cublaslt_matmul -DARGS=multistage -DGPU=a100
            -DWORK=${CMAKE_CURRENT_BINARY_DIR} "-DPASS=PASS cublaslt_matmul multistage"
            "-DCOUNTS=matmul_tc_ms_kernel<=70@@matmul_tc_kernel<=10"
            -P ${_src}/cublaslt/check_lt_route.cmake)
  set_tests_properties(cuda.cublaslt_route PROPERTIES LABELS cuda TIMEOUT 600)
  # On an H100 (sm_90): the DEFAULT-epilogue calls in f16 and bf16 (every
  # transpose pair) and FP8 (TN) run on the TMA + wgmma kernel
  # (kernels_sm90.cu), 59 of the hopper part's 61 calls (the 2 with a BIAS
  # epilogue on the multistage kernel); again with each of its tile widths
  # forced; and under the four sanitizers (0 errors).
  add_test(NAME cuda.cublaslt_hopper_route
    COMMAND ${CMAKE_COMMAND} -DSOFTGPU=$<TARGET_FILE:softgpu> -DPROG=${_bin}/cublaslt_matmul -DARGS=hopper -DGPU=h100
            -DWORK=${CMAKE_CURRENT_BINARY_DIR} "-DPASS=PASS cublaslt_matmul hopper"
            "-DCOUNTS=sm90_gemm_kernel<=59@@matmul_tc_ms_kernel<=2"
            -P ${_src}/cublaslt/check_lt_route.cmake)
  set_tests_properties(cuda.cublaslt_hopper_route PROPERTIES LABELS cuda TIMEOUT 600)
  foreach(tile wgmma128x128 wgmma128x256)
    cuda_test(cublaslt_hopper_${tile} cublaslt_matmul ARGS hopper RUN_OPTS --gpu=h100
              STDOUT_REGEX "PASS cublaslt_matmul hopper")
    set_tests_properties(cuda.cublaslt_hopper_${tile} PROPERTIES ENVIRONMENT SOFTGPU_CUBLAS_TC_TILE=${tile})
  endforeach()
  foreach(t memcheck racecheck initcheck synccheck)
    sanitize_test(sanitize.clean.${t}.cublaslt_hopper cublaslt_matmul sanitize/no_errors.expected
                  OPTS --tool ${t} --gpu h100 --error-exitcode 3 ARGS hopper)
  endforeach()
  cuda_test(cublaslt_api cublaslt_api STDOUT_REGEX "PASS cublaslt_api"
            STDERR_REGEX "softgpu cublasLt: cublasLtMatmul: A CUDA_R_16F, B CUDA_R_16F, C CUDA_R_64F, D CUDA_R_64F with CUBLAS_COMPUTE_32F and scale type CUDA_R_32F is not supported@@softgpu cublasLt: cublasLtMatrixTransform is not implemented yet")
  # The FP8 statuses off sm_90 (NOT_SUPPORTED, however laid out).
  cuda_test(cublaslt_api_a100 cublaslt_api RUN_OPTS --gpu=a100 STDOUT_REGEX "PASS cublaslt_api"
            STDERR_REGEX "an FP8 matmul on a GPU other than sm_90 is not supported")
  # No false positives, and no bad access in the library's kernels: both
  # programs (cublaslt_matmul with both parts) under each sanitizer (0 errors).
  foreach(t memcheck racecheck initcheck synccheck)
    sanitize_test(sanitize.clean.${t}.cublaslt_matmul cublaslt_matmul sanitize/no_errors.expected
                  OPTS --tool ${t} --error-exitcode 3 ARGS all)
    sanitize_test(sanitize.clean.${t}.cublaslt_api cublaslt_api sanitize/no_errors.expected
                  OPTS --tool ${t} --error-exitcode 3)
  endforeach()
endif()
