#!/usr/bin/env bash
# Regenerates the committed PTX from the .cu files (needs nvcc 13).
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
for f in *.cu; do
  "$NVCC" -ptx -arch=sm_80 -O2 "$f" -o "${f%.cu}.ptx"
done
