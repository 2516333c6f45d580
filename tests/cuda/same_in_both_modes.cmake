# Runs one CUDA test program interpreted and with every kernel compiled by
# the JIT at its first launch, and requires the same exit code, stdout and
# stderr (fault reports, device printf, assert lines) from both. Host
# addresses (ASLR) are masked, and in watchdog reports the numbers (time,
# instruction counts, the block running). The JIT run must show that it
# compiled the program's kernels. Invoked by ctest as
#   cmake -DSOFTGPU=... -DPROG=... [-DARGS=a@@b] [-DRUN_OPTS=...] -P same_in_both_modes.cmake
cmake_minimum_required(VERSION 3.25)

foreach(v ARGS RUN_OPTS)
  if(DEFINED ${v})
    string(REPLACE "@@" ";" ${v} "${${v}}")
  endif()
endforeach()

function(run_mode out_rc out_out out_err)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${ARGN} "${SOFTGPU}" run ${RUN_OPTS} -- "${PROG}" ${ARGS}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${out_rc} "${rc}" PARENT_SCOPE)
  set(${out_out} "${out}" PARENT_SCOPE)
  set(${out_err} "${err}" PARENT_SCOPE)
endfunction()

function(normalize var)
  set(s "${${var}}")
  string(REGEX REPLACE "0x[0-9a-fA-F]+" "0xADDR" s "${s}")
  string(REGEX REPLACE "softgpu: jit: [^\n]*\n" "" s "${s}")
  # Watchdog reports: when it fired and which block was running vary.
  string(REGEX MATCHALL "[^\n]*watchdog[^\n]*" lines "${s}")
  foreach(l IN LISTS lines)
    string(REGEX REPLACE "[0-9]+" "N" m "${l}")
    string(REPLACE "${l}" "${m}" s "${s}")
  endforeach()
  set(${var} "${s}" PARENT_SCOPE)
endfunction()

run_mode(irc iout ierr SOFTGPU_EXEC=interp)
run_mode(jrc jout jerr SOFTGPU_EXEC=jit SOFTGPU_JIT_HOT=0 SOFTGPU_JIT_VERBOSE=1 SOFTGPU_JIT_CACHE=off)
message("interpreted: exit code ${irc}\n--- stdout ---\n${iout}--- stderr ---\n${ierr}--------------")
message("compiled: exit code ${jrc}\n--- stdout ---\n${jout}--- stderr ---\n${jerr}--------------")

set(failures "")
if(NOT jerr MATCHES "softgpu: jit: '[^']+': [0-9]+ blocks")
  list(APPEND failures "the JIT run compiled no kernel")
endif()
normalize(iout)
normalize(jout)
normalize(ierr)
normalize(jerr)
if(NOT "${irc}" STREQUAL "${jrc}")
  list(APPEND failures "exit codes differ: ${irc} interpreted, ${jrc} compiled")
endif()
if(NOT "${iout}" STREQUAL "${jout}")
  list(APPEND failures "stdout differs")
endif()
if(NOT "${ierr}" STREQUAL "${jerr}")
  list(APPEND failures "stderr differs (after masking addresses):\n${ierr}---- vs ----\n${jerr}")
endif()
if(failures)
  list(JOIN failures "\n  " text)
  message(FATAL_ERROR "FAILED:\n  ${text}")
endif()
