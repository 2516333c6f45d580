# No false positives: correct real code (Thrust, CUB, warp-shuffle reductions,
# cooperative-groups tiles, cp.async pipelines, tensor cores) gives 0 errors
# under every tool. Each tool's own folder adds programs only it needs.
foreach(p sgemm reduction scan histogram cg_reduce tiles async_cp async_barrier wmma_gemm mma_pipeline mma_sparse
          cub_block cub_device thrust_sort thrust_algorithms)
  foreach(t memcheck racecheck initcheck synccheck)
    sanitize_test(sanitize.clean.${t}.${p} ${p} sanitize/no_errors.expected OPTS --tool ${t} --error-exitcode 3)
  endforeach()
endforeach()
