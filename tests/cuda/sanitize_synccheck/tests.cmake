# synccheck (docs/sanitizers.md): each seeded synchronization bug gives the
# exact report, the same kernel without it none; correct programs (tiled
# sgemm, shuffle reductions, cooperative-groups tiles) give none.
softgpu_cuda_program(sync_bugs SOURCES sanitize_synccheck/sync_bugs.cu FLAGS -lineinfo)
softgpu_cuda_program(sync_clean SOURCES sanitize_synccheck/sync_clean.cu FLAGS -lineinfo)
foreach(c warp block mask shfl count toolarge mismatch ifelse)
  set(limit 0)
  if(c MATCHES "^(block|count|toolarge|mismatch|ifelse)$")
    set(limit 2)  # 16 to 64 threads
  endif()
  sanitize_test(sanitize.synccheck.${c} sync_bugs sanitize_synccheck/${c}.expected EXPECT_RC 3
                OPTS --tool synccheck --error-exitcode 3 --print-limit ${limit} ARGS ${c})
  sanitize_test(sanitize.synccheck.${c}_fixed sync_bugs sanitize/clean.expected
                OPTS --tool synccheck --error-exitcode 3 ARGS ${c} fixed)
endforeach()
# Lanes that returned may be named in __syncwarp's mask (CUDA programming guide).
sanitize_test(sanitize.synccheck.exited sync_bugs sanitize/clean.expected
              OPTS --tool synccheck --error-exitcode 3 ARGS exited)
sanitize_test(sanitize.synccheck.clean sync_clean sanitize/clean.expected OPTS --tool synccheck --error-exitcode 3)
# The suite's programs with barriers, warp primitives, CUB/Thrust, cp.async,
# mbarriers and tensor cores (each passes its own checks under synccheck).
foreach(p conf_warp)
  sanitize_test(sanitize.synccheck.clean_${p} ${p} sanitize/clean.expected OPTS --tool synccheck --error-exitcode 3)
endforeach()
