#!/usr/bin/env bash
# Measured beside predicted, kernel by kernel: builds the validation kernels
# (tests/cuda/timing/validation_kernels.cu) with nvcc, runs them natively on
# this machine's GPU (when nvidia-smi sees one) and under softgpu's timing
# model for the same GPU, and prints a markdown table for docs/validation.md
# (section "Native"): per kernel, measured, predicted and the error, and
# the MAPE. Without a GPU it prints the predictions alone. Then the same
# for the held-out GEMM program (tests/cuda/timing/heldout_gemm.cu,
# cublasLtMatmul f16 TN: NVIDIA's library natively, softgpu's under the
# model) at the shapes in $GEMM_SHAPES (default "1024 1024 1024 2048 2048
# 2048 4096 4096 4096"; empty: skipped): 10 warm-up and 100 timed calls
# natively, one of each predicted (minutes per 4096^3).
#
# Usage: scripts/native-validate.sh [--gpu KEY] [--out DIR] [-- PROGRAM ARGS]
#   --gpu KEY   softgpu config to predict with (default: from nvidia-smi's
#               name: a100, h100, h200, l4, rtx4090)
#   --out DIR   where measured.txt, predicted.txt and table.md go
#               (default: $OUT when set, else a new folder under /tmp)
#   PROGRAM ARGS  passed to both runs (e.g. --n 33554432 for smaller streams)
# Needs a built tree (scripts/setup.sh): build/src/tools/softgpu.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
softgpu=${SOFTGPU:-$root/build/src/tools/softgpu}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
gpu="" out=${OUT:-}
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --gpu) gpu=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; args=("$@"); break ;;
    *) echo "native-validate: unknown argument $1 (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
done
[ -x "$softgpu" ] || { echo "native-validate: $softgpu not built (run scripts/setup.sh)" >&2; exit 2; }
[ -x "$nvcc" ] || { echo "native-validate: nvcc not found (set NVCC)" >&2; exit 2; }
out=${out:-$(mktemp -d /tmp/native-validate.XXXXXX)}
mkdir -p "$out"

native=0 name="" cc=""
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  native=1
  name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
fi
if [ -z "$gpu" ]; then
  case "$name" in
    *H200*) gpu=h200 ;; *H100*) gpu=h100 ;; *A100*) gpu=a100 ;; *L4*) gpu=l4 ;; *4090*) gpu=rtx4090 ;;
    "") echo "native-validate: no GPU here; pass --gpu KEY for predictions alone" >&2; exit 2 ;;
    *) echo "native-validate: no softgpu config for '$name'; pass --gpu KEY" >&2; exit 2 ;;
  esac
fi
if [ -z "$cc" ]; then
  case $gpu in a100) cc=80 ;; h100|h200) cc=90 ;; l4|rtx4090) cc=89 ;; *) cc=80 ;; esac
fi

# SASS for the GPU, PTX for softgpu (it runs the PTX the binary embeds).
prog=$out/validation_kernels
"$nvcc" -cudart shared -O2 -gencode "arch=compute_$cc,code=[sm_$cc,compute_$cc]" -o "$prog" \
  "$root/tests/cuda/timing/validation_kernels.cu"

if [ $native = 1 ]; then
  echo "native-validate: measuring on $name" >&2
  "$prog" "${args[@]}" > "$out/measured.txt"
fi
echo "native-validate: predicting on softgpu's $gpu (this takes minutes at the default sizes)" >&2
# The model is deterministic: one repetition is its every repetition.
"$softgpu" run --timing --gpu "$gpu" -- "$prog" "${args[@]}" --reps 1 > "$out/predicted.txt"

gemm_shapes=${GEMM_SHAPES-1024 1024 1024 2048 2048 2048 4096 4096 4096}
if [ -n "$gemm_shapes" ]; then
  gemm=$out/heldout_gemm
  "$nvcc" -cudart shared -O2 -gencode "arch=compute_$cc,code=[sm_$cc,compute_$cc]" -o "$gemm" \
    "$root/tests/cuda/timing/heldout_gemm.cu" -lcublasLt
  # shellcheck disable=SC2086 # the shapes are words
  if [ $native = 1 ]; then "$gemm" --warmup 10 --iters 100 $gemm_shapes >> "$out/measured.txt"; fi
  # shellcheck disable=SC2086
  "$softgpu" run --timing --gpu "$gpu" -- "$gemm" --warmup 1 --iters 1 $gemm_shapes >> "$out/predicted.txt"
fi

python3 - "$out" "$gpu" "$name" <<'EOF'
import sys, datetime, os
out, gpu, name = sys.argv[1:4]
def read(path):
    rows = {}
    if not os.path.exists(path):
        return rows
    for line in open(path):
        if line.startswith("kernel="):
            f = dict(kv.split("=", 1) for kv in line.split())
            rows[f["kernel"]] = (float(f["value"]), f["unit"], float(f["us"]))
    return rows
meas, pred = read(f"{out}/measured.txt"), read(f"{out}/predicted.txt")
lines = [f"Native run on {name or 'no GPU (predictions only)'} against softgpu's `{gpu}`, "
         f"{datetime.date.today()} (`scripts/native-validate.sh`). Error = predicted / measured - 1.", "",
         "| kernel | unit | measured | predicted | error |", "|---|---|---|---|---|"]
errs = []
for k, (v, unit, _) in pred.items():
    if k in meas and meas[k][0] > 0:
        e = v / meas[k][0] - 1
        errs.append(abs(e))
        lines.append(f"| {k} | {unit} | {meas[k][0]:.1f} | {v:.1f} | {100 * e:+.0f}% |")
    else:
        lines.append(f"| {k} | {unit} | - | {v:.1f} | - |")
if errs:
    lines += ["", f"MAPE over {len(errs)} kernels: {100 * sum(errs) / len(errs):.0f}%"]
open(f"{out}/table.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
echo "native-validate: files in $out" >&2
