# softgpu's libcublas.so.13 (src/cublas), built only with the CUDA toolkit:
# programs link NVIDIA's libcublas (-lcublas) and `softgpu run` gives them
# softgpu's. See the sources for what each covers and the tolerances.
#   cublas_routines PART: handle calls and invalid arguments, Level 1 S/D,
#     Sgemm (27 shapes x 9 transposes), Dgemm, against CPU loops.
#   cublas_gemv: Sgemv/Dgemv (N/T/C, lda > m, increments incl. negative).
#   cublas_geam: Sgeam/Dgeam (N/T/C, beta = 0, in place C == A / C == B).
#   cublas_gemm_batched: S/DgemmStridedBatched (strides, shared A, gaps).
#   cublas_gemm_batched_ex: GemmBatchedEx and S/D/HgemmBatched (pointer
#     arrays in device memory, separate allocations per batch).
#   cublas_gemm_ex PART: GemmEx / GemmStridedBatchedEx / Hgemm for every
#     implemented type combination (types), and the unsupported ones and
#     invalid arguments (unsupported).
#   cublas_more PART: swap/rot/iamin (level1), ger, symv, trsv, dgmm, syrk, trsm, SgemmEx.
#   cublas_level3_more PART: trmv, trmm (out of place and C == B), symm, syr2k.
#   cublas_ilp64: every implemented routine's _64 entry point against its
#     32-bit one byte for byte, and NOT_SUPPORTED for a size beyond int.
#   cublas_transfer: Set/GetVector, Set/GetMatrix, Async and _64 forms, byte
#     by byte against where each element must land; invalid values, refused copies.
#   cublas_complex: C/Zgemm, C/ZgemmStridedBatched, C/ZgemmBatched, GemmEx
#     and GemmStridedBatchedEx with CUDA_C_32F / CUDA_C_64F (ops N/T/C).
#   cublas_unsupported: an unimplemented routine returns NOT_SUPPORTED and
#     says so once on stderr.
#   cublas_tensor_core PART: the tensor-core gemm (tf32 incl. the exact-f32
#     calls around it, half: f16/bf16 and FAST_16F/16BF) against CPU loops;
#     tensor_route: which calls issue tensor-pipe instructions (--report);
#     hopper (H100): the calls of the TMA + wgmma kernel, and which kernel
#     each ran (tensor_hopper_route).
#   mlp_train: a two-layer MLP trained for 10 SGD steps through cublasSgemm /
#     Sgeam / Saxpy, losses against the same computation on the CPU.
if(TARGET cublas)
  softgpu_cuda_program(cublas_routines SOURCES cublas/cublas_routines.cu FLAGS -lcublas)
  softgpu_cuda_program(cublas_unsupported SOURCES cublas/cublas_unsupported.cu FLAGS -lcublas)
  foreach(part handle level1 sgemm dgemm)
    cuda_test(cublas_${part} cublas_routines ARGS ${part} STDOUT_REGEX "PASS cublas_routines ${part}")
  endforeach()
  foreach(group gemv geam gemm_batched gemm_batched_ex transfer)
    softgpu_cuda_program(cublas_${group} SOURCES cublas/cublas_${group}.cu FLAGS -lcublas)
    cuda_test(cublas_${group} cublas_${group} STDOUT_REGEX "PASS cublas_${group}")
  endforeach()
  softgpu_cuda_program(cublas_complex SOURCES cublas/cublas_complex.cu FLAGS -lcublas HEADERS cublas/common.cuh cublas/near.cuh)
  cuda_test(cublas_complex cublas_complex STDOUT_REGEX "PASS cublas_complex"
            STDERR_REGEX "softgpu cublas: cublasGemmEx: Atype CUDA_C_32F, Btype CUDA_C_32F, Ctype CUDA_C_64F")
  softgpu_cuda_program(cublas_more SOURCES cublas/cublas_more.cu FLAGS -lcublas HEADERS cublas/common.cuh cublas/near.cuh)
  foreach(part level1 ger symv trsv dgmm syrk trsm sgemmex)
    cuda_test(cublas_more_${part} cublas_more ARGS ${part} STDOUT_REGEX "PASS cublas_more ${part}")
  endforeach()
  softgpu_cuda_program(cublas_level3_more SOURCES cublas/cublas_level3_more.cu FLAGS -lcublas
                       HEADERS cublas/common.cuh cublas/near.cuh)
  foreach(part trmv trmm symm syr2k)
    cuda_test(cublas_level3_more_${part} cublas_level3_more ARGS ${part} STDOUT_REGEX "PASS cublas_level3_more ${part}")
  endforeach()
  softgpu_cuda_program(cublas_ilp64 SOURCES cublas/cublas_ilp64.cu FLAGS -lcublas HEADERS cublas/common.cuh)
  cuda_test(cublas_ilp64 cublas_ilp64 STDOUT_REGEX "PASS cublas_ilp64"
            STDERR_REGEX "softgpu cublas: cublasSgemm_v2_64: size 4294967313 is more than the 2146435071 softgpu's kernels take")
  softgpu_cuda_program(cublas_gemm_ex SOURCES cublas/cublas_gemm_ex.cu FLAGS -lcublas)
  cuda_test(cublas_gemm_ex_types cublas_gemm_ex ARGS types STDOUT_REGEX "PASS cublas_gemm_ex types")
  cuda_test(cublas_gemm_ex_unsupported cublas_gemm_ex ARGS unsupported STDOUT_REGEX "PASS cublas_gemm_ex unsupported"
            STDERR_REGEX "softgpu cublas: cublasGemmEx: Atype CUDA_R_16F, Btype CUDA_R_16F, Ctype CUDA_R_64F with CUBLAS_COMPUTE_32F is not supported")
  cuda_test(cublas_unsupported cublas_unsupported STDOUT_REGEX "PASS cublas_unsupported"
            STDERR_REGEX "softgpu cublas: cublasStpmv_v2 is not implemented yet")
  softgpu_cuda_program(cublas_tensor_core SOURCES cublas/cublas_tensor_core.cu FLAGS -lcublas)
  foreach(part tf32 half)
    cuda_test(cublas_tensor_core_${part} cublas_tensor_core ARGS ${part} STDOUT_REGEX "PASS cublas_tensor_core ${part}")
  endforeach()
  add_test(NAME cuda.cublas_tensor_route
    COMMAND ${CMAKE_COMMAND} -DSOFTGPU=$<TARGET_FILE:softgpu> -DPROG=${_bin}/cublas_tensor_core
            -DWORK=${CMAKE_CURRENT_BINARY_DIR} "-DEXPECT=simt tc tc tc tc simt simt tc simt"
            -P ${_src}/cublas/check_tensor_route.cmake)
  set_tests_properties(cuda.cublas_tensor_route PROPERTIES LABELS cuda TIMEOUT 600)
  # On an H100: the f16/bf16 calls accumulating in f32, all transpose pairs,
  # on the TMA + wgmma kernel (gemm_sm90.cuh), each tile width forced and the
  # default pick: 3 x 28 + 1 calls on it, Hgemm on the mma.sync kernel.
  add_test(NAME cuda.cublas_tensor_hopper_route
    COMMAND ${CMAKE_COMMAND} -DSOFTGPU=$<TARGET_FILE:softgpu> -DPROG=${_bin}/cublas_tensor_core -DARGS=hopper
            -DGPU=h100 -DWORK=${CMAKE_CURRENT_BINARY_DIR} "-DPASS=PASS cublas_tensor_core hopper"
            "-DCOUNTS=sm90_gemm_kernel<=85@@gemm_tc_ms_kernel<=1"
            -P ${_src}/cublaslt/check_lt_route.cmake)
  set_tests_properties(cuda.cublas_tensor_hopper_route PROPERTIES LABELS cuda TIMEOUT 600)
  softgpu_cuda_program(mlp_train SOURCES cublas/mlp_train.cu FLAGS -lcublas)
  cuda_test(cublas_mlp_train mlp_train STDOUT_REGEX "PASS mlp_train")
endif()
# No false positives, and no bad access in the library's kernels: every
# routine of cublas_routines, the other cuBLAS programs and the training
# program under each sanitizer (0 errors).
if(TARGET cublas)
  foreach(t memcheck racecheck initcheck synccheck)
    sanitize_test(sanitize.clean.${t}.cublas_routines cublas_routines sanitize/no_errors.expected
                  OPTS --tool ${t} --error-exitcode 3 ARGS all)
    foreach(group gemv geam gemm_batched gemm_batched_ex gemm_ex tensor_core ilp64)
      sanitize_test(sanitize.clean.${t}.cublas_${group} cublas_${group} sanitize/no_errors.expected
                    OPTS --tool ${t} --error-exitcode 3)
    endforeach()
    sanitize_test(sanitize.clean.${t}.mlp_train mlp_train sanitize/no_errors.expected
                  OPTS --tool ${t} --error-exitcode 3)
    foreach(part trmv trmm symm syr2k)
      sanitize_test(sanitize.clean.${t}.cublas_level3_more_${part} cublas_level3_more sanitize/no_errors.expected
                    OPTS --tool ${t} --error-exitcode 3 ARGS ${part})
    endforeach()
  endforeach()
endif()
