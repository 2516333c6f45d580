# Stream-ordered allocation: memory pools, graph memory nodes (explicit and
# captured, graphMemoryNodes-shaped), and their misuse.
foreach(p mempool graph_memory graph_memory_misuse)
  softgpu_cuda_program(${p} SOURCES streamalloc/${p}.cu ARCH -arch=sm_80)
  cuda_test(${p} ${p} STDOUT_REGEX "PASS ${p}")
endforeach()
# The same programs through the per-thread default stream entry points
# (cudaMallocAsync_ptsz, cudaFreeAsync_ptsz, cudaMallocFromPoolAsync_ptsz, ...).
foreach(p mempool graph_memory)
  softgpu_cuda_program(${p}_ptds SOURCES streamalloc/${p}.cu ARCH -arch=sm_80 FLAGS --default-stream per-thread)
  cuda_test(${p}_ptds ${p}_ptds STDOUT_REGEX "PASS ${p}")
endforeach()
