# Low-precision kernels: bf16 softmax and layernorm with warp reductions,
# an int8 __dp4a GEMM, and f16/bf16 atomics.
foreach(p softmax_bf16 layernorm_bf16 dp4a_gemm half_atomics)
  softgpu_cuda_program(${p} SOURCES lowp/${p}.cu ARCH -arch=sm_80)
  cuda_test(${p} ${p} STDOUT_REGEX "PASS ${p}")
endforeach()
# sm_90: native atom.add.noftz.bf16 and the sm_90 code paths.
foreach(p softmax_bf16 half_atomics)
  softgpu_cuda_program(${p}_sm90 SOURCES lowp/${p}.cu ARCH -arch=sm_90)
  cuda_test(${p}_sm90 ${p}_sm90 STDOUT_REGEX "PASS ${p}")
endforeach()
