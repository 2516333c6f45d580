#!/usr/bin/env bash
# nvcc_wrapper.sh PROBE_DIR DATA_DIR: builds programs with nvcc -cudart shared
# and runs them against the probe libcudart.so.13 in PROBE_DIR, checking what
# read_wrapper finds in the real wrappers. Exit 77 (skip) without nvcc.
set -euo pipefail
probe=$1 data=$2
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "nvcc not found: skipping"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'int main() { return 0; }\n' > "$tmp/main.cu"
expect() {  # expect EXE PATTERN
  local out
  out=$(LD_LIBRARY_PATH="$probe" "$1" 2>&1)
  echo "$out"
  if ! grep -qE "$2" <<<"$out"; then echo "FAIL: expected /$2/"; exit 1; fi
}
"$NVCC" -cudart shared "$data/vadd.cu" "$tmp/main.cu" -o "$tmp/whole"
expect "$tmp/whole" "probe: wrapper v1, 0 prelinked, 1 modules: sm_75\+entry$"
"$NVCC" -cudart shared -rdc=true "$data/a.cu" "$data/b.cu" -o "$tmp/rdc"
# a.cu's module has the kernel; b.cu's only a device function and a global.
expect "$tmp/rdc" "probe: wrapper v2, 2 prelinked, 2 modules: sm_75\+entry sm_75$"
"$NVCC" -cudart shared -gencode arch=compute_80,code=sm_80 "$data/vadd.cu" "$tmp/main.cu" -o "$tmp/sass"
expect "$tmp/sass" "probe: error 209: .*no PTX.*sm_80"
echo "all wrapper probes passed"
