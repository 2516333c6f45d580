#!/usr/bin/env python3
"""Checks tests/timing/heldout.json: every held-out figure has a source
(repository, 40-hex commit, file, row, column), a positive value, a unit,
a GPU softgpu has a config for, a unique id, and comes from no benchmark a
config was calibrated from (docs/gpus.md: gpu-benches' gpu-latency,
gpu-l2-cache and gpu-small-kernels' stream launches; BabelStream) nor from
a calibrated row of one it shares (gpu-stream's blocks of 32 threads, from
which cta_launch_cycles is set; gpu-strides' float rows, from which
l1_lines_per_clock is set).

usage: check_heldout.py HELDOUT_JSON CONFIG_DIR
"""
import json
import os
import re
import sys

CALIBRATION = {"gpu-latency", "gpu-l2-cache", "gpu-small-kernels", "BabelStream"}
# (benchmark, row) pairs a config was calibrated from, in a benchmark
# whose other rows are held out.
CALIBRATION_ROWS = {("gpu-stream", "blockSize 32")}
# (benchmark, row prefix): every row so named is calibration.
CALIBRATION_ROW_PREFIXES = {("gpu-strides", "float stride")}


def main():
    path, config_dir = sys.argv[1:3]
    doc = json.load(open(path))
    gpus = {f[:-5] for f in os.listdir(config_dir) if f.endswith(".toml")}
    errors, ids = [], set()
    for e in doc["entries"]:
        i = e.get("id", "?")
        s = e.get("source", {})
        if i in ids:
            errors.append(f"{i}: duplicate id")
        ids.add(i)
        if not all(s.get(k) for k in ("repo", "file", "row", "column")):
            errors.append(f"{i}: source lacks repo, file, row or column")
        if not re.fullmatch(r"[0-9a-f]{40}", s.get("commit", "")):
            errors.append(f"{i}: source commit is not a 40-hex commit")
        if not (isinstance(e.get("value"), (int, float)) and e["value"] > 0) or not e.get("unit"):
            errors.append(f"{i}: no positive value with a unit")
        if e.get("gpu") not in gpus:
            errors.append(f"{i}: no config for GPU {e.get('gpu')}")
        if e.get("benchmark") in CALIBRATION:
            errors.append(f"{i}: {e['benchmark']} is a calibration input, not held out")
        if any(e.get("benchmark") == b and str(s.get("row", "")).startswith(r) for b, r in CALIBRATION_ROW_PREFIXES):
            errors.append(f"{i}: {e['benchmark']} {s.get('row')} is a calibration input, not held out")
        if (e.get("benchmark"), s.get("row")) in CALIBRATION_ROWS:
            errors.append(f"{i}: {e['benchmark']} {s.get('row')} is a calibration input, not held out")
    for m in errors:
        print("FAIL", m)
    print(f"{len(doc['entries'])} held-out figures, {len(errors)} problems")
    return 1 if errors or not doc["entries"] else 0


if __name__ == "__main__":
    sys.exit(main())
