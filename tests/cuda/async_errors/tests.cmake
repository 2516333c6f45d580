# Asynchronous error reporting (issue #21): a kernel fault surfaces at the
# next synchronizing call, not at the launch; the runtime API initializes
# the driver API (async_faults.cu, runtime_driver.cu).
softgpu_cuda_program(async_faults SOURCES async_errors/async_faults.cu)
foreach(m illegal trap assert stream event memcpy stream_query event_query free queued)
  cuda_test(async_faults_${m} async_faults ARGS ${m} STDOUT_REGEX "PASS async_faults ${m}")
endforeach()
if(TARGET cuda_driver)
  softgpu_cuda_program(runtime_driver SOURCES async_errors/runtime_driver.cu FLAGS -lcuda
                       HEADERS driver/drv_check.h)
  foreach(m init none fault)
    cuda_test(runtime_driver_${m} runtime_driver ARGS ${m} STDOUT_REGEX "PASS runtime_driver ${m}")
  endforeach()
endif()
