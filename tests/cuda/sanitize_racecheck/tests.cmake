# racecheck (docs/sanitizers.md): each seeded hazard's exact report, and no
# report for the same program fixed; correct programs of the kinds real code
# has (barriers, shuffles, __syncwarp, cooperative groups, cp.async,
# atomics, cuda::barrier) report nothing.
set(_rc sanitize_racecheck)
foreach(p race_reduce race_tile race_waw race_warp race_cpasync race_named race_clean)
  softgpu_cuda_program(${p} SOURCES ${_rc}/${p}.cu FLAGS -lineinfo)
endforeach()
sanitize_test(sanitize.racecheck.reduce race_reduce ${_rc}/race_reduce.expected EXPECT_RC 3
              OPTS --tool racecheck --error-exitcode 3)
sanitize_test(sanitize.racecheck.reduce_fixed race_reduce ${_rc}/clean.expected OPTS --tool racecheck --error-exitcode 3
              ARGS fixed)
sanitize_test(sanitize.racecheck.tile race_tile ${_rc}/race_tile.expected EXPECT_RC 3 OPTS --tool racecheck --error-exitcode 3)
sanitize_test(sanitize.racecheck.tile_fixed race_tile ${_rc}/clean.expected OPTS --tool racecheck --error-exitcode 3
              ARGS fixed)
sanitize_test(sanitize.racecheck.waw race_waw ${_rc}/race_waw.expected EXPECT_RC 3 OPTS --tool racecheck --error-exitcode 3)
sanitize_test(sanitize.racecheck.waw_hazard race_waw ${_rc}/race_waw_hazard.expected EXPECT_RC 3
              OPTS --tool racecheck --racecheck-report hazard --error-exitcode 3)
sanitize_test(sanitize.racecheck.waw_hazard_limit race_waw ${_rc}/race_waw_hazard_limit.expected EXPECT_RC 3
              OPTS --tool racecheck --racecheck-report hazard --print-limit 3 --error-exitcode 3)
sanitize_test(sanitize.racecheck.waw_fixed race_waw ${_rc}/clean.expected OPTS --tool racecheck --error-exitcode 3
              ARGS fixed)
sanitize_test(sanitize.racecheck.waw_same_value race_waw ${_rc}/clean.expected OPTS --tool racecheck --error-exitcode 3
              ARGS same)
# A warp-level hazard is a warning: it does not count towards --error-exitcode.
sanitize_test(sanitize.racecheck.warp race_warp ${_rc}/race_warp.expected OPTS --tool racecheck --error-exitcode 3)
sanitize_test(sanitize.racecheck.warp_fixed race_warp ${_rc}/clean.expected OPTS --tool racecheck --error-exitcode 3
              ARGS fixed)
sanitize_test(sanitize.racecheck.clean race_clean ${_rc}/clean.expected OPTS --tool racecheck --error-exitcode 3)
sanitize_test(sanitize.racecheck.named race_named ${_rc}/race_named.expected EXPECT_RC 3 OPTS --tool racecheck --error-exitcode 3)
sanitize_test(sanitize.racecheck.named_fixed race_named ${_rc}/clean.expected OPTS --tool racecheck --error-exitcode 3
              ARGS fixed)
# The suite's own programs: Thrust, CUB, cooperative groups, cuda::barrier,
# memcpy_async, tensor-core pipelines.
foreach(p transpose)
  sanitize_test(sanitize.racecheck.clean_${p} ${p} ${_rc}/clean.expected OPTS --tool racecheck --error-exitcode 3)
endforeach()
sanitize_test(sanitize.racecheck.cpasync race_cpasync ${_rc}/race_cpasync.expected EXPECT_RC 3
              OPTS --tool racecheck --error-exitcode 3)
sanitize_test(sanitize.racecheck.cpasync_fixed race_cpasync ${_rc}/clean.expected OPTS --tool racecheck --error-exitcode 3
              ARGS fixed)
# wgmma: the warpgroup's four warps issue one operation, which reads the
# stage when the last issues it and completes at each warp's wait; a CuTe-
# style mainloop with no CTA barrier between stages is clean, a thread
# overwriting the stage before its wait races.
sanitize_test(sanitize.racecheck.wgmma_clean wgmma_pipeline ${_rc}/clean.expected
              OPTS --tool racecheck --error-exitcode 3 ARGS clean)
sanitize_test(sanitize.racecheck.wgmma_race wgmma_pipeline ${_rc}/race_wgmma.expected EXPECT_RC 3
              OPTS --tool racecheck --error-exitcode 3 ARGS race)
