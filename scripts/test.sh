#!/usr/bin/env bash
# Builds softgpu and runs the whole test suite (unit, PTX, nvcc-built CUDA programs, fuzz smoke runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cd build
# The JIT's on-disk cache of this build tree (docs/jit.md), not the user's.
export SOFTGPU_JIT_CACHE="$PWD/jit-cache"
# The whole suite in the default execution mode (tiered: kernels start
# interpreted and the hot ones are compiled by the JIT where the build has
# it), then the CUDA programs again with every kernel compiled at its first
# launch (SOFTGPU_JIT_HOT=0): the two must agree (docs/jit.md). Runs under a
# listener (sanitizers, timing) interpret either way.
ctest --output-on-failure -j "$(nproc)" --timeout 600
if grep -q "SOFTGPU_HAVE_JIT:INTERNAL=ON" CMakeCache.txt; then
  SOFTGPU_JIT_HOT=0 ctest --output-on-failure -j "$(nproc)" --timeout 600 -L cuda -LE sanitize
fi
