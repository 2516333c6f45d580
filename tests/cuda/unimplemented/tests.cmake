# An instruction softgpu does not implement (sm_90a's setmaxnreg, and
# wgmma.fence in a called device function) fails only the kernels that reach
# it, at launch, with cudaErrorNotSupported and a message naming the
# instruction, the PTX and CUDA lines and the kernel; the module's other
# kernels run before and after.
softgpu_cuda_program(unimplemented SOURCES unimplemented/unimplemented.cu
                     ARCH -gencode arch=compute_90a,code=[sm_90a,compute_90a] FLAGS -lineinfo)
cuda_test(unimplemented unimplemented
  STDOUT_REGEX "ordinary kernels, round 1: 0 mismatches@@uses_setmaxnreg: cudaErrorNotSupported \\(801\\): operation not supported@@calls_wgmma_helper: cudaErrorNotSupported \\(801\\)@@ordinary kernels, round 2: 0 mismatches@@PASS unimplemented"
  STDERR_REGEX "softgpu: cannot launch kernel 'uses_setmaxnreg\\(int\\*\\)' \\(_Z15uses_setmaxnregPi\\): softgpu does not implement instruction 'setmaxnreg.inc.sync.aligned.u32' at PTX line [0-9]+ \\(unimplemented.cu:23\\) \\(cudaErrorNotSupported@@cannot launch kernel 'calls_wgmma_helper\\(int\\*\\)' \\(_Z18calls_wgmma_helperPi\\): softgpu does not implement instruction 'wgmma.fence.sync.aligned' at PTX line [0-9]+ \\(unimplemented.cu:28\\), in function 'fence_helper\\(int\\*\\)' that the kernel calls")
