# Asynchronous copies and mbarrier-based barriers.
# cuda::barrier (mbarrier init/arrive/test_wait, cp.async + cp.async.mbarrier.arrive via memcpy_async).
softgpu_cuda_program(async_barrier SOURCES async/barrier.cu ARCH -arch=sm_80)
cuda_test(async_barrier async_barrier STDOUT_REGEX "PASS barrier")
softgpu_cuda_program(async_barrier_sm90 SOURCES async/barrier.cu ARCH -arch=sm_90)
cuda_test(async_barrier_sm90 async_barrier_sm90 STDOUT_REGEX "PASS barrier")
# __pipeline_memcpy_async with zero-fill (double-buffered), inline cp.async.cg with src-size.
softgpu_cuda_program(async_cp SOURCES async/cp_async.cu ARCH -arch=sm_80)
cuda_test(async_cp async_cp STDOUT_REGEX "PASS cp_async")
softgpu_cuda_program(async_cp_sm90 SOURCES async/cp_async.cu ARCH -arch=sm_90)
cuda_test(async_cp_sm90 async_cp_sm90 STDOUT_REGEX "PASS cp_async")
