#!/usr/bin/env bash
# Installs what the build needs (Debian 12 packages) and builds softgpu into build/.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(cmake ninja-build g++ pkg-config libfmt-dev libcli11-dev nlohmann-json3-dev
      libtomlplusplus-dev libtinyxml2-dev libzstd-dev liblz4-dev libgtest-dev libgmock-dev libbenchmark-dev clang libclang-rt-14-dev
      llvm-16-dev)  # llvm-16-dev: the JIT (src/jit)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi

# CUTLASS's headers and examples (NVIDIA's nvidia-cutlass wheel from PyPI,
# unpacked into build/_deps) for the tests that run CUTLASS's own Hopper code
# (tests/cuda/hopper: cute_gmma, cute_tma_gemm). Optional: without PyPI they
# are skipped.
cutlass_version=4.2.0.0
cutlass=build/_deps/nvidia-cutlass-$cutlass_version
cutlass_inc=$cutlass/cutlass_library/source/include
if [ ! -f "$cutlass_inc/cute/tensor.hpp" ] && command -v python3 >/dev/null; then
  mkdir -p build/_deps
  if python3 -m pip download -q --no-deps --only-binary=:all: --timeout 20 --retries 1 -d build/_deps \
       "nvidia-cutlass==$cutlass_version" >/dev/null 2>&1; then
    python3 -m zipfile -e build/_deps/nvidia_cutlass-"$cutlass_version"-*.whl "$cutlass" >/dev/null 2>&1 || true
  fi
fi
cutlass_args=()
[ -f "$cutlass_inc/cute/tensor.hpp" ] && cutlass_args=(-DSOFTGPU_CUTLASS_INCLUDE="$PWD/$cutlass_inc")

jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${cutlass_args[@]}" ${SOFTGPU_CMAKE_ARGS:-} >/dev/null
cmake --build build -j "$jobs"
