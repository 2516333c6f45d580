#!/usr/bin/env bash
# Regenerates the fatbin test data with nvcc 13 (no GPU needed). The tests
# only read the committed outputs, so they run on machines without nvcc.
#   vadd_<mode>.fatbin  .nv_fatbin section of `nvcc -c vadd.cu` per mode
#   rdc_linked.fatbin   .nv_fatbin of an -rdc=true executable (wrapper v2 data)
#   rdc_relfatbin.fatbin __nv_relfatbin of it: the per-object fatbins, back to back
#   *.ptx               `nvcc -ptx` output the embedded PTX is compared with
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

section() {  # section <object> <section> <out>
  objcopy -O binary --only-section="$2" "$1" "$3"
}
obj() {  # obj <name> <nvcc flags...>: compile vadd.cu, keep its .nv_fatbin
  local name=$1; shift
  "$NVCC" -c vadd.cu -o "$tmp/$name.o" "$@"
  section "$tmp/$name.o" .nv_fatbin "vadd_$name.fatbin"
}

obj default                                   # zstd PTX compute_75 + plain sm_75 ELF
obj speed --compress-mode=speed               # LZ4 block PTX
obj none --compress-mode=none                 # plain PTX
obj compress_all -Xfatbin -compress-all       # zstd PTX and zstd ELF
obj multi -gencode arch=compute_75,code=compute_75 \
          -gencode arch=compute_80,code=[sm_80,compute_80] \
          -gencode arch=compute_90,code=compute_90   # three PTX archs, highest 90
obj sass_only -gencode arch=compute_80,code=sm_80    # ELF only: no PTX

"$NVCC" -rdc=true a.cu b.cu -o "$tmp/rdc"
section "$tmp/rdc" .nv_fatbin rdc_linked.fatbin
section "$tmp/rdc" __nv_relfatbin rdc_relfatbin.fatbin

"$NVCC" -ptx vadd.cu -o vadd_sm75.ptx
"$NVCC" -ptx -arch=compute_90 vadd.cu -o vadd_sm90.ptx
"$NVCC" -ptx -rdc=true a.cu -o a_sm75.ptx
"$NVCC" -ptx -rdc=true b.cu -o b_sm75.ptx
