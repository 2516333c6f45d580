# `softgpu run` refuses programs it cannot run, with a message saying how to
# rebuild them: static CUDA runtime (nvcc's default) and fatbinaries without PTX.
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
cuda_test(cli_refuses_static_cudart cli_static_cudart EXPECT_RC 126
          STDERR_REGEX "static CUDA runtime@@-cudart shared")
cuda_test(cli_refuses_no_ptx cli_sass_only EXPECT_RC 126 STDERR_REGEX "no PTX@@compute_80")
