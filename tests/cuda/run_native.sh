#!/usr/bin/env bash
# Runs the CUDA acceptance programs natively on a real NVIDIA GPU, without
# softgpu, to validate the tests themselves. Usage:
#   tests/cuda/run_native.sh BUILD_DIR/tests/cuda
# (the folder where CMake put the programs). The watchdog tests (and the
# deadlocks) are skipped: a GPU without a display watchdog would spin forever. The fault reports on
# stderr are softgpu's, so only exit codes and stdout are checked here.
set -u
bin=${1:?usage: run_native.sh BUILD_DIR/tests/cuda}
src=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fails=0
check() {  # name expected-stdout-regex program args...
  local name=$1 re=$2; shift 2
  if out=$("$@" 2>&1) && grep -Eq "$re" <<<"$out"; then
    echo "ok    $name"
  else
    echo "FAIL  $name"; sed 's/^/      /' <<<"$out" | head -20; fails=$((fails + 1))
  fi
}
for p in vector_add transpose sgemm reduction histogram scan control_flow recursion function_pointers symbols dynamic_smem \
         streams managed_pinned math rdc; do
  check "$p" "PASS $p" "$bin/$p"
done
check vector_add_default_arch "PASS vector_add" "$bin/vector_add_default_arch"
check vector_add_sm90 "PASS vector_add" "$bin/vector_add_sm90"
check sgemm_sm90 "PASS sgemm" "$bin/sgemm_sm90"
# Sparse mma: softgpu's reading of the ISA's metadata figures, checked on hardware.
check mma_sparse "PASS mma_sparse" "$bin/mma_sparse"
check mma_sp_forms "PASS mma_sp_forms" "$bin/mma_sp_forms"
check printf "PASS printf" cmake -DPROG="$bin/printf" -DEXPECTED_STDOUT="$src/printf.expected" -DCHECK_PTR=1 \
  -P "$src/run_check.cmake"
for m in oob_read oob_write misaligned trap asm_trap sticky; do check "fault_$m" "PASS faults $m" "$bin/faults" $m; done
for m in too_many_threads too_much_smem memcpy_past_end memcpy_null double_free; do
  check "misuse_$m" "PASS misuse $m" "$bin/misuse" $m
done
# Forward progress (tests/cuda/progress): not deadlock, overfull (hang on
# hardware) or watchdog (needs one).
for m in spinlock spinlock_loop lock_reduce lane_flag coresident one_wave barrier_exit barrier_spin barrier_diverge long; do
  check "progress_$m" "PASS progress $m" "$bin/progress" $m
done
gen=Ninja; command -v ninja >/dev/null || gen="Unix Makefiles"
check cmake_project "PASS cmake_project" cmake -DSRC="$src/cmake_project" -DBIN="$bin/cmake_project_native" \
  -DNVCC="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" "-DGENERATOR=$gen" -P "$src/run_cmake_project.cmake"
echo "$fails failed"
[ "$fails" = 0 ]
