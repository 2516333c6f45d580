#!/usr/bin/env bash
# Runs the conformance corpus natively on a real NVIDIA GPU, with --all (no
# known-mismatch skipping), and keeps every program's full output for
# compare.py. Usage:
#   OUT=dir tests/conformance/run_device.sh [BIN_DIR]
# BIN_DIR holds prebuilt programs (e.g. BUILD/tests/cuda); programs missing
# there are built with the local nvcc into $OUT/bin. Sized for a few minutes
# on one GPU: builds run in parallel, each program runs in about a second.
# RUNNER="build/src/tools/softgpu run --" runs the same programs under softgpu
# instead, producing the other side for compare.py.
set -u
src=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-conformance-out}
mkdir -p "$out/bin"
bin=${1:-$out/bin}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
  "$nvcc" --version 2>&1 | tail -2 | sed 's/^/nvcc: /'
} > "$out/env.txt"
cat "$out/env.txt"

progs="conf_int conf_float conf_float_ftz conf_convert conf_half conf_approx conf_warp conf_atomic conf_lowp conf_wgmma conf_tma"
declare -A flags=([conf_float_ftz]="-DCONF_FTZ -ftz=true" [conf_lowp]="-arch=sm_90" [conf_tma]="-arch=sm_90"
                  [conf_wgmma]="-gencode arch=compute_90a,code=[sm_90a,compute_90a]")
declare -A source=([conf_float_ftz]=conf_float.cu)
for p in $progs; do
  if [ ! -x "$bin/$p" ]; then
    s=${source[$p]:-$p.cu}
    # shellcheck disable=SC2086
    "$nvcc" -cudart shared -O2 $(grep -qE -- "-arch|-gencode" <<<"${flags[$p]:-}" || echo -arch=sm_80) -Xcompiler -frounding-math ${flags[$p]:-} \
      -o "$out/bin/$p" "$src/$s" > "$out/$p.build.txt" 2>&1 &
  fi
done
wait
for p in $progs; do
  exe=$bin/$p
  [ -x "$exe" ] || exe=$out/bin/$p
  if [ ! -x "$exe" ]; then echo "$p: BUILD FAILED"; cat "$out/$p.build.txt"; continue; fi
  # shellcheck disable=SC2086
  timeout 120 ${RUNNER:-} "$exe" --all > "$out/$p.txt" 2> "$out/$p.err"
  rc=$?
  printf '%-16s rc=%-3s %s | OK %s MISMATCH %s DATA %s\n' "$p" "$rc" "$(grep -E '^[0-9]+ passed' "$out/$p.txt")" \
    "$(grep -c '^OK ' "$out/$p.txt")" "$(grep -c '^MISMATCH ' "$out/$p.txt")" "$(grep -c '^DATA ' "$out/$p.txt")"
  [ "$rc" = 0 ] || [ "$rc" = 1 ] && grep -qE '^[0-9]+ passed' "$out/$p.txt" || head -5 "$out/$p.err"
  grep '^MISMATCH ' "$out/$p.txt" | head -40
done | tee "$out/summary.txt"
rm -rf "$out/bin"
gzip -9 "$out"/conf_*.txt
