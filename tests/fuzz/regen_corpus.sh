#!/usr/bin/env bash
# Regenerates the seed corpora from nvcc 13 output (run by hand; CI only
# reads the committed files). corpus/ptx: `nvcc -ptx` of seeds/*.cu plus a few
# hand-written edge cases; corpus/fatbin: the fatbin reader's test data.
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
for cu in seeds/*.cu; do
  n=$(basename "$cu" .cu)
  "$NVCC" -ptx -rdc=true "$cu" -o "corpus/ptx/$n.ptx"
done
"$NVCC" -ptx -arch=compute_90 seeds/reduce.cu -o corpus/ptx/reduce_sm90.ptx
cp ../unit/fatbin/data/*.fatbin corpus/fatbin/
# Seeds for the raw decompressor path (byte 0: 1 = LZ4 / 0 = zstd, bytes 1-2:
# output size 975, then the PTX payload of the vadd entry).
python3 - <<'PY'
d = open('corpus/fatbin/vadd_speed.fatbin', 'rb').read()
open('corpus/fatbin/raw_lz4_block.bin', 'wb').write(bytes([1, 975 & 255, 975 >> 8]) + d[3400:3400 + 521])
d = open('corpus/fatbin/vadd_default.fatbin', 'rb').read()
open('corpus/fatbin/raw_zstd_frame.bin', 'wb').write(bytes([0, 975 & 255, 975 >> 8]) + d[3400:3400 + 397])
PY
