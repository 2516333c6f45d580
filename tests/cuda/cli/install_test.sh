#!/usr/bin/env bash
# `cmake --install` gives a tree that works on its own: installs to a temp
# prefix, adds a GPU config only the prefix has, and from an unrelated cwd
# (no SOFTGPU_CONFIG_DIR) checks that the installed softgpu and its
# libcudart.so.13 both read their configs from the prefix, also after the
# tree is moved; with DRIVER_PROGRAM (tests/cuda/driver/driver_api), that
# the installed libcuda.so.1 runs a driver-API program too.
#   install_test.sh BUILD_DIR SOURCE_DIR PROGRAM DEVICE_QUERY [DRIVER_PROGRAM]
set -u
build=$1 src=$2 prog=$3 dq=$4 drv=${5:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then echo "ok $what"; else echo "FAIL $what"; fail=1; fi
}
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
check "bin/softgpu installed" test -x "$prefix/bin/softgpu"
check "lib/softgpu/libcudart.so.13 installed" test -f "$prefix/lib/softgpu/libcudart.so.13"
if [ -e "$build/src/cudart/libcublas.so.13" ]; then  # built only with nvcc
  check "lib/softgpu/libcublas.so.13 installed beside it" test -f "$prefix/lib/softgpu/libcublas.so.13"
fi
if [ -e "$build/src/cudart/libcuda.so.1" ]; then  # built only with cuda.h
  check "lib/softgpu/libcuda.so.1 installed beside it" test -f "$prefix/lib/softgpu/libcuda.so.1"
fi
if [ -e "$build/src/cudart/libnvJitLink.so.13" ]; then  # built only with nvJitLink.h
  check "lib/softgpu/libnvJitLink.so.13 installed beside it" test -f "$prefix/lib/softgpu/libnvJitLink.so.13"
fi
n_src=$(ls "$src"/configs/gpus/*.toml | wc -l)
n_inst=$(ls "$prefix"/share/softgpu/gpus/*.toml | wc -l)
check "all $n_src GPU configs installed" test "$n_src" = "$n_inst"
# A config that exists only in the prefix.
sed 's/^name = .*/name = "Install Test GPU"/' "$src/configs/gpus/a100.toml" >"$prefix/share/softgpu/gpus/installtest.toml"
cp "$prog" "$dq" $drv "$tmp/"
mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere" || exit 1
unset SOFTGPU_CONFIG_DIR SOFTGPU_GPU
for root in "$prefix" "$tmp/moved"; do
  if [ "$root" = "$tmp/moved" ]; then mv "$prefix" "$root"; fi
  out=$("$root/bin/softgpu" devices 2>&1)
  check "devices lists the prefix-only config ($root)" grep -q "^installtest .*Install Test GPU" <<<"$out"
  check "devices reads $root/share/softgpu/gpus" grep -qx "configs: $root/share/softgpu/gpus" <<<"$out"
  out=$("$root/bin/softgpu" run --gpu installtest "$tmp/$(basename "$prog")" 2>&1)
  check "installed run passes ($root)" grep -q "^PASS vector_add" <<<"$out"
  out=$("$root/bin/softgpu" run --gpu installtest "$tmp/$(basename "$dq")" 2>&1)
  check "the installed libcudart.so.13 reads the prefix configs ($root)" \
    grep -qx "name: Install Test GPU (softgpu)" <<<"$out"
  if [ -n "$drv" ]; then
    out=$("$root/bin/softgpu" run --gpu installtest "$tmp/$(basename "$drv")" ptx 2>&1)
    check "the installed libcuda.so.1 runs a driver-API program ($root)" grep -q "^PASS driver_api ptx" <<<"$out"
  fi
done
[ "$fail" = 0 ] || echo "last output: $out"
exit $fail
