# Programs linked with the static CUDA runtime (nvcc's default, no
# -cudart shared): the program's own copy of NVIDIA's runtime starts through
# softgpu's libcuda.so.1 (cuGetProcAddress, and the private tables of
# src/cudadrv/export_tables.cpp) and registers its fatbinaries there. The
# same sources as the shared-runtime tests, checked the same way.
softgpu_cuda_program(static_runtime SOURCES static_runtime/static_runtime.cu STATIC)
cuda_test(static_runtime_h100 static_runtime ARGS 132@@9 RUN_OPTS --gpu@@h100
          STDOUT_REGEX "device: NVIDIA H100[^\n]*, 132 SMs, sm_90@@PASS static_runtime")
cuda_test(static_runtime_timing static_runtime ARGS 108@@8 RUN_OPTS --timing@@--gpu@@a100
          STDOUT_REGEX "PASS static_runtime"
          STDERR_REGEX "predicted time on NVIDIA A100[^\n]*\n[^\n]*\n +3 [^\n]*scale_add")

foreach(p streams reduction scan symbols dynamic_smem managed_pinned)
  softgpu_cuda_program(static_${p} SOURCES ${p}.cu STATIC)
  cuda_test(static_${p} static_${p} STDOUT_REGEX "PASS ${p}")
endforeach()
# Graphs (captured and explicit: kernel, memcpy, memset, host, memory
# nodes, exec update) and graph memory with the per-thread default stream:
# NVIDIA's runtime drives them through the driver's graph API
# (src/cudadrv/graphs.cpp).
foreach(p capture diamond)
  softgpu_cuda_program(static_graph_${p} SOURCES graphs/${p}.cu STATIC)
  cuda_test(static_graph_${p} static_graph_${p} STDOUT_REGEX "PASS graph_${p}")
endforeach()
softgpu_cuda_program(static_graph_memory_ptds SOURCES streamalloc/graph_memory.cu FLAGS --default-stream per-thread
                     STATIC)
cuda_test(static_graph_memory_ptds static_graph_memory_ptds STDOUT_REGEX "PASS graph_memory")
# The runtime and the driver API in one program: the static runtime's
# contexts seen through the driver (a second thread included).
softgpu_cuda_program(static_runtime_driver SOURCES async_errors/runtime_driver.cu FLAGS -lcuda
                     HEADERS driver/drv_check.h STATIC)
cuda_test(static_runtime_driver_init static_runtime_driver ARGS init STDOUT_REGEX "PASS runtime_driver init")

# Separate compilation: NVIDIA's runtime loads the device-linked image
# (machine code only); softgpu runs the PTX of the program's relocatable
# objects (__nv_relfatbin) in its place.
softgpu_cuda_program(static_rdc SOURCES rdc/rdc_a.cu rdc/rdc_b.cu FLAGS -rdc=true STATIC)
cuda_test(static_rdc static_rdc STDOUT_REGEX "PASS rdc")

softgpu_cuda_program(static_printf SOURCES printf.cu STATIC)
cuda_test(static_printf static_printf EXPECTED_STDOUT ${_src}/printf.expected CHECK_PTR)

# Faults: the driver's error reaches the program as the runtime's code.
softgpu_cuda_program(static_faults SOURCES faults.cu STATIC)
foreach(mode oob_read trap sticky)
  cuda_test(static_fault_${mode} static_faults ARGS ${mode} STDOUT_REGEX "PASS faults ${mode}")
endforeach()

# memcheck names the kernel's bad writes as with the shared runtime; the
# failed API calls are the driver's (NVIDIA's runtime is inside the program).
softgpu_cuda_program(static_memcheck_oob SOURCES sanitize/memcheck_oob.cu FLAGS -lineinfo STATIC)
sanitize_test(sanitize.memcheck.static_oob static_memcheck_oob static_runtime/memcheck_oob.expected EXPECT_RC 3
              OPTS --tool memcheck --error-exitcode 3)

# NVIDIA's own libcudart.so.13 loaded ahead of softgpu's, as a program (or a
# Python wheel's library) whose DT_RPATH names NVIDIA's directory gets it:
# DT_RPATH wins over the LD_LIBRARY_PATH `softgpu run` sets. That runtime
# starts through softgpu's libcuda.so.1, whose calls into the runtime core
# (libsoftgpu_cudart.so, version node SOFTGPU_CUDART) cannot bind to NVIDIA's
# same-named functions; when the driver called libcudart.so.13's functions,
# this program stopped at cudaErrorInsufficientDriver.
set(_nv_rpath -Xlinker -rpath=${SOFTGPU_CUDA_INCLUDE_DIR}/../lib64 -Xlinker --disable-new-dtags)
if(EXISTS ${SOFTGPU_CUDA_INCLUDE_DIR}/../lib64/libcudart.so.13)
  softgpu_cuda_program(nvidia_cudart_streams SOURCES streams.cu FLAGS ${_nv_rpath})
  cuda_test(nvidia_cudart_streams nvidia_cudart_streams STDOUT_REGEX "PASS streams")
  softgpu_cuda_program(nvidia_cudart_driver SOURCES async_errors/runtime_driver.cu FLAGS -lcuda ${_nv_rpath}
                       HEADERS driver/drv_check.h)
  cuda_test(nvidia_cudart_driver_init nvidia_cudart_driver ARGS init STDOUT_REGEX "PASS runtime_driver init")
endif()
