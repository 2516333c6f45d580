#!/usr/bin/env bash
# softgpu run forwards every terminating signal sent to it to the program,
# reaps it and exits like a shell (128 + signal); if softgpu itself is killed
# (SIGKILL), the program dies too.   cli_signals.sh SOFTGPU SIGNAL_CHILD
set -u
softgpu=$1 child=$2
fail=0
# Alive: exists and is not a zombie (an orphan's zombie lingers where PID 1
# does not reap).
alive() { [ -r "/proc/$1/stat" ] && ! sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | grep -q '^Z'; }
for sig in TERM INT HUP QUIT USR1 USR2 ALRM VTALRM PROF PIPE; do
  dir=$(mktemp -d)
  "$softgpu" run "$child" "$dir/ready" >"$dir/out" &
  pid=$!
  for _ in $(seq 200); do [ -e "$dir/ready" ] && break; sleep 0.05; done
  [ -e "$dir/ready" ] || { echo "FAIL SIG$sig: the program did not start"; fail=1; }
  cpid=$(cat "$dir/ready")
  kill -s "$sig" "$pid"
  for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "FAIL SIG$sig: softgpu still running 10 s after the signal"
    kill -KILL "$cpid" "$pid" 2>/dev/null
    fail=1
  fi
  wait "$pid"
  rc=$?
  num=$(kill -l "$sig")
  want=$((128 + num))
  got=$(sed -n 's/^got //p' "$dir/out")
  if [ "$rc" != "$want" ]; then echo "FAIL SIG$sig: softgpu exited $rc, expected $want"; fail=1; fi
  if [ "$got" != "$num" ]; then echo "FAIL SIG$sig: the program received '$got', expected $num"; fail=1; fi
  # The program is gone (softgpu reaped it: it reported its status).
  if kill -0 "$cpid" 2>/dev/null; then echo "FAIL SIG$sig: the program $cpid is still running"; kill -KILL "$cpid"; fail=1; fi
  [ "$fail" = 0 ] && echo "ok SIG$sig: forwarded, exit $rc"
  rm -rf "$dir"
done

# SIGKILL cannot be forwarded: the program must die with softgpu.
dir=$(mktemp -d)
"$softgpu" run "$child" "$dir/ready" >"$dir/out" &
pid=$!
for _ in $(seq 200); do [ -e "$dir/ready" ] && break; sleep 0.05; done
if [ -e "$dir/ready" ]; then
  cpid=$(cat "$dir/ready")
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null
  for _ in $(seq 200); do alive "$cpid" || break; sleep 0.05; done
  if alive "$cpid"; then
    echo "FAIL SIGKILL: the program $cpid outlived softgpu by 10 s"
    kill -KILL "$cpid"
    fail=1
  else
    echo "ok SIGKILL: the program died with softgpu"
  fi
else
  echo "FAIL SIGKILL: the program did not start"
  fail=1
fi
rm -rf "$dir"
exit $fail
