# Cooperative groups, clusters and device malloc (each checked against a CPU
# reference). grid_sync: cooperative launch with grid.sync() and the
# co-residency limit; tiles: tiled_partition<16> and coalesced_threads() with
# reduce/shfl; cluster_dsmem (sm_90): cluster barriers, %cluster_* registers,
# distributed shared memory through map_shared_rank and DSMEM atomics;
# device_malloc: malloc/free, new/delete, cudaLimitMallocHeapSize, NULL on
# exhaustion. Function pointers: tests/cuda/function_pointers.cu.
softgpu_cuda_program(grid_sync SOURCES coop/grid_sync.cu ARCH -arch=sm_80)
cuda_test(grid_sync grid_sync STDOUT_REGEX "PASS grid_sync")
softgpu_cuda_program(tiles SOURCES coop/tiles.cu ARCH -arch=sm_80)
cuda_test(tiles tiles STDOUT_REGEX "PASS tiles")
softgpu_cuda_program(cluster_dsmem SOURCES coop/cluster_dsmem.cu ARCH -arch=sm_90)
cuda_test(cluster_dsmem cluster_dsmem STDOUT_REGEX "PASS cluster_dsmem")
softgpu_cuda_program(device_malloc SOURCES coop/device_malloc.cu ARCH -arch=sm_80)
cuda_test(device_malloc device_malloc STDOUT_REGEX "PASS device_malloc")
