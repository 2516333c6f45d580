# CUDA from Python: Numba-CUDA kernels (@cuda.jit, compiled by NVVM to PTX
# and linked through libnvJitLink, which `softgpu run` gives as softgpu's)
# run under softgpu in a virtual environment that scripts/setup.sh makes
# from PyPI (python/requirements.txt). Where PyPI could not be reached the
# tests are skipped with that reason (exit code 77).
#   python_numba: twelve kernels (elementwise, shared-memory reduction and
#     atomics, histogram, 2-D grid with libdevice math, tiled matmul, warp
#     ballot and shuffles, @vectorize, a stream, dynamic shared memory,
#     grid sync), each against NumPy.
#   python_numba_timing: the same under --timing: the per-kernel table.
#   python_cupy: CuPy (its runtime module has NVIDIA's static CUDA runtime
#     linked in): arrays, ufuncs, reductions, Elementwise/Reduction/Raw
#     kernels, RawModule templates, its prebuilt CUB sort and cumsum (PTX for
#     compute_120 only, run in place of their sm_90 machine code), matmul
#     through softgpu's cuBLAS, each against NumPy.
#   python_cupy_random: cupy.random (seed, random, standard_normal, normal,
#     randint) through softgpu's libcurand.so.10, against the laws and NumPy
#     samples (moments, two-sample KS, chi-square), not values.
#   sanitize.python_numba_oob: memcheck names the Numba kernel's
#     out-of-bounds read and write, thread and allocation, and the failed
#     synchronize, as compute-sanitizer does.
set(_pydir ${_src}/python)
set(_pyenv_python ${CMAKE_BINARY_DIR}/_deps/pyenv/bin/python)
function(python_test name labels)
  add_test(NAME cuda.${name} COMMAND ${Python3_EXECUTABLE} ${_pydir}/run_python.py ${_pyenv_python} ${ARGN})
  set_tests_properties(cuda.${name} PROPERTIES LABELS "${labels}" TIMEOUT 900 SKIP_RETURN_CODE 77)
endfunction()
if(TARGET nvjitlink AND TARGET cuda_driver)
  python_test(python_numba "cuda;python" --stdout "PASS saxpy" --stdout "PASSED: 0 failures"
              --stdout "device: .*\\(softgpu\\)"
              -- $<TARGET_FILE:softgpu> run -- {PY} ${_pydir}/numba_kernels.py)
  python_test(python_numba_timing "cuda;python" --stdout "PASSED: 0 failures"
              --stderr "predicted time on NVIDIA A100" --stderr "latency +__main__::saxpy"
              -- $<TARGET_FILE:softgpu> run --timing --gpu a100 -- {PY} ${_pydir}/numba_kernels.py)
  python_test(python_cupy "cuda;python" --stdout "PASSED: 0 failures" --stdout "PASS sort" --stdout "PASS matmul"
              --stdout "device: NVIDIA H100.*\\(softgpu\\) sm_90"
              --stderr "PTX only for compute_1[0-9]+. running that PTX in its place"
              -- $<TARGET_FILE:softgpu> run -- {PY} ${_pydir}/cupy_kernels.py)
  if(TARGET curand)
    python_test(python_cupy_random "cuda;python" --stdout "PASSED: 0 failures" --stdout "PASS randint range"
                -- $<TARGET_FILE:softgpu> run -- {PY} ${_pydir}/cupy_random.py)
  endif()
  python_test(sanitize.python_numba_oob "cuda;python;sanitize" --rc 1
              --stdout "^========= Invalid __global__ read of size 4 bytes$"
              --stdout "^=========     at __main__::scale_unguarded.* in PTX line [0-9]+$"
              --stdout "^========= Invalid __global__ write of size 4 bytes$"
              --stdout "^=========     by thread \\(100,0,0\\) in block \\(0,0,0\\)$"
              --stdout "is 0 bytes after the nearest allocation at 0x[0-9a-f]+ of size 400 bytes"
              --stdout "CUDA_ERROR_LAUNCH_FAILED \\(error 719\\).* on CUDA API call to cuCtxSynchronize"
              --stdout "^========= ERROR SUMMARY: 3 errors$"
              -- $<TARGET_FILE:softgpu> sanitize --tool memcheck -- {PY} ${_pydir}/numba_oob.py)
endif()
