# memcheck (softgpu sanitize --tool memcheck): for each check a program with
# the bug seeded (MODE) and the same program without it (MODE fixed); the
# report is compared line by line (../sanitize/check_report.py).
softgpu_cuda_program(mc_global SOURCES sanitize_memcheck/mc_global.cu FLAGS -lineinfo)
softgpu_cuda_program(mc_shared_local SOURCES sanitize_memcheck/mc_shared_local.cu FLAGS -lineinfo)
softgpu_cuda_program(mc_heap SOURCES sanitize_memcheck/mc_heap.cu FLAGS -lineinfo)
softgpu_cuda_program(mc_api SOURCES sanitize_memcheck/mc_api.cu FLAGS -lineinfo)
softgpu_cuda_program(mc_leak SOURCES sanitize_memcheck/mc_leak.cu FLAGS -lineinfo)
softgpu_cuda_program(mc_host SOURCES sanitize_memcheck/mc_host.cu FLAGS -lineinfo)

set(_mc sanitize_memcheck)
set(_clean sanitize/clean.expected)
# name program mode expected
foreach(t "global_read_past;mc_global;read_past" "global_write_before;mc_global;write_before"
          "global_misaligned;mc_global;misaligned" "global_many;mc_global;many"
          "shared_oob;mc_shared_local;shared_oob" "shared_misaligned;mc_shared_local;shared_misaligned"
          "local_oob;mc_shared_local;local_oob"
          "heap_overflow;mc_heap;overflow" "heap_invalid_free;mc_heap;invalid_free"
          "heap_double_free;mc_heap;double_free"
          "api_free_host;mc_api;free_host" "api_double_free;mc_api;double_free"
          "api_memcpy_past;mc_api;memcpy_past"
          "host_registered;mc_host;registered" "host_mapped;mc_host;mapped")
  list(GET t 0 name)
  list(GET t 1 prog)
  list(GET t 2 mode)
  sanitize_test(sanitize.memcheck.${name} ${prog} ${_mc}/${name}.expected EXPECT_RC 3
                OPTS --tool memcheck --error-exitcode 3 ARGS ${mode})
  sanitize_test(sanitize.memcheck.${name}_fixed ${prog} ${_clean} OPTS --tool memcheck --error-exitcode 3 ARGS ${mode} fixed)
endforeach()
sanitize_test(sanitize.memcheck.global_print_limit mc_global ${_mc}/global_print_limit.expected EXPECT_RC 3
              OPTS --tool memcheck --error-exitcode 3 --print-limit 3 ARGS many)

# --padding: without it the overflow lands in the next allocation, unseen;
# with it, in the gap. --check-device-heap no: the heap is one allocation.
sanitize_test(sanitize.memcheck.global_padding mc_global ${_mc}/global_padding.expected EXPECT_RC 3
              OPTS --tool memcheck --error-exitcode 3 --padding 64 ARGS next)
sanitize_test(sanitize.memcheck.global_padding_fixed mc_global ${_clean} OPTS --tool memcheck --error-exitcode 3
              --padding 64 ARGS next fixed)
sanitize_test(sanitize.memcheck.global_no_padding mc_global ${_clean} OPTS --tool memcheck --error-exitcode 3 ARGS next)
sanitize_test(sanitize.memcheck.heap_unchecked mc_heap ${_clean} OPTS --tool memcheck --error-exitcode 3
              --check-device-heap no ARGS overflow)

# Leaks (--leak-check full): at exit, at cudaDeviceReset, stream-ordered pools.
foreach(t "leak_exit;leak;leak_clean" "leak_reset;reset;leak_reset_clean" "leak_pool;pool;leak_clean")
  list(GET t 0 name)
  list(GET t 1 mode)
  list(GET t 2 clean)
  sanitize_test(sanitize.memcheck.${name} mc_leak ${_mc}/${name}.expected EXPECT_RC 3
                OPTS --tool memcheck --leak-check full --error-exitcode 3 ARGS ${mode})
  sanitize_test(sanitize.memcheck.${name}_fixed mc_leak ${_mc}/${clean}.expected
                OPTS --tool memcheck --leak-check full --error-exitcode 3 ARGS ${mode} fixed)
endforeach()

# --log-file: the report in the file, only the program's output on stdout.
add_test(NAME cuda.sanitize.memcheck.log_file
  COMMAND ${Python3_EXECUTABLE} ${_src}/${_mc}/check_log.py $<TARGET_FILE:softgpu> ${_bin}/mc_global
          ${_src}/${_mc}/log_file.expected 0 ${_bin}/mc_log_file.txt "read_past: cudaErrorLaunchFailure" -- read_past)
set_tests_properties(cuda.sanitize.memcheck.log_file PROPERTIES LABELS "cuda;sanitize" TIMEOUT 600)

# A clean memory-bound program (also the cost measurement of docs/performance.md at 16 Mi floats).
softgpu_cuda_program(mc_triad SOURCES sanitize_memcheck/triad.cu FLAGS -lineinfo)
sanitize_test(sanitize.memcheck.triad_clean mc_triad sanitize_memcheck/leak_clean.expected
              OPTS --tool memcheck --leak-check full --error-exitcode 3 ARGS 1048576)

# No false positives: correct programs of the suite report 0 errors (tiled
# sgemm with __syncthreads, shuffle reductions, cooperative-groups tiles and
# workspace, cp.async and mbarrier pipelines, tensor cores, textures,
# __constant__/__device__ symbols, managed, pinned and mapped memory, the
# device heap, distributed shared memory, device printf).
foreach(p vector_add symbols dynamic_smem streams managed_pinned printf async_barrier_sm90 textures device_malloc cluster_dsmem)
  sanitize_test(sanitize.memcheck.clean_${p} ${p} ${_clean} OPTS --tool memcheck --error-exitcode 3)
endforeach()
