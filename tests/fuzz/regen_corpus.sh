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
# corpus/loading (fuzz_loading): a few real containers and corrupted copies
# (container header size, payload size, a PTX typo, a .version too new).
cp corpus/fatbin/{vadd_default,vadd_compress_all,vadd_none,rdc_relfatbin}.fatbin corpus/loading/
python3 - <<'PY'
import struct
d = open('corpus/fatbin/vadd_none.fatbin', 'rb').read()
def patch(off, fmt, v):
    b = bytearray(d); struct.pack_into(fmt, b, off, v); return bytes(b)
open('corpus/loading/header_size_ffff.fatbin', 'wb').write(patch(6, '<H', 0xffff))
open('corpus/loading/payload_past_end.fatbin', 'wb').write(patch(8, '<Q', len(d)))
b = bytearray(d); i = b.find(b'.entry'); b[i + 1] = ord('x')
open('corpus/loading/ptx_typo.fatbin', 'wb').write(bytes(b))
b = bytearray(d); i = b.find(b'.version 9.0'); b[i + 11] = ord('9')  # newer than CUDA 13.0 reads
open('corpus/loading/ptx_version_newer.fatbin', 'wb').write(bytes(b))
PY
# corpus/runtime_api (fuzz_runtime_api): random byte strings (seeded) and
# valid_sequence.bin, hand-written: malloc, H2D, launch, sync, D2H, streams,
# events, a faulting launch, reset (see the op decoding in fuzz_runtime_api.cpp).
python3 - <<'PY'
import random
r = random.Random(7)
for i in range(5):
    open(f'corpus/runtime_api/random_{i}.bin', 'wb').write(bytes(r.randrange(256) for _ in range(200 + 60 * i)))
PY
