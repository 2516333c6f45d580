# Conformance corpus (sources in tests/conformance/, see docs/conformance.md):
# one program per instruction family, each comparing every device result bit
# for bit with an independent host reference. Checks that softgpu is known to
# fail are skipped unless the program gets --all, which the ctests do not pass;
# run_device.sh passes it on real GPUs.
set(_conf_src ${CMAKE_CURRENT_LIST_DIR}/../../conformance)

# conf_program(NAME SOURCE [extra nvcc flags...]): like softgpu_cuda_program
# (sm_80 unless the flags give -arch or -gencode), but also depends on conf.h
# (and the wgmma machinery conf_wgmma shares with tests/cuda/hopper);
# -frounding-math keeps the host reference's fesetround() sections from being
# reordered or folded by g++.
function(conf_program name src)
  set(arch -arch=sm_80)
  if("${ARGN}" MATCHES "-arch=|-gencode")
    set(arch "")
  endif()
  add_custom_command(
    OUTPUT ${_bin}/${name}
    COMMAND ${SOFTGPU_NVCC} ${_nvcc_flags} ${arch} -Xcompiler -frounding-math ${ARGN}
            -o ${_bin}/${name} ${_conf_src}/${src}
    DEPENDS ${_conf_src}/${src} ${_conf_src}/conf.h ${_src}/hopper/wgmma_run.cuh ${_src}/hopper/wgmma_asm.cuh
    COMMENT "nvcc ${name}"
    VERBATIM)
  set(_programs ${_programs} ${_bin}/${name} PARENT_SCOPE)
endfunction()

conf_program(conf_int conf_int.cu)
conf_program(conf_float conf_float.cu)
conf_program(conf_float_ftz conf_float.cu -DCONF_FTZ -ftz=true)
conf_program(conf_convert conf_convert.cu)
conf_program(conf_half conf_half.cu)
conf_program(conf_approx conf_approx.cu)
conf_program(conf_warp conf_warp.cu)
conf_program(conf_atomic conf_atomic.cu)
conf_program(conf_lowp conf_lowp.cu -arch=sm_90)  # fp8 cvt needs sm_89+
conf_program(conf_wgmma conf_wgmma.cu -gencode arch=compute_90a,code=[sm_90a,compute_90a])
conf_program(conf_tma conf_tma.cu -arch=sm_90)
foreach(p conf_int conf_float conf_float_ftz conf_convert conf_half conf_approx conf_warp conf_atomic conf_lowp
          conf_wgmma conf_tma)
  cuda_test(${p} ${p} STDOUT_REGEX "PASS ${p}@@ 0 failed" TIMEOUT 300)
  set_tests_properties(cuda.${p} PROPERTIES LABELS "cuda;conformance")
endforeach()
