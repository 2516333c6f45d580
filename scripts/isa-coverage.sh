#!/usr/bin/env bash
# Regenerates docs/isa-coverage.md from the opcode and handler tables and the
# PTX of the test suite: the committed .ptx files and, where nvcc is present,
# the PTX nvcc emits for every CUDA test program (sm_80 and sm_90; the
# Hopper programs at sm_90a).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build --target isa_coverage >/dev/null
mapfile -t files < <(git ls-files '*.ptx' | sort)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
if [ -x "$NVCC" ]; then
  git ls-files 'tests/cuda/*.cu' 'tests/conformance/*.cu' | while read -r cu; do
    case $cu in  # wgmma and setmaxnreg need the sm_90a target
      tests/cuda/hopper/*|tests/conformance/conf_wgmma.cu) archs="sm_90a" ;;
      *) archs="sm_80 sm_90" ;;
    esac
    for arch in $archs; do
      echo "$cu $arch"
    done
  done | xargs -P "$(nproc)" -n 2 sh -c '
    out="$0"; out=$(echo "$out" | tr "/." "__")_$1.ptx
    "'"$NVCC"'" -ptx -arch=$1 -rdc=true -Itests/cuda -Itests/conformance "$0" -o "'"$tmp"'/$out" 2>/dev/null || true'
  mapfile -t -O "${#files[@]}" files < <(ls "$tmp"/*.ptx 2>/dev/null | sort)
fi
build/src/tools/isa_coverage "${files[@]}" > docs/isa-coverage.md
echo "wrote docs/isa-coverage.md from ${#files[@]} PTX files"
