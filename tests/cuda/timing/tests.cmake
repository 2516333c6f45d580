# softgpu run --timing end to end: events read simulated time, the summary
# and the JSON report, the same predictions on any number of host threads.
softgpu_cuda_program(timing_events SOURCES timing/events.cu)
add_test(NAME cuda.timing_events
  COMMAND ${CMAKE_COMMAND} -DSOFTGPU=$<TARGET_FILE:softgpu> -DPROG=${_bin}/timing_events
          -DWORK=${CMAKE_CURRENT_BINARY_DIR} -P ${_src}/timing/check_timing.cmake)
set_tests_properties(cuda.timing_events PROPERTIES LABELS cuda TIMEOUT 300)
