# report_launches(NAMES TENSOR REPORT PASS [ARGS...]): runs `PROG ARGS`
# under `softgpu run --timing --report REPORT` (SOFTGPU, PROG and, if set,
# GPU (--gpu) from the caller's -D options), fails unless it exits 0 and its stdout matches
# PASS, and sets NAMES and TENSOR to each launch's kernel name and whether
# it issued tensor-pipe instructions (YES / NO, from the report's
# pipe_utilization.tensor), in launch order. For the route checks of
# cublas/check_tensor_route.cmake and cublaslt/check_lt_route.cmake.
function(report_launches names_var tensor_var report pass)
  set(gpu "")
  if(GPU)
    set(gpu --gpu ${GPU})
  endif()
  execute_process(COMMAND ${SOFTGPU} run ${gpu} --timing --report ${report} -- ${PROG} ${ARGN}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "${pass}")
    message(FATAL_ERROR "${PROG} ${ARGN} failed (${rc}):\n${out}\n${err}")
  endif()
  file(READ ${report} json)
  string(JSON n LENGTH "${json}" launches)
  set(names "")
  set(tensor "")
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON name GET "${json}" launches ${i} name)
      string(JSON t GET "${json}" launches ${i} pipe_utilization tensor)
      # C++ signatures hold no semicolon: one list entry a launch.
      list(APPEND names "${name}")
      if(t MATCHES "^0(\\.0*)?$")
        list(APPEND tensor NO)
      else()
        list(APPEND tensor YES)
      endif()
    endforeach()
  endif()
  set(${names_var} "${names}" PARENT_SCOPE)
  set(${tensor_var} "${tensor}" PARENT_SCOPE)
endfunction()
