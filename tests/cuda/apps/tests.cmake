# Application-shaped programs, each checked against a CPU implementation of
# the same algorithm. srad: speckle-reducing anisotropic diffusion in the
# shape of Rodinia's srad_v1 (per iteration five kinds of launches, among
# them a multi-launch shared-memory reduction, interleaved as Rodinia's or
# halving), small here; run with no arguments it is the 502x458,
# 100-iteration size docs/performance.md times (issue 11: one host thread
# against two).
softgpu_cuda_program(srad SOURCES apps/srad.cu ARCH -arch=sm_80)
foreach(t 1 2)
  foreach(r interleaved halving)
    cuda_test(srad_${r}_t${t} srad ARGS 96@@80@@12@@${r} RUN_OPTS "--threads@@${t}"
              STDOUT_REGEX "${r} reduction: max relative error@@PASS srad" TIMEOUT 120)
  endforeach()
endforeach()
