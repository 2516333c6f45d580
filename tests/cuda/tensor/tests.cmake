# Tensor-core programs: wmma (every sm_80 multiplicand type and the f16
# shapes), inline-asm mma.sync + ldmatrix + cp.async double buffering, and
# integer mma with wrap-around and .satfinite.
softgpu_cuda_program(wmma_gemm SOURCES tensor/wmma_gemm.cu ARCH -arch=sm_80)
cuda_test(wmma_gemm wmma_gemm STDOUT_REGEX "PASS wmma_gemm")
softgpu_cuda_program(wmma_gemm_sm90 SOURCES tensor/wmma_gemm.cu ARCH -arch=sm_90)
cuda_test(wmma_gemm_sm90 wmma_gemm_sm90 STDOUT_REGEX "PASS wmma_gemm")
softgpu_cuda_program(mma_pipeline SOURCES tensor/mma_pipeline.cu ARCH -arch=sm_80)
cuda_test(mma_pipeline mma_pipeline STDOUT_REGEX "PASS mma_pipeline")
softgpu_cuda_program(mma_int8 SOURCES tensor/mma_int8.cu ARCH -arch=sm_80)
cuda_test(mma_int8 mma_int8 STDOUT_REGEX "PASS mma_int8")
# Sparse mma.sp::ordered_metadata (f16, s8) and s4 mma against a CPU GEMM.
softgpu_cuda_program(mma_sparse SOURCES tensor/mma_sparse.cu ARCH -arch=sm_80)
cuda_test(mma_sparse mma_sparse STDOUT_REGEX "PASS mma_sparse")
# Every sm_80 mma.sp form (.sp and .sp::ordered_metadata, every selector)
# against a CPU reference, one instruction a launch.
softgpu_cuda_program(mma_sp_forms SOURCES tensor/mma_sp_forms.cu ARCH -arch=sm_80)
cuda_test(mma_sp_forms mma_sp_forms STDOUT_REGEX "PASS mma_sp_forms")
