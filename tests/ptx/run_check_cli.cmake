# Runs `softgpu check PTX` (from the PTX file's folder, so diagnostics name it
# without a path) and requires exit code 1, "NAME.ptx: parse failed" (or
# the contents of NAME.stdout, when there is one) on stdout and stderr equal
# to the EXPECTED file.
cmake_minimum_required(VERSION 3.25)
get_filename_component(dir "${PTX}" DIRECTORY)
get_filename_component(name "${PTX}" NAME)
execute_process(COMMAND "${SOFTGPU}" check "${name}" WORKING_DIRECTORY "${dir}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(READ "${EXPECTED}" want)
message("exit code: ${rc}\n--- stdout ---\n${out}--- stderr ---\n${err}--------------")
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "exit code ${rc}, expected 1")
endif()
# A module that parses but has instructions softgpu does not implement
# brings its own stdout (NAME.stdout: the kernels that fail at launch).
string(REGEX REPLACE "\\.ptx$" ".stdout" stdout_file "${PTX}")
if(EXISTS "${stdout_file}")
  file(READ "${stdout_file}" want_out)
else()
  set(want_out "${name}: parse failed\n")
endif()
if(NOT out STREQUAL want_out)
  message(FATAL_ERROR "stdout is not:\n${want_out}")
endif()
if(NOT err STREQUAL want)
  message(FATAL_ERROR "stderr differs from ${EXPECTED}:\n${want}")
endif()
