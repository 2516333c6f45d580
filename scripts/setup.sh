#!/usr/bin/env bash
# Installs what the build needs (Debian 12 packages) and builds softgpu into build/.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(cmake ninja-build g++ pkg-config libfmt-dev libcli11-dev nlohmann-json3-dev
      libtomlplusplus-dev libzstd-dev liblz4-dev libgtest-dev libgmock-dev libbenchmark-dev clang libclang-rt-14-dev)
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

jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo ${SOFTGPU_CMAKE_ARGS:-} >/dev/null
cmake --build build -j "$jobs"
