#!/usr/bin/env bash
# Builds softgpu, compiles a CUDA sample with nvcc, and runs it on the default simulated GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p build/demo
nvcc -cudart shared -o build/demo/demo examples/demo.cu
./build/src/tools/softgpu devices
./build/src/tools/softgpu run --timing -- ./build/demo/demo   # results, then the predicted GPU time per kernel
