#!/usr/bin/env bash
# Input files that are not regular files, or too large: `softgpu check` and
# `--gpu FILE` refuse them at once, naming the file, with a non-zero exit
# (they used to read /dev/zero until std::bad_alloc, or block on a FIFO).
#   cli_inputs.sh SOFTGPU PROGRAM
set -u
softgpu=$1 prog=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
mkfifo "$dir/fifo"
truncate -s 1025M "$dir/big.ptx"   # sparse: over the 1 GiB PTX cap
truncate -s 2M "$dir/big.toml"     # over the 1 MiB config cap
# expect WANT_RC WANT_STDERR -- ARGS...: each call bounded by `timeout 20`
# (exit 124 = it hung).
expect() {
  local want_rc=$1 want=$2
  shift 3
  local err rc
  err=$(timeout 20 "$softgpu" "$@" 2>&1 >/dev/null </dev/null)
  rc=$?
  if [ "$rc" != "$want_rc" ] || [ "$err" != "$want" ]; then
    printf 'FAIL softgpu %s\n  exit %s, expected %s\n  stderr: %s\n  wanted: %s\n' "$*" "$rc" "$want_rc" "$err" "$want"
    fail=1
  else
    echo "ok softgpu $*"
  fi
}
C="softgpu check:"
expect 1 "$C '/dev/zero' is a character device, not a regular file" -- check /dev/zero
expect 1 "$C '/dev/urandom' is a character device, not a regular file" -- check /dev/urandom
expect 1 "$C '$dir/fifo' is a FIFO, not a regular file" -- check "$dir/fifo"
expect 1 "$C '$dir' is a directory, not a regular file" -- check "$dir"
expect 1 "$C '$dir/big.ptx' is too large: 1074790400 bytes (the limit is 1073741824)" -- check "$dir/big.ptx"
expect 1 "$C '$dir/missing.ptx': cannot open: No such file or directory" -- check "$dir/missing.ptx"
L="(\`softgpu devices\` lists them)"
G="softgpu run: GPU config file"
expect 2 "$G '/dev/zero' is a character device, not a regular file
$L" -- run --gpu /dev/zero "$prog"
expect 2 "$G '$dir/fifo' is a FIFO, not a regular file
$L" -- run --gpu "$dir/fifo" "$prog"
expect 2 "$G '$dir/big.toml' is too large: 2097152 bytes (the limit is 1048576)
$L" -- run --gpu "$dir/big.toml" "$prog"
exit $fail
