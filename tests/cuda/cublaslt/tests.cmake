# softgpu's libcublasLt.so.13 (src/cublaslt), built only with the CUDA
# toolkit: programs link NVIDIA's libcublasLt (-lcublasLt) and `softgpu run`
# gives them softgpu's. See the sources for what each covers and the
# tolerances.
#   cublaslt_matmul PART: cublasLtMatmul for every implemented type
#     combination (types) and each of the 16 epilogues (epilogues), against a
#     CPU loop.
#   cublaslt_api: handles, versions, descriptor attributes, preferences,
#     heuristics, the invalid-argument and NOT_SUPPORTED statuses, a stub.
if(TARGET cublaslt)
  softgpu_cuda_program(cublaslt_matmul SOURCES cublaslt/cublaslt_matmul.cu FLAGS -lcublasLt)
  softgpu_cuda_program(cublaslt_api SOURCES cublaslt/cublaslt_api.cu FLAGS -lcublasLt)
  foreach(part types epilogues)
    cuda_test(cublaslt_${part} cublaslt_matmul ARGS ${part} STDOUT_REGEX "PASS cublaslt_matmul ${part}")
  endforeach()
  cuda_test(cublaslt_api cublaslt_api STDOUT_REGEX "PASS cublaslt_api"
            STDERR_REGEX "softgpu cublasLt: cublasLtMatmul: A CUDA_R_16F, B CUDA_R_16F, C CUDA_R_64F, D CUDA_R_64F with CUBLAS_COMPUTE_32F and scale type CUDA_R_32F is not supported@@softgpu cublasLt: cublasLtMatrixTransform is not implemented yet")
  # No false positives, and no bad access in the library's kernels: both
  # programs (cublaslt_matmul with both parts) under each sanitizer (0 errors).
  foreach(t memcheck racecheck initcheck synccheck)
    sanitize_test(sanitize.clean.${t}.cublaslt_matmul cublaslt_matmul sanitize/no_errors.expected
                  OPTS --tool ${t} --error-exitcode 3 ARGS all)
    sanitize_test(sanitize.clean.${t}.cublaslt_api cublaslt_api sanitize/no_errors.expected
                  OPTS --tool ${t} --error-exitcode 3)
  endforeach()
endif()
