# softgpu's libcusparse.so.12 (src/cusparse), built only with the CUDA
# toolkit: programs link NVIDIA's libcusparse (-lcusparse) and `softgpu run`
# gives them softgpu's. Each checks against a CPU reference of its own.
#   cusparse_spmv: SpMV on random CSR/CSC matrices (shapes with empty rows,
#     nnz = 0, no rows; both index bases and widths; S/D/C/Z; op N/T/C; host
#     and device scalars; beta = 0 over NaN).
#   cusparse_spmm: SpMM likewise, op(B) N/T, B and C column- or row-major
#     with padding checked untouched.
#   cusparse_errors: statuses of misuse, descriptor getters, a stream, and an
#     unimplemented routine's NOT_SUPPORTED with its line on stderr.
#   cusparse_cg: conjugate gradients with cuSPARSE SpMV and cuBLAS level 1
#     (float and double) against the known solution and a CPU CG.
#   cusparse_spmv_static: cusparse_spmv linked with the static runtime.
if(TARGET cusparse)
  foreach(p spmv spmm errors)
    softgpu_cuda_program(cusparse_${p} SOURCES cusparse/cusparse_${p}.cu FLAGS -lcusparse HEADERS cusparse/common.cuh)
  endforeach()
  softgpu_cuda_program(cusparse_cg SOURCES cusparse/cusparse_cg.cu FLAGS -lcusparse -lcublas HEADERS cusparse/common.cuh)
  softgpu_cuda_program(cusparse_spmv_static SOURCES cusparse/cusparse_spmv.cu FLAGS -lcusparse
                       HEADERS cusparse/common.cuh STATIC)
  foreach(p spmv spmm cg)
    cuda_test(cusparse_${p} cusparse_${p} STDOUT_REGEX "PASS cusparse_${p}")
  endforeach()
  cuda_test(cusparse_errors cusparse_errors STDOUT_REGEX "PASS cusparse_errors"
            STDERR_REGEX "softgpu cusparse: cusparseCreateCoo is not implemented yet")
  cuda_test(cusparse_spmv_static cusparse_spmv_static STDOUT_REGEX "PASS cusparse_spmv")
  foreach(t memcheck racecheck)
    sanitize_test(sanitize.clean.${t}.cusparse_spmm cusparse_spmm sanitize/no_errors.expected
                  OPTS --tool ${t} --error-exitcode 3)
  endforeach()
endif()
