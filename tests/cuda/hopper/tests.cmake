# Hopper (sm_90a) warpgroup MMA: inline-PTX wgmma GEMMs in every multiplicand
# type against a CPU reference (shared-memory layouts and swizzles written
# by the program itself, A from registers or shared memory, transposes,
# negation, scale-d, several k-steps with commit/wait groups), elect.sync,
# fence.proxy.async and setmaxnreg in a warp-specialized kernel.
softgpu_cuda_program(wgmma_gemm SOURCES hopper/wgmma_gemm.cu HEADERS hopper/wgmma_asm.cuh hopper/wgmma_run.cuh
                     ARCH -gencode arch=compute_90a,code=[sm_90a,compute_90a])
cuda_test(wgmma_gemm wgmma_gemm STDOUT_REGEX "PASS wgmma_gemm")

# The same through CUTLASS's CuTe, which lays out shared memory and builds
# the descriptors itself: needs the CuTe headers of the nvidia-cutlass wheel
# (`pip install nvidia-cutlass`: cutlass_library/source/include), found
# through Python or given as -DSOFTGPU_CUTLASS_INCLUDE=...
set(SOFTGPU_CUTLASS_INCLUDE "" CACHE PATH "CUTLASS/CuTe include folder for the CuTe wgmma test")
if(NOT SOFTGPU_CUTLASS_INCLUDE)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_FOUND)
    execute_process(COMMAND ${Python3_EXECUTABLE} -c
                    "import cutlass_library, os; print(os.path.join(os.path.dirname(cutlass_library.__file__), 'source', 'include'))"
                    OUTPUT_VARIABLE _cute_inc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_cute_inc AND EXISTS ${_cute_inc}/cute/tensor.hpp)
      set(SOFTGPU_CUTLASS_INCLUDE ${_cute_inc} CACHE PATH "" FORCE)
    endif()
  endif()
endif()
if(SOFTGPU_CUTLASS_INCLUDE AND EXISTS ${SOFTGPU_CUTLASS_INCLUDE}/cute/tensor.hpp)
  softgpu_cuda_program(cute_gmma SOURCES hopper/cute_gmma.cu
                       ARCH -gencode arch=compute_90a,code=[sm_90a,compute_90a]
                       FLAGS -std=c++17 --expt-relaxed-constexpr -I${SOFTGPU_CUTLASS_INCLUDE})
  cuda_test(cute_gmma cute_gmma STDOUT_REGEX "PASS cute_gmma")
  # CUTLASS's Hopper GEMM tutorial itself (TMA + mbarrier pipeline + wgmma),
  # driven by a main of our own that checks it against a CPU GEMM.
  set(_cute_tut ${SOFTGPU_CUTLASS_INCLUDE}/../examples/cute/tutorial/hopper)
  if(EXISTS ${_cute_tut}/wgmma_tma_sm90.cu AND EXISTS ${SOFTGPU_CUTLASS_INCLUDE}/../tools/util/include)
    softgpu_cuda_program(cute_tma_gemm SOURCES hopper/cute_tma_gemm.cu HEADERS hopper/cute_tutorial_check.cuh
                         ARCH -gencode arch=compute_90a,code=[sm_90a,compute_90a]
                         FLAGS -std=c++17 --expt-relaxed-constexpr -I${SOFTGPU_CUTLASS_INCLUDE}
                               -I${SOFTGPU_CUTLASS_INCLUDE}/../tools/util/include -I${_cute_tut} -lcuda)
    cuda_test(cute_tma_gemm cute_tma_gemm STDOUT_REGEX "PASS cute_tma_gemm")
  endif()
  # Its cp.async tutorial: no CTA barrier between mainloop iterations, so
  # exact only with wgmma issued by the warpgroup as one operation.
  if(EXISTS ${_cute_tut}/wgmma_sm90.cu AND EXISTS ${SOFTGPU_CUTLASS_INCLUDE}/../tools/util/include)
    softgpu_cuda_program(cute_cpasync_gemm SOURCES hopper/cute_cpasync_gemm.cu
                         HEADERS hopper/cute_tutorial_check.cuh
                         ARCH -gencode arch=compute_90a,code=[sm_90a,compute_90a]
                         FLAGS -std=c++17 --expt-relaxed-constexpr -I${SOFTGPU_CUTLASS_INCLUDE}
                               -I${SOFTGPU_CUTLASS_INCLUDE}/../tools/util/include -I${_cute_tut})
    cuda_test(cute_cpasync_gemm cute_cpasync_gemm
              STDOUT_REGEX "256x256x128 TN: no error, 0 mismatches.*PASS cute_cpasync_gemm")
  endif()
else()
  message(STATUS "cute_gmma skipped: no CuTe headers (pip install nvidia-cutlass, or -DSOFTGPU_CUTLASS_INCLUDE=...)")
endif()

# TMA as the CUDA programming guide writes it (libcu++'s bulk tensor copies
# and cuda::barrier, tensor maps from cuTensorMapEncodeTiled through
# cudaGetDriverEntryPoint): tiles with edges outside the tensor, a 128B
# swizzled box read back through the documented pattern, invalid arguments.
softgpu_cuda_program(tma SOURCES hopper/tma.cu ARCH -arch=sm_90)
cuda_test(tma tma STDOUT_REGEX "tiles: 100x70 floats in 12 tiles, 0 mismatches@@swizzle 128B: 64x32 halves, 0 mismatches@@PASS tma"
          STDERR_REGEX "softgpu cuda: cuTensorMapEncodeTiled: boxDim\\[0\\] = 300 is not 1..256@@globalStrides\\[0\\] = 452 is not a multiple of 16")

# TMA im2col: a 3x3 convolution (strides 1 and 2) from im2col loads under
# each filter tap, the map from cuTensorMapEncodeIm2col, against a CPU one.
softgpu_cuda_program(tma_im2col_conv SOURCES hopper/tma_im2col_conv.cu ARCH -arch=sm_90)
cuda_test(tma_im2col_conv tma_im2col_conv STDOUT_REGEX "conv stride 1: .*conv stride 2: .*PASS tma_im2col_conv")

# A CuTe-style cp.async + wgmma mainloop with no CTA barrier between
# iterations (a warp that finished its wgmma.wait_group overwrites the stage
# its warpgroup read): exact only if the four warps issue each wgmma as one
# operation. Then a warpgroup one of whose warps exited (a deadlock report,
# cudaErrorIllegalInstruction) and a CTA too small for a warpgroup.
softgpu_cuda_program(wgmma_pipeline SOURCES hopper/wgmma_pipeline.cu ARCH -gencode arch=compute_90a,code=[sm_90a,compute_90a])
cuda_test(wgmma_pipeline wgmma_pipeline
          STDOUT_REGEX "128x64x128, 2 stages: 0 mismatches.*128x128x256, 3 stages: 0 mismatches.*warp 3 exited before the wgmma: cudaErrorIllegalInstruction.*PASS wgmma_pipeline"
          STDERR_REGEX "deadlock: 3 warps wait in wgmma.wait_group")
cuda_test(wgmma_pipeline_small_cta wgmma_pipeline ARGS small EXPECT_RC 0
          STDOUT_REGEX "a 64-thread CTA's wgmma: cudaErrorIllegalInstruction"
          STDERR_REGEX "warpgroup 0 needs warps 0-3, but the CTA has 2 warps")

# Sparse wgmma (wgmma.mma_async.sp): compressed A from shared memory or
# registers, metadata in the ISA's per-warp layout with both selectors,
# f16 and s8, against a CPU GEMM of the dense A.
softgpu_cuda_program(wgmma_sparse SOURCES hopper/wgmma_sparse.cu ARCH -gencode arch=compute_90a,code=[sm_90a,compute_90a])
cuda_test(wgmma_sparse wgmma_sparse STDOUT_REGEX "f16 k32 smem sel 1: 0 mismatches.*s8 k64 smem sel 0: 0 mismatches.*PASS wgmma_sparse")

# Tensor maps changed on the device (tensormap.replace, tensormap.cp_fenceproxy,
# fence.proxy.tensormap through libcu++'s cuda::ptx): a template map pointed
# at four tensors of other shapes in shared memory and fenced to global
# memory, one replaced in global memory with NaN fill, each loaded by TMA.
softgpu_cuda_program(tensormap_replace SOURCES hopper/tensormap_replace.cu
                     ARCH -gencode arch=compute_90a,code=[sm_90a,compute_90a])
cuda_test(tensormap_replace tensormap_replace
          STDOUT_REGEX "groups: 4 tensors through one template map, 10265 elements, 0 mismatches.*global: .*0 mismatches.*PASS tensormap_replace")
