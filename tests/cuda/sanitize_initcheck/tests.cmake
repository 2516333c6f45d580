# softgpu sanitize --tool initcheck: exact reports for seeded uninitialized
# reads, none for the same programs fixed, none for correct programs.
softgpu_cuda_program(initcheck_global SOURCES sanitize_initcheck/init_global.cu FLAGS -lineinfo)
softgpu_cuda_program(initcheck_reuse SOURCES sanitize_initcheck/init_reuse.cu FLAGS -lineinfo)
softgpu_cuda_program(initcheck_shared SOURCES sanitize_initcheck/init_shared.cu FLAGS -lineinfo)
softgpu_cuda_program(initcheck_unused SOURCES sanitize_initcheck/init_unused.cu FLAGS -lineinfo)
set(_ic OPTS --tool initcheck --error-exitcode 3)
sanitize_test(sanitize.initcheck.partial initcheck_global sanitize_initcheck/partial.expected EXPECT_RC 3 ${_ic}
              --print-limit 2 ARGS partial)
sanitize_test(sanitize.initcheck.partial_memset initcheck_global sanitize/clean.expected ${_ic} ARGS memset)
sanitize_test(sanitize.initcheck.nocopy initcheck_global sanitize_initcheck/nocopy.expected EXPECT_RC 3 ${_ic}
              --print-limit 1 ARGS nocopy)
sanitize_test(sanitize.initcheck.copyback initcheck_global sanitize_initcheck/copyback.expected EXPECT_RC 3 ${_ic}
              ARGS copyback)
sanitize_test(sanitize.initcheck.reuse initcheck_reuse sanitize_initcheck/reuse.expected EXPECT_RC 3 ${_ic})
sanitize_test(sanitize.initcheck.reuse_fixed initcheck_reuse sanitize/clean.expected ${_ic} ARGS fixed)
sanitize_test(sanitize.initcheck.shared initcheck_shared sanitize_initcheck/shared.expected ${_ic})
sanitize_test(sanitize.initcheck.shared_fixed initcheck_shared sanitize/clean.expected ${_ic} ARGS fixed)
# --track-unused-memory: allocations with bytes nothing wrote, at cudaFree and at exit.
sanitize_test(sanitize.initcheck.unused initcheck_unused sanitize_initcheck/unused.expected EXPECT_RC 3 ${_ic}
              --track-unused-memory yes)
sanitize_test(sanitize.initcheck.unused_fixed initcheck_unused sanitize/clean.expected ${_ic}
              --track-unused-memory yes ARGS fixed)
sanitize_test(sanitize.initcheck.unused_off initcheck_unused sanitize/clean.expected ${_ic})
# Correct programs: shared-memory reductions and scans, tiled sgemm,
# atomics, cp.async pipelines, mbarriers, cooperative-groups tiles, tensor
# cores, stream-ordered pools, graphs: no report.
foreach(p transpose dynamic_smem mma_int8 cluster_dsmem device_malloc)
  sanitize_test(sanitize.initcheck.clean_${p} ${p} sanitize/clean.expected ${_ic})
endforeach()
# The shadow bitmap's unit tests.
add_executable(initcheck_shadow_tests ${CMAKE_CURRENT_LIST_DIR}/shadow_test.cpp)
target_link_libraries(initcheck_shadow_tests PRIVATE softgpu_sanitize GTest::gtest_main)
target_include_directories(initcheck_shadow_tests PRIVATE ${PROJECT_SOURCE_DIR}/src)
add_test(NAME unit.sanitize.initcheck_shadow COMMAND initcheck_shadow_tests)
# Cost measurement (docs/performance.md), and a clean run of it.
softgpu_cuda_program(initcheck_triad SOURCES sanitize_initcheck/triad.cu)
