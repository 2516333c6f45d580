#!/usr/bin/env bash
# softgpu's one-line messages and exit codes for things it cannot run and
# for bad options.   cli_errors.sh SOFTGPU PROGRAM VERSION
#   PROGRAM: a working nvcc-built program (copied, truncated, chmod'ed here)
set -u
softgpu=$1 prog=$2 version=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
# expect WANT_RC WANT_STDERR_LINE -- ARGS...: stderr must be exactly that one line.
expect() {
  local want_rc=$1 want=$2
  shift 3
  local err rc
  err=$("$softgpu" "$@" 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" != "$want_rc" ] || [ "$err" != "$want" ]; then
    printf 'FAIL softgpu %s\n  exit %s, expected %s\n  stderr: %s\n  wanted: %s\n' "$*" "$rc" "$want_rc" "$err" "$want"
    fail=1
  else
    echo "ok softgpu $*"
  fi
}
size=$(stat -c %s "$prog")
head -c 3000 "$prog" >"$dir/truncated" && chmod +x "$dir/truncated"
head -c 40 "$prog" >"$dir/stub" && chmod +x "$dir/stub"
cp "$prog" "$dir/noexec" && chmod -x "$dir/noexec"
mkdir "$dir/subdir"
R="softgpu run: refusing to run:"
expect 126 "$R '$dir/subdir' is a directory, not a program" -- run "$dir/subdir"
expect 127 "softgpu run: program '$dir/missing' not found" -- run "$dir/missing"
expect 127 "softgpu run: program 'no-such-program-xyz' not found" -- run no-such-program-xyz
expect 126 "$R '$dir/noexec' is not executable (no execute permission)" -- run "$dir/noexec"
expect 126 "$R '$dir/stub' is truncated: 40 bytes, an ELF header needs 64" -- run "$dir/stub"
# The cut falls inside a loaded segment (which one depends on the linker).
err=$("$softgpu" run "$dir/truncated" 2>&1 >/dev/null); rc=$?
if [ "$rc" = 126 ] && [[ "$err" =~ ^"$R '$dir/truncated' is truncated: loadable segment "[0-9]+" ends at byte "[0-9]+" but the file has 3000 bytes"$ ]]; then
  echo "ok softgpu run truncated"
else
  printf 'FAIL softgpu run truncated: exit %s, stderr: %s\n' "$rc" "$err"; fail=1
fi
expect 2 "softgpu run: --threads must be a whole number from 1 to 4096, got '0'" -- run --threads 0 "$prog"
expect 2 "softgpu run: --threads must be a whole number from 1 to 4096, got '4097'" -- run --threads 4097 "$prog"
expect 2 "softgpu run: --threads must be a whole number from 1 to 4096, got 'many'" -- run --threads many "$prog"
expect 2 "softgpu run: --watchdog must be a number of seconds >= 0 (0 = no limit), got '-1'" -- run --watchdog -1 "$prog"
expect 2 "softgpu run: --watchdog must be a number of seconds >= 0 (0 = no limit), got 'inf'" -- run --watchdog=inf "$prog"
expect 2 "softgpu run: no program given (usage: softgpu run [options] [--] PROGRAM [ARGS...])" -- run
# --version: one line on stdout, exit 0.
out=$("$softgpu" --version); rc=$?
if [ "$rc" = 0 ] && [[ "$out" =~ ^"softgpu $version"( \(git [^\)]+\))?$ ]]; then
  echo "ok softgpu --version: $out"
else
  printf 'FAIL softgpu --version: exit %s, stdout: %s\n' "$rc" "$out"; fail=1
fi
# Valid options still run the program.
out=$("$softgpu" run --threads 2 --watchdog 0.5 "$prog" 2>&1); rc=$?
if [ "$rc" = 0 ]; then echo "ok valid options"; else echo "FAIL valid options: exit $rc: $out"; fail=1; fi
[ "$size" -gt 3000 ] || { echo "FAIL $prog is too small for the truncation test"; fail=1; }
exit $fail
