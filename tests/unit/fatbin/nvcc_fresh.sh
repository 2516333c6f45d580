#!/usr/bin/env bash
# nvcc_fresh.sh FATBIN_CHECK: compiles a new kernel with the installed nvcc in
# the default and LZ4 modes plus a two-arch build, extracts .nv_fatbin with
# objcopy and checks the reader on it. Exit 77 (skip) without nvcc/objcopy.
set -euo pipefail
check=$1
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ] || ! command -v objcopy >/dev/null; then
  echo "nvcc or objcopy not found: skipping"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/k.cu" <<'CU'
__global__ void saxpy_fresh(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
CU
run() {  # run NAME PTX_ARCH EXPECTED_ARCH NVCC_FLAGS...
  local name=$1 parch=$2 arch=$3; shift 3
  "$NVCC" -c "$tmp/k.cu" -o "$tmp/$name.o" "$@"
  objcopy -O binary --only-section=.nv_fatbin "$tmp/$name.o" "$tmp/$name.fatbin"
  "$NVCC" -ptx -arch=compute_$parch "$tmp/k.cu" -o "$tmp/$name.ptx"
  echo -n "$name: "
  "$check" "$tmp/$name.fatbin" "$tmp/$name.ptx" "$arch" _Z11saxpy_freshfPKfPfi
}
run default 75 75
run speed 75 75 --compress-mode=speed
run none 75 75 --compress-mode=none
run twoarch 90 90 -gencode arch=compute_80,code=compute_80 -gencode arch=compute_90,code=[sm_90,compute_90]
