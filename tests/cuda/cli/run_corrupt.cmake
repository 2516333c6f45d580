# Corrupt-fatbinary regression test: writes a copy of PROG with FIELD set to
# VALUE (corrupt_fatbin), then checks it like run_check.cmake does.
#   -DCORRUPT=corrupt_fatbin -DSRC_PROG=... -DPROG=<copy> -DFIELD=... -DVALUE=... + run_check options
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND "${CORRUPT}" "${SRC_PROG}" "${PROG}" ${FIELD} ${VALUE} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "corrupt_fatbin failed (${rc})")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/../run_check.cmake)
