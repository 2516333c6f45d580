# softgpu's libcuda.so.1 (src/cudadrv): programs link the toolkit's stub
# (-lcuda) and `softgpu run` gives them softgpu's. Each checks its results
# against CPU loops or hand-worked values.
#   driver_api PART: driver API alone (-cudart none): PTX from memory,
#     kernelParams and `extra` launches, globals, contexts, clusters and
#     cooperative launches, memsets, copies, pointer attributes; managed
#     memory, 2-D copies, stream queries, host functions, limits (extras).
#   driver_fatbin: `nvcc -fatbin` / `nvcc -ptx` output through cuModuleLoad,
#     cuModuleLoadData, cuModuleLoadFatBinary, cuModuleLoadDataEx, cuLibrary*.
#   driver_errors: CUresult codes for bad input; an unimplemented entry point.
#   driver_streams: streams and events.
#   driver_tables: cuGetExportTable, the private tables (softgpu's answers).
#   driver_arrays: pitched memory, 2-D/3-D copies, 2-D memsets, arrays,
#     texture objects (kernels from driver_kernels.ptx).
#   driver_nvrtc: NVRTC-compiled source loaded and launched (as CuPy does).
#   driver_link: cuLink* (link_a.cu's PTX with link_b.cu as PTX, fatbinary,
#     -rdc object and archive; undefined and doubly defined symbols).
#   driver_ptx_errors: PTX a JIT rejects (unknown target, too new a
#     version, ISA rule violations) through cuModuleLoadData and
#     cudaLibraryLoadData, with the documented codes.
#   driver_mixed PART: runtime and driver API together (primary context,
#     shared memory, cudaGetDriverEntryPoint, attributes, cluster occupancy).
#   driver_abi_exports: every entry point of the toolkit's link stub is
#     exported (implemented or a NOT_SUPPORTED stub), nothing else.
if(TARGET cuda_driver)
  set(_drv ${_src}/driver)
  set(_drv_host "")
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    set(_drv_host -ccbin ${CMAKE_CXX_COMPILER})
  endif()
  # Driver-API-only programs: no CUDA runtime at all.
  foreach(p driver_api driver_fatbin driver_errors driver_streams driver_link driver_arrays driver_tables)
    add_custom_command(
      OUTPUT ${_bin}/${p}
      COMMAND ${SOFTGPU_NVCC} -cudart none -O2 -std=c++17 ${_drv_host} -o ${_bin}/${p} ${_drv}/${p}.cpp -lcuda
      DEPENDS ${_drv}/${p}.cpp ${_drv}/drv_check.h ${_drv}/link_check.h
      COMMENT "nvcc ${p}"
      VERBATIM)
    list(APPEND _programs ${_bin}/${p})
  endforeach()
  # The kernels driver_fatbin loads: a fatbinary with sm_80 machine code and
  # compute_80 PTX, and the PTX alone.
  add_custom_command(
    OUTPUT ${_bin}/driver_kernels.fatbin ${_bin}/driver_kernels.ptx
    COMMAND ${SOFTGPU_NVCC} -fatbin -gencode arch=compute_80,code=[sm_80,compute_80] -o ${_bin}/driver_kernels.fatbin
            ${_drv}/kernels.cu
    COMMAND ${SOFTGPU_NVCC} -ptx -arch=compute_80 -o ${_bin}/driver_kernels.ptx ${_drv}/kernels.cu
    DEPENDS ${_drv}/kernels.cu
    COMMENT "nvcc driver kernels (fatbin, ptx)"
    VERBATIM)
  list(APPEND _programs ${_bin}/driver_kernels.fatbin ${_bin}/driver_kernels.ptx)
  # What driver_link links: link_a's PTX, and link_b as PTX, fatbinary,
  # relocatable object and archive (all -rdc=true).
  set(_lk ${_bin}/driver_link.d)
  set(_lk_gen -gencode arch=compute_80,code=[sm_80,compute_80])
  add_custom_command(
    OUTPUT ${_lk}/link_a.ptx ${_lk}/link_b.ptx ${_lk}/link_b.fatbin ${_lk}/link_b.o ${_lk}/liblink_b.a
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_lk}
    COMMAND ${SOFTGPU_NVCC} -rdc=true -ptx -arch=compute_80 -o ${_lk}/link_a.ptx ${_drv}/link_a.cu
    COMMAND ${SOFTGPU_NVCC} -rdc=true -ptx -arch=compute_80 -o ${_lk}/link_b.ptx ${_drv}/link_b.cu
    COMMAND ${SOFTGPU_NVCC} -rdc=true -fatbin ${_lk_gen} -o ${_lk}/link_b.fatbin ${_drv}/link_b.cu
    COMMAND ${SOFTGPU_NVCC} -rdc=true -c ${_lk_gen} ${_drv_host} -o ${_lk}/link_b.o ${_drv}/link_b.cu
    COMMAND ${SOFTGPU_NVCC} -lib ${_drv_host} -o ${_lk}/liblink_b.a ${_lk}/link_b.o
    DEPENDS ${_drv}/link_a.cu ${_drv}/link_b.cu
    COMMENT "nvcc driver_link inputs"
    VERBATIM)
  list(APPEND _programs ${_lk}/liblink_b.a)
  softgpu_cuda_program(driver_mixed SOURCES driver/driver_mixed.cu ARCH -arch=sm_90 FLAGS -lcuda)
  softgpu_cuda_program(driver_ptx_errors SOURCES driver/ptx_errors.cu FLAGS -lcuda)

  foreach(part ptx context cluster memory extras)
    cuda_test(driver_api_${part} driver_api ARGS ${part} STDOUT_REGEX "PASS driver_api ${part}")
  endforeach()
  cuda_test(driver_fatbin driver_fatbin ARGS "${_bin}/driver_kernels.fatbin@@${_bin}/driver_kernels.ptx"
            STDOUT_REGEX "PASS driver_fatbin")
  cuda_test(driver_errors driver_errors STDOUT_REGEX "PASS driver_errors"
            STDERR_REGEX "softgpu cuda: cuTensorMapEncodeIm2colWide is not implemented yet\n")
  cuda_test(driver_streams driver_streams STDOUT_REGEX "PASS driver_streams")
  cuda_test(driver_tables driver_tables STDOUT_REGEX "PASS driver_tables"
            STDERR_REGEX "softgpu cuda: cuGetExportTable: NVIDIA's private table {01234567-89ab-cdef-1032-547698badcfe} is not provided\n@@softgpu cuda: NVIDIA's private driver table CUDART_INTERFACE {6bd5fb6c-5bf4-e74a-8987-d93912fd9df9} slot 5 was called \\(first arguments 0x11, 0x22, 0x33, 0x44\\); softgpu does not implement it\n")
  cuda_test(driver_ptx_errors driver_ptx_errors STDOUT_REGEX "PASS driver_ptx_errors")
  cuda_test(driver_link driver_link ARGS ${_lk} STDOUT_REGEX "PASS driver_link")
  # NVRTC's PTX through the driver API (NVIDIA's libnvrtc, found by rpath).
  set(_cuda_lib ${SOFTGPU_CUDA_INCLUDE_DIR}/../lib64)
  if(EXISTS ${_cuda_lib}/libnvrtc.so)
    add_custom_command(
      OUTPUT ${_bin}/driver_nvrtc
      COMMAND ${SOFTGPU_NVCC} -cudart none -O2 -std=c++17 ${_drv_host} -o ${_bin}/driver_nvrtc ${_drv}/driver_nvrtc.cpp
              -lcuda -lnvrtc -Xlinker -rpath -Xlinker ${_cuda_lib}
      DEPENDS ${_drv}/driver_nvrtc.cpp
      COMMENT "nvcc driver_nvrtc"
      VERBATIM)
    list(APPEND _programs ${_bin}/driver_nvrtc)
    cuda_test(driver_nvrtc driver_nvrtc STDOUT_REGEX "PASS driver_nvrtc")
  endif()
  # nvJitLink: built against the toolkit's libnvJitLink and libnvrtc (NVRTC
  # makes its LTO-IR); `softgpu run`'s LD_LIBRARY_PATH, searched before the
  # RUNPATH, gives it softgpu's libnvJitLink (src/nvjitlink).
  if(TARGET nvjitlink AND EXISTS ${_cuda_lib}/libnvrtc.so)
    add_custom_command(
      OUTPUT ${_bin}/driver_nvjitlink
      COMMAND ${SOFTGPU_NVCC} -cudart none -O2 -std=c++17 ${_drv_host} -o ${_bin}/driver_nvjitlink
              ${_drv}/driver_nvjitlink.cpp -lcuda -L${_cuda_lib} -lnvJitLink -lnvrtc
              -Xlinker -rpath -Xlinker ${_cuda_lib}
      DEPENDS ${_drv}/driver_nvjitlink.cpp ${_drv}/drv_check.h ${_drv}/link_check.h
      COMMENT "nvcc driver_nvjitlink"
      VERBATIM)
    list(APPEND _programs ${_bin}/driver_nvjitlink)
    cuda_test(driver_nvjitlink driver_nvjitlink ARGS ${_lk} STDOUT_REGEX "PASS driver_nvjitlink")
  endif()
  if(TARGET nvjitlink AND EXISTS ${_cuda_lib}/libnvJitLink.so.13)
    add_test(NAME cuda.nvjitlink_abi_exports
      COMMAND bash ${_drv}/check_nvjitlink_abi.sh $<TARGET_FILE:nvjitlink> ${_cuda_lib}/libnvJitLink.so.13)
    set_tests_properties(cuda.nvjitlink_abi_exports PROPERTIES LABELS cuda TIMEOUT 120)
  endif()
  cuda_test(driver_arrays driver_arrays ARGS ${_bin}/driver_kernels.ptx STDOUT_REGEX "PASS driver_arrays")
  if(EXISTS ${SOFTGPU_CUDA_INCLUDE_DIR}/../lib64/stubs/libcuda.so)
    add_test(NAME cuda.driver_abi_exports
      COMMAND bash ${_drv}/check_cuda_abi.sh $<TARGET_FILE:cuda_driver> ${SOFTGPU_CUDA_INCLUDE_DIR}/../lib64/stubs/libcuda.so)
    set_tests_properties(cuda.driver_abi_exports PROPERTIES LABELS cuda TIMEOUT 120)
  endif()
  foreach(part context memory entry attributes clusters)
    cuda_test(driver_mixed_${part} driver_mixed ARGS ${part} STDOUT_REGEX "PASS driver_mixed ${part}")
  endforeach()
endif()
# Under the sanitizer, failing driver calls are reported with the driver
# entry points' names (as compute-sanitizer does), and no memory errors.
if(TARGET cuda_driver)
  sanitize_test(sanitize.memcheck.driver_api_ptx driver_api driver/driver_api_ptx_memcheck.expected
                OPTS --tool memcheck ARGS ptx)
endif()
