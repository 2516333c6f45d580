# An instruction softgpu does not implement (sm_90's multimem.ld_reduce, and
# multimem.red in a called device function) fails only the kernels that reach
# it, at launch, with cudaErrorNotSupported and a message naming the
# instruction, the PTX and CUDA lines and the kernel; the module's other
# kernels run before and after.
softgpu_cuda_program(unimplemented SOURCES unimplemented/unimplemented.cu
                     ARCH -gencode arch=compute_90a,code=[sm_90a,compute_90a] FLAGS -lineinfo)
cuda_test(unimplemented unimplemented
  STDOUT_REGEX "ordinary kernels, round 1: 0 mismatches@@uses_multimem: cudaErrorNotSupported \\(801\\): operation not supported@@calls_multimem_helper: cudaErrorNotSupported \\(801\\)@@ordinary kernels, round 2: 0 mismatches@@PASS unimplemented"
  STDERR_REGEX "softgpu: cannot launch kernel 'uses_multimem\\(int\\*, int\\)' \\(_Z13uses_multimemPii\\): softgpu does not implement instruction 'multimem.ld_reduce.relaxed.sys.global.add.f32' at PTX line [0-9]+ \\(unimplemented.cu:26\\) \\(cudaErrorNotSupported@@cannot launch kernel 'calls_multimem_helper\\(int\\*, int\\)' \\(_Z21calls_multimem_helperPii\\): softgpu does not implement instruction 'multimem.red.relaxed.sys.global.add.u32' at PTX line [0-9]+ \\(unimplemented.cu:31\\), in function 'multimem_helper\\(int\\*, int\\)' that the kernel calls")
