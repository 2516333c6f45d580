# Stream-ordered allocation: memory pools, graph memory nodes (explicit and
# captured, graphMemoryNodes-shaped), and their misuse.
foreach(p mempool graph_memory graph_memory_misuse)
  softgpu_cuda_program(${p} SOURCES streamalloc/${p}.cu ARCH -arch=sm_80)
  cuda_test(${p} ${p} STDOUT_REGEX "PASS ${p}")
endforeach()
