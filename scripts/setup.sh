#!/usr/bin/env bash
# Installs what the build needs (Debian 12 packages) and builds softgpu into build/.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(cmake ninja-build g++ pkg-config libfmt-dev libcli11-dev nlohmann-json3-dev
      libtomlplusplus-dev libtinyxml2-dev libzstd-dev liblz4-dev libgtest-dev libgmock-dev libbenchmark-dev clang libclang-rt-14-dev
      llvm-16-dev python3-venv nettle-dev)  # llvm-16-dev: the JIT (src/jit); python3-venv: the Python tests;
      # nettle-dev: HMAC-MD2 for the static CUDA runtime's driver check (src/cudadrv/export_tables.cpp)
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

# Numba-CUDA and its CUDA Python packages (PyPI), in a virtual environment
# at build/_deps/pyenv, for the Python tests (tests/cuda/python). Remade when
# the pinned list changes. Optional: without PyPI those tests are skipped.
pyenv=build/_deps/pyenv
pyreq=tests/cuda/python/requirements.txt
if command -v python3 >/dev/null && ! cmp -s "$pyreq" "$pyenv/requirements.txt"; then
  rm -rf "$pyenv"
  mkdir -p build/_deps
  if python3 -m venv "$pyenv" >/dev/null 2>&1 &&
     "$pyenv/bin/python" -m pip install -q --disable-pip-version-check --timeout 20 --retries 1 -r "$pyreq" \
       >/dev/null 2>&1; then
    cp "$pyreq" "$pyenv/requirements.txt"
  else
    echo "setup: could not install $pyreq from PyPI; the Python tests will be skipped"
    rm -rf "$pyenv"
  fi
fi

jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${cutlass_args[@]}" ${SOFTGPU_CMAKE_ARGS:-} >/dev/null
cmake --build build -j "$jobs"
