#!/usr/bin/env bash
# Builds softgpu and runs the whole test suite (unit, PTX, nvcc-built CUDA programs, fuzz smoke runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cd build
ctest --output-on-failure -j "$(nproc)" --timeout 600
