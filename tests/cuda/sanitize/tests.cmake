# softgpu sanitize: the report lines of each tool for a seeded bug, and none
# for the same program without it (sanitize_test in ../CMakeLists.txt).
softgpu_cuda_program(memcheck_oob SOURCES sanitize/memcheck_oob.cu FLAGS -lineinfo)
sanitize_test(sanitize.memcheck.oob memcheck_oob sanitize/memcheck_oob.expected EXPECT_RC 3
              OPTS --tool memcheck --error-exitcode 3)
sanitize_test(sanitize.memcheck.oob_fixed memcheck_oob sanitize/clean.expected OPTS --tool memcheck --error-exitcode 3
              ARGS fixed)
sanitize_test(sanitize.memcheck.oob_noapi memcheck_oob sanitize/memcheck_oob_noapi.expected EXPECT_RC 3
              OPTS --tool memcheck --error-exitcode 3 --report-api-errors no --show-backtrace no)
# The program dies after the reports (abort(), SIGKILL): the summary still
# counts them and --error-exitcode applies; without it the status is the signal's.
sanitize_test(sanitize.memcheck.oob_abort memcheck_oob sanitize/memcheck_oob_abort.expected EXPECT_RC 3
              OPTS --tool memcheck --error-exitcode 3 ARGS abort)
sanitize_test(sanitize.memcheck.oob_abort_status memcheck_oob sanitize/memcheck_oob_abort.expected EXPECT_RC 134
              OPTS --tool memcheck ARGS abort)
sanitize_test(sanitize.memcheck.oob_killed memcheck_oob sanitize/memcheck_oob_abort.expected EXPECT_RC 3
              OPTS --tool memcheck --error-exitcode 3 ARGS kill)

# NVIDIA's memcheck sample's shape (cs_memcheck.cu): --destroy-on-device-error
# kernel ends the faulting kernel and the program goes on without an error;
# context (the default) fails the kernel and every later call. Misaligned
# atomics, device frames of inlined code, the launch API's name.
softgpu_cuda_program(cs_memcheck SOURCES sanitize/cs_memcheck.cu FLAGS -lineinfo)
sanitize_test(sanitize.memcheck.cs_demo_kernel cs_memcheck sanitize/cs_demo_kernel.expected EXPECT_RC 3
              OPTS --tool memcheck --destroy-on-device-error kernel --leak-check full --error-exitcode 3 ARGS demo)
sanitize_test(sanitize.memcheck.cs_demo_context cs_memcheck sanitize/cs_demo_context.expected EXPECT_RC 3
              OPTS --tool memcheck --destroy-on-device-error context --error-exitcode 3 ARGS demo)
sanitize_test(sanitize.memcheck.cs_atomic cs_memcheck sanitize/cs_atomic.expected EXPECT_RC 3
              OPTS --tool memcheck --error-exitcode 3 ARGS atomic)
sanitize_test(sanitize.memcheck.cs_launch cs_memcheck sanitize/cs_launch.expected EXPECT_RC 3
              OPTS --tool memcheck --error-exitcode 3 ARGS launch)
# compute-sanitizer's options: refused with a reason, checked, or accepted.
add_test(NAME cuda.sanitize.cli_options
  COMMAND bash ${_src}/sanitize/sanitize_cli.sh $<TARGET_FILE:softgpu> ${_bin}/vector_add)
set_tests_properties(cuda.sanitize.cli_options PROPERTIES LABELS "cuda;sanitize" TIMEOUT 120)

# NVTX's memory API (--nvtx yes; in the shapes of NVIDIA's NVTX samples):
# pools and their regions, process-wide and bound permissions, names in
# leak and unused-memory reports, ranges marked initialized. Each program
# prints what its kernels left in memory: suppressed accesses had no effect.
softgpu_cuda_program(nvtx_memory SOURCES sanitize/nvtx_memory.cu FLAGS -lineinfo)
foreach(m pool perms bound)
  sanitize_test(sanitize.nvtx.${m} nvtx_memory sanitize/nvtx_${m}.expected EXPECT_RC 3
                OPTS --nvtx yes --destroy-on-device-error kernel --error-exitcode 3 ARGS ${m})
endforeach()
# Without --nvtx yes the annotations are not read (compute-sanitizer's default).
sanitize_test(sanitize.nvtx.pool_ignored nvtx_memory sanitize/nvtx_ignored.expected
              OPTS --destroy-on-device-error kernel --error-exitcode 3 ARGS pool)
sanitize_test(sanitize.nvtx.name_leak nvtx_memory sanitize/nvtx_name_leak.expected EXPECT_RC 3
              OPTS --nvtx yes --leak-check full --error-exitcode 3 ARGS name)
sanitize_test(sanitize.nvtx.name_unused nvtx_memory sanitize/nvtx_name_unused.expected EXPECT_RC 3
              OPTS --nvtx yes --tool initcheck --track-unused-memory yes --error-exitcode 3 ARGS name)
sanitize_test(sanitize.nvtx.pool_unused nvtx_memory sanitize/nvtx_pool_unused.expected EXPECT_RC 3
              OPTS --nvtx yes --tool initcheck --track-unused-memory yes --error-exitcode 3 ARGS pool_unused)
sanitize_test(sanitize.nvtx.marked nvtx_memory sanitize/clean.expected
              OPTS --nvtx yes --tool initcheck --error-exitcode 3 ARGS marked)
sanitize_test(sanitize.nvtx.unmarked nvtx_memory sanitize/nvtx_unmarked.expected EXPECT_RC 3
              OPTS --nvtx yes --tool initcheck --print-limit 1 --error-exitcode 3 ARGS marked unmarked)

# --save/--xml/--suppressions, as NVIDIA's Suppressions sample's Makefile uses
# them (suppressions.cu; check_suppressions.py says what each case checks).
softgpu_cuda_program(suppressions SOURCES sanitize/suppressions.cu FLAGS -lineinfo)
foreach(c memcheck two_findings malformed initcheck abort outputs)
  set(_work ${_bin}/suppressions_${c})
  file(MAKE_DIRECTORY ${_work})
  add_test(NAME cuda.sanitize.suppressions.${c}
    COMMAND ${Python3_EXECUTABLE} ${_src}/sanitize/check_suppressions.py $<TARGET_FILE:softgpu> ${_bin}/suppressions
            ${_src}/sanitize/suppressions.cu ${_work} ${c})
  set_tests_properties(cuda.sanitize.suppressions.${c} PROPERTIES LABELS "cuda;sanitize" TIMEOUT 600)
endforeach()
