# Hopper (sm_90a) warpgroup MMA: inline-PTX wgmma GEMMs in every multiplicand
# type against a CPU reference (shared-memory layouts and swizzles written
# by the program itself, A from registers or shared memory, transposes,
# negation, scale-d, several k-steps with commit/wait groups), elect.sync and
# fence.proxy.async; setmaxnreg.
softgpu_cuda_program(wgmma_gemm SOURCES hopper/wgmma_gemm.cu
                     ARCH -gencode arch=compute_90a,code=[sm_90a,compute_90a])
cuda_test(wgmma_gemm wgmma_gemm STDOUT_REGEX "PASS wgmma_gemm")
