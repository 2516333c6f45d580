# Runs `cublas_tensor_core route` under `softgpu run --timing --report` and
# checks, launch by launch, which gemm kernel ran and whether it issued
# tensor-pipe instructions (the report's pipe_utilization.tensor): a
# tensor-core launch is gemm_tc_kernel with tensor > 0, a SIMT one
# gemm_kernel with tensor == 0. EXPECT: the sequence part_route documents.
include(${CMAKE_CURRENT_LIST_DIR}/../report_launches.cmake)
report_launches(names tensor ${WORK}/tensor_route.json "PASS cublas_tensor_core route" route)
set(seen "")
foreach(name used_tensor IN ZIP_LISTS names tensor)
  if(name MATCHES "gemm_tc_kernel<" AND used_tensor)
    list(APPEND seen tc)
  elseif(name MATCHES "gemm_kernel<" AND NOT used_tensor)
    list(APPEND seen simt)
  else()
    list(APPEND seen "unexpected(${name}, tensor ${used_tensor})")
  endif()
  message(STATUS "launch: tensor ${used_tensor} ${name}")
endforeach()
string(REPLACE ";" " " seen "${seen}")
if(NOT seen STREQUAL "${EXPECT}")
  message(FATAL_ERROR "launches: ${seen}\nexpected: ${EXPECT}")
endif()
message(STATUS "routes: ${seen}")
