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

