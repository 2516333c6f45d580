#!/usr/bin/env bash
# softgpu sanitize's compute-sanitizer options that are accepted, refused or
# checked: sanitize_cli.sh SOFTGPU PROGRAM (PROGRAM: a correct CUDA program).
set -u
softgpu=$1 prog=$2
fail=0
# expect WANT_RC STDERR_SUBSTRING STDOUT_SUBSTRING -- ARGS...
expect() {
  local want_rc=$1 want_err=$2 want_out=$3
  shift 4
  local out err rc
  err=$({ out=$("$softgpu" "$@"); rc=$?; printf '%s\n' "$out" >&3; exit $rc; } 2>&1 3>"$tmp")
  rc=$?
  out=$(cat "$tmp")
  if [ "$rc" != "$want_rc" ] || [[ "$err" != *"$want_err"* ]] || [[ "$out" != *"$want_out"* ]]; then
    printf 'FAIL softgpu %s\n  exit %s, expected %s\n  stderr: %s\n  wanted in stderr: %s\n  stdout: %s\n  wanted in stdout: %s\n' \
      "$*" "$rc" "$want_rc" "$err" "$want_err" "$out" "$want_out"
    fail=1
  else
    echo "ok softgpu $*"
  fi
}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# --save, --xml, --suppressions: check_suppressions.py.
expect 2 "suppression file '/nonexistent.xml': cannot open" "" -- sanitize --suppressions /nonexistent.xml "$prog"
expect 2 "softgpu sanitize: --padding takes a number of bytes" "" -- sanitize --padding 12x "$prog"
expect 2 "softgpu sanitize: --watchdog must be a number of seconds" "" -- sanitize --watchdog abc "$prog"
# No program: a usage error before anything runs (no report, no summary).
expect 2 "softgpu sanitize: no program given" "" -- sanitize
expect 2 "softgpu sanitize: no program given" "" -- sanitize --tool racecheck --
expect 2 "--padding takes a number of bytes" "" -- sanitize --padding 2000000000 "$prog"
expect 2 "bogus not in {context,kernel}" "" -- sanitize --destroy-on-device-error bogus "$prog"
expect 2 "maybe not in {yes,no}" "" -- sanitize --check-device-heap maybe "$prog"
# Accepted: --nvtx yes (the program has no annotations: nothing changes).
expect 0 "" "ERROR SUMMARY: 0 errors" -- sanitize --nvtx yes "$prog"
expect 0 "" "ERROR SUMMARY: 0 errors" -- sanitize --nvtx=no --destroy-on-device-error=kernel --check-device-heap=no \
  --padding=256 --track-unused-memory=no "$prog"
# A program's own non-zero status: said unless --check-exit-code no.
expect 1 "" "Target application returned an error" -- sanitize -- /bin/false
out=$("$softgpu" sanitize --check-exit-code no -- /bin/false)
if [[ "$out" == *"Target application"* ]]; then echo "FAIL --check-exit-code no still reports: $out"; fail=1; fi
exit $fail
