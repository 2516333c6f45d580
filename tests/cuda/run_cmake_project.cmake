# Configures and builds tests/cuda/cmake_project with CMake's CUDA language
# support, then runs the result under softgpu (or natively if SOFTGPU is empty).
#   cmake -DSRC=... -DBIN=... -DNVCC=... -DGENERATOR=... [-DSOFTGPU=...] -P run_cmake_project.cmake
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${BIN}")
execute_process(
  COMMAND "${CMAKE_COMMAND}" -S "${SRC}" -B "${BIN}" -G "${GENERATOR}"
          "-DCMAKE_CUDA_COMPILER=${NVCC}" -DCMAKE_BUILD_TYPE=Release
  RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "FAILED: configuring ${SRC} (exit ${rc})")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BIN}" RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "FAILED: building ${SRC} (exit ${rc})")
endif()
set(PROG "${BIN}/saxpy")
set(STDOUT_REGEX "PASS cmake_project")
include("${CMAKE_CURRENT_LIST_DIR}/run_check.cmake")
