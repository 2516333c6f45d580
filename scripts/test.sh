#!/usr/bin/env bash
# Builds softgpu and runs the whole test suite (unit, PTX, nvcc-built CUDA programs, fuzz smoke runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cd build
# The whole suite in the default execution mode (the JIT when the build has
# it), then the CUDA programs again interpreted: the two must agree
# (docs/jit.md). Runs under a listener (sanitizers, timing) interpret either way.
ctest --output-on-failure -j "$(nproc)" --timeout 600
if grep -q "SOFTGPU_HAVE_JIT:INTERNAL=ON" CMakeCache.txt; then
  SOFTGPU_EXEC=interp ctest --output-on-failure -j "$(nproc)" --timeout 600 -L cuda -LE sanitize
fi
