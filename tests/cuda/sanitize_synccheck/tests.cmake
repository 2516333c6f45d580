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
# NVIDIA's synccheck and racecheck samples' shapes (cs_samples.cu), every
# launch checked with assert(cudaPeekAtLastError() == cudaSuccess): the
# kernel's error is asynchronous, so the program passes its checks and runs
# to its end after the reports. A barrier the tail of the last chunk skips,
# a __syncwarp mask that leaves out a calling lane; a block-level race
# whose errors come after the print limit's warnings still sets the exit code.
softgpu_cuda_program(cs_samples SOURCES sanitize_synccheck/cs_samples.cu FLAGS -lineinfo)
sanitize_test(sanitize.synccheck.cs_divergent cs_samples sanitize_synccheck/cs_divergent.expected EXPECT_RC 3
              OPTS --tool synccheck --error-exitcode 3 --print-limit 2 ARGS divergent)
sanitize_test(sanitize.synccheck.cs_syncwarp cs_samples sanitize_synccheck/cs_syncwarp.expected EXPECT_RC 3
              OPTS --tool synccheck --error-exitcode 3 --print-limit 2 ARGS syncwarp)
sanitize_test(sanitize.racecheck.cs_block cs_samples sanitize_synccheck/cs_block.expected EXPECT_RC 3
              OPTS --tool racecheck --error-exitcode 3 --print-limit 2 ARGS block)
sanitize_test(sanitize.racecheck.cs_block_hazard cs_samples sanitize_synccheck/cs_block_hazard.expected EXPECT_RC 3
              OPTS --tool racecheck --racecheck-report hazard --error-exitcode 3 --print-limit 2 ARGS block)
sanitize_test(sanitize.racecheck.cs_warp cs_samples sanitize_synccheck/cs_warp.expected
              OPTS --tool racecheck --error-exitcode 3 --print-limit 1 ARGS warp)
