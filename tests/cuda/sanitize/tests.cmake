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
