# softgpu run --timing end to end: events read simulated time, the summary
# and the JSON report, the same predictions on any number of host threads.
softgpu_cuda_program(timing_events SOURCES timing/events.cu)
add_test(NAME cuda.timing_events
  COMMAND ${CMAKE_COMMAND} -DSOFTGPU=$<TARGET_FILE:softgpu> -DPROG=${_bin}/timing_events
          -DWORK=${CMAKE_CURRENT_BINARY_DIR} -P ${_src}/timing/check_timing.cmake)
set_tests_properties(cuda.timing_events PROPERTIES LABELS cuda TIMEOUT 300)
# Copy/compute overlap across streams (timing/session.h): four chunks of
# 4 MiB over the H100's host link (about 65.5 us per copy) and a 5.5 us
# kernel each; one stream: 4 x (65.5 + 5.5 + 65.5) = 546 us; four streams:
# the H2D copies back to back (262 us), then the last kernel and D2H copy:
# 333 us; ratio 0.61. The same four streams captured into a graph: the
# graph's branches overlap alike (ratio 0.61; serialized it would be 1).
softgpu_cuda_program(timing_streams SOURCES timing/streams_overlap.cu)
cuda_test(timing_streams timing_streams RUN_OPTS --timing STDOUT_REGEX "streams: [0-9.]+ ms.ratio: 0\\.(5[5-9]|6[0-4])@@graph ratio: 0\\.(5[5-9]|6[0-4])" TIMEOUT 300)
# Concurrent kernels: eight one-block kernels on eight streams run side by
# side (each needs one of the 132 SMs): an eighth of the time they take on
# one stream (ratio 0.125; serialized it would be 1).
softgpu_cuda_program(timing_concurrent SOURCES timing/concurrent_kernels.cu)
cuda_test(timing_concurrent timing_concurrent RUN_OPTS --timing STDOUT_REGEX "ratio: 0\\.1[23]" TIMEOUT 300)
# clock64() and %globaltimer read the model's time: a pointer chase timed
# with them shows the load latency of each level as the GPU's config gives
# it (the published pointer-chase figures cited there; timing/warp_clock.h),
# the far L2 partition's for a ring of 3/4 of the L2 (H100 480, L4 one
# partition: its near 276).
foreach(gpu h100 l4)
  file(READ ${PROJECT_SOURCE_DIR}/configs/gpus/${gpu}.toml _cfg)
  set(_lat)
  foreach(key l1_latency l2_latency l2_far_latency dram_latency)
    string(REGEX MATCH "\n${key} = ([0-9]+)" _ "${_cfg}")
    list(APPEND _lat ${CMAKE_MATCH_1})
  endforeach()
  if(gpu STREQUAL h100)
    softgpu_cuda_program(timing_clock SOURCES timing/clock_chase.cu)
  endif()
  string(REPLACE ";" "@@" _lat "${_lat}")
  cuda_test(timing_clock_${gpu} timing_clock RUN_OPTS "--timing@@--gpu@@${gpu}" ARGS "${_lat}"
            STDOUT_REGEX "PASS timing_clock" TIMEOUT 300)
endforeach()
# The validation kernels (scripts/native-validate.sh: measured natively,
# predicted under --timing): they run under the model and check their
# results, at a small size (the script runs the published sizes).
softgpu_cuda_program(validation_kernels SOURCES timing/validation_kernels.cu ARCH -arch=sm_90)
cuda_test(validation_kernels validation_kernels RUN_OPTS "--timing@@--gpu@@h200" ARGS "--n@@1048576@@--reps@@1@@--passes@@2"
          STDOUT_REGEX "kernel=stream.triad.b1024 us=[0-9.]+ value=[0-9.]+ unit=GB/s@@kernel=chase.dram us=[0-9.]+ value=[0-9.]+ unit=cycles/load@@PASS validation_kernels" TIMEOUT 600)
# Kernels replayed from a CUDA graph launch at the config's
# graph_kernel_launch_us, not kernel_launch_us (H100: 1.37 and 2.5 us): the
# replay saves 1.13 us per kernel over the same kernels sent one by one.
softgpu_cuda_program(timing_graph_replay SOURCES timing/graph_replay.cu)
cuda_test(timing_graph_replay timing_graph_replay RUN_OPTS --timing STDOUT_REGEX "saved per kernel: 1\\.1[23][0-9] us.*PASS graph_replay")
# The held-out GEMM figures' program (tests/timing/heldout.json, group
# gemm; timing_validate --only heldout runs it at the published sizes under
# --timing): cublasLtMatmul in superbenchmark's TN f16 shape, checked
# against the CPU; here at small sizes on and off the 128 tile, on the
# multistage tensor-core kernel on the A100 (the launches' names and
# tensor-pipe use).
if(TARGET cublaslt)
  softgpu_cuda_program(heldout_gemm SOURCES timing/heldout_gemm.cu FLAGS -lcublasLt)
  add_test(NAME cuda.heldout_gemm
    COMMAND ${CMAKE_COMMAND} -DSOFTGPU=$<TARGET_FILE:softgpu> -DPROG=${_bin}/heldout_gemm -DGPU=a100
            -DARGS=256@@136@@72@@8@@264@@40 -DWORK=${CMAKE_CURRENT_BINARY_DIR} -DPASS=PASS.heldout_gemm
            "-DCOUNTS=matmul_tc_ms_kernel<=4"
            -P ${_src}/cublaslt/check_lt_route.cmake)
  set_tests_properties(cuda.heldout_gemm PROPERTIES LABELS cuda TIMEOUT 600)
  # The FP8 rows' form (--type fp8, the H200 figures) on an sm_90 GPU: the
  # TMA + wgmma kernel, whichever tile width the shape gets (FP8 needs k, the
  # ld of A and B, a multiple of 16).
  add_test(NAME cuda.heldout_gemm_fp8
    COMMAND ${CMAKE_COMMAND} -DSOFTGPU=$<TARGET_FILE:softgpu> -DPROG=${_bin}/heldout_gemm -DGPU=h200
            -DARGS=--type@@fp8@@256@@136@@80@@8@@264@@48@@300@@520@@208 -DWORK=${CMAKE_CURRENT_BINARY_DIR}
            -DPASS=PASS.heldout_gemm "-DCOUNTS=sm90_gemm_kernel<=6"
            -P ${_src}/cublaslt/check_lt_route.cmake)
  set_tests_properties(cuda.heldout_gemm_fp8 PROPERTIES LABELS cuda TIMEOUT 600)
endif()
